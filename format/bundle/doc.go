// Package bundle reads and writes clang-offload-bundler containers as
// LLVM 22.1.8 produces them (see docs/formats/bundle.md and
// docs/bundle.md):
//
//   - binary bundles ("__CLANG_OFFLOAD_BUNDLE__" header, entry table, data
//     aligned to -bundle-align): Parse, ParseLenient, WriteBinary,
//     AppendBinary, Layout;
//   - text bundles (comment-marked entries): CommentFor, WriteText,
//     ParseText;
//   - CCOB compressed bundles, versions 1–3, zstd or zlib: ParseHeader,
//     Decompress, NewReader (verifies size and MD5 at EOF, ErrChecksum),
//     Compress and CompressTo (streaming, parallel zstd frames);
//   - several bundles back to back in one section: Scan, which finds each
//     bundle's end from its own header and never searches for magic;
//   - bundle entry IDs: ParseTarget, Target.String, Compatible (the
//     reference's isCodeObjectCompatible), over format/triple's model of
//     llvm::Triple and target IDs;
//   - LLVMOrder/OrderedSet, which reproduce llvm::StringMap iteration
//     order, because the reference lists and matches entries in that order.
//
// Errors are *format.FormatError values carrying offsets and wrapping the
// format sentinels (ErrTruncated, ErrMagic, ErrVersion, ErrCorrupt,
// ErrLimit, ErrUnsupported) or ErrChecksum. Parsers never panic and never
// allocate more than the input justifies.
package bundle
