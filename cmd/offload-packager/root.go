package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/cli/clopt"
	"github.com/offload-kit/offload-kit/internal/driver/bundler"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
	"github.com/offload-kit/offload-kit/internal/phase"
	"github.com/offload-kit/offload-kit/internal/version"
)

// personality returns which LLVM tool argv[0] names, tolerating version
// suffixes such as "llvm-offload-binary-22".
func personality(argv0 string) string {
	s := cli.Stem(argv0)
	// Drop a version suffix ("-22", "-22.1"), as clang's driver names allow.
	if i := strings.LastIndexByte(s, '-'); i > 0 && strings.Trim(s[i+1:], "0123456789.") == "" && i+1 < len(s) {
		s = s[:i]
	}
	for _, p := range []string{"llvm-offload-binary", "clang-offload-packager", "clang-offload-bundler"} {
		if strings.HasSuffix(s, p) {
			return p
		}
	}
	return ""
}

// realMain is main without os.Exit, so tests can call it; every command's
// main.go only calls its realMain. SIGINT and SIGTERM clean up and exit
// 130 and 143 (cli.WithSignals).
func realMain(argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.WithSignals(func(ctx context.Context) int { return runCtx(ctx, argv0, args, stdin, stdout, stderr) })
}

func runCtx(ctx context.Context, argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The LLVM personalities take no -v of their own: OFFLOAD_KIT_VERBOSE
	// asks them for the phase summary.
	env := cli.ProcessEnv(stdin, stdout, stderr, argv0)
	var timer *phase.Timer
	if env.VerboseSet() {
		timer = phase.New(time.Now)
		defer timer.Print(stderr, cli.Stem(argv0))
	}
	p := personality(argv0)
	// One expansion of "@file" arguments for every personality and
	// subcommand, before anything is parsed (as LLVM's parsers do).
	args, err := cli.ExpandResponseFiles(args)
	if err != nil {
		if p != "" {
			return cli.ExitCode(stderr, argv0, err)
		}
		return cli.ExitCode(stderr, "offload-packager", err)
	}
	switch p {
	case "llvm-offload-binary", "clang-offload-packager":
		env.Phases, env.Progress = timer, cli.Progress(&env, false)
		return cli.ExitCode(stderr, argv0, packager.OffloadBinaryMain(ctx, &env, argv0, args))
	case "clang-offload-bundler":
		return runBundler(ctx, argv0, args, stdin, stdout, stderr)
	}
	env.Tool, env.Phases = "offload-packager", timer
	root := newRootCmd(&env, nil)
	root.SetOut(stdout)
	root.SetIn(stdin)
	args, err = dispatch(root, args)
	if err != nil {
		return cli.ExitCode(stderr, "offload-packager", err)
	}
	return cli.Main(root, "offload-packager", args, stderr)
}

// runF receives the parsed options of a subcommand; nil runs the driver.
type runF func(cmd string, opts any) error

func newRootCmd(env *packager.Env, rf runF) *cobra.Command {
	root := &cobra.Command{
		Use:   "offload-packager",
		Short: "Create, extract, inspect and embed offload packages",
		Long: `offload-packager works with the containers that carry device code in fat
objects: LLVM OffloadBinary packages, clang-offload-bundler bundles,
NVIDIA fatbins and AdaptiveCpp HCF.

Invoked as llvm-offload-binary or clang-offload-packager (through a symlink),
it behaves exactly like LLVM 22's llvm-offload-binary; invoked as
clang-offload-bundler, like that tool.

Which command line applies: the first argument (after -v/--verbose)
decides. A subcommand name (create, extract, dump, kernels, embed, bundle,
help, completion) runs that subcommand; -h, --help or --version, or no argument
at all, is offload-packager's own; anything else makes the whole command
line llvm-offload-binary's, exactly as that name takes it:

  offload-packager -o out.pkg --image=file=dev.o,triple=T,arch=A,kind=openmp
  offload-packager in.pkg --image=kind=openmp

(an input file named like a subcommand is given as ./dump). "@file"
arguments are replaced by the file's arguments everywhere, with LLVM's
rules. The subcommands take GNU-style options (--all, -d DIR); create and
bundle take LLVM's (-o, --image=..., -type=o), as the tools they stand
for. A bare input file without --image writes nothing: it lists what
"offload-packager extract FILE" would write. A mistyped command or option
is an error naming the nearest one.

Documentation: ` + cli.DocRef("") + `.`,
		Version: version.Kit(),
		Args:    cobra.NoArgs,
	}
	root.SuggestionsMinimumDistance = 2
	root.SetVersionTemplate(version.Line("offload-packager") + "\n")
	root.SetFlagErrorFunc(flagError)
	call := func(name string, opts any, real func() error) error {
		if rf != nil {
			return rf(name, opts)
		}
		return real()
	}
	var verbose bool
	root.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "print a phase summary (wall time per phase) on stderr")
	quiet := root.PersistentFlags().Bool("quiet", false, "no progress line on stderr (shown for long operations when stderr is a terminal)")
	root.PersistentPreRun = func(cmd *cobra.Command, args []string) {
		env.Progress = cli.Progress(env, *quiet)
		if verbose && env.Phases == nil {
			env.Phases = phase.New(time.Now)
		}
	}
	root.PersistentPostRun = func(cmd *cobra.Command, args []string) {
		if verbose {
			env.Phases.Print(env.Stderr, "offload-packager")
		}
	}

	create := &cobra.Command{
		Use:   "create -o OUTPUT --image=file=F,triple=T,arch=A,kind=K [--image=...]...",
		Short: "Package device images (llvm-offload-binary -o ... --image=...)",
		Long: `Packages device images into an OffloadBinary, byte-identical to LLVM 22's
llvm-offload-binary -o OUTPUT --image=... (options as LLVM spells them: -o
OUT or -o=OUT, --image=... or -image=...). Unlike that tool, create only
creates: an input file, a missing -o or no --image is an error.
--offload-binary-version=3 writes LLVM main's layout instead (one binary,
every file an entry), =2 the version 2 layout; --compress=zstd|zlib
(version 3 only, --compression-level=N) compresses it.`,
		DisableFlagParsing: true,
		Example:            "  offload-packager create -o pkg.out --image=file=dev.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp",
		RunE: func(cmd *cobra.Command, args []string) error {
			co, err := packager.ParseCreate("offload-packager", args)
			switch {
			case err != nil:
				return err
			case co.Help:
				return cmd.Help()
			case co.Version:
				fmt.Fprintln(cmd.OutOrStdout(), version.Line("offload-packager"))
				return nil
			}
			return call("create", co, func() error { return packager.CreateWith(cmd.Context(), env, co) })
		},
	}

	var ex packager.ExtractOptions
	var exTriple, exArch, exKind, exDir string
	extract := &cobra.Command{
		Use:   "extract INPUT [--image=KEY=VALUE,...]... [--triple=T] [--arch=A] [--kind=K] [--archive] [-d DIR]",
		Short: "Extract device images from a package, object or archive",
		Long: `Extracts device images from a raw package, an ELF/COFF object, an LLVM
bitcode host, an archive, a bundle, a fatbin or an HCF file, and prints
each name written ("Extracted: NAME"). With no filter every image is
written, named by its container:
  OffloadBinary image   <stem>-<triple>-<arch>.<index>.<ext> (llvm-offload-binary's names)
  bundle entry          <file>.<bundle>.<entry ID> (llvm-objdump --offloading's names)
  fatbin entry          <file>.fatbin<f>.<entry>.<sm_NN>.<cubin|ptx>
  HCF image             <stem>.<image>.<bc|spv|ptx|bin>

<file> is the input's (or archive member's) name, <stem> that name without
its extension. Fatbin entries are written as cuobjdump -xelf/-xptx writes
them: compressed ones (zstd, LZ4; CUDA 12.8 and later compress by
default) decompressed, PTX without its terminating NUL; --raw writes the
compressed stream as stored instead. An input without device images is
an error. --image filters use llvm-offload-binary's syntax (file=NAME
picks the output name); --triple, --arch and --kind are shorthands for
one filter. Details: ` + cli.DocRef("extract.md") + `.`,
		Args: cobra.ExactArgs(1),
		Example: `  offload-packager extract app.o
  offload-packager extract libdev.a --kind=openmp --arch=generic -d out/
  offload-packager extract pkg.out --image=triple=amdgcn-amd-amdhsa,arch=gfx90a,file=gfx90a.bc`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ex.Input = args[0]
			var parts []string
			for _, kv := range [][2]string{{"triple", exTriple}, {"arch", exArch}, {"kind", exKind}} {
				if cmd.Flags().Changed(kv[0]) {
					parts = append(parts, kv[0]+"="+kv[1])
				}
			}
			if len(parts) > 0 {
				ex.Images = append(ex.Images, strings.Join(parts, ","))
			}
			ex.OutDir = exDir
			return call("extract", ex, func() error { return packager.Extract(cmd.Context(), env, ex) })
		},
	}
	extract.Flags().StringArrayVar(&ex.Images, "image", nil, "filter in llvm-offload-binary syntax (repeatable)")
	extract.Flags().BoolVar(&ex.Archive, "archive", false, "write the matches of each --image to a static archive named by its file=")
	extract.Flags().StringVar(&exTriple, "triple", "", "only images with this triple")
	extract.Flags().StringVar(&exArch, "arch", "", "only images with this arch")
	extract.Flags().StringVar(&exKind, "kind", "", "only images of this offload kind (openmp, cuda, hip, sycl)")
	extract.Flags().BoolVar(&ex.Raw, "raw", false, "write compressed fatbin entries as stored (the zstd or LZ4 stream) instead of decompressed")
	extract.Flags().StringVarP(&exDir, "output-dir", "d", "", "directory for the extracted files (default: current)")
	_ = extract.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions([]string{"openmp", "cuda", "hip", "sycl"}, cobra.ShellCompDirectiveNoFileComp))
	_ = extract.RegisterFlagCompletionFunc("output-dir", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})

	var do packager.DumpOptions
	dump := &cobra.Command{
		Use:   "dump [--all] [--json] [--extract-bundles] FILE...",
		Short: "List the offload images in files (llvm-objdump --offloading)",
		Long: `Lists every offload image in raw packages, ELF/COFF objects, executables,
bitcode hosts and archives: OffloadBinary entries, the entries of
clang-offload-bundler bundles (HIP's .hip_fatbin, old-driver
__CLANG_OFFLOAD_BUNDLE__ sections, compressed or not), NVIDIA fatbins and
AdaptiveCpp HCF objects. It writes nothing. The lines llvm-objdump
--offloading prints while listing are kept byte for byte; the entries it
does not list follow as "OFFLOAD BUNDLE [b] ENTRY [e]:" blocks.
--extract-bundles adds llvm-objdump's side effect instead: each bundle
entry is written to <file>.<bundle>.<entry ID> ("Extracting offload
bundle: ..."). --all adds every key and value, sizes, offsets and nested
containers; --json prints the schema documented in ` + cli.DocRef("dump-json.md") + `.
Only headers are read for listing, so time and memory do not grow with
payload size.`,
		Args:    cobra.MinimumNArgs(1),
		Example: "  offload-packager dump app.o libdev.a\n  offload-packager dump --json a.out",
		RunE: func(cmd *cobra.Command, args []string) error {
			do.Files = args
			return call("dump", do, func() error { return packager.Dump(cmd.Context(), env, do) })
		},
	}
	dump.Flags().BoolVar(&do.All, "all", false, "print every key and value, sizes and offsets")
	dump.Flags().BoolVar(&do.JSON, "json", false, "print JSON ("+cli.DocRef("dump-json.md")+")")
	dump.Flags().BoolVar(&do.ExtractBundles, "extract-bundles", false, "write bundle entries to <file>.<bundle>.<entry ID> as llvm-objdump --offloading does")
	var noExtract bool // accepted for compatibility: listing never writes
	dump.Flags().BoolVar(&noExtract, "no-extract", false, "")
	dump.Flags().MarkHidden("no-extract")

	var eo packager.EmbedOptions
	embed := &cobra.Command{
		Use:   "embed -o OUTPUT HOST.o PACKAGE...",
		Short: "Embed packages into an ELF or COFF host object (like -fembed-offload-object)",
		Long: `Adds packages to a relocatable host object exactly as clang's
-fembed-offload-object does, keeping every other section, symbol and
relocation. Embedding into an object that already carries offloading data
appends to it. This turns objects from gcc or any other host compiler into
fat objects.`,
		Args:    cobra.MinimumNArgs(2),
		Example: "  gcc -c host.c -o host.o\n  offload-packager embed -o fat.o host.o device.pkg",
		RunE: func(cmd *cobra.Command, args []string) error {
			if eo.Output == "" {
				return &cli.FlagError{Err: errMissingOutput}
			}
			eo.Host, eo.Packages = args[0], args[1:]
			return call("embed", eo, func() error { return packager.Embed(cmd.Context(), env, eo) })
		},
	}
	embed.Flags().StringVarP(&eo.Output, "output", "o", "", "output object")

	bundle := &cobra.Command{
		Use:   "bundle -type=T -targets=... -input=... -output=... [-unbundle | -list]",
		Short: "clang-offload-bundler: bundle, unbundle and list bundles",
		Long: `Runs clang-offload-bundler's command line, with that tool's options and
behaviour (LLVM 22): -type=o|a|bc|ll|s|i|..., -targets=KIND-TRIPLE-ARCH,...,
-input=F (one per target), -output=F, and -unbundle or -list;
"offload-packager bundle --help" lists every option. Details: ` + cli.DocRef("bundle.md") + `.`,
		Example: `  offload-packager bundle -type=o -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a -input=host.o -input=dev.o -output=fat.o
  offload-packager bundle -type=o -list -input=fat.o`,
		DisableFlagParsing:    true,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return call("bundle", args, func() error {
				// The bundler's own help and messages name the
				// subcommand ("USAGE: offload-packager bundle
				// [options]"); errors keep the tool's prefix.
				benv := &bundler.Env{Env: *env}
				return bundler.Main(cmd.Context(), benv, "offload-packager bundle", args)
			})
		},
	}
	create.ValidArgsFunction = optionCompletion(func() []string { return packager.CreateOptionNames() })
	bundle.ValidArgsFunction = optionCompletion(func() []string {
		var help bytes.Buffer
		benv := &bundler.Env{Env: *env}
		benv.Stdout, benv.Stderr = &help, io.Discard
		_ = bundler.Main(context.Background(), benv, "offload-packager bundle", []string{"--help-hidden"})
		return helpOptions(help.String())
	})
	// The bare llvm-offload-binary command line (see dispatch).
	bare := &cobra.Command{
		Use:                bareCmd,
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Leading -v/--verbose are offload-packager's own.
			for len(args) > 0 && isVerbose(args[0]) {
				args = args[1:]
				if env.Phases == nil {
					env.Phases = phase.New(time.Now)
					defer env.Phases.Print(env.Stderr, "offload-packager")
				}
			}
			return call("llvm-offload-binary", args, func() error {
				return packager.BareMain(cmd.Context(), env, "offload-packager", args)
			})
		},
	}
	root.AddCommand(bare)
	root.AddCommand(create, extract, dump, embed, bundle)
	root.AddCommand(buildCommands()...)
	root.AddCommand(kernelsCommands(env, call)...)
	// --version on every subcommand that parses its own flags, with the
	// root's line (create, bundle and the bare syntax print it themselves).
	for _, c := range root.Commands() {
		if !c.DisableFlagParsing && !c.Hidden {
			c.Version = root.Version
		}
	}
	return root
}

var errMissingOutput = errors.New("-o OUTPUT is required")

// bareCmd is the hidden subcommand that runs a bare llvm-offload-binary
// command line.
const bareCmd = "__llvm-offload-binary"

func isVerbose(a string) bool {
	return a == "-v" || a == "--verbose" || a == "--verbose=true" || a == "--verbose=1"
}

// dispatch applies the rule of the root command's help to a command line:
// it returns args unchanged for offload-packager's own command line and
// prefixes the bare llvm-offload-binary syntax with the hidden bareCmd.
// Before a subcommand's GNU-style options are parsed it rejects long
// options given with one dash ("dump -all"), which pflag would read as a
// cluster of short ones, with a message naming the right spelling.
func dispatch(root *cobra.Command, args []string) ([]string, error) {
	i := 0
	for i < len(args) && isVerbose(args[i]) {
		i++
	}
	if i == len(args) {
		return args, nil
	}
	switch a := args[i]; a {
	case "-h", "--help", "--version":
		return args, nil
	case "help":
		// "help TOPIC" for a topic that is no command: an error naming
		// the nearest one (cobra would print the root help, exit 0).
		if i+1 < len(args) {
			if sub, _, err := root.Find(args[i+1:]); err != nil || sub == root || sub.Hidden {
				topic := args[i+1]
				if s := root.SuggestionsFor(topic); len(s) > 0 {
					return nil, &cli.FlagError{Err: fmt.Errorf("unknown help topic '%s'; did you mean '%s'?", topic, strings.Join(s, "' or '"))}
				}
				return nil, &cli.FlagError{Err: fmt.Errorf("unknown help topic '%s'", topic)}
			}
		}
		return args, nil
	case "completion", "__complete", "__completeNoDesc":
		return args, nil
	default:
		sub, _, err := root.Find([]string{a})
		if err != nil || sub == root || sub.Name() == bareCmd {
			if err := suggest(root, a); err != nil {
				return nil, err
			}
			return append([]string{bareCmd}, args...), nil
		}
		if !sub.DisableFlagParsing {
			if err := checkOneDash(sub, args[i+1:]); err != nil {
				return nil, err
			}
		}
		return args, nil
	}
}

// suggest is the check of a first argument that names no subcommand
// before it is taken as llvm-offload-binary's command line: an argument
// that is neither a file nor that tool's option, but is a typo of a
// subcommand ("dumpp", "kernal") or of a subcommand's option ("--al"),
// is an error that names the nearest one, as cobra and LLVM suggest.
func suggest(root *cobra.Command, a string) error {
	if name, ok := strings.CutPrefix(a, "-"); ok {
		name = strings.TrimPrefix(name, "-")
		name, _, _ = strings.Cut(name, "=")
		if name == "" || packager.OffloadBinaryOption(name) || root.Flags().Lookup(name) != nil || root.PersistentFlags().Lookup(name) != nil {
			return nil
		}
		var cands []string
		for _, c := range visibleCommands(root) {
			c.Flags().VisitAll(func(f *pflag.Flag) {
				if !f.Hidden && f.Name != "help" && f.Name != "version" {
					cands = append(cands, c.CommandPath()[len(root.Name())+1:]+" --"+f.Name)
				}
			})
		}
		best := nearestFlag(name, cands)
		if best == "" {
			return nil
		}
		// A typo of llvm-offload-binary's own options gets LLVM's message,
		// which suggests the nearest of them.
		_, opt, _ := strings.Cut(best, "--")
		for _, o := range []string{"o", "image", "archive"} {
			if clopt.EditDistance(name, o) <= clopt.EditDistance(name, opt) {
				return nil
			}
		}
		return &cli.FlagError{Err: fmt.Errorf("unknown option '%s'; did you mean '%s'?", a, best)}
	}
	if strings.ContainsAny(a, "/.") {
		return nil // a path ("./dump" is the input file named dump)
	}
	if _, err := os.Stat(a); err == nil {
		return nil // an input file, even if named like a typo
	}
	if s := root.SuggestionsFor(a); len(s) > 0 {
		return &cli.FlagError{Err: fmt.Errorf("'%s' is neither a command nor a file; did you mean '%s'?", a, strings.Join(s, "' or '"))}
	}
	return nil
}

// visibleCommands lists the subcommands under c (nested ones too) that
// help shows.
func visibleCommands(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.DisableFlagParsing {
			out = append(out, sub)
			out = append(out, visibleCommands(sub)...)
		}
	}
	return out
}

// nearestFlag returns the candidate ("--name", or "cmd --name") whose
// option name is nearest to name, if it is at most two edits away, as
// cobra's command suggestions, and at most one edit per two characters
// of name (so that "--foo" suggests nothing); "" otherwise. Ties go to
// the first candidate.
func nearestFlag(name string, cands []string) string {
	best, bestD := "", 3
	for _, c := range cands {
		_, opt, _ := strings.Cut(c, "--")
		if d := clopt.EditDistance(name, opt); d < bestD && 2*d <= len(name) {
			best, bestD = c, d
		}
	}
	return best
}

// flagError is every subcommand's flag error: a FlagError that names the
// nearest option of the command for an unknown one.
func flagError(c *cobra.Command, err error) error {
	name := ""
	msg := err.Error()
	if n, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name = n
	} else if n, ok := strings.CutPrefix(msg, "unknown shorthand flag: "); ok {
		// "'a' in -al": the whole word may be a long option with one dash.
		if _, word, ok := strings.Cut(n, " in -"); ok {
			name, _, _ = strings.Cut(word, "=")
		}
	}
	if name != "" {
		var cands []string
		add := func(f *pflag.Flag) {
			if !f.Hidden {
				cands = append(cands, "--"+f.Name)
			}
		}
		c.Flags().VisitAll(add)
		c.InheritedFlags().VisitAll(add)
		if best := nearestFlag(name, cands); best != "" {
			err = fmt.Errorf("%s; did you mean %s?", msg, best)
		}
	}
	return &cli.FlagError{Err: err}
}

// optionCompletion completes the LLVM-syntax options of create and
// bundle (whose flags cobra does not parse) from names ("-o",
// "--image="), in the spelling typed ("-ty" gives "-type=", "--ty"
// "--type="), and file names for anything else.
func optionCompletion(names func() []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if !strings.HasPrefix(toComplete, "-") {
			return nil, cobra.ShellCompDirectiveDefault
		}
		var out []string
		dir := cobra.ShellCompDirectiveNoFileComp
		// LLVM takes one dash or two: complete in the spelling typed.
		typed := strings.TrimLeft(toComplete, "-")
		one := !strings.HasPrefix(toComplete, "--")
		for _, n := range names() {
			bare := strings.TrimLeft(n, "-")
			if !strings.HasPrefix(bare, typed) {
				continue
			}
			if one {
				n = "-" + bare
			}
			out = append(out, n)
		}
		if len(out) == 1 && strings.HasSuffix(out[0], "=") {
			dir |= cobra.ShellCompDirectiveNoSpace
		}
		return out, dir
	}
}

// helpOption is an option at the start of a cl::opt help line.
var helpOption = regexp.MustCompile(`(?m)^  (--?[A-Za-z0-9#][A-Za-z0-9_.#-]*)(=?)`)

// helpOptions lists the options a cl::opt --help-hidden text shows, as
// typed ("--type=", "--list"), without the refused --print-options and
// --print-all-options.
func helpOptions(help string) []string {
	var out []string
	for _, m := range helpOption.FindAllStringSubmatch(help, -1) {
		if m[1] != "--print-options" && m[1] != "--print-all-options" {
			out = append(out, m[1]+m[2])
		}
	}
	return out
}

// checkOneDash finds a long option of cmd given with one dash before "--".
func checkOneDash(cmd *cobra.Command, args []string) error {
	flags := cmd.Flags()
	flags.AddFlagSet(cmd.InheritedFlags())
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return nil
		case strings.HasPrefix(a, "--"):
			name, _, hasVal := strings.Cut(a[2:], "=")
			if f := flags.Lookup(name); f != nil && f.NoOptDefVal == "" && !hasVal {
				i++ // its value
			}
		case len(a) == 2 && a[0] == '-':
			if f := flags.ShorthandLookup(a[1:]); f != nil && f.NoOptDefVal == "" {
				i++
			}
		case len(a) > 2 && a[0] == '-':
			name, _, _ := strings.Cut(a[1:], "=")
			if flags.Lookup(name) == nil || len(name) < 2 {
				continue
			}
			if f := flags.ShorthandLookup(a[1:2]); f != nil {
				return &cli.FlagError{Err: fmt.Errorf("%s is -%s with the value '%s'; did you mean --%s?", a, a[1:2], a[2:], name)}
			}
			return &cli.FlagError{Err: fmt.Errorf("unknown shorthand flag '%c' in %s; did you mean --%s?", a[1], a, name)}
		}
	}
	return nil
}

// runBundler is the clang-offload-bundler personality: messages are
// prefixed with argv[0] as typed, as the reference does.
func runBundler(ctx context.Context, argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := cli.ProcessEnv(stdin, stdout, stderr, argv0)
	env.Progress = cli.Progress(&env, false)
	return cli.ExitCode(stderr, argv0, bundlerMain(ctx, &env, argv0, args))
}

// bundlerMain runs the bundler driver in env (cli.ProcessEnv: the
// OFFLOAD_BUNDLER_* variables and the clock), named argv0.
func bundlerMain(ctx context.Context, env *packager.Env, argv0 string, args []string) error {
	benv := &bundler.Env{Env: *env}
	benv.Tool = argv0
	return bundler.Main(ctx, benv, argv0, args)
}
