package bundler

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/offload-kit/offload-kit/internal/cli/clopt"
	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/release"
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

// The names of clang-offload-bundler's options (clopt.Opt.Name, without
// dashes). The table and every lookup in its Result use these constants,
// so a misspelt option is a compile error. cl::opt's own options (--help,
// --version, ...) are clopt's.
const (
	optPrintCommands       = "###"
	optAllowMissingBundles = "allow-missing-bundles"
	optBundleAlign         = "bundle-align"
	optCheckInputArchive   = "check-input-archive"
	optCompress            = "compress"
	optCompressionLevel    = "compression-level"
	optHipOpenMPCompatible = "hip-openmp-compatible"
	optInput               = "input"
	optInputs              = "inputs"
	optList                = "list"
	optOutput              = "output"
	optOutputs             = "outputs"
	optTargets             = "targets"
	optType                = "type"
	optUnbundle            = "unbundle"
	optVerbose             = "verbose"
	optH                   = "h" // "Alias for -help", an ordinary flag read after parsing
)

func bundlerOpts(prog, path string) *clopt.Set {
	return &clopt.Set{Prog: prog, Path: path, NoPositional: true, Opts: []clopt.Opt{
		{Name: optPrintCommands, Help: "Print any external commands that are to be executed instead of actually executing them - for testing purposes."},
		{Name: optAllowMissingBundles, Help: "Create empty files if bundles are missing when unbundling."},
		{Name: optBundleAlign, Value: true, Meta: "uint", Help: "Alignment of bundle for binary files"},
		{Name: optCheckInputArchive, Help: "Check if input heterogeneous archive is valid in terms of TargetID rules."},
		{Name: optCompress, Help: "Compress output file when bundling."},
		{Name: optCompressionLevel, Value: true, Meta: "n", Help: "Specify the compression level (integer)"},
		{Name: optHipOpenMPCompatible, Help: "Treat hip and hipv4 offload kinds as compatible with openmp kind, and vice versa."},
		{Name: optInput, Value: true, Help: "Input file. Can be specified multiple times for multiple input files."},
		{Name: optInputs, Value: true, Comma: true, Help: "[<input file>,...] (deprecated)"},
		{Name: optList, Help: "List bundle IDs in the bundled file."},
		{Name: optOutput, Value: true, Help: "Output file. Can be specified multiple times for multiple output files."},
		{Name: optOutputs, Value: true, Comma: true, Help: "[<output file>,...] (deprecated)"},
		{Name: optTargets, Value: true, Comma: true, Help: "[<offload kind>-<target triple>,...]"},
		{Name: optType, Value: true, Help: "Type of the files to be bundled/unbundled.\n" +
			"Current supported types are:\n" +
			"  i    - cpp-output\n" +
			"  ii   - c++-cpp-output\n" +
			"  cui  - cuda-cpp-output\n" +
			"  hipi - hip-cpp-output\n" +
			"  d    - dependency\n" +
			"  ll   - llvm\n" +
			"  bc   - llvm-bc\n" +
			"  s    - assembler\n" +
			"  o    - object\n" +
			"  a    - archive of objects\n" +
			"  gch  - precompiled-header\n" +
			"  ast  - clang AST file"},
		{Name: optUnbundle, Help: "Unbundle bundled file into several output files."},
		{Name: optVerbose, Help: "Print debug information."},
		{Name: optH, Help: "Alias for -help", Unlisted: true},
	},
		// The trailing spaces are LLVM's.
		Overview: "A tool to bundle several input files of the specified type <type> \n" +
			"referring to the same source file but different targets into a single \n" +
			"one. The resulting file can also be unbundled into different files by \n" +
			"this tool if -unbundle is provided.\n",
		Category: "clang-offload-bundler options",
	}
}

// parseArgs parses a clang-offload-bundler command line (without argv[0]).
// Command-line errors are *clopt.Error with LLVM's complete text. When
// --help or --version ended parsing (the Result's Action), the error holds
// only the messages of the arguments before it, and Options are not filled.
func parseArgs(argv0 string, args []string) (Options, *clopt.Result, error) {
	return parseArgsAs(argv0, args, release.Default())
}

// parseArgsAs is parseArgs with the options of the release prof's bundler
// (bundlerOptsAs).
func parseArgsAs(argv0 string, args []string, prof release.Profile) (Options, *clopt.Result, error) {
	prog := driverenv.Stem(argv0)
	r, err := bundlerOptsAs(prog, argv0, prof).Parse(args)
	if r.Action != "" {
		return Options{}, r, err
	}
	if err != nil {
		// LLVM reports every bad argument, then the missing -type.
		var ce *clopt.Error
		if errors.As(err, &ce) && !r.Has(optType) {
			ce.Text += fmt.Sprintf("%s: for the --type option: must be specified at least once!\n", prog)
		}
		return Options{}, nil, err
	}
	o := Options{BundleAlign: 1}
	bad := func(opt, v, kind string) error {
		return &clopt.Error{Text: fmt.Sprintf("%s: for the --%s option: '%s' value invalid for %s argument!\n", prog, opt, v, kind)}
	}
	if r.Has(optBundleAlign) {
		v := r.Last(optBundleAlign)
		n, err := strconv.ParseUint(v, 0, 32)
		if err != nil {
			return Options{}, nil, bad(optBundleAlign, v, "uint")
		}
		o.BundleAlign = n
	}
	if r.Has(optCompressionLevel) {
		v := r.Last(optCompressionLevel)
		n, err := strconv.ParseInt(v, 0, 32)
		if err != nil {
			return Options{}, nil, bad(optCompressionLevel, v, "integer")
		}
		l := int(n)
		o.CompressionLevel = &l
	}
	if !r.Has(optType) {
		return Options{}, nil, &clopt.Error{Text: fmt.Sprintf("%s: for the --type option: must be specified at least once!\n", prog)}
	}
	o.Type = r.Last(optType)
	o.Targets, o.TargetsGiven = r.All(optTargets), r.Has(optTargets)
	o.Inputs, o.InputsGiven = r.All(optInput), r.Has(optInput)
	o.InputsDep, o.InputsDepSet = r.All(optInputs), r.Has(optInputs)
	o.Outputs, o.OutputsGiven = r.All(optOutput), r.Has(optOutput)
	o.OutputsDep, o.OutputsDepSet = r.All(optOutputs), r.Has(optOutputs)
	o.Unbundle = r.Bool(optUnbundle)
	o.List = r.Bool(optList)
	o.AllowMissingBundles = r.Bool(optAllowMissingBundles)
	o.CheckInputArchive = r.Bool(optCheckInputArchive)
	o.HipOpenMPCompatible = r.Bool(optHipOpenMPCompatible)
	o.PrintCommands = r.Bool(optPrintCommands)
	if r.Has(optCompress) {
		b := r.Bool(optCompress)
		o.Compress = &b
	}
	if r.Has(optVerbose) {
		b := r.Bool(optVerbose)
		o.Verbose = &b
	}
	return o, r, nil
}

// Main runs the clang-offload-bundler command line. argv0 is the program
// path as typed; env.Tool should equal it. Response files ("@file") must
// have been expanded by the caller (cli.ExpandResponseFiles), as every
// offload-kit command does once for its whole command line.
func Main(ctx context.Context, env *Env, argv0 string, args []string) error {
	prof, err := env.Release(ctx)
	if err != nil {
		return err
	}
	o, r, err := parseArgsAs(argv0, args, prof)
	var ce *clopt.Error
	if err != nil && !errors.As(err, &ce) {
		return err
	}
	if ce != nil {
		fmt.Fprint(env.Stderr, ce.Text)
	}
	set := bundlerOptsAs(driverenv.Stem(argv0), argv0, prof)
	switch {
	case r != nil && set.Act(env.Stdout, r): // --help or --version, which act when met
		return nil
	case ce != nil:
		return diag.Reported{Code: 1}
	case r.Bool(optH): // read only once the required -type was checked
		set.WriteHelp(env.Stdout, false, false)
		return nil
	}
	return runAs(ctx, env, o, prof)
}
