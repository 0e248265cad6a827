// Package offload reads and writes LLVM's OffloadBinary container, the
// payload of .llvm.offloading sections (magic 10 FF 10 AD).
//
// The compatibility target is LLVM 22.1.8; the reference is
// docs/formats/offload-binary.md (§2–§8). Facts were taken from
// llvm/include/llvm/Object/OffloadBinary.h, llvm/lib/Object/OffloadBinary.cpp,
// llvm/lib/MC/StringTableBuilder.cpp, llvm/include/llvm/ADT/Hashing.h,
// llvm/include/llvm/ADT/DenseMap.h and
// llvm/tools/llvm-offload-binary/llvm-offload-binary.cpp; no code was copied.
//
// # Version 1 (LLVM 22.1.8)
//
// AppendBinary and HeaderV1 write exactly what OffloadBinary::write
// produces: a 32-byte header, one 40-byte entry at 32, 16-byte string
// entries at 72, an ELF-kind StringTableBuilder table (tail merged), zero
// padding to ImageOffset = align8, the image, and padding to Size = align8.
// The packager's string order (DenseMap bucket order over LLVM's
// hash_value(StringRef) with the fixed seed 0xff51afd7ed558ccd) is
// reproduced by ParseImageArg + PackagerOrder; ImageKindFor picks the image
// kind. These are checked byte for byte against llvm-offload-binary.
//
// Parse follows LLVM 22's OffloadBinary::create checks in order:
//
//  1. fewer than 72 bytes, 2. bad magic, 4. Version != 1  → parse_failed
//  5. Size > available or Size < 40                       → unexpected_eof
//  6. EntryOffset > Size-40 or EntrySize > Size-32        → unexpected_eof
//  7. ImageOffset or StringOffset > available             → unexpected_eof
//
// (Check 3, the 8-byte address alignment, does not apply: LLVM copies an
// unaligned buffer first, so it never fails for a reader; ours reads
// unaligned data directly.) In check 5 "available" is len(buf), the rest of
// the section; in check 7 it is Size: verified with llvm-objdump 22, an
// ImageOffset past Size but inside the section fails with unexpected_eof
// while extracting. (LLVM's first, whole-file parse of a raw file bounds by
// the file length instead; only the "while extracting offloading files:"
// prefix can differ; CheckHeader reproduces that first parse, so a dump can
// tell which form LLVM prints.) The entry is read at EntryOffset, as LLVM
// does, and a repeated key's last value wins in Get, as in LLVM's MapVector.
//
// Stricter checks that LLVM 22 does not make (it would read out of bounds or
// accept garbage) all report unexpected_eof from LLVMError, the closest
// class, and wrap format.ErrTruncated (format.ErrLimit for the string
// budget): NumStrings string entries must fit; ImageOffset+ImageSize must
// fit (llvm-objdump --offloading accepts a huge ImageSize because it never
// touches the image; we reject it); every key and value offset must be in
// range and NUL-terminated before Size (llvm-objdump 22 segfaults on a key
// offset at the end of the buffer). The bytes copied into strings are
// capped at 16×len(buf)+1 MiB (identical offsets are shared), so a table of
// many entries aimed at one long run cannot cost quadratic time or memory.
//
// ParseAll walks concatenated binaries: offset += Size (LLVM 22, where
// trailing bytes, even zero padding, fail the next magic check:
// parse_failed), or offset = align8(offset+Size) with ReadOptions.Align8
// (newer main).
//
// # Versions 2 and 3 (newer LLVM main, not in 22.1.8)
//
// Read from OffloadBinary.h/.cpp on llvm-project main (header Version = 3).
// v2 is llvm/llvm-project PR #169425 "Offload Binary Format V2: Support
// Multiple Entries" (merged); compression is PR #222774 "Add support for
// compressed OffloadBinary types" (its review requires EntriesOffset ==
// sizeof(Header) for compressed binaries). v3 may still change upstream.
//
//   - The header words at 16 and 24 become EntriesOffset and EntriesCount;
//     v1 keeps reading them as EntryOffset/EntrySize with a count of 1.
//   - v3's header is 40 bytes: it adds InflatedSize at 32. Main's
//     extractHeader says "v1/v2 headers are 32 bytes; sizeof(Header) grew in
//     v3", so a v2 header is 32 bytes with entries at 32. (Unconfirmed: we
//     found no main revision that writes Version 2; AppendBinaryV2 writes
//     the 32-byte form by that rule.)
//   - String entries are 24 bytes {KeyOffset, ValueOffset, ValueSize}; the
//     key is NUL-terminated, the value is ValueSize bytes (may hold NULs).
//   - Each 40-byte entry's StringOffset points into one shared string-entry
//     array; all images share one string table; images follow the aligned
//     table back to back (no padding between images), then padding to 8.
//   - v3 with InflatedSize != 0 is compressed: bytes [EntriesOffset, Size)
//     are a zstd stream if they start with 28 B5 2F FD, else zlib; they
//     inflate to InflatedSize-EntriesOffset bytes; the inflated binary is the
//     header with Size = InflatedSize and InflatedSize = 0, then the body.
//     Size is not rounded up on disk; the writer pads the output to 8 and
//     readers step by align8. (Unconfirmed: whether LLVM's identify_magic
//     also treats zstd skippable frames as zstd; we do not.)
//   - Main checks offsets against Header.Size (it copies take_front(Size)),
//     so our v2/v3 reader does too.
//
// Main's uncompressed writer emits v3 with InflatedSize = 0;
// AppendBinaryV3(dst, imgs, "", 0) does the same. Compressed bytes are not
// canonical (klauspost's zstd differs from libzstd), so compare payloads.
// LLVM 22 rejects v2 and v3 at its version check, so LLVMError maps every
// failure inside one to parse_failed. Stricter than the stored main
// revision (as PR #222774's review version): a compressed binary's
// EntriesOffset must be exactly 40, the inflated size is capped by ReadOptions.MaxInflated
// (format.ErrLimit), and the body must inflate to exactly the stated size.
//
// All errors are *format.FormatError with absolute offsets (relative to the
// buffer given to ParseAll; inside a compressed v3 body, the binary's offset
// plus the offset in the inflated binary). Nothing panics on hostile input
// and no allocation is sized from an unchecked field.
//
// Import note: this package imports github.com/klauspost/compress/zstd for
// v3 bodies (internal/depcheck allows klauspost only here, in
// format/bundle and in internal/zstdpipe; docs/architecture.md).
package offload
