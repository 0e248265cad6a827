package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driver/sycllink"
	"github.com/offload-kit/offload-kit/internal/phase"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/version"
)

const tool = "sycl-linker"

// defaultToolDirs are searched for LLVM tools before PATH: the directory of
// this executable, then the LLVM 22 installation of Debian/Ubuntu packages.
func defaultToolDirs() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	return append(dirs, "/usr/lib/llvm-22/bin")
}

// runMain is main without os.Exit, so tests can call it.
func runMain(args []string, path string, stdout, stderr io.Writer) int {
	env := &sycllink.Env{Stdout: stdout, Stderr: stderr, Runner: run.Exec{}, ToolDirs: defaultToolDirs(), PathList: path}
	root := newRootCmd(env, nil)
	root.SetOut(stdout)
	return cli.Main(root, tool, args, stderr)
}

// runF receives the parsed options; nil runs the driver.
type runF func(*sycllink.Options) error

func newRootCmd(env *sycllink.Env, rf runF) *cobra.Command {
	return &cobra.Command{
		Use:   "sycl-linker [options] <inputs>",
		Short: "Link SYCL device code: link, split, post-link, SPIR-V code generation",
		Long: `sycl-linker accepts clang-sycl-linker 22.1.8's command line (LLVM option
syntax: --triple=<t>, -o <file>, --device-libs=a,b, ...) and adds device code
splitting, property sets, symbol tables and --ir-output-only. Run with --help
for the option list; see docs/sycl-linker.md.`,
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
			o, err := sycllink.ParseArgs(args)
			if err != nil {
				return &cli.FlagError{Err: err}
			}
			switch {
			case o.Help:
				sycllink.WriteHelp(cmd.OutOrStdout(), tool, o.HelpAll)
				return nil
			case o.Version:
				fmt.Fprintln(cmd.OutOrStdout(), version.Line(tool))
				return nil
			}
			if rf != nil {
				return rf(o)
			}
			if o.Verbose || os.Getenv("OFFLOAD_KIT_VERBOSE") == "1" {
				env.Phases = phase.New(time.Now)
				defer env.Phases.Print(cmd.ErrOrStderr(), tool)
			}
			return sycllink.Run(cmd.Context(), o, env)
		},
	}
}
