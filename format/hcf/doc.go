// Package hcf reads and writes AdaptiveCpp's Heterogeneous Container Format
// (HCF): a text header of key=value lines and {.name … }.name subnodes, the
// marker __acpp_hcf_binary_appendix (before June 2024
// __hipsycl_hcf_binary_appendix), and a raw binary appendix that __binary
// subnodes reference by start and size.
//
// The reader follows AdaptiveCpp's hcf_container parser (commit 49544a48):
// the header ends at the first marker, lines are trimmed of white space and
// empty lines dropped, key=value lines split at the first '=' without
// trimming either side, and duplicate keys are kept. It differs where that
// parser is fragile: errors are returned (with line number and byte offset)
// instead of logged over a half-filled container, a node may contain a
// descendant with its own name, and ParseWith(…, Options{Lenient: true})
// trims white space around '=' as the documented grammar says.
//
// Attachment numbers (start, size) must be plain decimal; std::stoull would
// also accept leading white space, a sign and trailing junk.
//
// The writer (File.AppendTo) reproduces the C++ serializer byte for byte:
// each node's key-value pairs in order, then its subnodes, no indentation,
// and the marker directly after the last header line.
//
// Format: docs/formats/hcf.md.
package hcf
