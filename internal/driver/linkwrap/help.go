package linkwrap

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/offload-kit/offload-kit/internal/cli/optable"
	"github.com/offload-kit/offload-kit/internal/version"
)

// Version is the clang-linker-wrapper release this wrapper is compatible with.
const Version = "22.1.8"

// WriteVersion prints the --version line (the same format as every
// offload-kit tool's).
func WriteVersion(w io.Writer, prog string) { fmt.Fprintln(w, version.Line(prog)) }

// WriteHelp prints --help (or --help-hidden) in LLVM OptTable's layout.
func WriteHelp(w io.Writer, prog string, hidden bool) {
	fmt.Fprintf(w, `OVERVIEW: 
A wrapper utility over the host linker. It scans the input files
for sections that require additional processing prior to linking.
The will then transparently pass all arguments and input to the
specified host linker to create the final binary.

offload-kit's %s links device code without LLVM libraries:
registration objects are generated natively, device code is taken from
archives by symbol (--device-archives=llvm22 restores LLVM 22), and device
links run in parallel (--wrapper-jobs, GNU make jobserver aware).


USAGE: %s [options] -- <options to passed to the linker>

OPTIONS:
`, prog, prog)
	type row struct{ left, help string }
	var rows []row
	for _, o := range Table.Options() {
		if o.Help == "" || (o.Hidden && !hidden) {
			continue
		}
		left := o.Spelling()
		switch o.Kind {
		case optable.Joined:
			mv := o.MetaVar
			if mv == "" {
				mv = "<value>"
			}
			left += mv
		case optable.Separate, optable.JoinedOrSeparate:
			mv := o.MetaVar
			if mv == "" {
				mv = "<value>"
			}
			left += " " + mv
		}
		rows = append(rows, row{left, o.Help})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		return strings.ToLower(strings.TrimLeft(rows[i].left, "-/")) < strings.ToLower(strings.TrimLeft(rows[j].left, "-/"))
	})
	for _, r := range rows {
		if len(r.left) > 22 {
			fmt.Fprintf(w, "  %s\n%24s%s\n", r.left, "", r.help)
		} else {
			fmt.Fprintf(w, "  %-22s%s\n", r.left, r.help)
		}
	}
}
