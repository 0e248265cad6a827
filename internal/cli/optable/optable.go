// Package optable parses command lines the way LLVM's OptTable does: options
// with one or two dashes (or '/' for link.exe spellings), values joined to
// the option or in the next argument, longest-name-first matching, aliases
// rendered with the aliased option's spelling, and GNU-quoted response files.
// Arguments that match no option are kept in order, as inputs or unknowns, so
// a wrapper can forward them verbatim.
package optable

import (
	"fmt"
	"sort"
	"strings"

	"github.com/offload-kit/offload-kit/internal/enumname"
)

// ID identifies an option of a client's table. Clients declare their IDs
// as typed constants (const optHelp optable.ID = "help") and switch on
// them, so a misspelt ID is a compile error rather than a silently dead
// case.
type ID string

// Kind is how an option takes its value.
type Kind int

const (
	Flag             Kind = iota // "-r": no value; the argument must match exactly
	Joined                       // "--linker-path=<v>": the rest of the argument
	Separate                     // "-mllvm <v>": the next argument
	JoinedOrSeparate             // "-lomp" or "-l omp"
	CommaJoined                  // "-Wl,a,b": the rest, split on ','
)

var kindNames = []string{Flag: "Flag", Joined: "Joined", Separate: "Separate",
	JoinedOrSeparate: "JoinedOrSeparate", CommaJoined: "CommaJoined"}

func (k Kind) String() string { return enumname.Name(kindNames, k, "Kind") }

// Option describes one spelling family. Name includes a trailing '=' for
// "--x=" options, as in LLVM's .td files.
type Option struct {
	ID       ID       // the client's identifier; aliases point at it
	Prefixes []string // e.g. {"--", "-"}; the first one is used when an alias renders
	Name     string
	Kind     Kind
	Alias    ID     // ID of the option this one stands for ("" if none)
	Flags    uint32 // client-defined bits (e.g. "wrapper only")
	Help     string
	MetaVar  string // the value's name in help ("<value>" if empty)
	Hidden   bool   // listed by --help-hidden only
	// Extension marks an option that offload-kit adds to LLVM's table;
	// its help line ends in " [offload-kit]".
	Extension bool
}

// Spelling is the option's first prefix followed by its name.
func (o *Option) Spelling() string {
	if len(o.Prefixes) == 0 {
		return o.Name
	}
	return o.Prefixes[0] + o.Name
}

// Table is an immutable set of options.
type Table struct {
	opts     []*Option
	byID     map[ID]*Option
	prefixes []string // union of all prefixes, longest first
}

// New checks opts (unique IDs, aliases that resolve to non-aliases) and
// builds a table.
func New(opts []Option) (*Table, error) {
	t := &Table{byID: make(map[ID]*Option, len(opts))}
	seen := map[string]bool{}
	for i := range opts {
		o := &opts[i]
		if o.ID == "" || o.Name == "" {
			return nil, fmt.Errorf("optable: option %d: empty ID or name", i)
		}
		if _, dup := t.byID[o.ID]; dup {
			return nil, fmt.Errorf("optable: duplicate option ID %q", o.ID)
		}
		if len(o.Prefixes) == 0 {
			return nil, fmt.Errorf("optable: option %q has no prefix", o.ID)
		}
		t.byID[o.ID] = o
		t.opts = append(t.opts, o)
		for _, p := range o.Prefixes {
			if p == "" {
				return nil, fmt.Errorf("optable: option %q has an empty prefix", o.ID)
			}
			if !seen[p] {
				seen[p] = true
				t.prefixes = append(t.prefixes, p)
			}
		}
	}
	for _, o := range t.opts {
		if o.Alias == "" {
			continue
		}
		a, ok := t.byID[o.Alias]
		if !ok {
			return nil, fmt.Errorf("optable: option %q aliases unknown %q", o.ID, o.Alias)
		}
		if a.Alias != "" {
			return nil, fmt.Errorf("optable: option %q aliases another alias %q", o.ID, o.Alias)
		}
	}
	sort.Slice(t.prefixes, func(i, j int) bool { return len(t.prefixes[i]) > len(t.prefixes[j]) })
	return t, nil
}

// MustNew is New for tables written in the source; it panics on an invalid table.
func MustNew(opts []Option) *Table {
	t, err := New(opts)
	if err != nil {
		panic(err)
	}
	return t
}

// Lookup returns the option with the given ID, or nil.
func (t *Table) Lookup(id ID) *Option { return t.byID[id] }

// Options returns the table's options in definition order.
func (t *Table) Options() []*Option { return t.opts }

// Arg is one parsed argument.
type Arg struct {
	// Opt is the option after alias resolution; nil for inputs and unknowns.
	Opt *Option
	// Spelling is the option text as rendered: the spelling used on the
	// command line, or for an alias the aliased option's first spelling.
	Spelling string
	Values   []string
	// Index is the position of the (first) argument in the expanded argv.
	Index int
	// Unknown is set for arguments that look like options but match none.
	Unknown bool
	// Raw holds the original argument strings consumed.
	Raw []string
}

// IsInput reports whether the argument is a positional input.
func (a *Arg) IsInput() bool { return a.Opt == nil && !a.Unknown }

// Is reports whether the argument is (an alias of) the option with this ID.
func (a *Arg) Is(id ID) bool { return a.Opt != nil && a.Opt.ID == id }

// Value returns the first value, or "".
func (a *Arg) Value() string {
	if len(a.Values) == 0 {
		return ""
	}
	return a.Values[0]
}

// Render appends the argument as LLVM's Arg::render writes it: inputs and
// unknowns verbatim, JoinedOrSeparate and Separate values as a separate
// argument, Joined values joined.
func (a *Arg) Render(dst []string) []string {
	if a.Opt == nil {
		return append(dst, a.Values...)
	}
	switch a.Opt.Kind {
	case Flag:
		return append(dst, a.Spelling)
	case Joined:
		return append(dst, a.Spelling+a.Value())
	case CommaJoined:
		return append(dst, a.Spelling+strings.Join(a.Values, ","))
	default:
		return append(dst, a.Spelling, a.Value())
	}
}

// MissingArgError reports an option whose separate value is missing.
type MissingArgError struct {
	Spelling string
	Index    int
}

func (e *MissingArgError) Error() string { return e.Spelling + ": missing argument" }

type candidate struct {
	opt    *Option
	prefix string
}

// isInput follows LLVM: "-" and anything not starting with a known prefix.
func (t *Table) isInput(s string) bool {
	if s == "-" {
		return true
	}
	for _, p := range t.prefixes {
		if strings.HasPrefix(s, p) {
			return false
		}
	}
	return true
}

// Parse parses args (already expanded; see ExpandResponseFiles). Every
// argument is returned in order. The only error is *MissingArgError.
func (t *Table) Parse(args []string) ([]Arg, error) {
	out := make([]Arg, 0, len(args))
	for i := 0; i < len(args); {
		a, n, err := t.parseOne(args, i)
		if err != nil {
			return out, err
		}
		out = append(out, a)
		i += n
	}
	return out, nil
}

func (t *Table) candidates(s string) []candidate {
	var cs []candidate
	for _, o := range t.opts {
		best := ""
		for _, p := range o.Prefixes {
			if len(p) > len(best) && strings.HasPrefix(s, p) && strings.HasPrefix(s[len(p):], o.Name) {
				best = p
			}
		}
		if best != "" {
			cs = append(cs, candidate{o, best})
		}
	}
	// Longest name first, as LLVM's sorted table (with '\0' last) tries them.
	sort.SliceStable(cs, func(i, j int) bool {
		return len(cs[i].opt.Name) > len(cs[j].opt.Name)
	})
	return cs
}

func (t *Table) parseOne(args []string, i int) (Arg, int, error) {
	s := args[i]
	if t.isInput(s) {
		return Arg{Values: []string{s}, Index: i, Raw: []string{s}}, 1, nil
	}
	for _, c := range t.candidates(s) {
		spell := c.prefix + c.opt.Name
		rest := s[len(spell):]
		var vals []string
		n := 1
		switch c.opt.Kind {
		case Flag:
			if rest != "" {
				continue
			}
		case Joined:
			vals = []string{rest}
		case CommaJoined:
			vals = strings.Split(rest, ",")
		case Separate:
			if rest != "" {
				continue
			}
			if i+1 >= len(args) {
				return Arg{}, 0, &MissingArgError{Spelling: spell, Index: i}
			}
			vals, n = []string{args[i+1]}, 2
		case JoinedOrSeparate:
			if rest != "" {
				vals = []string{rest}
				break
			}
			if i+1 >= len(args) {
				return Arg{}, 0, &MissingArgError{Spelling: spell, Index: i}
			}
			vals, n = []string{args[i+1]}, 2
		}
		opt := c.opt
		if opt.Alias != "" {
			opt = t.byID[opt.Alias]
			spell = opt.Spelling()
		}
		return Arg{Opt: opt, Spelling: spell, Values: vals, Index: i, Raw: args[i : i+n]}, n, nil
	}
	if strings.HasPrefix(s, "/") {
		return Arg{Values: []string{s}, Index: i, Raw: []string{s}}, 1, nil
	}
	return Arg{Values: []string{s}, Index: i, Unknown: true, Raw: []string{s}}, 1, nil
}
