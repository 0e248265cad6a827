package packager

import (
	"errors"
	"fmt"
	"strings"

	"github.com/offload-kit/offload-kit/internal/cli/clopt"
	"github.com/offload-kit/offload-kit/internal/cli/diag"
)

// Version is printed by --version.
const Version = "offload-kit 0.1.0 (compatible with LLVM 22.1.8)"

func offloadBinaryOpts(prog, path string) *clopt.Set {
	return &clopt.Set{Prog: prog, Path: path, Opts: []clopt.Opt{
		{Name: "o", Value: true, Meta: "<file>", Help: "Write output to <file>."},
		{Name: "image", Value: true, Meta: "<<key>=<value>,...>", Help: "List of key and value arguments. Required keywords are 'file' and 'triple'."},
		{Name: "archive", Help: "Write extracted files to a static archive"},
		{Name: "help"}, {Name: "help-list"}, {Name: "help-hidden"}, {Name: "help-list-hidden"}, {Name: "version"},
	}}
}

// OffloadBinaryHelp is llvm-offload-binary's --help text for program prog.
func OffloadBinaryHelp(prog string) string {
	return `OVERVIEW: A utility for bundling several object files into a single binary.
The output binary can then be embedded into the host section table
to create a fatbinary containing offloading code.

USAGE: ` + prog + ` [options] Extract from <file>.

OPTIONS:

Generic Options:

  --help                      - Display available options (--help-hidden for more)
  --help-list                 - Display list of available options (--help-list-hidden for more)
  --version                   - Display the version of this program

llvm-offload-binary options:

  --archive                   - Write extracted files to a static archive
  --image=<<key>=<value>,...> - List of key and value arguments. Required keywords are 'file' and 'triple'.
  -o <file>                   - Write output to <file>.
`
}

// offloadBinaryUsage is what cl::PrintHelpMessage prints when the tool is
// run with no arguments: one flat, uncategorised option list.
func offloadBinaryUsage(prog string) string {
	return `OVERVIEW: A utility for bundling several object files into a single binary.
The output binary can then be embedded into the host section table
to create a fatbinary containing offloading code.

USAGE: ` + prog + ` [options] Extract from <file>.

OPTIONS:
  --archive                   - Write extracted files to a static archive
  --help                      - Display available options (--help-hidden for more)
  --image=<<key>=<value>,...> - List of key and value arguments. Required keywords are 'file' and 'triple'.
  -o <file>                   - Write output to <file>.
  --version                   - Display the version of this program
`
}

// OffloadBinaryMain runs the llvm-offload-binary (or clang-offload-packager)
// command line with LLVM 22.1.8's exact behaviour. argv0 is the program
// path as typed; env.Tool should equal it, since LLVM prefixes errors with
// argv[0] verbatim.
func OffloadBinaryMain(env *Env, argv0 string, args []string) error {
	prog := diag.Stem(argv0)
	set := offloadBinaryOpts(prog, argv0)
	r, err := set.Parse(args)
	if err != nil {
		var ce *clopt.Error
		if errors.As(err, &ce) {
			fmt.Fprint(env.Stderr, ce.Text)
			return diag.Reported{Code: 1}
		}
		return err
	}
	if r.Bool("help") || r.Bool("help-hidden") || r.Bool("help-list") || r.Bool("help-list-hidden") {
		fmt.Fprint(env.Stdout, OffloadBinaryHelp(prog))
		return nil
	}
	if r.Bool("version") {
		fmt.Fprintln(env.Stdout, Version)
		return nil
	}
	if len(r.Positional) > 1 {
		fmt.Fprintf(env.Stderr, "%s: Too many positional arguments specified!\nCan specify at most 1 positional arguments: See: %s --help\n", prog, argv0)
		return diag.Reported{Code: 1}
	}
	if strings.HasSuffix(prog, "clang-offload-packager") {
		fmt.Fprintln(env.Stderr, "warning: 'clang-offload-packager' is deprecated. Use 'llvm-offload-binary' instead.")
	}
	output, hasOut := r.Last("o"), r.Has("o")
	switch {
	case !hasOut && len(r.Positional) == 0:
		fmt.Fprint(env.Stdout, offloadBinaryUsage(prog))
		return nil
	case hasOut && len(r.Positional) > 0:
		return errors.New("Packaging to an output file and extracting from an input file are mutually exclusive.")
	case hasOut:
		return Create(env, output, r.All("image"))
	}
	return Extract(env, ExtractOptions{Input: r.Positional[0], Images: r.All("image"), Archive: r.Bool("archive"), LLVMMessages: true})
}
