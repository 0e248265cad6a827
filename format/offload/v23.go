package offload

// Helpers for the OffloadBinary versions of newer LLVM main (doc.go,
// "Versions 2 and 3"; docs/formats/offload-binary.md §7).

// Compressed reports whether b came from a compressed version 3 binary:
// one whose header has a non-zero InflatedSize (kept in b.InflatedSize).
// LLVM main marks compression only there, for the whole binary
// (OffloadBinary.cpp's isCompressed: Version >= 3 and InflatedSize != 0);
// no entry flag says so (the only entry flag is bit 0, OIF_Metadata). b.Size
// is then the compressed size and b.Image a slice of the inflated body.
func Compressed(b *Binary) bool { return b != nil && b.Version >= 3 && b.InflatedSize != 0 }

// FlagMetadata is LLVM main's OIF_Metadata entry flag (bit 0): the entry
// carries no image, only its strings. LLVM 22 defines no flags.
const FlagMetadata = 1 << 0
