// Package ar reads and writes Unix ar archives as used for offload inputs
// and outputs: GNU (with the "//" long-name table and "/" or "/SYM64/"
// symbol tables), BSD and Darwin ("#1/N" names, "__.SYMDEF" symbol tables)
// and GNU thin archives ("!<thin>\n").
//
// Parse works on a whole buffer (usually a memory-mapped file) and returns
// members as zero-copy slices. A member's data need not be 8-aligned in the
// buffer: GNU ar only pads members to 2 bytes. LLVM copies such members
// before parsing them; callers that parse OffloadBinaries out of members
// must likewise not assume alignment (copy first if they need it).
//
// WriteGNU writes the deterministic GNU archive LLVM's writeArchive
// produces (K_GNU, deterministic, not thin), e.g. the output of
// `llvm-offload-binary --archive` or `llvm-ar rcD --format=gnu`, including
// the symbol table LLVM adds when members are ELF or COFF objects.
// WriteGNUWith takes a SymbolFunc that computes each member's entries, so
// a caller can index LLVM bitcode members as LLVM does (with
// bitcode.ArchiveSymbols) without format/ar importing format/bitcode;
// ObjectSymbols is the default (ELF and COFF only).
//
// Reference: llvm/lib/Object/Archive.cpp, llvm/lib/Object/ArchiveWriter.cpp;
// docs/formats/offload-binary.md §6.2 and §8.3.
package ar
