package optable

import (
	"io"
	"sort"
	"strings"
)

// maxHelpColumn is the longest option text that LLVM widens the option
// column for; longer ones put their help on the next line.
const maxHelpColumn = 23

// HelpName is the option as --help lists it: its spelling and, for options
// that take a value, the metavar (default "<value>"), after a space for
// separate values (LLVM's getOptionHelpName).
func (o *Option) HelpName() string {
	mv := o.MetaVar
	if mv == "" {
		mv = "<value>"
	}
	switch o.Kind {
	case Joined, CommaJoined:
		return o.Spelling() + mv
	case Separate, JoinedOrSeparate:
		return o.Spelling() + " " + mv
	}
	return o.Spelling()
}

// compareNames orders option names as LLVM's generated tables are sorted
// (StrCmpOptionName): ASCII case-insensitively, a name after every longer
// name it is a prefix of, then case-sensitively.
func compareNames(a, b string) int {
	n := min(len(a), len(b))
	if c := strings.Compare(strings.ToLower(a[:n]), strings.ToLower(b[:n])); c != 0 {
		return c
	}
	if len(a) != len(b) {
		if len(a) == n {
			return 1
		}
		return -1
	}
	return strings.Compare(a, b)
}

// WriteHelp prints the table's --help page as LLVM's OptTable::printHelp
// lays it out: "OVERVIEW: <title>", "USAGE: <usage>" and an OPTIONS list of
// every option with help text (Hidden ones only with showHidden), in
// LLVM's option order. The option column is as wide as the longest option
// text of at most 23 characters; longer options put their help on the
// next line. Help lines start one space after the column; further lines
// of a multi-line help text are indented to the same place.
func (t *Table) WriteHelp(w io.Writer, usage, title string, showHidden bool) error {
	var b strings.Builder
	b.WriteString("OVERVIEW: " + title + "\n\nUSAGE: " + usage + "\n\nOPTIONS:\n")
	type row struct{ name, help string }
	var rows []row
	opts := append([]*Option(nil), t.opts...)
	sort.SliceStable(opts, func(i, j int) bool { return compareNames(opts[i].Name, opts[j].Name) < 0 })
	width := 0
	for _, o := range opts {
		if o.Help == "" || o.Hidden && !showHidden {
			continue
		}
		r := row{o.HelpName(), o.Help}
		if o.Extension {
			r.help += " [offload-kit]"
		}
		if len(r.name) <= maxHelpColumn {
			width = max(width, len(r.name))
		}
		rows = append(rows, r)
	}
	const indent = 2
	for _, r := range rows {
		b.WriteString(strings.Repeat(" ", indent) + r.name)
		pad := width - len(r.name)
		if pad < 0 {
			b.WriteString("\n")
			pad = width + indent
		}
		for i, line := range strings.Split(r.help, "\n") {
			if i > 0 {
				pad = width + indent
			}
			b.WriteString(strings.Repeat(" ", pad+1) + line + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// IDs of the options HelpOptions defines.
const (
	HelpID       ID = "help"
	HelpHiddenID ID = "help_hidden"
)

// HelpOptions are LLVM's --help and --help-hidden, with the help texts
// every LLVM OptTable tool gives them, spelled with the given prefixes.
func HelpOptions(prefixes []string) []Option {
	return []Option{
		{ID: HelpID, Prefixes: prefixes, Name: "help", Kind: Flag, Help: "Display available options (--help-hidden for more)"},
		{ID: HelpHiddenID, Prefixes: prefixes, Name: "help-hidden", Kind: Flag, Help: "Display all available options"},
	}
}
