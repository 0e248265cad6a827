package sycldev

import (
	"bytes"
	"testing"

	"github.com/offload-kit/offload-kit/internal/cli/optable"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmhelp"
)

// TestHelpMatchesLLVM: without offload-kit's extensions (and with LLVM's
// wording of --dry-run's help, which offload-kit makes precise), --help and
// --help-hidden are clang-sycl-linker 22's, byte for byte: overview, usage,
// the options listed, their order, metavars and column layout.
func TestHelpMatchesLLVM(t *testing.T) {
	llvmHelp := map[optable.ID]string{optDryRun: "Print generated commands without running."}
	saved := table
	table = optable.MustNew(llvmhelp.Options(optionList, llvmHelp))
	defer func() { table = saved }()
	llvmhelp.Pages(t, "clang-sycl-linker", func(flag string, hidden bool, want []byte) {
		var got bytes.Buffer
		WriteHelp(&got, "clang-sycl-linker", hidden)
		if got.String() != string(want) {
			t.Errorf("%s:\n%s\nwant (clang-sycl-linker %s):\n%s", flag, got.String(), flag, want)
		}
	})
}
