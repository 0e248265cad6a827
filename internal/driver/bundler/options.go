package bundler

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/offload-kit/offload-kit/internal/cli/clopt"
	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/version"
)

// Options are clang-offload-bundler's command-line options.
type Options struct {
	Type    string
	Targets []string
	// TargetsGiven records whether -targets occurred (even with an empty value).
	TargetsGiven  bool
	Inputs        []string // -input
	InputsDep     []string // -inputs (deprecated, comma separated)
	InputsGiven   bool     // -input occurred
	InputsDepSet  bool     // -inputs occurred
	Outputs       []string
	OutputsDep    []string
	OutputsGiven  bool
	OutputsDepSet bool

	Unbundle            bool
	List                bool
	AllowMissingBundles bool
	CheckInputArchive   bool
	HipOpenMPCompatible bool
	PrintCommands       bool   // -###
	BundleAlign         uint64 // -bundle-align; 0 means the default, 1

	// Compress, Verbose and CompressionLevel override the environment
	// only when set (nil = not given on the command line).
	Compress         *bool
	Verbose          *bool
	CompressionLevel *int
}

func bundlerOpts(prog, path string) *clopt.Set {
	return &clopt.Set{Prog: prog, Path: path, Opts: []clopt.Opt{
		{Name: "###"},
		{Name: "allow-missing-bundles"},
		{Name: "bundle-align", Value: true},
		{Name: "check-input-archive"},
		{Name: "compress"},
		{Name: "compression-level", Value: true},
		{Name: "hip-openmp-compatible"},
		{Name: "input", Value: true},
		{Name: "inputs", Value: true, Comma: true},
		{Name: "list"},
		{Name: "output", Value: true},
		{Name: "outputs", Value: true, Comma: true},
		{Name: "targets", Value: true, Comma: true},
		{Name: "type", Value: true},
		{Name: "unbundle"},
		{Name: "verbose"},
		{Name: "h"},
		{Name: "help"}, {Name: "help-list"}, {Name: "help-hidden"}, {Name: "help-list-hidden"}, {Name: "version"},
	}}
}

// Help is clang-offload-bundler's --help text for program prog.
func Help(prog string) string {
	return `OVERVIEW: A tool to bundle several input files of the specified type <type> 
referring to the same source file but different targets into a single 
one. The resulting file can also be unbundled into different files by 
this tool if -unbundle is provided.

USAGE: ` + prog + ` [options]

OPTIONS:

Generic Options:

  --help                  - Display available options (--help-hidden for more)
  --help-list             - Display list of available options (--help-list-hidden for more)
  --version               - Display the version of this program

clang-offload-bundler options:

  --###                   - Print any external commands that are to be executed instead of actually executing them - for testing purposes.
  --allow-missing-bundles - Create empty files if bundles are missing when unbundling.
  --bundle-align=<uint>   - Alignment of bundle for binary files
  --check-input-archive   - Check if input heterogeneous archive is valid in terms of TargetID rules.
  --compress              - Compress output file when bundling.
  --compression-level=<n> - Specify the compression level (integer)
  --hip-openmp-compatible - Treat hip and hipv4 offload kinds as compatible with openmp kind, and vice versa.
  --input=<string>        - Input file. Can be specified multiple times for multiple input files.
  --inputs=<string>       - [<input file>,...] (deprecated)
  --list                  - List bundle IDs in the bundled file.
  --output=<string>       - Output file. Can be specified multiple times for multiple output files.
  --outputs=<string>      - [<output file>,...] (deprecated)
  --targets=<string>      - [<offload kind>-<target triple>,...]
  --type=<string>         - Type of the files to be bundled/unbundled.
                            Current supported types are:
                              i    - cpp-output
                              ii   - c++-cpp-output
                              cui  - cuda-cpp-output
                              hipi - hip-cpp-output
                              d    - dependency
                              ll   - llvm
                              bc   - llvm-bc
                              s    - assembler
                              o    - object
                              a    - archive of objects
                              gch  - precompiled-header
                              ast  - clang AST file
  --unbundle              - Unbundle bundled file into several output files.
  --verbose               - Print debug information.
`
}

// ParseArgs parses a clang-offload-bundler command line (without argv[0]).
// Command-line errors are *clopt.Error with LLVM's complete text.
func ParseArgs(argv0 string, args []string) (Options, *clopt.Result, error) {
	prog := diag.Stem(argv0)
	set := bundlerOpts(prog, argv0)
	set.NoPositional = true
	r, err := set.Parse(args)
	if err != nil {
		// LLVM reports every bad argument, then the missing -type.
		var ce *clopt.Error
		if errors.As(err, &ce) && !r.Has("type") {
			ce.Text += fmt.Sprintf("%s: for the --type option: must be specified at least once!\n", prog)
		}
		return Options{}, nil, err
	}
	o := Options{BundleAlign: 1}
	// --help and --version act inside LLVM's parser; -h (an ordinary
	// cl::opt) is only looked at after the required -type was checked.
	if r.Has("help") || r.Has("help-list") || r.Has("help-hidden") || r.Has("help-list-hidden") || r.Has("version") {
		return o, r, nil
	}
	bad := func(opt, v, kind string) error {
		return &clopt.Error{Text: fmt.Sprintf("%s: for the --%s option: '%s' value invalid for %s argument!\n", prog, opt, v, kind)}
	}
	if r.Has("bundle-align") {
		v := r.Last("bundle-align")
		n, err := strconv.ParseUint(v, 0, 32)
		if err != nil {
			return Options{}, nil, bad("bundle-align", v, "uint")
		}
		o.BundleAlign = n
	}
	if r.Has("compression-level") {
		v := r.Last("compression-level")
		n, err := strconv.ParseInt(v, 0, 32)
		if err != nil {
			return Options{}, nil, bad("compression-level", v, "integer")
		}
		l := int(n)
		o.CompressionLevel = &l
	}
	if !r.Has("type") {
		return Options{}, nil, &clopt.Error{Text: fmt.Sprintf("%s: for the --type option: must be specified at least once!\n", prog)}
	}
	o.Type = r.Last("type")
	o.Targets, o.TargetsGiven = r.All("targets"), r.Has("targets")
	o.Inputs, o.InputsGiven = r.All("input"), r.Has("input")
	o.InputsDep, o.InputsDepSet = r.All("inputs"), r.Has("inputs")
	o.Outputs, o.OutputsGiven = r.All("output"), r.Has("output")
	o.OutputsDep, o.OutputsDepSet = r.All("outputs"), r.Has("outputs")
	o.Unbundle = r.Bool("unbundle")
	o.List = r.Bool("list")
	o.AllowMissingBundles = r.Bool("allow-missing-bundles")
	o.CheckInputArchive = r.Bool("check-input-archive")
	o.HipOpenMPCompatible = r.Bool("hip-openmp-compatible")
	o.PrintCommands = r.Bool("###")
	if r.Has("compress") {
		b := r.Bool("compress")
		o.Compress = &b
	}
	if r.Has("verbose") {
		b := r.Bool("verbose")
		o.Verbose = &b
	}
	return o, r, nil
}

// Main runs the clang-offload-bundler command line. argv0 is the program
// path as typed; env.Tool should equal it. Response files ("@file") must
// have been expanded by the caller (cli.ExpandResponseFiles), as every
// offload-kit command does once for its whole command line.
func Main(ctx context.Context, env *Env, argv0 string, args []string) error {
	prog := diag.Stem(argv0)
	o, r, err := ParseArgs(argv0, args)
	if err != nil {
		var ce *clopt.Error
		if errors.As(err, &ce) {
			fmt.Fprint(env.Stderr, ce.Text)
			return diag.Reported{Code: 1}
		}
		return err
	}
	if r != nil && (r.Bool("help") || r.Bool("h") || r.Bool("help-list") || r.Bool("help-hidden") || r.Bool("help-list-hidden")) {
		fmt.Fprint(env.Stdout, Help(prog))
		return nil
	}
	if r != nil && r.Bool("version") {
		fmt.Fprintln(env.Stdout, version.Line(prog))
		return nil
	}
	return Run(ctx, env, o)
}
