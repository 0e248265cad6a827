package clopt

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/offload-kit/offload-kit/internal/version"
)

// genericCategory is the name of cl::opt's category for its own options.
const genericCategory = "Generic Options"

// WriteHelp prints the help text that LLVM 22's cl::opt prints for this
// table: cl::PrintHelpMessage(hidden, categorized). --help is the
// categorized form, --help-list the flat one, and their -hidden variants
// also list the hidden options; a tool's own "print usage" (no arguments
// to llvm-offload-binary, or -h) is the flat form without hidden options.
func (s *Set) WriteHelp(w io.Writer, categorized, hidden bool) {
	// With no category of its own, a tool has only the flat form.
	categorized = categorized && s.Category != ""
	var b strings.Builder
	if s.Overview != "" {
		b.WriteString("OVERVIEW: " + s.Overview + "\n")
	}
	b.WriteString("USAGE: " + s.Prog + " [options]")
	if s.Positional != "" {
		b.WriteString(" " + s.Positional)
	}
	b.WriteString("\n\nOPTIONS:\n")

	var listed []Opt
	for _, o := range s.all() {
		// --help-list is hidden, but cl::opt unhides it when --help picks
		// the categorized form, so that the flat form can be found.
		shown := !o.Hidden || hidden || categorized && o.Name == HelpList
		if shown && !o.Unlisted {
			listed = append(listed, o)
		}
	}
	// Sorted by name (strcmp); the width is that of the widest listed
	// option, in every category.
	slices.SortFunc(listed, func(a, b Opt) int { return strings.Compare(a.Name, b.Name) })
	width := 0
	for _, o := range listed {
		width = max(width, o.width())
	}

	if !categorized {
		for _, o := range listed {
			o.writeInfo(&b, width)
		}
		io.WriteString(w, b.String())
		return
	}
	// Categories sorted by name ("Generic Options" sorts before the
	// lower-case tool category); empty ones are left out.
	cats := []string{genericCategory, s.Category}
	slices.Sort(cats)
	for _, cat := range cats {
		var in []Opt
		for _, o := range listed {
			if (o.generic && cat == genericCategory) || (!o.generic && cat == s.Category) {
				in = append(in, o)
			}
		}
		if len(in) == 0 {
			continue
		}
		b.WriteString("\n" + cat + ":\n\n")
		for _, o := range in {
			o.writeInfo(&b, width)
		}
	}
	io.WriteString(w, b.String())
}

// Act does what the help or version option that ended parsing
// (r.Action) asks for, printing to w; it reports whether there was one.
// --version prints offload-kit's version line for the program (the tool
// of a subcommand's Prog, "offload-packager bundle").
func (s *Set) Act(w io.Writer, r *Result) bool {
	switch r.Action {
	case "":
		return false
	case Version:
		tool, _, _ := strings.Cut(s.Prog, " ")
		fmt.Fprintln(w, version.Line(tool))
	default:
		s.WriteHelp(w, r.Action == Help || r.Action == HelpHidden, r.Action == HelpHidden || r.Action == HelpListHidden)
	}
	return true
}

// meta is the value's name in help.
func (o *Opt) meta() string {
	if o.Meta == "" {
		return "string"
	}
	return o.Meta
}

// width is the option's column width in help (LLVM's getOptionWidth):
// two spaces, the dashes, the name and, for a value, its placeholder.
func (o *Opt) width() int {
	n := 2 + len(dashes(o.Name))
	if o.Value {
		n += len(o.meta()) + 3 // "=<" or " <", and ">"
	}
	return n
}

// writeInfo writes the option's help lines (LLVM's printOptionInfo):
// "  --name=<value>", padded to width, " - " and the first line of Help;
// further lines are indented to the help column.
func (o *Opt) writeInfo(b *strings.Builder, width int) {
	b.WriteString("  " + dashes(o.Name))
	if o.Value {
		sep := "=<"
		if len(o.Name) == 1 {
			sep = " <"
		}
		b.WriteString(sep + o.meta() + ">")
	}
	first, rest, _ := strings.Cut(o.Help, "\n")
	b.WriteString(strings.Repeat(" ", width-o.width()) + " - " + first + "\n")
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		b.WriteString(strings.Repeat(" ", width+3) + line + "\n")
	}
}
