package sycldev

import (
	"errors"
	"fmt"
	"io"

	"github.com/offload-kit/offload-kit/internal/cli/optable"
	"github.com/offload-kit/offload-kit/split"
)

var (
	dd = []string{"--", "-"}
	d1 = []string{"-"}
	// d1d: LLVM lists -help and -help-hidden with one dash.
	d1d = []string{"-", "--"}
)

// Option IDs of optionList, checked at compile time in the switches over them.
const (
	optHelp                         = optable.HelpID
	optHelpHidden                   = optable.HelpHiddenID
	optVersion           optable.ID = "version"
	optO                 optable.ID = "o"
	optOutputFile        optable.ID = "output_file"
	optTriple            optable.ID = "triple"
	optTripleSep         optable.ID = "triple_sep"
	optArch              optable.ID = "arch"
	optArchSep           optable.ID = "arch_sep"
	optDeviceLibs        optable.ID = "device_libs"
	optLibraryPath       optable.ID = "library_path"
	optL                 optable.ID = "L"
	optLowerL            optable.ID = "l"
	optDryRun            optable.ID = "dry_run"
	optV                 optable.ID = "v"
	optSaveTemps         optable.ID = "save_temps"
	optPrintLinkedModule optable.ID = "print_linked_module"
	optSpirvDump         optable.ID = "spirv_dump"
	optOclocOptions      optable.ID = "ocloc_options"
	optOpenclAotOptions  optable.ID = "opencl_aot_options"
	optSplit             optable.ID = "split"
	optSplitAlias1       optable.ID = "split_alias1"
	optSplitAlias2       optable.ID = "split_alias2"
	optSpecConst         optable.ID = "spec_const"
	optPruneToKernels    optable.ID = "prune_to_kernels"
	optIrOutputOnly      optable.ID = "ir_output_only"
	optS                 optable.ID = "S"
	optNoProps           optable.ID = "no_props"
	optNoSyms            optable.ID = "no_syms"
	optOutDir            optable.ID = "out_dir"
	optPropFormat        optable.ID = "prop_format"
	optKernelsOnly       optable.ID = "kernels_only"
	optSplitEsimd        optable.ID = "split_esimd"
	optNoSplitEsimd      optable.ID = "no_split_esimd"
	optProgramMetadata   optable.ID = "program_metadata"
	optExportedSymbols   optable.ID = "exported_symbols"
	optImportedSymbols   optable.ID = "imported_symbols"
	optAllowDeps         optable.ID = "allow_deps"
	optNoVerify          optable.ID = "no_verify"
	optSpirvVal          optable.ID = "spirv_val"
	optSpirvExt          optable.ID = "spirv_ext"
	optJobs              optable.ID = "jobs"
	optJobsEq            optable.ID = "jobs_eq"
)

// optionList is clang-sycl-linker 22.1.8's SYCLLinkOpts.td plus extensions.
var optionList = append(optable.HelpOptions(d1d), []optable.Option{
	{ID: optVersion, Prefixes: dd, Name: "version", Kind: optable.Flag, Help: "Display the version number and exit"},
	{ID: optO, Prefixes: d1, Name: "o", Kind: optable.JoinedOrSeparate, MetaVar: "<path>", Help: "Path to file to write output"},
	{ID: optOutputFile, Prefixes: dd, Name: "output-file", Kind: optable.Separate, Alias: optO, Hidden: true, MetaVar: "<value>", Help: "Alias for -o"},
	{ID: optTriple, Prefixes: dd, Name: "triple=", Kind: optable.Joined, MetaVar: "<triple>", Help: "The device target triple"},
	{ID: optTripleSep, Prefixes: dd, Name: "triple", Kind: optable.Separate, Alias: optTriple, Hidden: true, Extension: true},
	{ID: optArch, Prefixes: dd, Name: "arch=", Kind: optable.Joined, MetaVar: "<arch>", Help: "The device architecture"},
	{ID: optArchSep, Prefixes: dd, Name: "arch", Kind: optable.Separate, Alias: optArch, Hidden: true, Extension: true},
	{ID: optDeviceLibs, Prefixes: dd, Name: "device-libs=", Kind: optable.CommaJoined, MetaVar: "<value>", Help: "A comma separated list of device libraries that are linked during the device link."},
	{ID: optLibraryPath, Prefixes: dd, Name: "library-path=", Kind: optable.Joined, Hidden: true, MetaVar: "<value>", Help: "Add <dir> to the library search path"},
	{ID: optL, Prefixes: d1, Name: "L", Kind: optable.JoinedOrSeparate, Alias: optLibraryPath, MetaVar: "<dir>", Extension: true, Help: "Add <dir> to the library search path (for -l and --device-libs)"},
	{ID: optLowerL, Prefixes: d1, Name: "l", Kind: optable.JoinedOrSeparate, MetaVar: "<name>", Extension: true, Help: "Link lib<name>.a or lib<name>.bc found in the library search path"},
	{ID: optDryRun, Prefixes: dd, Name: "dry-run", Kind: optable.Flag, Help: "Print generated commands without running (AOT commands only; linking and code generation still run)"},
	{ID: optV, Prefixes: d1, Name: "v", Kind: optable.Flag, Help: "Print verbose information"},
	{ID: optSaveTemps, Prefixes: dd, Name: "save-temps", Kind: optable.Flag, Help: "Save intermediate results"},
	{ID: optPrintLinkedModule, Prefixes: dd, Name: "print-linked-module", Kind: optable.Flag, Help: "Print the linked module's IR for testing"},
	{ID: optSpirvDump, Prefixes: dd, Name: "spirv-dump-device-code=", Kind: optable.Joined, MetaVar: "<value>", Help: "Path to the folder where the tool dumps SPIR-V device code. Other formats aren't dumped."},
	{ID: optOclocOptions, Prefixes: dd, Name: "ocloc-options=", Kind: optable.Joined, MetaVar: "<value>", Help: "Options passed to ocloc for Intel GPU AOT compilation"},
	{ID: optOpenclAotOptions, Prefixes: dd, Name: "opencl-aot-options=", Kind: optable.Joined, MetaVar: "<value>", Help: "Options passed to opencl-aot for Intel CPU AOT compilation"},

	{ID: optSplit, Prefixes: dd, Name: "module-split-mode=", Kind: optable.Joined, MetaVar: "none|kernel|source|auto", Extension: true, Help: "Device code split mode (default none: one image, as clang-sycl-linker 22; LLVM main's translation_unit and link_unit are accepted too)"},
	{ID: optSplitAlias1, Prefixes: dd, Name: "sycl-module-split-mode=", Kind: optable.Joined, Alias: optSplit, Hidden: true, Extension: true},
	{ID: optSplitAlias2, Prefixes: dd, Name: "split=", Kind: optable.Joined, Alias: optSplit, Hidden: true, Extension: true},
	{ID: optSpecConst, Prefixes: dd, Name: "spec-const=", Kind: optable.Joined, MetaVar: "native|emulation|default", Extension: true, Help: "Specialization constant lowering (default: leave the calls alone)"},
	{ID: optPruneToKernels, Prefixes: dd, Name: "prune-to-kernels", Kind: optable.Flag, Extension: true, Help: "Write the linked module with only the kernels and what they reach (HIP stdpar's accelerator-code selection; linkage kept, nothing split or compiled) to -o: bitcode, or text with -S"},
	{ID: optIrOutputOnly, Prefixes: dd, Name: "ir-output-only", Kind: optable.Flag, Extension: true, Help: "Stop after post-link: write the split modules with their .prop and .sym files and a .table at -o"},
	{ID: optS, Prefixes: d1, Name: "S", Kind: optable.Flag, Extension: true, Help: "With --ir-output-only or --prune-to-kernels, write textual IR (.ll) instead of bitcode"},
	{ID: optNoProps, Prefixes: dd, Name: "no-properties", Kind: optable.Flag, Extension: true, Help: "With --ir-output-only, write no .prop files (and no Properties column)"},
	{ID: optNoSyms, Prefixes: dd, Name: "no-symbols", Kind: optable.Flag, Extension: true, Help: "With --ir-output-only, write no .sym files (and no Symbols column)"},
	{ID: optOutDir, Prefixes: dd, Name: "out-dir=", Kind: optable.Joined, MetaVar: "<dir>", Extension: true, Help: "Directory for the split modules (default: the directory of -o)"},
	{ID: optPropFormat, Prefixes: dd, Name: "properties-format=", Kind: optable.Joined, MetaVar: "text|json", Extension: true, Help: "Format of .prop files: intel text (default) or LLVM JSON"},
	{ID: optKernelsOnly, Prefixes: dd, Name: "emit-only-kernels-as-entry-points", Kind: optable.Flag, Extension: true, Help: "Only kernels (and indirectly-callable functions) are entry points, not SYCL_EXTERNAL functions"},
	{ID: optSplitEsimd, Prefixes: dd, Name: "split-esimd", Kind: optable.Flag, Extension: true, Help: "Put ESIMD and SYCL entry points into separate images, ESIMD ones named <stem>_esimd_<n> with isEsimdImage (the default; intel sycl-post-link's -split-esimd)"},
	{ID: optNoSplitEsimd, Prefixes: dd, Name: "no-split-esimd", Kind: optable.Flag, Extension: true, Help: "Keep ESIMD and SYCL entry points of a split together in one image"},
	{ID: optProgramMetadata, Prefixes: dd, Name: "emit-program-metadata", Kind: optable.Flag, Extension: true, Help: "Add the SYCL/program metadata property set"},
	{ID: optExportedSymbols, Prefixes: dd, Name: "emit-exported-symbols", Kind: optable.Flag, Extension: true, Help: "Add the SYCL/exported symbols property set"},
	{ID: optImportedSymbols, Prefixes: dd, Name: "emit-imported-symbols", Kind: optable.Flag, Extension: true, Help: "Add the SYCL/imported symbols property set (declarations another image or the device library provides)"},
	{ID: optAllowDeps, Prefixes: dd, Name: "allow-device-image-dependencies", Kind: optable.Flag, Extension: true, Help: "Let images import SYCL_EXTERNAL functions from other images (widens SYCL/imported symbols beyond the bfloat16 library functions)"},
	{ID: optNoVerify, Prefixes: dd, Name: "no-spirv-val", Kind: optable.Flag, Extension: true, Hidden: true, Help: "Do not run spirv-val on generated images"},
	{ID: optSpirvVal, Prefixes: dd, Name: "spirv-val", Kind: optable.Flag, Extension: true, Help: "Validate each generated SPIR-V image with spirv-val"},
	{ID: optSpirvExt, Prefixes: dd, Name: "spirv-ext=", Kind: optable.Joined, MetaVar: "<+ext,...>", Extension: true, Help: "SPIR-V extensions for the SPIR-V backend (llc --spirv-ext), e.g. +SPV_INTEL_function_pointers"},
	{ID: optJobs, Prefixes: d1, Name: "j", Kind: optable.JoinedOrSeparate, MetaVar: "<n>", Extension: true, Help: "Number of parallel jobs (default: the number of CPUs; four times that with --ir-output-only, which mostly writes files)"},
	{ID: optJobsEq, Prefixes: dd, Name: "jobs=", Kind: optable.Joined, Alias: optJobs, Hidden: true, Extension: true},
}...)

var table = optable.MustNew(optionList)

// Options are sycl-linker's parsed options.
type Options struct {
	Inputs       []string
	Output       string
	Triple, Arch string
	// DeviceLibs are resolved under LibraryPaths; DeviceLibsGiven tells an
	// empty --device-libs= apart from none.
	DeviceLibs      []string
	DeviceLibsGiven bool
	LibraryPaths    []string
	Libraries       []string // -l names
	DryRun          bool
	Verbose         bool
	SaveTemps       bool
	PrintLinked     bool
	SPIRVDumpDir    string
	OclocOptions    string
	OpenCLAOTOpts   string
	Help, HelpAll   bool
	Version         bool

	SplitMode    split.Mode
	SpecConst    split.SpecMode // --spec-const; SpecNone: the calls are left alone
	IROutputOnly bool
	TextIR       bool
	NoPropFiles  bool
	NoSymFiles   bool
	OutDir       string
	PropJSON     bool
	KernelsOnly  bool
	// NoSplitESIMD keeps ESIMD and SYCL entry points of a part together;
	// by default they go to separate images (spec §2.8).
	NoSplitESIMD    bool
	ProgramMetadata bool
	ExportedSymbols bool
	ImportedSymbols bool
	AllowImageDeps  bool
	SPIRVVal        bool
	SPIRVExt        string
	Jobs            int

	// PruneToKernels writes the linked module pruned to the kernels'
	// closure (split.(*Module).KeepReachable) instead of images.
	PruneToKernels bool
}

// UsageError is a command-line error.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// invalidValue rejects value v of option opt; accepted says what it takes.
func invalidValue(v, opt, accepted string) error {
	return &UsageError{Msg: fmt.Sprintf("invalid value '%s' for %s (%s)", v, opt, accepted)}
}

// The values of --spec-const and --properties-format (PropJSON).
var (
	specConstModes = optable.Enum[split.SpecMode]{{Name: "native", Value: split.SpecNative}, {Name: "emulation", Value: split.SpecEmulation}, {Name: "default", Value: split.SpecDefault}}
	propFormats    = optable.Enum[bool]{{Name: "text", Value: false}, {Name: "json", Value: true}}
)

// ParseArgs parses a clang-sycl-linker command line (response files
// already expanded).
func ParseArgs(args []string) (*Options, error) {
	o := &Options{}
	if err := o.ParseArgs(args); err != nil {
		return nil, err
	}
	return o, nil
}

// ParseArgs parses args over o, as if they followed, on one command line,
// the options o already holds: an option sets its field (the last one
// given wins), inputs and list values are appended, and the checks apply
// to the whole. linker-wrapper fills in what clang would pass
// clang-sycl-linker and parses only the user's forwarded values so. On an
// error o is partly updated.
func (o *Options) ParseArgs(args []string) error {
	parsed, err := table.Parse(args)
	if err != nil {
		var me *optable.MissingArgError
		if errors.As(err, &me) {
			return &UsageError{Msg: fmt.Sprintf("argument to '%s' is missing (expected 1 value)", me.Spelling)}
		}
		return err
	}
	for _, a := range parsed {
		if a.Unknown {
			return &UsageError{Msg: fmt.Sprintf("unknown argument '%s'", a.Value())}
		}
		if a.IsInput() {
			o.Inputs = append(o.Inputs, a.Value())
			continue
		}
		v := a.Value()
		switch a.Opt.ID {
		case optHelp:
			o.Help = true
		case optHelpHidden:
			o.Help, o.HelpAll = true, true
		case optVersion:
			o.Version = true
		case optO:
			o.Output = v
		case optTriple:
			o.Triple = v
		case optArch:
			o.Arch = v
		case optDeviceLibs:
			o.DeviceLibsGiven = true
			for _, l := range a.Values {
				if l != "" {
					o.DeviceLibs = append(o.DeviceLibs, l)
				}
			}
		case optLibraryPath:
			o.LibraryPaths = append(o.LibraryPaths, v)
		case optLowerL:
			o.Libraries = append(o.Libraries, v)
		case optDryRun:
			o.DryRun = true
		case optV:
			o.Verbose = true
		case optSaveTemps:
			o.SaveTemps = true
		case optPrintLinkedModule:
			o.PrintLinked = true
		case optSpirvDump:
			o.SPIRVDumpDir = v
		case optOclocOptions:
			o.OclocOptions = v
		case optOpenclAotOptions:
			o.OpenCLAOTOpts = v
		case optSplit:
			m, err := parseSplitMode(v)
			if err != nil {
				return invalidValue(v, "--module-split-mode", splitModeValues)
			}
			o.SplitMode = m
		case optSpecConst:
			m, ok := specConstModes.Lookup(v)
			if !ok {
				return invalidValue(v, "--spec-const", specConstModes.Names(""))
			}
			o.SpecConst = m
		case optIrOutputOnly:
			o.IROutputOnly = true
		case optPruneToKernels:
			o.PruneToKernels = true
		case optS:
			o.TextIR = true
		case optNoProps:
			o.NoPropFiles = true
		case optNoSyms:
			o.NoSymFiles = true
		case optOutDir:
			o.OutDir = v
		case optPropFormat:
			json, ok := propFormats.Lookup(v)
			if !ok {
				return invalidValue(v, "--properties-format", propFormats.Names(""))
			}
			o.PropJSON = json
		case optKernelsOnly:
			o.KernelsOnly = true
		case optSplitEsimd:
			o.NoSplitESIMD = false
		case optNoSplitEsimd:
			o.NoSplitESIMD = true
		case optProgramMetadata:
			o.ProgramMetadata = true
		case optExportedSymbols:
			o.ExportedSymbols = true
		case optImportedSymbols:
			o.ImportedSymbols = true
		case optAllowDeps:
			o.AllowImageDeps = true
		case optSpirvExt:
			o.SPIRVExt = v
		case optSpirvVal:
			o.SPIRVVal = true
		case optNoVerify:
			o.SPIRVVal = false
		case optJobs:
			n, ok := optable.IntAtLeast(v, 1)
			if !ok {
				return invalidValue(v, "-j", "a positive integer")
			}
			o.Jobs = n
		}
	}
	if o.PruneToKernels {
		for _, c := range []struct {
			set  bool
			name string
		}{{o.IROutputOnly, "--ir-output-only"}, {o.SplitMode != split.ModeNone, "--module-split-mode=" + o.SplitMode.String()},
			{o.SpecConst != split.SpecNone, "--spec-const"}} {
			if c.set {
				return &UsageError{Msg: "--prune-to-kernels writes one IR module: it cannot be combined with " + c.name}
			}
		}
	}
	return nil
}

// WriteHelp prints clang-sycl-linker's --help page (all: --help-hidden).
func WriteHelp(w io.Writer, tool string, all bool) {
	table.WriteHelp(w, tool+" [options] <options to sycl link steps>",
		"A utility that wraps around several steps required to link SYCL device files.\n"+
			"This enables LLVM IR linking, post-linking and code generation for SYCL targets.", all)
}
