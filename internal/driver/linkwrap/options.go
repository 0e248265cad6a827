package linkwrap

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/offload-kit/offload-kit/internal/cli/optable"
	"github.com/offload-kit/offload-kit/internal/driverenv"
)

// Option flags.
const (
	// WrapperOnly options are consumed by the wrapper and never reach the
	// host linker.
	WrapperOnly uint32 = 1 << iota
	// DeviceOnly options are generated for device links; LLVM 22 still
	// forwards them to the host linker when given by hand.
	DeviceOnly
)

var (
	dd    = []string{"--", "-"}
	d2    = []string{"--"}
	d1    = []string{"-"}
	slash = []string{"/", "-", "/?", "-?"}
)

// Option IDs of optionList, checked at compile time in the switches over them.
const (
	optHelp                            = optable.HelpID
	optHelpHidden                      = optable.HelpHiddenID
	optLinkerPath           optable.ID = "linker_path"
	optCudaPath             optable.ID = "cuda_path"
	optHostTriple           optable.ID = "host_triple"
	optDeviceLinker         optable.ID = "device_linker"
	optDeviceCompiler       optable.ID = "device_compiler"
	optDryRun               optable.ID = "dry_run"
	optVerbose              optable.ID = "verbose"
	optEmbedBitcode         optable.ID = "embed_bitcode"
	optPrintWrappedModule   optable.ID = "print_wrapped_module"
	optSaveTemps            optable.ID = "save_temps"
	optCompress             optable.ID = "compress"
	optCompressionLevel     optable.ID = "compression_level"
	optTimeTrace            optable.ID = "time_trace"
	optTimeTraceGranularity optable.ID = "time_trace_granularity"
	optWrapperJobs          optable.ID = "wrapper_jobs"
	optOverrideImage        optable.ID = "override_image"
	optShouldExtract        optable.ID = "should_extract"
	optEmitFatbinOnly       optable.ID = "emit_fatbin_only"
	optArch                 optable.ID = "arch"
	optTriple               optable.ID = "triple"
	optWholeProgram         optable.ID = "whole_program"
	optLinkerArg            optable.ID = "linker_arg"
	optCompilerArg          optable.ID = "compiler_arg"
	optMllvm                optable.ID = "mllvm"
	optOffloadOpt           optable.ID = "offload_opt"
	optSysroot              optable.ID = "sysroot"
	optO                    optable.ID = "o"
	optOutputEq             optable.ID = "output_eq"
	optOutput               optable.ID = "output"
	optLibraryPath          optable.ID = "library_path"
	optLibraryPathS         optable.ID = "library_path_S"
	optLibraryPathEQ        optable.ID = "library_path_EQ"
	optLibrary              optable.ID = "library"
	optLibraryS             optable.ID = "library_S"
	optLibraryEQ            optable.ID = "library_EQ"
	optRpath                optable.ID = "rpath"
	optRpathEQ              optable.ID = "rpath_EQ"
	optV                    optable.ID = "v"
	optVersion              optable.ID = "version"
	optWholeArchive         optable.ID = "whole_archive"
	optNoWholeArchive       optable.ID = "no_whole_archive"
	optRelocatable          optable.ID = "relocatable"
	optR                    optable.ID = "r"
	optOut                  optable.ID = "out"
	optLibpath              optable.ID = "libpath"
	optWholearchiveFlag     optable.ID = "wholearchive_flag"
	optClangPath            optable.ID = "clang_path"
	optLlvmDir              optable.ID = "llvm_dir"
	optToolPath             optable.ID = "tool_path"
	optDeviceArchives       optable.ID = "device_archives"
	optCacheDir             optable.ID = "cache_dir"
	optCacheMaxSize         optable.ID = "cache_max_size"
	optCacheRemote          optable.ID = "cache_remote"
	optCacheRemoteHeader    optable.ID = "cache_remote_header"
	optCacheRemoteReadOnly  optable.ID = "cache_remote_read_only"
	optCacheTimeout         optable.ID = "cache_timeout"
	optCacheSecretFile      optable.ID = "cache_secret_file"
	optCacheSharedGroup     optable.ID = "cache_shared_group"
	optDevicePartitions     optable.ID = "device_partitions"
	optCacheToolCheck       optable.ID = "cache_tool_check"
	optNoCache              optable.ID = "no_cache"
	optMaxInflated          optable.ID = "max_inflated"
	optSYCLRegistration     optable.ID = "sycl_registration"

	// Options of older releases' clang-linker-wrapper (release.WrapperOptions;
	// docs/linker-wrapper.md, "Releases"): consumed, never forwarded to the
	// host linker, and listed by neither --help nor --help-hidden, so that
	// both stay LLVM 22's.
	optOptLevel            optable.ID = "opt_level"
	optDeviceDebug         optable.ID = "debug"
	optPtxasArg            optable.ID = "ptxas_arg"
	optPassRemarks         optable.ID = "pass_remarks_EQ"
	optPassRemarksMissed   optable.ID = "pass_remarks_missed_EQ"
	optPassRemarksAnalysis optable.ID = "pass_remarks_analysis_EQ"
	optBitcodeLibrary      optable.ID = "bitcode_library_EQ"
	optBuiltinBitcode      optable.ID = "builtin_bitcode_EQ"
	optClangBackend        optable.ID = "clang_backend"
	optSeparator           optable.ID = "separator"
)

// optionList is clang-linker-wrapper 22.1.8's LinkerWrapperOpts.td, plus
// offload-kit's extensions (WrapperOnly, Extension).
var optionList = append(optable.HelpOptions(d2), []optable.Option{
	{ID: optLinkerPath, Prefixes: d2, Name: "linker-path=", Kind: optable.Joined, Flags: WrapperOnly, MetaVar: "<path>", Help: "The linker executable to invoke"},
	{ID: optCudaPath, Prefixes: d2, Name: "cuda-path=", Kind: optable.Joined, Flags: WrapperOnly, MetaVar: "<dir>", Help: "Set the system CUDA path"},
	{ID: optHostTriple, Prefixes: d2, Name: "host-triple=", Kind: optable.Joined, Flags: WrapperOnly, MetaVar: "<triple>", Help: "Triple to use for the host compilation"},
	{ID: optDeviceLinker, Prefixes: d2, Name: "device-linker=", Kind: optable.Joined, Flags: WrapperOnly, MetaVar: "<value> or <triple>=<value>", Help: "Arguments to pass to the device linker invocation"},
	{ID: optDeviceCompiler, Prefixes: d2, Name: "device-compiler=", Kind: optable.Joined, Flags: WrapperOnly, MetaVar: "<value> or <triple>=<value>", Help: "Arguments to pass to the device compiler invocation"},
	{ID: optDryRun, Prefixes: d2, Name: "dry-run", Kind: optable.Flag, Flags: WrapperOnly, Help: "Print program arguments without running"},
	{ID: optVerbose, Prefixes: d2, Name: "wrapper-verbose", Kind: optable.Flag, Flags: WrapperOnly, Help: "Verbose output from tools"},
	{ID: optEmbedBitcode, Prefixes: d2, Name: "embed-bitcode", Kind: optable.Flag, Flags: WrapperOnly, Help: "Embed linked bitcode in the module"},
	{ID: optPrintWrappedModule, Prefixes: d2, Name: "print-wrapped-module", Kind: optable.Flag, Flags: WrapperOnly, Help: "Print a description of the registration object (offload-kit: not LLVM IR)"},
	{ID: optSaveTemps, Prefixes: d2, Name: "save-temps", Kind: optable.Flag, Flags: WrapperOnly, Help: "Save intermediate results"},
	{ID: optCompress, Prefixes: d2, Name: "compress", Kind: optable.Flag, Flags: WrapperOnly, Help: "Compress bundled files"},
	{ID: optCompressionLevel, Prefixes: d2, Name: "compression-level=", Kind: optable.Joined, Flags: WrapperOnly, Help: "Specify the compression level (integer)"},
	{ID: optTimeTrace, Prefixes: d2, Name: "wrapper-time-trace=", Kind: optable.Joined, Flags: WrapperOnly, MetaVar: "<file>", Help: "Enable time-trace and write the output to <file>"},
	{ID: optTimeTraceGranularity, Prefixes: d2, Name: "wrapper-time-trace-granularity=", Kind: optable.Joined, Flags: WrapperOnly, MetaVar: "<number>", Help: "Set the granularity of time-trace updates"},
	{ID: optWrapperJobs, Prefixes: d2, Name: "wrapper-jobs=", Kind: optable.Joined, Flags: WrapperOnly, MetaVar: "<number>", Help: "Sets the number of parallel jobs for device linking. Can be a positive integer or 'jobserver'."},
	{ID: optOverrideImage, Prefixes: d2, Name: "override-image=", Kind: optable.Joined, Flags: WrapperOnly, MetaVar: "<kind=file>", Help: "Uses the provided file as if it were the output of the device link step"},
	{ID: optShouldExtract, Prefixes: d2, Name: "should-extract=", Kind: optable.Joined, Flags: WrapperOnly, MetaVar: "<kind=file>", Help: "Set of device architectures we should always extract if found."},
	{ID: optEmitFatbinOnly, Prefixes: d2, Name: "emit-fatbin-only", Kind: optable.Flag, Flags: WrapperOnly, Help: "Emit fat binary directly without wrapping or host linking"},

	{ID: optArch, Prefixes: d2, Name: "arch=", Kind: optable.Joined, Flags: DeviceOnly, Hidden: true, MetaVar: "<arch>", Help: "The device subarchitecture"},
	{ID: optTriple, Prefixes: d2, Name: "triple=", Kind: optable.Joined, Flags: DeviceOnly, Hidden: true, MetaVar: "<triple>", Help: "The device target triple"},
	{ID: optWholeProgram, Prefixes: d2, Name: "whole-program", Kind: optable.Flag, Flags: DeviceOnly, Hidden: true, Help: "LTO has visibility of all input files"},
	{ID: optLinkerArg, Prefixes: d2, Name: "linker-arg=", Kind: optable.Joined, Flags: DeviceOnly, Hidden: true, Help: "An extra argument to be passed to the linker"},
	{ID: optCompilerArg, Prefixes: d2, Name: "compiler-arg=", Kind: optable.Joined, Flags: DeviceOnly, Hidden: true, Help: "An extra argument to be passed to the compiler"},

	{ID: optMllvm, Prefixes: d1, Name: "mllvm", Kind: optable.Separate, Flags: WrapperOnly, MetaVar: "<arg>", Help: "Arguments passed to LLVM, including Clang invocations, for which the '-mllvm' prefix is preserved. Use '-mllvm --help' for a list of options."},
	{ID: optOffloadOpt, Prefixes: dd, Name: "offload-opt=", Kind: optable.Joined, Flags: WrapperOnly, Hidden: true, Help: "Options passed to LLVM, not including the Clang invocation. Use '--offload-opt=--help' for a list of options."},

	{ID: optSysroot, Prefixes: d2, Name: "sysroot=", Kind: optable.Joined, Help: "Set the system root"},
	{ID: optO, Prefixes: d1, Name: "o", Kind: optable.JoinedOrSeparate, MetaVar: "<path>", Help: "Path to file to write output"},
	{ID: optOutputEq, Prefixes: d2, Name: "output=", Kind: optable.Joined, Alias: optO, Hidden: true, Help: "Alias for -o"},
	{ID: optOutput, Prefixes: d2, Name: "output", Kind: optable.Separate, Alias: optO, Hidden: true, Help: "Alias for -o"},
	{ID: optLibraryPath, Prefixes: d1, Name: "L", Kind: optable.JoinedOrSeparate, MetaVar: "<dir>", Help: "Add <dir> to the library search path"},
	{ID: optLibraryPathS, Prefixes: dd, Name: "library-path", Kind: optable.Separate, Alias: optLibraryPath, Hidden: true, Help: "Add <dir> to the library search path"},
	{ID: optLibraryPathEQ, Prefixes: dd, Name: "library-path=", Kind: optable.Joined, Alias: optLibraryPath, Hidden: true, Help: "Add <dir> to the library search path"},
	{ID: optLibrary, Prefixes: d1, Name: "l", Kind: optable.JoinedOrSeparate, MetaVar: "<libname>", Help: "Search for library <libname>"},
	// LLVM 22 aliases --library to -L (sic); kept for byte-identical forwarding.
	{ID: optLibraryS, Prefixes: dd, Name: "library", Kind: optable.Separate, Alias: optLibraryPath, Hidden: true, Help: "Add <dir> to the library search path"},
	{ID: optLibraryEQ, Prefixes: dd, Name: "library=", Kind: optable.Joined, Alias: optLibraryPath, Hidden: true, Help: "Add <dir> to the library search path"},
	{ID: optRpath, Prefixes: dd, Name: "rpath", Kind: optable.Separate},
	{ID: optRpathEQ, Prefixes: dd, Name: "rpath=", Kind: optable.Joined, Alias: optRpath, Hidden: true},
	// No help text: clang-linker-wrapper 22 lists neither --v nor --version,
	// even with --help-hidden.
	{ID: optV, Prefixes: dd, Name: "v", Kind: optable.Flag, Hidden: true},
	{ID: optVersion, Prefixes: dd, Name: "version", Kind: optable.Flag, Hidden: true},
	{ID: optWholeArchive, Prefixes: dd, Name: "whole-archive", Kind: optable.Flag, Hidden: true},
	{ID: optNoWholeArchive, Prefixes: dd, Name: "no-whole-archive", Kind: optable.Flag, Hidden: true},
	{ID: optRelocatable, Prefixes: dd, Name: "relocatable", Kind: optable.Flag, Help: "Link device code to create a relocatable offloading application"},
	{ID: optR, Prefixes: d1, Name: "r", Kind: optable.Flag, Alias: optRelocatable, Hidden: true, Help: "Link device code to create a relocatable offloading application"},
	{ID: optOut, Prefixes: slash, Name: "out:", Kind: optable.Joined, Hidden: true},
	{ID: optLibpath, Prefixes: slash, Name: "libpath:", Kind: optable.Joined, Hidden: true},
	{ID: optWholearchiveFlag, Prefixes: slash, Name: "wholearchive", Kind: optable.Joined, Hidden: true},

	// Older releases' options (no help text: listed by neither help page).
	{ID: optOptLevel, Prefixes: d2, Name: "opt-level=", Kind: optable.Joined, Flags: WrapperOnly, Hidden: true},
	{ID: optDeviceDebug, Prefixes: d2, Name: "device-debug", Kind: optable.Flag, Flags: WrapperOnly, Hidden: true},
	{ID: optPtxasArg, Prefixes: d2, Name: "ptxas-arg=", Kind: optable.Joined, Flags: WrapperOnly, Hidden: true},
	{ID: optPassRemarks, Prefixes: d2, Name: "pass-remarks=", Kind: optable.Joined, Flags: WrapperOnly, Hidden: true},
	{ID: optPassRemarksMissed, Prefixes: d2, Name: "pass-remarks-missed=", Kind: optable.Joined, Flags: WrapperOnly, Hidden: true},
	{ID: optPassRemarksAnalysis, Prefixes: d2, Name: "pass-remarks-analysis=", Kind: optable.Joined, Flags: WrapperOnly, Hidden: true},
	{ID: optBitcodeLibrary, Prefixes: d2, Name: "bitcode-library=", Kind: optable.Joined, Flags: WrapperOnly, Hidden: true},
	{ID: optBuiltinBitcode, Prefixes: d2, Name: "builtin-bitcode=", Kind: optable.Joined, Flags: WrapperOnly, Hidden: true},
	{ID: optClangBackend, Prefixes: d2, Name: "clang-backend", Kind: optable.Flag, Flags: WrapperOnly, Hidden: true},

	// offload-kit extensions.
	{ID: optClangPath, Prefixes: d2, Name: "clang-path=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<path>", Help: "The clang used for device links (default: $OFFLOAD_KIT_CLANG, then the clang that runs this link; see docs/linker-wrapper.md)"},
	{ID: optLlvmDir, Prefixes: d2, Name: "llvm-dir=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<dir>", Help: "Take clang and the other LLVM tools from this bin directory first (default: $OFFLOAD_KIT_LLVM_DIR)"},
	{ID: optToolPath, Prefixes: d2, Name: "tool-path=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<program>=<path>", Help: "Run <path> for <program> (clang, ptxas, nvlink, fatbinary, llvm-link, ...; default: $OFFLOAD_KIT_<PROGRAM>)"},
	{ID: optDeviceArchives, Prefixes: d2, Name: "device-archives=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "lazy|llvm22", Help: "How device code is taken from archives: by symbol resolution (lazy, default) or as LLVM 22 does (llvm22)"},
	{ID: optCacheDir, Prefixes: d2, Name: "cache-dir=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<dir>", Help: "Cache device-link results in <dir> (default: $OFFLOAD_KIT_CACHE_DIR; unset = no cache)"},
	{ID: optCacheMaxSize, Prefixes: d2, Name: "cache-max-size=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<bytes|NK|NM|NG>", Help: "Trim the device-link cache to this size (default: $OFFLOAD_KIT_CACHE_MAX_SIZE, else 5G; 0 = unlimited)"},
	{ID: optCacheRemote, Prefixes: d2, Name: "cache-remote=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<URL>", Help: "Share device-link results through a remote cache: a Bazel HTTP cache (http://, https://) or a Remote Execution API cache (grpc://host:port[/instance], grpcs://) (default: $OFFLOAD_KIT_CACHE_REMOTE)"},
	{ID: optCacheRemoteHeader, Prefixes: d2, Name: "cache-remote-header=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<name>:<value>", Help: "Send this HTTP header to the remote cache, e.g. 'Authorization: Bearer <token>' (repeatable; default: $OFFLOAD_KIT_CACHE_REMOTE_HEADER)"},
	{ID: optCacheRemoteReadOnly, Prefixes: d2, Name: "cache-remote-read-only", Kind: optable.Flag, Flags: WrapperOnly, Extension: true, Help: "Read from the remote cache but never upload (default: $OFFLOAD_KIT_CACHE_REMOTE_READ_ONLY=1)"},
	{ID: optCacheTimeout, Prefixes: d2, Name: "cache-timeout=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<duration>", Help: "Give up on the remote cache after this long without progress (connect, answer, or between bytes; default 5s)"},
	{ID: optCacheSecretFile, Prefixes: d2, Name: "cache-secret-file=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<file>", Help: "Authenticate cache entries with the secret in <file>; only holders of it can write entries others accept (default: $OFFLOAD_KIT_CACHE_SECRET_FILE)"},
	{ID: optDevicePartitions, Prefixes: d2, Name: "device-partitions=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<N|auto>", Help: "Generate the code of AMDGPU LTO device links in N parts (auto: 8), in parallel, each cached on its own (default: $OFFLOAD_KIT_DEVICE_PARTITIONS; 1 = whole; see docs/partitions.md)"},
	{ID: optCacheSharedGroup, Prefixes: d2, Name: "cache-shared-group=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<group>", Help: "Accept a --cache-dir shared by <group> (name or number): group-owned, setgid, mode 2770; every member can write entries all trust (default: $OFFLOAD_KIT_CACHE_SHARED_GROUP)"},
	{ID: optCacheToolCheck, Prefixes: d2, Name: "cache-tool-check=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "content|stat", Help: "Identify tools in cache keys by their contents (default) or by path, size and modification time"},
	{ID: optNoCache, Prefixes: d2, Name: "no-cache", Kind: optable.Flag, Flags: WrapperOnly, Extension: true, Help: "Do not use the device-link cache"},
	{ID: optSYCLRegistration, Prefixes: d2, Name: "sycl-registration=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "descriptor|blob|blob-atexit", Help: "How SYCL images are registered: LLVM 22's __sycl_register_lib(descriptor) (default), or LLVM main's __sycl_register_lib(blob, size) with a destructor (blob) or atexit (blob-atexit)"},
	{ID: optMaxInflated, Prefixes: d2, Name: "wrapper-max-inflated=", Kind: optable.Joined, Flags: WrapperOnly, Extension: true, MetaVar: "<bytes|NK|NM|NG>", Help: "Limit on the bytes of compressed (v3) offload images inflated in memory, all inputs together (default 512M)"},
}...)

// Table is the wrapper's option table.
var Table = optable.MustNew(optionList)

// ArchiveMode selects how device code is taken from archive members.
type ArchiveMode int

const (
	// ArchivesLazy takes a member's device code when the host link would
	// pull the member, or when its device symbols resolve undefined device
	// references; a fixed point independent of library order.
	ArchivesLazy ArchiveMode = iota
	// ArchivesLLVM22 takes every member whose target already has a device
	// link (or is named in --should-extract), as LLVM 22.1.8 does.
	ArchivesLLVM22
)

// SYCLRegistration is how SYCL device images are registered with the
// runtime (docs/wrapper-objects.md).
type SYCLRegistration int

const (
	// SYCLDescriptor is LLVM 22's __sycl_register_lib(__sycl.tgt_bin_desc *).
	SYCLDescriptor SYCLRegistration = iota
	// SYCLBlob is LLVM main's __sycl_register_lib(blob, size) with a
	// priority-1 constructor and destructor (llvm-project PR #193876).
	SYCLBlob
	// SYCLBlobAtExit is the later form: a priority-101 constructor that
	// registers the blob, then atexit (PR #217173).
	SYCLBlobAtExit
)

// The values of --device-archives and --cache-tool-check (CacheToolStat).
var (
	syclRegistrations = optable.Enum[SYCLRegistration]{{Name: "descriptor", Value: SYCLDescriptor}, {Name: "blob", Value: SYCLBlob}, {Name: "blob-atexit", Value: SYCLBlobAtExit}}
	archiveModes      = optable.Enum[ArchiveMode]{{Name: "lazy", Value: ArchivesLazy}, {Name: "llvm22", Value: ArchivesLLVM22}}
	toolChecks        = optable.Enum[bool]{{Name: "content", Value: false}, {Name: "stat", Value: true}}
)

// Options is a parsed command line.
type Options struct {
	// Args are all arguments in order (response files expanded).
	Args []optable.Arg

	LinkerPath, CudaPath, HostTriple, ClangPath string
	Output                                      string
	Sysroot                                     string
	DeviceLinker, DeviceCompiler                []string
	LinkerArgs, CompilerArgs                    []string
	MLLVM, OffloadOpt                           []string
	ShouldExtract                               []string
	OverrideImages                              []string // "<kind>=<file>"
	DryRun, Verbose, SaveTemps                  bool
	EmbedBitcode, PrintWrappedModule            bool
	Compress, EmitFatbinOnly, Relocatable       bool
	CompressionLevel                            string
	TimeTrace                                   string
	TimeTraceGranularity                        int
	// Jobs is the --wrapper-jobs count; 0 means not given. JobServer is set
	// for --wrapper-jobs=jobserver.
	Jobs      int
	JobServer bool
	Archives  ArchiveMode

	// LLVMDir is --llvm-dir; ToolPaths maps program names to --tool-path
	// values (docs/linker-wrapper.md, "Which programs run").
	LLVMDir   string
	ToolPaths map[string]string

	// CacheDir enables the device-link cache (--cache-dir; cmd/ maps
	// $OFFLOAD_KIT_CACHE_DIR). CacheMaxSize is --cache-max-size in bytes:
	// -1 when not given (the driver then uses DefaultCacheMaxSize), 0 for
	// unlimited. CacheRemote is --cache-remote. NoCache disables the cache.
	CacheDir     string
	CacheMaxSize int64
	CacheRemote  string
	NoCache      bool
	// CacheRemoteHeaders are --cache-remote-header values ("Name: value"),
	// CacheRemoteReadOnly is --cache-remote-read-only, CacheTimeout is
	// --cache-timeout (0: the cache's default), CacheSecretFile is
	// --cache-secret-file, CacheSharedGroup is --cache-shared-group (a
	// group that may share the cache directory, cache.Options.SharedGroup;
	// when empty the driver reads $OFFLOAD_KIT_CACHE_SHARED_GROUP from its
	// environment) and CacheToolStat is --cache-tool-check=stat.
	CacheRemoteHeaders  []string
	CacheRemoteReadOnly bool
	CacheTimeout        time.Duration
	CacheSecretFile     string
	CacheSharedGroup    string
	// DevicePartitions is --device-partitions: 0 or 1 link device code
	// whole, AutoPartitions picks the count (partition.go).
	DevicePartitions int
	CacheToolStat    bool
	// Summary prints the phase table and cache statistics at exit
	// (--wrapper-verbose; cmd/ also sets it for OFFLOAD_KIT_VERBOSE=1).
	Summary bool
	// MaxInflated caps the bytes of compressed (v3) OffloadBinaries
	// inflated in memory over all inputs; 0 means DefaultMaxInflated.
	MaxInflated int64
	// SYCLRegistration selects the SYCL registration ABI
	// (--sycl-registration).
	SYCLRegistration SYCLRegistration

	Help, HelpHidden, Version bool

	// Older releases' options (docs/linker-wrapper.md, "Releases"):
	// OptLevel is --opt-level= ("O2"; -O<n> on device links), DeviceDebug
	// --device-debug (-g), PtxasArgs --ptxas-arg= (-Xcuda-ptxas on nvptx
	// links), PassRemarks* --pass-remarks*= (-Rpass*=), BitcodeLibraries
	// --bitcode-library=<kind>-<triple>-<arch>=<path> (an extra input of the
	// matching link), BuiltinBitcode --builtin-bitcode=<triple>=<path>
	// (-Xclang -mlink-builtin-bitcode), ClangBackend --clang-backend (no
	// effect: device links always run clang). Separator is LLVM 16-18's
	// "--" between the wrapper's options and the linker's.
	OptLevel                                            string
	DeviceDebug, ClangBackend, Separator                bool
	PtxasArgs, BitcodeLibraries, BuiltinBitcode         []string
	PassRemarks, PassRemarksMissed, PassRemarksAnalysis string
}

// separatorOption is LLVM 16-18's "--" (def separator : Flag<["--"], "">):
// their wrappers consume it, and the arguments after it are read as before
// (LLVM's table parses them too) and go to the host linker. LLVM 19 and
// later forward "--" to the host linker, so hostLinkArgs drops it only when
// the link behaves as a release that has it. optable has no empty option
// names, so ParseArgs marks the argument itself.
var separatorOption = &optable.Option{ID: optSeparator, Prefixes: d2, Name: "", Kind: optable.Flag, Hidden: true}

// ParseArgs parses an (expanded) argument list.
func ParseArgs(args []string) (*Options, error) {
	parsed, err := Table.Parse(args)
	if err != nil {
		return nil, err
	}
	o := &Options{Args: parsed, TimeTraceGranularity: 500, CacheMaxSize: -1}
	for i := range parsed {
		a := &parsed[i]
		if a.Opt == nil && a.Unknown && len(a.Raw) == 1 && a.Raw[0] == "--" {
			a.Opt, a.Unknown, a.Spelling = separatorOption, false, "--"
			o.Separator = true
			continue
		}
		if a.Opt == nil {
			if err := unknownCacheOption(a); err != nil {
				return nil, err
			}
			continue
		}
		v := a.Value()
		switch a.Opt.ID {
		case optHelp:
			o.Help = true
		case optHelpHidden:
			o.HelpHidden = true
		case optVersion:
			o.Version = true
		case optLinkerPath:
			o.LinkerPath = v
		case optCudaPath:
			o.CudaPath = v
		case optHostTriple:
			o.HostTriple = v
		case optClangPath:
			o.ClangPath = v
		case optLlvmDir:
			o.LLVMDir = v
		case optToolPath:
			name, path, ok := strings.Cut(v, "=")
			if !ok || name == "" || path == "" {
				return nil, fmt.Errorf("--tool-path=%s: expected <program>=<path>", v)
			}
			if o.ToolPaths == nil {
				o.ToolPaths = map[string]string{}
			}
			o.ToolPaths[name] = path
		case optDeviceLinker:
			o.DeviceLinker = append(o.DeviceLinker, v)
		case optDeviceCompiler:
			o.DeviceCompiler = append(o.DeviceCompiler, v)
		case optLinkerArg:
			o.LinkerArgs = append(o.LinkerArgs, v)
		case optCompilerArg:
			o.CompilerArgs = append(o.CompilerArgs, v)
		case optDryRun:
			o.DryRun = true
		case optVerbose:
			o.Verbose = true
			o.Summary = true
		case optEmbedBitcode:
			o.EmbedBitcode = true
		case optPrintWrappedModule:
			o.PrintWrappedModule = true
		case optSaveTemps:
			o.SaveTemps = true
		case optCompress:
			o.Compress = true
		case optCompressionLevel:
			o.CompressionLevel = v
		case optTimeTrace:
			o.TimeTrace = v
		case optTimeTraceGranularity:
			n, ok := optable.IntAtLeast(v, 0)
			if !ok {
				return nil, fmt.Errorf("invalid argument '%s' to --wrapper-time-trace-granularity=", v)
			}
			o.TimeTraceGranularity = n
		case optWrapperJobs:
			if v == "jobserver" {
				o.JobServer, o.Jobs = true, 0
				break
			}
			n, ok := optable.IntAtLeast(v, 1)
			if !ok {
				return nil, fmt.Errorf("--wrapper-jobs=%s: expected a positive integer or 'jobserver', got '%s'", v, v)
			}
			o.Jobs, o.JobServer = n, false
		case optOverrideImage:
			o.OverrideImages = append(o.OverrideImages, v)
		case optShouldExtract:
			for _, s := range strings.Split(v, ",") {
				if s != "" {
					o.ShouldExtract = append(o.ShouldExtract, s)
				}
			}
		case optEmitFatbinOnly:
			o.EmitFatbinOnly = true
		case optMllvm:
			o.MLLVM = append(o.MLLVM, v)
		case optOffloadOpt:
			o.OffloadOpt = append(o.OffloadOpt, v)
		case optSysroot:
			o.Sysroot = v
		case optO:
			o.Output = v
		case optOut:
			o.Output = v
		case optRelocatable:
			o.Relocatable = true
		case optCacheDir:
			o.CacheDir = v
		case optCacheMaxSize:
			n, err := ParseSize(v)
			if err != nil {
				return nil, fmt.Errorf("--cache-max-size=%s: %v", v, err)
			}
			o.CacheMaxSize = n
		case optCacheRemote:
			o.CacheRemote = v
		case optCacheRemoteHeader:
			if !isHeader(v) {
				return nil, fmt.Errorf("--cache-remote-header=%s: expected <name>:<value>", v)
			}
			o.CacheRemoteHeaders = append(o.CacheRemoteHeaders, v)
		case optCacheRemoteReadOnly:
			o.CacheRemoteReadOnly = true
		case optCacheTimeout:
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("--cache-timeout=%s: expected a positive duration such as 5s or 500ms", v)
			}
			o.CacheTimeout = d
		case optCacheSecretFile:
			o.CacheSecretFile = v
		case optDevicePartitions:
			n, err := ParsePartitions(v)
			if err != nil {
				return nil, fmt.Errorf("--device-partitions=%s: %v", v, err)
			}
			o.DevicePartitions = n
		case optCacheSharedGroup:
			if v == "" {
				return nil, fmt.Errorf("--cache-shared-group=: expected a group name or number")
			}
			o.CacheSharedGroup = v
		case optCacheToolCheck:
			stat, ok := toolChecks.Lookup(v)
			if !ok {
				return nil, fmt.Errorf("--cache-tool-check=%s: expected %s", v, toolChecks.Names("'"))
			}
			o.CacheToolStat = stat
		case optNoCache:
			o.NoCache = true
		case optMaxInflated:
			n, err := ParseSize(v)
			if err != nil || n == 0 {
				return nil, fmt.Errorf("--wrapper-max-inflated=%s: expected a positive size", v)
			}
			o.MaxInflated = n
		case optOptLevel:
			o.OptLevel = v
		case optDeviceDebug:
			o.DeviceDebug = true
		case optPtxasArg:
			o.PtxasArgs = append(o.PtxasArgs, v)
		case optPassRemarks:
			o.PassRemarks = v
		case optPassRemarksMissed:
			o.PassRemarksMissed = v
		case optPassRemarksAnalysis:
			o.PassRemarksAnalysis = v
		case optBitcodeLibrary:
			if _, err := parseBitcodeLibrary(v); err != nil {
				return nil, err
			}
			o.BitcodeLibraries = append(o.BitcodeLibraries, v)
		case optBuiltinBitcode:
			if t, p, ok := strings.Cut(v, "="); !ok || t == "" || p == "" {
				return nil, fmt.Errorf("--builtin-bitcode=%s: expected <triple>=<path>", v)
			}
			o.BuiltinBitcode = append(o.BuiltinBitcode, v)
		case optClangBackend:
			o.ClangBackend = true
		case optSYCLRegistration:
			m, ok := syclRegistrations.Lookup(v)
			if !ok {
				return nil, fmt.Errorf("--sycl-registration=%s: expected %s", v, syclRegistrations.Names("'"))
			}
			o.SYCLRegistration = m
		case optDeviceArchives:
			m, ok := archiveModes.Lookup(v)
			if !ok {
				return nil, fmt.Errorf("--device-archives=%s: expected %s", v, archiveModes.Names("'"))
			}
			o.Archives = m
		}
	}
	return o, nil
}

// ApplyEnv maps the offload-kit environment variables into o; flags win.
// The variables are read through env (driverenv.Env.Getenv; cmd/ passes
// its process environment).
//
//	OFFLOAD_KIT_CACHE_DIR        --cache-dir
//	OFFLOAD_KIT_CACHE_MAX_SIZE   --cache-max-size
//	OFFLOAD_KIT_CACHE_REMOTE     --cache-remote
//	OFFLOAD_KIT_CACHE_REMOTE_HEADER     --cache-remote-header (one NAME:VALUE)
//	OFFLOAD_KIT_CACHE_REMOTE_READ_ONLY=1 --cache-remote-read-only
//	OFFLOAD_KIT_CACHE_SECRET_FILE       --cache-secret-file
//	OFFLOAD_KIT_DEVICE_PARTITIONS       --device-partitions
//	OFFLOAD_KIT_VERBOSE=1        phase summary and cache statistics at exit
func (o *Options) ApplyEnv(env *driverenv.Env) error {
	getenv := env.Getenv
	if o.CacheDir == "" {
		o.CacheDir = getenv("OFFLOAD_KIT_CACHE_DIR")
	}
	if o.CacheRemote == "" {
		o.CacheRemote = getenv("OFFLOAD_KIT_CACHE_REMOTE")
	}
	if v := getenv("OFFLOAD_KIT_CACHE_MAX_SIZE"); v != "" && o.CacheMaxSize < 0 {
		n, err := ParseSize(v)
		if err != nil {
			return fmt.Errorf("OFFLOAD_KIT_CACHE_MAX_SIZE=%s: %v", v, err)
		}
		o.CacheMaxSize = n
	}
	if v := getenv("OFFLOAD_KIT_CACHE_REMOTE_HEADER"); v != "" && len(o.CacheRemoteHeaders) == 0 {
		if !isHeader(v) {
			return fmt.Errorf("OFFLOAD_KIT_CACHE_REMOTE_HEADER: expected <name>:<value>")
		}
		o.CacheRemoteHeaders = []string{v}
	}
	if v := getenv("OFFLOAD_KIT_CACHE_REMOTE_READ_ONLY"); v != "" && v != "0" {
		o.CacheRemoteReadOnly = true
	}
	if o.CacheSecretFile == "" {
		o.CacheSecretFile = getenv("OFFLOAD_KIT_CACHE_SECRET_FILE")
	}
	if v := getenv("OFFLOAD_KIT_DEVICE_PARTITIONS"); v != "" && o.DevicePartitions == 0 {
		n, err := ParsePartitions(v)
		if err != nil {
			return fmt.Errorf("OFFLOAD_KIT_DEVICE_PARTITIONS=%s: %v", v, err)
		}
		o.DevicePartitions = n
	}
	if env.VerboseSet() {
		o.Summary = true
	}
	return nil
}

// isHeader reports whether v is an HTTP header line, "<name>:<value>".
func isHeader(v string) bool {
	name, _, ok := strings.Cut(v, ":")
	return ok && strings.TrimSpace(name) != ""
}

// unknownCacheOption rejects an argument that looks like a cache option but
// is none (e.g. a misspelt --cache-timout=1s), so that it never reaches the
// host linker silently.
func unknownCacheOption(a *optable.Arg) error {
	if !a.Unknown || len(a.Raw) == 0 {
		return nil
	}
	s := a.Raw[0]
	if strings.HasPrefix(s, "--cache-") || strings.HasPrefix(s, "-cache-") {
		name, _, _ := strings.Cut(s, "=")
		return fmt.Errorf("unknown cache option %s", quoteOdd(name))
	}
	return nil
}

// ParseSize reads a byte count: digits with an optional K, M or G suffix
// (binary multiples; "KiB"/"KB" spellings and lower case are accepted).
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult, t = 1<<10, t[:n-1]
		case 'M':
			mult, t = 1<<20, t[:n-1]
		case 'G':
			mult, t = 1<<30, t[:n-1]
		case 'T':
			mult, t = 1<<40, t[:n-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("expected a byte count such as 1048576, 512M or 5G, got '%s'", s)
	}
	return n * mult, nil
}
