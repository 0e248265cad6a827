// Package split is the SYCL device-link post-processing core: a model of an
// LLVM module's top-level entities built from textual IR (as printed by
// llvm-dis), the reference graph between them, per-group dependency closure,
// device-code splitting (per kernel, per source, auto), optional-feature
// detection (fp64 from the IR itself, !sycl_used_aspects, work-group and
// sub-group sizes), and the per-module outputs of intel's sycl-post-link:
// property sets (computed here; format/syclprop models them and writes
// intel's .prop text and LLVM's JSON form), .sym and .table files.
//
// The package is pure: it works on byte slices and io.Writers it is given.
// Function bodies are kept verbatim; a part is written by copying the text
// of the entities its closure keeps, so splitting a module into N parts
// costs O(module + sum of part sizes), not O(N × module).
//
// Reference: docs/formats/sycl.md (§2 intel splitting, §3 upstream,
// §5 aspects, §7 property sets, §8 .table/.sym).
package split
