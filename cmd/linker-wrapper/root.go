package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driver/linkwrap"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
)

// runFunc runs the driver; tests capture the options instead.
type runFunc func(ctx context.Context, env *linkwrap.Env, opts linkwrap.Options) error

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
			env := &linkwrap.Env{
				Env:      cli.ProcessEnv(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), prog),
				CUDADirs: []string{"/usr/local/cuda/bin"},
			}
			if err := opts.ApplyEnv(&env.Env); err != nil {
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
			if err := runF(cmd.Context(), env, *opts); err != nil {
				return linkwrap.Explain(cmd.ErrOrStderr(), prog, err)
			}
			return nil
		},
	}
	return cmd
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
	prog := linkwrap.ProgName(argv[0])
	cmd.Use = prog + " [options] <host linker arguments>"
	cmd.SetOut(stdout)
	return cli.Main(cmd, prog, argv[1:], stderr)
}
