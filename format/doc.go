// Package format is the shared vocabulary of offload-kit: image and offload
// kinds, magic-byte identification (with the COFF short import member of
// Windows import libraries, ParseCOFFImport: the one reader of its header,
// shared by format/ar's symbol table and linker-wrapper's symbol
// resolution), the error type every container codec returns, and LLVM's tail-merged string table (StringTable), which the
// OffloadBinary writer and the object rewriter share. It imports nothing but the standard library and
// internal/binio, so every codec package can depend on it.
//
// Formats: docs/formats/offload-binary.md §2 (enumerations),
// docs/formats/bundle.md, docs/formats/hcf.md.
package format
