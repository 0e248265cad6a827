package packager

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/offload-kit/offload-kit/internal/cli/clopt"
	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/driverenv"
)

// The names of llvm-offload-binary's options (clopt.Opt.Name, without
// dashes). The table and every lookup in its Result use these constants,
// never a string literal, so a misspelt option is a compile error instead
// of an option that silently never occurs. cl::opt's own options (--help,
// --version, ...) are clopt's.
const (
	obOutput  = "o"
	obImage   = "image"
	obArchive = "archive"
	obH       = "h" // "Alias for -help", an ordinary flag read after parsing
)

func offloadBinaryOpts(prog, path string) *clopt.Set {
	return &clopt.Set{Prog: prog, Path: path, Opts: []clopt.Opt{
		{Name: obOutput, Value: true, Meta: "file", Help: "Write output to <file>."},
		{Name: obImage, Value: true, Meta: "<key>=<value>,...", Help: "List of key and value arguments. Required keywords are 'file' and 'triple'."},
		{Name: obArchive, Help: "Write extracted files to a static archive"},
		{Name: obH, Help: "Alias for -help", Unlisted: true},
	},
		Overview: "A utility for bundling several object files into a single binary.\n" +
			"The output binary can then be embedded into the host section table\n" +
			"to create a fatbinary containing offloading code.\n",
		Positional: "Extract from <file>.",
		Category:   "llvm-offload-binary options",
	}
}

// OffloadBinaryMain runs the llvm-offload-binary (or clang-offload-packager)
// command line with LLVM 22.1.8's exact behaviour. argv0 is the program
// path as typed; env.Tool should equal it, since LLVM prefixes errors with
// argv[0] verbatim. Response files ("@file") must have been expanded by the
// caller (cli.ExpandResponseFiles).
func OffloadBinaryMain(ctx context.Context, env *Env, argv0 string, args []string) error {
	return offloadBinaryMain(ctx, env, argv0, args, false)
}

// BareMain runs offload-packager's bare llvm-offload-binary command line
// ("offload-packager in.pkg --image=..."): OffloadBinaryMain, except that
// an input without --image writes nothing. It lists what
// "offload-packager extract" would write from every container and names
// that command (exit 0), or fails with ErrNoImages as extract does.
func BareMain(ctx context.Context, env *Env, argv0 string, args []string) error {
	return offloadBinaryMain(ctx, env, argv0, args, true)
}

func offloadBinaryMain(ctx context.Context, env *Env, argv0 string, args []string, bare bool) error {
	prof, err := env.Release(ctx)
	if err != nil {
		return err
	}
	prog := driverenv.Stem(argv0)
	set := offloadBinaryOptsAs(prog, argv0, prof)
	r, err := set.Parse(args)
	var ce *clopt.Error
	if err != nil && !errors.As(err, &ce) {
		return err
	}
	failed := ce != nil
	if failed {
		fmt.Fprint(env.Stderr, ce.Text)
	}
	if set.Act(env.Stdout, r) { // --help or --version, which act when met
		return nil
	}
	if len(r.Positional) > 1 { // cl::opt's check once every argument is read
		fmt.Fprintf(env.Stderr, "%s: Too many positional arguments specified!\nCan specify at most 1 positional arguments: See: %s --help\n", prog, argv0)
		failed = true
	}
	if failed {
		return diag.Reported{Code: 1}
	}
	if strings.HasSuffix(prog, "clang-offload-packager") && prof.PackagerDeprecationWarning() {
		fmt.Fprintln(env.Stderr, "warning: 'clang-offload-packager' is deprecated. Use 'llvm-offload-binary' instead.")
	}
	output, hasOut := r.Last(obOutput), r.Has(obOutput)
	switch {
	case r.Bool(obH) || !hasOut && len(r.Positional) == 0:
		set.WriteHelp(env.Stdout, false, false)
		return nil
	case hasOut && len(r.Positional) > 0:
		return errors.New("Packaging to an output file and extracting from an input file are mutually exclusive.")
	case hasOut:
		return createAs(ctx, env, prof, output, r.All(obImage))
	}
	if bare && !r.Has(obImage) {
		return Extract(ctx, env, ExtractOptions{Input: r.Positional[0], ListOnly: true})
	}
	return Extract(ctx, env, ExtractOptions{Input: r.Positional[0], Images: r.All(obImage), Archive: r.Bool(obArchive), LLVMMessages: true,
		indexInFile: prof.PackagerIndexInFile()})
}

// CreateOptions are the parsed arguments of offload-packager create.
type CreateOptions struct {
	Output  string
	Images  []string
	Help    bool // --help (or -help, --help-list, ...)
	Version bool
	// BinaryVersion (--offload-binary-version, 0 means 1), Compress and
	// CompressLevel (--compress, --compression-level) select the newer
	// OffloadBinary layouts (create_v23.go).
	BinaryVersion int
	Compress      string
	CompressLevel int
}

// ParseCreate parses offload-packager create's command line: the options
// of llvm-offload-binary (-o, --image, one or two dashes, as LLVM spells
// them), but only for packaging. Where llvm-offload-binary would extract
// (an input file), print its usage (no -o) or write an empty package (no
// --image), create fails with one line that says why. Errors are
// *diag.FlagError.
func ParseCreate(prog string, args []string) (CreateOptions, error) {
	set := offloadBinaryOpts(prog, prog+" create")
	set.Opts = append(set.Opts, createExtOpts...)
	r, err := set.Parse(args)
	if err != nil {
		var ce *clopt.Error
		if errors.As(err, &ce) {
			// LLVM's one or two lines ("<prog>: Unknown ...", "<prog>:
			// Did you mean ...?") as one line.
			lines := strings.Split(strings.TrimRight(ce.Text, "\n"), "\n")
			for i, l := range lines {
				lines[i] = strings.TrimPrefix(l, prog+": ")
			}
			err = errors.New(strings.Join(lines, " "))
		}
		return CreateOptions{}, &diag.FlagError{Err: fmt.Errorf("create: %w", err)}
	}
	o := CreateOptions{Output: r.Last(obOutput), Images: r.All(obImage)}
	o.Help = r.Action != "" && r.Action != clopt.Version || r.Bool(obH)
	o.Version = r.Action == clopt.Version
	if o.Help || o.Version {
		return o, nil
	}
	usage := func(format string, a ...any) (CreateOptions, error) {
		return CreateOptions{}, &diag.FlagError{Err: fmt.Errorf("create: "+format, a...)}
	}
	switch {
	case len(r.Positional) > 0:
		return usage("unexpected input file '%s': create only packages (-o OUTPUT --image=file=F,triple=T,...); to extract, use '%s extract %s'", r.Positional[0], prog, r.Positional[0])
	case r.Bool(obArchive):
		return usage("--archive applies to extraction ('%s extract --archive')", prog)
	case !r.Has(obOutput):
		return usage("-o OUTPUT is required")
	case len(o.Images) == 0:
		return usage("no --image=file=F,triple=T,... given: nothing to package")
	}
	if err := parseCreateExt(r, &o); err != nil {
		return usage("%s", err)
	}
	return o, nil
}

// OffloadBinaryOption reports whether name (without dashes) is an option
// of llvm-offload-binary's command line.
func OffloadBinaryOption(name string) bool { return offloadBinaryOpts("", "").Known(name) }

// CreateOptionNames lists create's options as typed for completion:
// "-o", "--image=", ... (a trailing "=" when the option takes a value).
func CreateOptionNames() []string {
	var out []string
	for _, o := range append(offloadBinaryOpts("", "").Opts, createExtOpts...) {
		if o.Unlisted || o.Name == obArchive {
			continue
		}
		switch {
		case len(o.Name) == 1:
			out = append(out, "-"+o.Name)
		case o.Value:
			out = append(out, "--"+o.Name+"=")
		default:
			out = append(out, "--"+o.Name)
		}
	}
	return out
}
