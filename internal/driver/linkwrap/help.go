package linkwrap

import (
	"fmt"
	"io"

	"github.com/offload-kit/offload-kit/internal/version"
)

// Version is the clang-linker-wrapper release this wrapper is compatible with.
const Version = "22.1.8"

// WriteVersion prints the --version line (the same format as every
// offload-kit tool's).
func WriteVersion(w io.Writer, prog string) { fmt.Fprintln(w, version.Line(prog)) }

// llvmTitle is clang-linker-wrapper 22's overview.
const llvmTitle = `
A wrapper utility over the host linker. It scans the input files
for sections that require additional processing prior to linking.
The will then transparently pass all arguments and input to the
specified host linker to create the final binary.
`

// WriteHelp prints --help (or --help-hidden): LLVM's overview, offload-kit's
// paragraph, and the option list Table generates.
func WriteHelp(w io.Writer, prog string, hidden bool) {
	Table.WriteHelp(w, prog+" [options] -- <options to passed to the linker>", llvmTitle+`
offload-kit's `+prog+` links device code without LLVM libraries:
registration objects are generated natively, device code is taken from
archives by symbol (--device-archives=llvm22 restores LLVM 22), and device
links run in parallel (--wrapper-jobs, GNU make jobserver aware).
`, hidden)
}
