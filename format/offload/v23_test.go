package offload

import (
	"bytes"
	"compress/zlib"
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
)

// The version 2 and 3 tests below build their binaries by hand, field by
// field, from the layout in LLVM main's OffloadBinary.h/.cpp
// (llvm/llvm-project, OffloadBinary.h at 05ed393bf1e3, OffloadBinary.cpp at
// 02dc39ba9835; offload-binary.md §7): no LLVM 23 binary is installed, so
// the definition is the only oracle.
//
// Two images:
//
//	A: image kind 6 (SPIR-V), offload kind 8 (sycl), flags 0,
//	   strings triple=spirv64, arch=x; image "AAAA"
//	B: image kind 1 (object), offload kind 1 (openmp), flags 1 (OIF_Metadata),
//	   strings triple=x86_64, arch=x, blob="a\x00b" (a value with a NUL,
//	   which only v2/v3's sized values can hold); image "BBBBBB"
//
// The string table (StringTableBuilder, ELF kind) holds the seven distinct
// strings sorted by their bytes read backwards, largest first, after a
// leading NUL: "x" "arch" "triple" "blob" "a\0b" "spirv64" "x86_64"; none is
// a suffix of the one before it, so nothing is merged. Offsets in the table:
// "" 0, x 1, arch 3, triple 8, blob 15, a\0b 20, spirv64 24, x86_64 32;
// 39 bytes.
const handTable = "\x00x\x00arch\x00triple\x00blob\x00a\x00b\x00spirv64\x00x86_64\x00"

func handImages() []*Image {
	return []*Image{
		{ImageKind: format.ImgSPIRV, OffloadKind: format.OfkSYCL,
			Strings: []KV{{"triple", "spirv64"}, {"arch", "x"}}, Image: []byte("AAAA")},
		{ImageKind: format.ImgObject, OffloadKind: format.OfkOpenMP, Flags: 1,
			Strings: []KV{{"triple", "x86_64"}, {"arch", "x"}, {"blob", "a\x00b"}}, Image: []byte("BBBBBB")},
	}
}

// handMulti builds the uncompressed binary of handImages: hdr is the
// header size (32 for v2, 40 for v3). Layout: header, 2 entries (80
// bytes), 5 string entries (120 bytes), the table (39 bytes), zeros to 8,
// "AAAA" "BBBBBB" back to back, zeros to Size = align8.
func handMulti(version uint32, hdr uint64) []byte {
	ents := hdr
	strEnts := ents + 2*40
	tab := strEnts + 5*24
	data := align8(tab + uint64(len(handTable)))
	size := align8(data + 10)
	var b []byte
	b = append(b, 0x10, 0xff, 0x10, 0xad)
	b = le.AppendUint32(b, version)
	b = le.AppendUint64(b, size) // Size
	b = le.AppendUint64(b, ents) // EntriesOffset
	b = le.AppendUint64(b, 2)    // EntriesCount
	if hdr == 40 {
		b = le.AppendUint64(b, 0) // InflatedSize: not compressed
	}
	entry := func(ik, ok uint16, flags uint32, strOff, n, imgOff, imgSize uint64) {
		b = le.AppendUint16(b, ik)
		b = le.AppendUint16(b, ok)
		b = le.AppendUint32(b, flags)
		b = le.AppendUint64(b, strOff)
		b = le.AppendUint64(b, n)
		b = le.AppendUint64(b, imgOff)
		b = le.AppendUint64(b, imgSize)
	}
	entry(6, 8, 0, strEnts, 2, data, 4)
	entry(1, 1, 1, strEnts+2*24, 3, data+4, 6)
	str := func(key, val, valSize uint64) {
		b = le.AppendUint64(b, tab+key)
		b = le.AppendUint64(b, tab+val)
		b = le.AppendUint64(b, valSize)
	}
	str(8, 24, 7)  // triple=spirv64
	str(3, 1, 1)   // arch=x
	str(8, 32, 6)  // triple=x86_64
	str(3, 1, 1)   // arch=x
	str(15, 20, 3) // blob=a\0b
	b = append(b, handTable...)
	b = append(b, make([]byte, data-uint64(len(b)))...)
	b = append(b, "AAAABBBBBB"...)
	return append(b, make([]byte, size-uint64(len(b)))...)
}

func align8(x uint64) uint64 { return (x + 7) &^ 7 }

// handCompressed builds the compressed form of the v3 binary plain: the
// header with Size = 40 + len(body) and InflatedSize = len(plain), then
// everything after plain's header compressed, then zeros to 8 (Size itself
// is not rounded).
func handCompressed(t *testing.T, plain []byte, codec string) []byte {
	t.Helper()
	var body []byte
	switch codec {
	case "zstd":
		enc, err := zstd.NewWriter(nil)
		require.NoError(t, err)
		body = enc.EncodeAll(plain[40:], nil)
		require.NoError(t, enc.Close())
	case "zlib":
		var buf bytes.Buffer
		zw := zlib.NewWriter(&buf)
		_, err := zw.Write(plain[40:])
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		body = buf.Bytes()
	}
	b := bytes.Clone(plain[:40])
	le.PutUint64(b[8:], uint64(40+len(body)))
	le.PutUint64(b[32:], uint64(len(plain)))
	b = append(b, body...)
	return append(b, make([]byte, align8(uint64(len(b)))-uint64(len(b)))...)
}

// checkHand compares bins with handImages; size is the on-disk Size.
func checkHand(t *testing.T, bins []*Binary, version uint32, size uint64) {
	t.Helper()
	want := handImages()
	require.Len(t, bins, 2)
	for i, b := range bins {
		assert.Equal(t, version, b.Version, "image %d", i)
		assert.Equal(t, size, b.Size, "image %d", i)
		assert.Equal(t, want[i].ImageKind, b.ImageKind, "image %d", i)
		assert.Equal(t, want[i].OffloadKind, b.OffloadKind, "image %d", i)
		assert.Equal(t, want[i].Flags, b.Flags, "image %d", i)
		assert.Equal(t, want[i].Strings, b.Strings, "image %d", i)
		assert.Equal(t, want[i].Image, b.Image, "image %d", i)
	}
	assert.Equal(t, "a\x00b", bins[1].Get("blob"), "a sized value keeps its NUL")
}

// TestV23FromSpec: the hand-built v2, v3 and compressed v3 binaries read
// back to the images, and our writers produce the uncompressed ones byte
// for byte (v3 uncompressed is what main's OffloadBinary::write emits).
func TestV23FromSpec(t *testing.T) {
	v2 := handMulti(2, 32)
	v3 := handMulti(3, 40)
	require.Len(t, v2, 288)
	require.Len(t, v3, 296)

	got, err := AppendBinaryV2(nil, handImages())
	require.NoError(t, err)
	assert.Equal(t, v2, got, "AppendBinaryV2")
	got, err = AppendBinaryV3(nil, handImages(), "", 0)
	require.NoError(t, err)
	assert.Equal(t, v3, got, "AppendBinaryV3 uncompressed")

	for _, c := range []struct {
		name    string
		b       []byte
		version uint32
	}{
		{"v2", v2, 2},
		{"v3", v3, 3},
		{"v3-zstd", handCompressed(t, v3, "zstd"), 3},
		{"v3-zlib", handCompressed(t, v3, "zlib"), 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			size := le.Uint64(c.b[8:])
			bins, n, err := Parse(c.b)
			require.NoError(t, err)
			assert.Equal(t, int64(size), n)
			checkHand(t, bins, c.version, size)
			for _, b := range bins {
				assert.Equal(t, map[bool]uint64{true: 296}[c.version == 3 && le.Uint64(c.b[32:]) != 0], b.InflatedSize)
			}
			assert.Equal(t, c.version == 3 && le.Uint64(c.b[32:]) != 0, Compressed(bins[0]))
			// Our writers' output round-trips through the reader.
			imgs := make([]*Image, len(bins))
			for i, b := range bins {
				imgs[i] = &Image{ImageKind: b.ImageKind, OffloadKind: b.OffloadKind, Flags: b.Flags, Strings: b.Strings, Image: b.Image}
			}
			var again []byte
			if c.version == 2 {
				again, err = AppendBinaryV2(nil, imgs)
			} else {
				again, err = AppendBinaryV3(nil, imgs, "", 0)
			}
			require.NoError(t, err)
			assert.Equal(t, handMulti(c.version, map[uint32]uint64{2: 32, 3: 40}[c.version]), again)
			// LLVM 22 reads none of these.
			assert.Equal(t, msgParseFailed, LLVMError(CheckHeader(c.b)))
		})
	}
}

// TestV23BackToBack: binaries of every version in one section, as
// several -fembed-offload-object, ld -r and main's writers leave them: a
// compressed v3 whose Size is not a multiple of 8 is followed by its zero
// padding; both the LLVM 22 walk (offset += Size, padding skipped after
// v2/v3 only) and main's (offset = align8(offset + Size)) read them all.
func TestV23BackToBack(t *testing.T) {
	v3 := handMulti(3, 40)
	z := handCompressed(t, v3, "zstd")
	l := handCompressed(t, v3, "zlib")
	v1 := AppendBinary(nil, &Image{ImageKind: format.ImgBitcode, OffloadKind: format.OfkHIP,
		Strings: []KV{{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx90a"}}, Image: []byte("bc")})
	buf := bytes.Join([][]byte{v1, z, handMulti(2, 32), l, v3, v1}, nil)
	for _, align := range []bool{false, true} {
		bins, err := ParseAll(buf, ReadOptions{Align8: align})
		require.NoError(t, err, "Align8=%v", align)
		require.Len(t, bins, 1+2+2+2+2+1)
		off := int64(0)
		steps := []int64{int64(len(v1)), int64(len(z)), 288, int64(len(l)), 296, int64(len(v1))}
		var starts []int64
		for _, s := range steps {
			starts = append(starts, off)
			off += s
		}
		wantOff := []int64{starts[0], starts[1], starts[1], starts[2], starts[2], starts[3], starts[3], starts[4], starts[4], starts[5]}
		for i, b := range bins {
			assert.Equal(t, wantOff[i], b.Offset, "binary %d", i)
		}
		checkHand(t, bins[1:3], 3, le.Uint64(z[8:]))
		checkHand(t, bins[3:5], 2, 288)
		checkHand(t, bins[5:7], 3, le.Uint64(l[8:]))
		checkHand(t, bins[7:9], 3, 296)
		assert.Equal(t, "gfx90a", bins[9].Arch())
	}
	// Non-zero bytes after a v3's padding are the next binary's magic.
	bad := append(bytes.Clone(z), 0xff)
	_, err := ParseAll(bad, ReadOptions{})
	var fe *format.FormatError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, int64(len(z)), fe.Off)
}

// TestV23Bounds: every field of the hand-built binaries that points or
// counts, set out of bounds, is an error at that field's offset, wrapping
// the sentinel; nothing panics and no binary is returned.
func TestV23Bounds(t *testing.T) {
	v2 := handMulti(2, 32)
	v3 := handMulti(3, 40)
	z := handCompressed(t, v3, "zstd")
	l := handCompressed(t, v3, "zlib")
	infl := le.Uint64(z[32:])
	const e0, e1 = 40, 80      // v3 entries
	const s0 = 120             // v3 string entries
	const v2e0, v2s0 = 32, 112 // v2 entry 0, string entries
	big := uint64(1) << 63
	corrupt := bytes.Clone(l)
	for i := 42; i < int(le.Uint64(l[8:]))-4; i++ {
		corrupt[i] ^= 0xa5
	}
	cases := []struct {
		name     string
		b        []byte
		sentinel error
		off      int64
		max      int64
	}{
		// Header.
		{"too-short", v3[:39], format.ErrTruncated, 0, 0},
		{"version-0", put32(v3, 4, 0), format.ErrVersion, 4, 0},
		{"version-4", put32(v3, 4, 4), format.ErrVersion, 4, 0},
		{"size-past-buffer", put64(v3, 8, 297), format.ErrTruncated, 8, 0},
		{"size-below-header", put64(v3, 8, 39), format.ErrTruncated, 8, 0},
		{"size-huge", put64(v3, 8, big), format.ErrTruncated, 8, 0},
		{"count-huge", put64(v3, 24, big), format.ErrTruncated, 24, 0},
		{"count-one-too-many", put64(v3, 24, 7), format.ErrTruncated, 16, 0},
		{"entries-offset-past", put64(v3, 16, 280), format.ErrTruncated, 16, 0},
		{"entries-offset-huge", put64(v3, 16, big), format.ErrTruncated, 16, 0},
		{"v2-count-huge", put64(v2, 24, big), format.ErrTruncated, 24, 0},
		{"v2-entries-offset-past", put64(v2, 16, 260), format.ErrTruncated, 16, 0},
		// Entries.
		{"image-offset-past", put64(v3, e0+24, 297), format.ErrTruncated, e0 + 24, 0},
		{"image-size-past", put64(v3, e1+32, 13), format.ErrTruncated, e1 + 32, 0},
		{"image-size-huge", put64(v3, e1+32, big), format.ErrTruncated, e1 + 32, 0},
		{"string-offset-past", put64(v3, e0+8, 297), format.ErrTruncated, e0 + 8, 0},
		{"num-strings-past", put64(v3, e1+16, 6), format.ErrTruncated, e1 + 16, 0},
		{"num-strings-huge", put64(v3, e0+16, big), format.ErrTruncated, e0 + 16, 0},
		{"v2-image-offset-past", put64(v2, v2e0+24, 289), format.ErrTruncated, v2e0 + 24, 0},
		// String entries.
		{"key-past", put64(v3, s0, 296), format.ErrTruncated, s0, 0},
		{"key-unterminated", put64(put64(v3[:290], 8, 290), s0, 286), format.ErrTruncated, s0, 0},
		{"value-offset-past", put64(v3, s0+8, 297), format.ErrTruncated, s0 + 8, 0},
		{"value-size-past", put64(v3, s0+16, 57), format.ErrTruncated, s0 + 8, 0},
		{"value-size-huge", put64(v3, s0+16, big), format.ErrTruncated, s0 + 8, 0},
		{"v2-value-size-huge", put64(v2, v2s0+16, big), format.ErrTruncated, v2s0 + 8, 0},
		// Compression.
		{"z-entries-offset", put64(z, 16, 32), format.ErrCorrupt, 16, 0},
		{"z-inflated-below-entries", put64(z, 32, 8), format.ErrCorrupt, 32, 0},
		{"z-inflated-too-big", put64(z, 32, infl+8), format.ErrCorrupt, 32, 0},
		{"z-inflated-too-small", put64(z, 32, infl-8), format.ErrCorrupt, 32, 0},
		{"z-inflated-huge", put64(z, 32, big), format.ErrLimit, 32, 0},
		{"z-over-limit", z, format.ErrLimit, 32, int64(infl) - 1},
		{"z-truncated-body", put64(z, 8, le.Uint64(z[8:])-6), format.ErrCorrupt, 40, 0},
		{"zlib-corrupt", corrupt, format.ErrCorrupt, 40, 0},
		{"inflated-entries-bad", handCompressed(t, put64(v3, e0+24, 297), "zlib"), format.ErrTruncated, e0 + 24, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bins, err := ParseAll(c.b, ReadOptions{Align8: true, MaxInflated: c.max})
			require.Error(t, err)
			assert.Nil(t, bins)
			assert.True(t, errors.Is(err, c.sentinel), "%v does not wrap %v", err, c.sentinel)
			var fe *format.FormatError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.Equal(t, c.off, fe.Off, "%v", err)
			assert.Equal(t, msgParseFailed, LLVMError(err), "LLVM 22 rejects v2/v3 at the version")
		})
	}
}
