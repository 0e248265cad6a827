// Package llvmhelp is test support for comparing an OptTable tool's
// generated --help and --help-hidden pages with the LLVM 22 tool's
// (clang-linker-wrapper, clang-sycl-linker). It runs the LLVM tool through
// internal/run, the one package that runs processes.
package llvmhelp

import (
	"bytes"
	"context"
	"testing"

	"github.com/offload-kit/offload-kit/internal/cli/optable"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// Options returns opts as LLVM's table has them: without offload-kit's
// extensions, and with LLVM's wording (llvmHelp) of the help texts
// offload-kit rewrites.
func Options(opts []optable.Option, llvmHelp map[optable.ID]string) []optable.Option {
	var llvmOnly []optable.Option
	for _, o := range opts {
		if o.Extension {
			continue
		}
		if h, ok := llvmHelp[o.ID]; ok {
			o.Help = h
		}
		llvmOnly = append(llvmOnly, o)
	}
	return llvmOnly
}

// Pages runs the LLVM tool name with --help and then with --help-hidden,
// failing the test when the tool is missing or fails, and calls check
// with the flag, whether it is --help-hidden, and the tool's output.
func Pages(t testing.TB, name string, check func(flag string, hidden bool, want []byte)) {
	t.Helper()
	tool := llvmtools.Tool(t, name)
	for _, hidden := range []bool{false, true} {
		flag := "--help"
		if hidden {
			flag = "--help-hidden"
		}
		var want bytes.Buffer
		if err := (run.Exec{}).Run(context.Background(), &run.Cmd{Args: []string{tool, flag}, Stdout: &want}); err != nil {
			t.Fatalf("%s %s: %v", tool, flag, err)
		}
		check(flag, hidden, want.Bytes())
	}
}
