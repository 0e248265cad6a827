package sycldev

import "github.com/offload-kit/offload-kit/split"

// mainSplitModes are the --module-split-mode values of clang-sycl-linker on
// LLVM main after llvm/llvm-project PR #206870 (merged 2026-07-01, "[clang][SYCL]
// Add -fsycl-device-image-split option"), which renamed them to the
// driver's -fsycl-device-image-split values: translation_unit (one image per
// translation unit, main's default), kernel (one image per kernel) and
// link_unit (one image for the whole link). Before that, main spelt them
// source, kernel and none (PRs #195362 and #197571), which split.ParseMode
// already accepts with our auto and intel's per_kernel, per_source and off.
// The default stays none (one image), as clang-sycl-linker 22 has it:
// main's translation_unit default is not adopted.
// Facts from docs/sycl-linker.md §"Split-mode spellings"; tested from the
// option definition only (no LLVM 23 binary is installed).
var mainSplitModes = map[string]split.Mode{
	"translation_unit": split.ModeSource,
	"kernel":           split.ModeKernel,
	"link_unit":        split.ModeNone,
}

// parseSplitMode is split.ParseMode that also accepts LLVM main's spellings.
func parseSplitMode(v string) (split.Mode, error) {
	if m, ok := mainSplitModes[v]; ok {
		return m, nil
	}
	return split.ParseMode(v)
}

// splitModeValues names the accepted values in usage errors.
const splitModeValues = "none, kernel, source, auto, translation_unit or link_unit"
