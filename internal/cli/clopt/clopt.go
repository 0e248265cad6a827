// Package clopt parses command lines the way LLVM's cl::opt library does,
// for the drop-in personalities (llvm-offload-binary, clang-offload-bundler):
// "-name" and "--name" are the same option, values are given as
// "-name=value" or "-name value", booleans accept "=true|false|1|0",
// list options may split values on commas, and "--" ends option parsing.
// Error texts copy LLVM's so scripts that match on them keep working.
package clopt

import (
	"fmt"
	"sort"
	"strings"
)

// Opt describes one option.
type Opt struct {
	Name  string // without dashes
	Value bool   // takes a value
	Comma bool   // value is a comma-separated list (cl::CommaSeparated)
	Help  string // cl::desc; a multi-line text is printed line by line
	// Meta is the value's name in help (cl::value_desc, or the parser's
	// default name, such as "uint"), without angle brackets: "file"
	// prints "-o <file>". Empty means "string", as for parser<string>.
	Meta string
	// Hidden (cl::Hidden): listed only by --help-hidden and
	// --help-list-hidden.
	Hidden bool
	// Unlisted: in no help listing at all (cl::ReallyHidden). The tools'
	// own -h is such an option: it has no category, so
	// cl::HideUnrelatedOptions hides it entirely.
	Unlisted bool

	generic bool // one of cl::opt's own options ("Generic Options")
	action  bool // --help and --version: acts when met (see Result.Action)
	// helpOnly: listed by the hidden help forms as LLVM lists it, but
	// deliberately not accepted (--print-options, --print-all-options:
	// an unknown-option error; a documented difference, docs/bundle.md)
	helpOnly bool
}

// Set is a table of options for one program.
type Set struct {
	Prog string // stem used in messages, e.g. "llvm-offload-binary"
	Path string // argv[0] as typed, used in "Try: '<path> --help'"
	// Opts are the tool's own options; cl::opt's generic ones (--help,
	// --version, ...) are added by the package.
	Opts []Opt
	// NoPositional: the tool takes no positional arguments, so each one
	// (also after "--") is an "Unknown command line argument" error.
	NoPositional bool

	// For help: Overview is the text after "OVERVIEW: " (with its own
	// trailing newline, as the tools pass it to cl::ParseCommandLineOptions),
	// Positional the positional argument's description on the USAGE line
	// ("" when there is none) and Category the name of the tool's
	// cl::OptionCategory, under which --help lists Opts.
	Overview   string
	Positional string
	Category   string
}

// The names of cl::opt's generic options.
const (
	Help           = "help"
	HelpList       = "help-list"
	HelpHidden     = "help-hidden"
	HelpListHidden = "help-list-hidden"
	Version        = "version"
)

// genericOpts are the options cl::opt gives every tool, in its "Generic
// Options" category.
func genericOpts() []Opt {
	return []Opt{
		{Name: Help, Help: "Display available options (--help-hidden for more)", action: true},
		{Name: HelpList, Help: "Display list of available options (--help-list-hidden for more)", Hidden: true, action: true},
		{Name: HelpHidden, Help: "Display all available options", Hidden: true, action: true},
		{Name: HelpListHidden, Help: "Display list of all available options", Hidden: true, action: true},
		{Name: "print-options", Help: "Print non-default options after command line parsing", Hidden: true, helpOnly: true},
		{Name: "print-all-options", Help: "Print all option values after command line parsing", Hidden: true, helpOnly: true},
		{Name: Version, Help: "Display the version of this program", action: true},
	}
}

// all returns the tool's options and the generic ones, each marked.
func (s *Set) all() []Opt {
	g := genericOpts()
	for i := range g {
		g[i].generic = true
	}
	return append(append([]Opt(nil), s.Opts...), g...)
}

// Result holds what was parsed.
type Result struct {
	Values     map[string][]string // option name → values, in order ("true"/"false" for flags)
	Positional []string
	// Action is the help or version option (Help, HelpList, HelpHidden,
	// HelpListHidden or Version) that ended parsing, or "". As in LLVM,
	// such an option acts as soon as it is met: the arguments after it are
	// not looked at, and the tool prints what it asks for and exits 0,
	// after printing the errors of the arguments before it.
	Action string
}

// Has reports whether the option occurred.
func (r *Result) Has(name string) bool { _, ok := r.Values[name]; return ok }

// Last returns the last value of an option ("" if absent).
func (r *Result) Last(name string) string {
	v := r.Values[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// All returns every value of an option.
func (r *Result) All(name string) []string { return r.Values[name] }

// Bool returns a flag's final state.
func (r *Result) Bool(name string) bool {
	v := r.Last(name)
	return v == "true" || v == "1" || v == "TRUE" || v == "True"
}

// Error is a command-line error; Text is the complete multi-line message
// LLVM would print (each line already prefixed with the program name).
type Error struct{ Text string }

func (e *Error) Error() string { return strings.TrimRight(e.Text, "\n") }

// find returns the option called name, nil if there is none (or it is
// one listed in help only).
func (s *Set) find(opts []Opt, name string) *Opt {
	for i := range opts {
		if opts[i].Name == name && !opts[i].helpOnly {
			return &opts[i]
		}
	}
	return nil
}

// Parse parses args (without argv[0]). As LLVM does, it reports every bad
// argument, in order, rather than stopping at the first: the *Error's text
// holds them all, and the Result what was parsed anyway (callers append
// LLVM's later checks, such as a missing required option, to the text).
func (s *Set) Parse(args []string) (*Result, error) {
	var bad strings.Builder
	opts := s.all()
	r := &Result{Values: map[string][]string{}}
	add := func(o *Opt, v string) {
		if o.Comma {
			r.Values[o.Name] = append(r.Values[o.Name], strings.Split(v, ",")...)
		} else {
			r.Values[o.Name] = append(r.Values[o.Name], v)
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for _, p := range args[i+1:] {
				s.positional(r, &bad, p)
			}
			break
		}
		if len(a) < 2 || a[0] != '-' {
			s.positional(r, &bad, a)
			continue
		}
		body := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, val, hasVal := strings.Cut(body, "=")
		o := s.find(opts, name)
		if o == nil {
			bad.WriteString(s.unknown(opts, a, name).Text)
			continue
		}
		if o.action {
			if hasVal { // cl::ValueDisallowed
				fmt.Fprintf(&bad, "%s: for the %s option: does not allow a value! '%s' specified.\n", s.Prog, dashes(o.Name), val)
				continue
			}
			r.Values[o.Name] = append(r.Values[o.Name], "true")
			r.Action = o.Name
			break
		}
		if !o.Value {
			if hasVal {
				switch val {
				case "true", "TRUE", "True", "1":
					val = "true"
				case "false", "FALSE", "False", "0":
					val = "false"
				default:
					fmt.Fprintf(&bad, "%s: for the %s option: '%s' is invalid value for boolean argument! Try 0 or 1\n", s.Prog, dashes(o.Name), val)
					continue
				}
				r.Values[o.Name] = append(r.Values[o.Name], val)
			} else {
				r.Values[o.Name] = append(r.Values[o.Name], "true")
			}
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				fmt.Fprintf(&bad, "%s: for the %s option: requires a value!\n", s.Prog, dashes(o.Name))
				break
			}
			i++
			val = args[i]
		}
		add(o, val)
	}
	if bad.Len() > 0 {
		return r, &Error{Text: bad.String()}
	}
	return r, nil
}

func (s *Set) positional(r *Result, bad *strings.Builder, a string) {
	if s.NoPositional {
		fmt.Fprintf(bad, "%s: Unknown command line argument '%s'.  Try: '%s --help'\n", s.Prog, a, s.Path)
		return
	}
	r.Positional = append(r.Positional, a)
}

func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// unknown builds LLVM's two-line unknown-argument message with a
// nearest-option suggestion.
func (s *Set) unknown(opts []Opt, arg, name string) *Error {
	text := fmt.Sprintf("%s: Unknown command line argument '%s'.  Try: '%s --help'\n", s.Prog, arg, s.Path)
	best, bestD := "", 1<<30
	var cands []string
	for _, o := range opts {
		// Never one in no help listing, as LLVM's LookupNearestOption
		// skips cl::ReallyHidden options.
		if !o.helpOnly && !o.Unlisted {
			cands = append(cands, o.Name)
		}
	}
	sort.Strings(cands)
	for _, c := range cands {
		if d := EditDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" {
		text += fmt.Sprintf("%s: Did you mean '%s'?\n", s.Prog, dashes(best))
	}
	return &Error{Text: text}
}

// Known reports whether name (without dashes) is one of the set's options
// or cl::opt's generic ones.
func (s *Set) Known(name string) bool { return s.find(s.all(), name) != nil }

// EditDistance is the Levenshtein distance between a and b, the measure
// of LLVM's nearest-option suggestion (and offload-packager's).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
