// Package elfembed reads and rewrites host object files (ELF and COFF) that
// carry offload data: `.llvm.offloading` sections (SHT_LLVM_OFFLOADING on
// ELF) and `__CLANG_OFFLOAD_BUNDLE__<id>` sections.
//
// # Reading
//
// Parse is a bounds-checked section walker on plain byte slices (not
// debug/elf or debug/pe): it never panics on hostile input, never allocates
// more than the input can justify, and reports errors as
// *format.FormatError carrying the offset of the failing field. It reads
// ELF32/ELF64 of either byte order (any e_type, extended section numbering
// included) and COFF objects (regular and bigobj) and PE images. Section
// payloads are zero-copy slices of the input. OffloadSections selects what
// LLVM's extractOffloadBinaries reads.
//
// # Writing
//
// Rewrite edits relocatable objects: ELF ET_REL (32/64-bit, LE/BE) and
// COFF objects (regular and bigobj; not PE images). It adds, concatenates,
// removes and renames sections and renames symbols; everything else
// (symbols, relocations, groups, string tables) is kept. Embed is the case
// clang's -fembed-offload-object produces; bundle objects are
// Rewrite with SHT_PROGBITS/SHF_EXCLUDE (ELF) or readonly,exclude (COFF)
// sections; the linker wrapper's -r edit is Remove + RenameSection +
// RenameSymbol. Added payloads are streamed from an io.ReaderAt and never
// buffered whole; the output is deterministic.
//
// How the output differs from llvm-objcopy's (both are valid objects that
// the LLVM tools, ld.lld, lld-link and gcc accept):
//
//   - ELF: kept sections keep their file order, new ones follow, then the
//     section header table. Names for new and renamed sections and symbols
//     are appended to the existing string tables (existing offsets stay
//     valid), where llvm-objcopy rebuilds the tables. Edit.ObjcopyCompat
//     rebuilds them as llvm-objcopy does (and clears GRP_COMDAT on groups
//     with a local signature, as it does); the bundler uses it, and its
//     object bundles are then byte-identical to the reference's.
//   - Removing sections drops symbols defined in them and renumbers
//     relocations, group signatures and .llvm_addrsig (llvm-objcopy leaves
//     the latter stale). A group left empty is removed, as llvm-objcopy
//     does; members of a removed group lose SHF_GROUP; on COFF, sections
//     associated (COMDAT associative) with a removed section are removed
//     too. A kept relocation or section link that refers to a removed
//     section or symbol is an error wrapping format.ErrUnsupported. For
//     every section of the C++ fixtures, Rewrite and llvm-objcopy
//     --remove-section agree on success or failure and on the result.
//   - COFF: each added section gets a static section symbol with a
//     section-definition aux record (length, JamCRC checksum, number), as
//     clang's COFF writer emits; VirtualSize stays 0. Concatenation updates
//     that record. Section data is laid out in section order, each followed
//     by its relocations, then the symbol and string tables.
//
// Section bytes are opaque to this package: it does not parse
// OffloadBinaries or bundles.
//
// References: the ELF gABI and LLVM's BinaryFormat/ELF.h, the PE/COFF
// specification, docs/formats/offload-binary.md §10 and
// docs/formats/bundle.md §4.
package elfembed
