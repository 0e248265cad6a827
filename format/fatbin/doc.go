// Package fatbin reads and writes NVIDIA fat binaries: the container that
// CUDA's fatbinary tool writes to standalone .fatbin files and that nvcc
// embeds in host objects (sections .nv_fatbin and __nv_relfatbin), plus the
// 24-byte host-side wrapper descriptor found in .nvFatBinSegment.
//
// The format is not documented by NVIDIA. What this package relies on, what
// the fixtures in testdata/ confirm, and what remains a guess is written down
// in docs/fatbin.md at the repository root.
//
// Layout, all little-endian:
//
//	container header (16 bytes): magic 0xBA55ED50, version 1, header size 16,
//	    u64 size of everything after the header
//	entries, back to back until that size is used up:
//	    entry header (64 bytes or more; the tail holds an identifier and
//	    ptxas options), then the payload, padded to a multiple of 8
//
// Payloads may be compressed: flag 0x2000 marks NVIDIA's LZ4 block format,
// flag 0x8000 a zstd frame. Entry.Uncompressed decodes LZ4 itself; zstd needs
// a decoder passed to Entry.UncompressedWith (this package does not import a
// zstd implementation).
package fatbin
