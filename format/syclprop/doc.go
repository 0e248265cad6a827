// Package syclprop is the one model of SYCL property sets: the named sets
// of typed properties ("SYCL/device requirements", "SYCL/specialization
// constants", ...) that describe a device image to intel's runtime.
//
// split computes them for each device-code part, internal/sycldev writes
// them (intel's .prop text in the OffloadBinary string "properties" and in
// --ir-output-only's .prop files, or LLVM's JSON form), and internal/wrap
// registers them in intel's runtime layout; linker-wrapper hands the sets
// of an in-process SYCL link from the first to the last as values, and
// reads the text only from OffloadBinaries it is given.
//
// The type codes are the runtime's (sycl_property_type: 1 uint32, 2 byte
// array, 3 string); the text format knows only the first two.
//
// Reference: docs/formats/sycl.md §7 (property sets: §7.1 the .prop text,
// §7.2 byte arrays and intel's Base64, §7.7 LLVM's JSON) and §9.1 (the
// runtime's property structures).
package syclprop
