package sycldev

import (
	"testing"

	"github.com/offload-kit/offload-kit/split"
)

// TestSplitModeSpellings: --module-split-mode accepts clang-sycl-linker 22's
// and our spellings (none, kernel, source, auto, intel's off, per_kernel,
// per_source) and LLVM main's renamed values from the option definition
// after llvm-project PR #206870 (translation_unit, kernel, link_unit),
// through every alias of the option; the last value wins and the default
// stays none.
func TestSplitModeSpellings(t *testing.T) {
	want := map[string]split.Mode{
		// LLVM main (SYCLLinkOpts.td after PR #206870).
		"translation_unit": split.ModeSource,
		"kernel":           split.ModeKernel,
		"link_unit":        split.ModeNone,
		// main before the rename (PRs #195362, #197571), and ours.
		"none":   split.ModeNone,
		"source": split.ModeSource,
		"auto":   split.ModeAuto,
		// intel's sycl-post-link spellings.
		"off":        split.ModeNone,
		"per_kernel": split.ModeKernel,
		"per_source": split.ModeSource,
	}
	for v, m := range want {
		for _, opt := range []string{"--module-split-mode=", "-module-split-mode=", "--sycl-module-split-mode=", "--split="} {
			o, err := ParseArgs([]string{opt + v})
			if err != nil {
				t.Errorf("%s%s: %v", opt, v, err)
				continue
			}
			if o.SplitMode != m {
				t.Errorf("%s%s: mode %v, want %v", opt, v, o.SplitMode, m)
			}
		}
	}
	o, err := ParseArgs([]string{"--module-split-mode=kernel", "--module-split-mode=link_unit"})
	if err != nil || o.SplitMode != split.ModeNone {
		t.Errorf("last value wins: %v, %v", o.SplitMode, err)
	}
	o, err = ParseArgs(nil)
	if err != nil || o.SplitMode != split.ModeNone {
		t.Errorf("default: %v, %v (want none, clang-sycl-linker 22's, not main's translation_unit)", o.SplitMode, err)
	}
	// Near misses of main's spellings are rejected, with every accepted value named.
	for _, v := range []string{"translation-unit", "TRANSLATION_UNIT", "link-unit", "linkunit", "tu", ""} {
		_, err := ParseArgs([]string{"--module-split-mode=" + v})
		msg := "invalid value '" + v + "' for --module-split-mode (" + splitModeValues + ")"
		if _, ok := err.(*UsageError); !ok || err.Error() != msg {
			t.Errorf("%q: got %v, want %q", v, err, msg)
		}
	}
}
