package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driver/linkwrap"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
)

// runFunc runs the driver; tests capture the options instead.
type runFunc func(ctx context.Context, env linkwrap.Env, opts *linkwrap.Options) error

// progName is the argv[0] personality: invoked as clang-linker-wrapper
// (e.g. through a symlink found by clang -B<dir>), diagnostics use that name.
func progName(argv0 string) string {
	if strings.HasPrefix(filepath.Base(argv0), "clang-linker-wrapper") {
		return "clang-linker-wrapper"
	}
	return "linker-wrapper"
}

func newRootCmd(runF runFunc) *cobra.Command {
	if runF == nil {
		runF = linkwrap.Run
	}
	cmd := &cobra.Command{
		Use:   "linker-wrapper [options] <host linker arguments>",
		Short: "Link offload device code, then run the host linker (clang-linker-wrapper 22.1.8 compatible)",
		Example: `  clang-22 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -B<dir> app.c
      (with <dir>/clang-linker-wrapper a symlink to linker-wrapper)
  linker-wrapper --linker-path=/usr/bin/ld --dry-run -o app app.o -lomp -lomptarget`,
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		Args:               cobra.ArbitraryArgs,
		CompletionOptions:  cobra.CompletionOptions{DisableDefaultCmd: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			prog := cmd.Name()
			expanded, err := cli.ExpandResponseFiles(args)
			if err != nil {
				return &cli.FlagError{Err: err}
			}
			opts, err := linkwrap.ParseArgs(expanded)
			if err != nil {
				return &cli.FlagError{Err: err}
			}
			if err := applyEnv(opts, os.Getenv); err != nil {
				return &cli.FlagError{Err: err}
			}
			switch {
			case opts.Help || opts.HelpHidden:
				linkwrap.WriteHelp(cmd.OutOrStdout(), prog, opts.HelpHidden)
				return nil
			case opts.Version:
				linkwrap.WriteVersion(cmd.OutOrStdout(), prog)
				return nil
			}
			env := linkwrap.Env{
				Env:      cli.ProcessEnv(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), prog),
				CUDADirs: []string{"/usr/local/cuda/bin"},
			}
			if err := runF(cmd.Context(), env, opts); err != nil {
				return explain(cmd.ErrOrStderr(), prog, err)
			}
			return nil
		},
	}
	return cmd
}

// applyEnv maps the offload-kit environment variables into opts; flags win.
//
//	OFFLOAD_KIT_CACHE_DIR        --cache-dir
//	OFFLOAD_KIT_CACHE_MAX_SIZE   --cache-max-size
//	OFFLOAD_KIT_CACHE_REMOTE     --cache-remote
//	OFFLOAD_KIT_CACHE_REMOTE_HEADER     --cache-remote-header (one NAME:VALUE)
//	OFFLOAD_KIT_CACHE_REMOTE_READ_ONLY=1 --cache-remote-read-only
//	OFFLOAD_KIT_CACHE_SECRET_FILE       --cache-secret-file
//	OFFLOAD_KIT_VERBOSE=1        phase summary and cache statistics at exit
func applyEnv(opts *linkwrap.Options, getenv func(string) string) error {
	if opts.CacheDir == "" {
		opts.CacheDir = getenv("OFFLOAD_KIT_CACHE_DIR")
	}
	if opts.CacheRemote == "" {
		opts.CacheRemote = getenv("OFFLOAD_KIT_CACHE_REMOTE")
	}
	if v := getenv("OFFLOAD_KIT_CACHE_MAX_SIZE"); v != "" && opts.CacheMaxSize < 0 {
		n, err := linkwrap.ParseSize(v)
		if err != nil {
			return fmt.Errorf("OFFLOAD_KIT_CACHE_MAX_SIZE=%s: %v", v, err)
		}
		opts.CacheMaxSize = n
	}
	if v := getenv("OFFLOAD_KIT_CACHE_REMOTE_HEADER"); v != "" && len(opts.CacheRemoteHeaders) == 0 {
		if name, _, ok := strings.Cut(v, ":"); !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("OFFLOAD_KIT_CACHE_REMOTE_HEADER: expected <name>:<value>")
		}
		opts.CacheRemoteHeaders = []string{v}
	}
	if v := getenv("OFFLOAD_KIT_CACHE_REMOTE_READ_ONLY"); v != "" && v != "0" {
		opts.CacheRemoteReadOnly = true
	}
	if opts.CacheSecretFile == "" {
		opts.CacheSecretFile = getenv("OFFLOAD_KIT_CACHE_SECRET_FILE")
	}
	if driverenv.VerboseValue(getenv(driverenv.Verbose)) {
		opts.Summary = true
	}
	return nil
}

// realMain is main without os.Exit, so tests can call it; main.go only
// calls it. A helper process of this tool serves in-process LLVM (SYCL
// links); otherwise execute runs the wrapper (cli.Main: SIGINT and SIGTERM
// exit 130 and 143).
func realMain(argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	argv := append([]string{argv0}, args...)
	if llvmpool.IsHelper(argv) {
		return llvmpool.Serve(argv, stdin, stdout)
	}
	return execute(newRootCmd(nil), argv, stdout, stderr)
}

// execute runs cmd with argv (argv[0] included) through cli.Main and
// returns the exit status: 0, or 1 after printing "<prog>: error: <msg>".
// A failing child does not pass its exit code through (as in LLVM).
func execute(cmd *cobra.Command, argv []string, stdout, stderr io.Writer) int {
	prog := progName(argv[0])
	cmd.Use = prog + " [options] <host linker arguments>"
	cmd.SetOut(stdout)
	return cli.Main(cmd, prog, argv[1:], stderr)
}

// explain prints the diagnostics for a failed child process or missing
// tool itself (error line, command, hint) and returns cli.Reported;
// other errors are returned for cli.Main to print.
func explain(w io.Writer, prog string, err error) error {
	var re *run.Error
	var te *linkwrap.ToolError
	switch {
	case errors.As(err, &re):
		cli.PrintError(w, prog, err)
		fmt.Fprintf(w, "%s: note: the failing command was:\n%s\n", prog, run.FormatCommand(re.Args))
		fmt.Fprintf(w, "%s: note: its output is above; rerun with --save-temps to keep the intermediate files it read, or --wrapper-verbose to print every command\n", prog)
	case errors.As(err, &te):
		cli.PrintError(w, prog, err)
		if len(te.Searched) > 0 {
			fmt.Fprintf(w, "%s: note: searched %s\n", prog, strings.Join(te.Searched, ", "))
		}
		for _, s := range te.Skipped {
			fmt.Fprintf(w, "%s: note: skipped %s\n", prog, s)
		}
	default:
		if strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return &oneLineError{err}
		}
		return err
	}
	return cli.Reported{Code: 1}
}

// oneLineError keeps a diagnostic on one line: control characters that
// came from an input (a triple or member name holding a newline) are
// printed escaped.
type oneLineError struct{ err error }

func (e *oneLineError) Error() string {
	var b strings.Builder
	for _, r := range e.err.Error() {
		if r < ' ' || r == 0x7f {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (e *oneLineError) Unwrap() error { return e.err }
