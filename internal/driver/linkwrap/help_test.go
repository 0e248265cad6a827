package linkwrap

import (
	"bytes"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/cli/optable"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmhelp"
)

// llvmHelpTexts are LLVM's wordings of the options whose help offload-kit
// rewrites, to compare the rest of the page with clang-linker-wrapper's.
var llvmHelpTexts = map[optable.ID]string{
	optPrintWrappedModule: "Print the wrapped module's IR for testing",
}

// TestHelpMatchesLLVM: without offload-kit's extensions (and with LLVM's
// wording of the rewritten help texts), --help and --help-hidden are
// clang-linker-wrapper 22's, byte for byte: overview, usage, the options
// listed, their order, metavars and column layout.
func TestHelpMatchesLLVM(t *testing.T) {
	tab := optable.MustNew(llvmhelp.Options(optionList, llvmHelpTexts))
	llvmhelp.Pages(t, "clang-linker-wrapper", func(flag string, hidden bool, want []byte) {
		var got bytes.Buffer
		WriteHelp(&got, "clang-linker-wrapper", hidden)
		// The overview is LLVM's, then offload-kit's paragraph.
		head, _, _ := strings.Cut(string(want), "\n\n\nUSAGE: ")
		if !strings.HasPrefix(got.String(), head+"\n\noffload-kit's clang-linker-wrapper links") {
			t.Errorf("%s: overview:\n%s\nwant LLVM's first:\n%s", flag, got.String(), head)
		}
		got.Reset()
		tab.WriteHelp(&got, "clang-linker-wrapper [options] -- <options to passed to the linker>", llvmTitle, hidden)
		if got.String() != string(want) {
			t.Errorf("%s:\n%s\nwant (clang-linker-wrapper %s):\n%s", flag, got.String(), flag, want)
		}
	})
}
