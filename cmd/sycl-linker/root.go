package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/sycldev"
	"github.com/offload-kit/offload-kit/internal/version"
)

const tool = "sycl-linker"

// realMain is main without os.Exit, so tests can call it; main.go only
// calls it. A helper process of this tool serves in-process LLVM;
// otherwise the helper is started early, so its start and libLLVM load
// overlap this process's own, and runMain runs the tool (cli.Main:
// SIGINT and SIGTERM exit 130 and 143).
func realMain(argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if argv := append([]string{argv0}, args...); llvmpool.IsHelper(argv) { // one of this tool's in-process LLVM helpers
		return llvmpool.Serve(argv, stdin, stdout)
	}
	env := cli.ProcessEnv(nil, stdout, stderr, tool)
	llvmpool.Prespawn(env.Getenv("OFFLOAD_KIT_LLVM"), env.Getenv)
	return runMain(args, &env)
}

// runMain runs the tool in env, whose environment is the only one read.
// The programs it runs are chosen as docs/sycl-linker.md says
// (driverenv.Env.Toolchain): $OFFLOAD_KIT_<NAME> (OFFLOAD_KIT_LLVM_LINK,
// ...), $OFFLOAD_KIT_LLVM_DIR, the clang that runs this link (clang
// --sycl-link runs clang-sycl-linker as its child), this executable's
// directory, the LLVM 22 installation, then PATH; all but the explicit
// ones must be of LLVM 22.
func runMain(args []string, env *driverenv.Env) int {
	env.Runner = run.Exec{}
	tools := env.Toolchain()
	// LLVM in-process (helper processes of this executable) unless
	// $OFFLOAD_KIT_LLVM=process; $OFFLOAD_KIT_LLVM=<path> names the libLLVM
	llvm := llvmpool.New(llvmpool.Config{Mode: env.Getenv("OFFLOAD_KIT_LLVM"), Tools: tools, Getenv: env.Getenv})
	defer llvm.Close()
	senv := &sycldev.Env{Env: *env, Tools: tools, LLVM: llvm}
	root := newRootCmd(senv, nil)
	root.SetOut(env.Stdout)
	return cli.Main(root, tool, args, env.Stderr)
}

// runF receives the parsed options; nil runs the driver.
type runF func(*sycldev.Options) error

func newRootCmd(env *sycldev.Env, rf runF) *cobra.Command {
	return &cobra.Command{
		Use:   "sycl-linker [options] <inputs>",
		Short: "Link SYCL device code: link, split, post-link, SPIR-V code generation",
		Long: `sycl-linker accepts clang-sycl-linker 22.1.8's command line (LLVM option
syntax: --triple=<t>, -o <file>, --device-libs=a,b, ...) and adds device code
splitting, property sets, symbol tables and --ir-output-only. Run with --help
for the option list; see ` + cli.DocRef("sycl-linker.md") + `.`,
		Example: `  sycl-linker --triple=spirv64 -o dev.out a.bc b.bc
  sycl-linker --triple=spirv64 --module-split-mode=kernel -o dev.out a.bc
  sycl-linker --triple=spirv64 --module-split-mode=source --ir-output-only -S -o parts.table a.bc`,
		DisableFlagParsing: true,
		SilenceUsage:       true,
		SilenceErrors:      true,
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := cli.ExpandResponseFiles(args)
			if err != nil {
				return err
			}
			o, err := sycldev.ParseArgs(args)
			if err != nil {
				return &cli.FlagError{Err: err}
			}
			switch {
			case o.Help:
				sycldev.WriteHelp(cmd.OutOrStdout(), tool, o.HelpAll)
				return nil
			case o.Version:
				fmt.Fprintln(cmd.OutOrStdout(), version.Line(tool))
				return nil
			}
			if rf != nil {
				return rf(o)
			}
			return sycldev.RunCommand(cmd.Context(), env, *o)
		},
	}
}
