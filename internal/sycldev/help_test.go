package sycldev

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/offload-kit/offload-kit/internal/cli/optable"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// TestHelpMatchesLLVM: without offload-kit's extensions (and with LLVM's
// wording of --dry-run's help, which offload-kit makes precise), --help and
// --help-hidden are clang-sycl-linker 22's, byte for byte: overview, usage,
// the options listed, their order, metavars and column layout.
func TestHelpMatchesLLVM(t *testing.T) {
	tool := llvmtools.Tool(t, "clang-sycl-linker")
	llvmHelp := map[optable.ID]string{optDryRun: "Print generated commands without running."}
	var llvmOnly []optable.Option
	for _, o := range optionList {
		if o.Extension {
			continue
		}
		if h, ok := llvmHelp[o.ID]; ok {
			o.Help = h
		}
		llvmOnly = append(llvmOnly, o)
	}
	saved := table
	table = optable.MustNew(llvmOnly)
	defer func() { table = saved }()
	for _, hidden := range []bool{false, true} {
		flag := "--help"
		if hidden {
			flag = "--help-hidden"
		}
		want, err := exec.Command(tool, flag).Output()
		if err != nil {
			t.Fatalf("%s %s: %v", tool, flag, err)
		}
		var got bytes.Buffer
		WriteHelp(&got, "clang-sycl-linker", hidden)
		if got.String() != string(want) {
			t.Errorf("%s:\n%s\nwant (clang-sycl-linker %s):\n%s", flag, got.String(), flag, want)
		}
	}
}
