// Package bitcode finds offload packages embedded in LLVM bitcode host
// modules (objects compiled with -flto or -emit-llvm -c), in pure Go.
//
// Clang's -fembed-offload-object stores each package as
//
//	@llvm.embedded.object[.N] = private constant [n x i8] c"...", section ".llvm.offloading"
//	!llvm.embedded.objects = !{ !{ptr @llvm.embedded.object, !".llvm.offloading"}, ... }
//
// EmbeddedObjects follows LLVM's extractOffloadBinaries (spec
// ../../shared/spec/offload-binary.md §6.2 and §10.2): it reads the named
// metadata !llvm.embedded.objects, keeps the operands whose second element
// is the MDString ".llvm.offloading" and whose first element is a global
// variable, and returns each such global's initializer bytes, in metadata
// order. As in LLVM, an initializer that is not a ConstantDataSequential
// (zeroinitializer, an all-zero or empty array, an aggregate) is skipped,
// the global's own section is not checked, and a global in
// ".llvm.offloading" that the metadata does not list is not returned.
//
// Fallback (not in LLVM): if the module has no !llvm.embedded.objects, or
// its metadata cannot be followed (a metadata record code this package does
// not know, so IDs cannot be numbered, or a named operand past the last
// metadata ID), every global variable whose section is ".llvm.offloading"
// is returned instead, in record order.
//
// The reader is a minimal, hardened LLVM bitstream decoder: abbreviations
// (fixed, VBR, array, char6, blob), BLOCKINFO, DEFINE_ABBREV and
// UNABBREV_RECORD; blocks other than MODULE, TYPE, CONSTANTS, METADATA,
// VALUE_SYMTAB (pre-v2 names) and STRTAB are skipped by their length word.
// Reads never cross a block's declared end; every count is checked against
// the bits left before it sizes a loop or an allocation; block nesting
// beyond the module's direct children is skipped, never recursed into;
// constants and metadata are re-read on demand instead of being stored,
// and the total output is capped at 16x the input plus 1 MiB. Like LLVM, a
// file with more than one module is rejected (format.ErrUnsupported).
//
// Wide DATA elements ([n x i16], float, ...) are returned little-endian,
// which is what LLVM's ConstantDataSequential::getAsString gives on a
// little-endian host.
package bitcode
