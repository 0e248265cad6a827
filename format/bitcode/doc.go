// Package bitcode finds offload packages embedded in LLVM bitcode host
// modules (objects compiled with -flto or -emit-llvm -c), in pure Go.
//
// Clang's -fembed-offload-object stores each package as
//
//	@llvm.embedded.object[.N] = private constant [n x i8] c"...", section ".llvm.offloading"
//	!llvm.embedded.objects = !{ !{ptr @llvm.embedded.object, !".llvm.offloading"}, ... }
//
// EmbeddedObjects follows LLVM's extractOffloadBinaries
// (docs/formats/offload-binary.md §6.2 and §10.2): it reads the named
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
//
// # Symbols
//
// ReadSymbolTable and Symbols decode the irsymtab LLVM writes into bitcode
// (llvm/Object/IRSymtab.h): the blob of the top-level SYMTAB_BLOCK, a
// storage::Header (version 3, producer, module/comdat/symbol/uncommon
// ranges, triple, source file, COFF linker options, dependent libraries)
// whose strings live in the STRTAB_BLOCK after it. Symbols come in
// irsymtab order, which is LLVM's ModuleSymbolTable order (per module:
// functions, variables, aliases, ifuncs, then module-asm symbols), with
// the FB_* flag word (SymbolFlags), visibility, comdat index and the
// uncommon fields (common size/alignment, section, COFF weak fallback).
// Every range and string is bounds-checked.
//
// Where LLVM would rebuild the table from the IR (irsymtab::readBitcode:
// no SYMTAB/STRTAB, version not 3, module count not the file's) Symbols
// does not fall back: it returns an error wrapping format.ErrUnsupported
// (format.ErrVersion for another table version). llvm-as writes no
// irsymtab for modules with module asm or without a data layout. A table
// from another producer is returned as stored; SymbolTable.Current says
// whether LLVM 22 ("22.1.8") would use it unchanged.
//
// ArchiveSymbols returns the names LLVM's archive writer indexes for a
// bitcode member (isArchiveSymbol: global, defined or common, not
// format-specific), in its order, renumbering "__unnamed_N" as the
// writer's own Mangler does. It reads the irsymtab when LLVM 22 would use
// it, and otherwise computes the list from the module records
// (linkage, declarations, "llvm." names, the "llvm.metadata" section, the
// data layout's mangling), as llvm-ar does through IRObjectFile. That IR
// fallback returns format.ErrUnsupported for module asm, Microsoft x86
// calling-convention decoration (and aliases under COFF mangling),
// GOFF/XCOFF mangling and pre-v2 bitcode. format/ar uses the list through
// ar.WriteGNUWith (the two packages do not import each other).
//
// # Triple
//
// ModuleTriple returns the text of the module's TRIPLE record as stored,
// "" when there is none, reading only the MODULE_BLOCK's own records and
// skipping every sub-block by its length word.
package bitcode
