package wrap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
)

// syclBlobInput is what our sycl-linker writes for two split images
// (concatenated v1 binaries, symbols joined by "\n") followed by a
// compressed v3 binary with a third image, as newer LLVM writes it.
func syclBlobInput(t *testing.T) []byte {
	t.Helper()
	in := packV1(6, 8, []byte("\x03\x02\x23\x07 spirv module A"), "triple", "spirv64-unknown-unknown", "arch", "", "symbols", "_ZTS6kernA\n_ZTS6kernB")
	in = append(in, packV1(1, 8, []byte("aot image"), "triple", "spirv64_gen-unknown-unknown", "arch", "bmg_g21", "symbols", "k3")...)
	v3, err := offload.AppendBinaryV3(nil, []*offload.Image{{ImageKind: 6, OffloadKind: 8,
		Strings: []offload.KV{{Key: "triple", Value: "spirv64"}, {Key: "arch", Value: ""}, {Key: "symbols", Value: ""}},
		Image:   bytes.Repeat([]byte("compressed spirv "), 40)}}, "zstd", 0)
	require.NoError(t, err)
	return append(in, v3...)
}

// wantBlobImages is syclBlobInput's images as the blob must carry them.
type blobImage struct {
	imageKind format.ImageKind
	triple    string
	arch      string
	symbols   []string
	image     []byte
}

func wantBlobImages() []blobImage {
	return []blobImage{
		{6, "spirv64-unknown-unknown", "", []string{"_ZTS6kernA", "_ZTS6kernB"}, []byte("\x03\x02\x23\x07 spirv module A")},
		{1, "spirv64_gen-unknown-unknown", "bmg_g21", []string{"k3"}, []byte("aot image")},
		{6, "spirv64", "", nil, bytes.Repeat([]byte("compressed spirv "), 40)},
	}
}

// checkBlob parses blob as LLVM main's SYCL runtime would (one
// OffloadBinary, version 3, every image an entry) and compares it with
// wantBlobImages.
func checkBlob(t *testing.T, blob []byte) {
	t.Helper()
	require.GreaterOrEqual(t, len(blob), 40)
	assert.Equal(t, uint32(3), binary.LittleEndian.Uint32(blob[4:]), "version")
	assert.Equal(t, uint64(len(blob)), binary.LittleEndian.Uint64(blob[8:]), "one binary: Size is the whole blob")
	bins, n, err := offload.Parse(blob)
	require.NoError(t, err)
	assert.Equal(t, int64(len(blob)), n)
	want := wantBlobImages()
	require.Len(t, bins, len(want))
	for i, b := range bins {
		w := want[i]
		assert.Equal(t, w.imageKind, b.ImageKind, "image %d", i)
		assert.Equal(t, format.OfkSYCL, b.OffloadKind, "image %d", i)
		assert.Equal(t, []string{"triple", "arch", "symbols"}, keys(b.Strings), "image %d", i)
		assert.Equal(t, w.triple, b.Triple(), "image %d", i)
		assert.Equal(t, w.arch, b.Arch(), "image %d", i)
		assert.Equal(t, w.image, b.Image, "image %d", i)
		sym := b.Get("symbols")
		names, err := ParseSYCLSymbolTable(sym)
		require.NoError(t, err, "image %d", i)
		if len(w.symbols) == 0 {
			assert.Empty(t, names)
			assert.Equal(t, "\x00\x00\x00\x00", sym, "an empty table is its count")
		} else {
			assert.Equal(t, w.symbols, names, "image %d", i)
		}
	}
}

func keys(kvs []offload.KV) []string {
	var k []string
	for _, kv := range kvs {
		k = append(k, kv.Key)
	}
	return k
}

// TestSYCLBlobRegistration links the blob registration object (LLVM
// main's ABI, both its forms) with a recording stub of
// __sycl_register_lib(blob, size) / __sycl_unregister_lib(blob, size) and
// checks that the blob the runtime receives parses back to the images.
func TestSYCLBlobRegistration(t *testing.T) {
	src, err := filepath.Abs("testdata/sycl/blob_stub.c")
	require.NoError(t, err)
	blob, err := SYCLBlobFromBinaries(syclBlobInput(t))
	require.NoError(t, err)
	checkBlob(t, blob)
	inc := stubInclude(t)
	for _, h := range hostEnvs(t) {
		for _, atexit := range []bool{false, true} {
			name := h.name + "/dtor"
			if atexit {
				name = h.name + "/atexit"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				obj, err := SYCLBlob(Options{Triple: h.triple}, blob, SYCLBlobOptions{AtExit: atexit})
				require.NoError(t, err)
				writeFile(t, dir, "sycl.o", obj)
				runCmd(t, dir, h.cc, inc, "-o", "prog", src, "sycl.o")
				want := "register size=" + itoa(len(blob)) + " aligned8=1\nmain registered=1\nunregister same=1 size=1\n"
				assert.Equal(t, want, h.exec(t, dir, "prog"))
				got, err := os.ReadFile(filepath.Join(dir, "blob.bin"))
				require.NoError(t, err)
				assert.Equal(t, blob, got)
				checkBlob(t, got)
				// The linked program still lists the images: the blob's
				// section stays an allocated SHT_LLVM_OFFLOADING one.
				if h.name == "x86_64" {
					win, err := SYCLBlob(Options{Triple: hostTriple, winABI: true}, blob, SYCLBlobOptions{AtExit: atexit})
					require.NoError(t, err)
					writeFile(t, dir, "win.o", win)
					require.NoError(t, os.Remove(filepath.Join(dir, "blob.bin")))
					runCmd(t, dir, h.cc, "-DMS_ABI", inc, "-o", "win", src, "win.o")
					assert.Equal(t, want, h.exec(t, dir, "win"))
					got, err := os.ReadFile(filepath.Join(dir, "blob.bin"))
					require.NoError(t, err)
					assert.Equal(t, blob, got)
				}
			})
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestSYCLBlobObject: the blob object's sections, symbols and constructor
// tables for each form, on every host format, and that the default SYCL
// object is unchanged by the blob mode's existence (the golden files stay).
func TestSYCLBlobObject(t *testing.T) {
	blob, err := SYCLBlobFromBinaries(syclBlobInput(t))
	require.NoError(t, err)
	for _, triple := range []string{hostTriple, "aarch64-unknown-linux-gnu", "x86_64-pc-windows-msvc"} {
		for _, atexit := range []bool{false, true} {
			o, err := BuildSYCLBlob(Options{Triple: triple}, blob, SYCLBlobOptions{AtExit: atexit})
			require.NoError(t, err, triple)
			var names []string
			var data []byte
			for _, s := range o.Sections() {
				names = append(names, s.Name)
				if s.Name == format.OffloadingSection {
					data = s.Bytes()
					assert.Equal(t, format.SHT_LLVM_OFFLOADING, s.Type, triple)
					assert.Equal(t, uint64(8), s.Align, triple)
				}
			}
			assert.Equal(t, blob, data, triple)
			coff := strings.Contains(triple, "windows")
			has := func(n string) bool {
				for _, x := range names {
					if x == n {
						return true
					}
				}
				return false
			}
			switch {
			case coff && atexit:
				assert.True(t, has(".CRT$XCA00101"), "%s: %v", triple, names)
				assert.False(t, has(".CRT$XTA00001"), "%s: %v", triple, names)
			case coff:
				assert.True(t, has(".CRT$XCA00001") && has(".CRT$XTA00001"), "%s: %v", triple, names)
			case atexit:
				assert.True(t, has(".init_array.101"), "%s: %v", triple, names)
				assert.False(t, has(".fini_array.1"), "%s: %v", triple, names)
			default:
				assert.True(t, has(".init_array.1") && has(".fini_array.1"), "%s: %v", triple, names)
			}
			// No descriptor, no per-image entries: the runtime reads the blob.
			for _, n := range names {
				assert.NotEqual(t, ".data.rel.ro", n, triple)
			}
		}
	}
}

// TestSYCLBlobErrors: what SYCLBlob and SYCLBlobFromBinaries refuse.
func TestSYCLBlobErrors(t *testing.T) {
	_, err := SYCLBlob(Options{Triple: hostTriple}, []byte("not a blob"), SYCLBlobOptions{})
	assert.True(t, errors.Is(err, format.ErrMagic), "%v", err)
	in := syclBlobInput(t)
	_, err = SYCLBlob(Options{Triple: hostTriple}, in[:len(in)-9], SYCLBlobOptions{})
	assert.Error(t, err, "a truncated blob")
	_, err = SYCLBlobFromBinaries(packV1(1, 1, []byte("omp"), "triple", "x86_64"))
	assert.ErrorContains(t, err, "expected sycl")
	_, err = SYCLBlobFromBinaries(nil)
	assert.Error(t, err)
	v2, err := offload.AppendBinaryV2(nil, []*offload.Image{{ImageKind: 6, OffloadKind: 8,
		Strings: []offload.KV{{Key: "symbols", Value: "a\x00b"}}, Image: []byte("x")}})
	require.NoError(t, err)
	_, err = SYCLBlobFromBinaries(v2)
	assert.True(t, errors.Is(err, format.ErrTruncated), "a symbols value with NULs that is no table: %v", err)
}

// TestSYCLSymbolTable: main's serialized symbol table (Utility.h), built
// by hand from its layout, read back; every bounds error.
func TestSYCLSymbolTable(t *testing.T) {
	// Count 2, offsets 12 and 14, then "k\0" "ab\0".
	hand := []byte{2, 0, 0, 0, 12, 0, 0, 0, 14, 0, 0, 0, 'k', 0, 'a', 'b', 0}
	got, err := AppendSYCLSymbolTable(nil, []string{"k", "ab"})
	require.NoError(t, err)
	assert.Equal(t, hand, got)
	names, err := ParseSYCLSymbolTable(string(hand))
	require.NoError(t, err)
	assert.Equal(t, []string{"k", "ab"}, names)
	names, err = SYCLSymbols(string(hand))
	require.NoError(t, err)
	assert.Equal(t, []string{"k", "ab"}, names)
	names, err = SYCLSymbols("a\nb")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names, "22's form")
	names, err = SYCLSymbols("")
	require.NoError(t, err)
	assert.Empty(t, names)
	_, err = AppendSYCLSymbolTable(nil, []string{"a\x00"})
	assert.Error(t, err)
	for name, bad := range map[string][]byte{
		"no count":        {2, 0, 0},
		"count too large": {3, 0, 0, 0, 12, 0, 0, 0, 14, 0, 0, 0},
		"offset past end": {1, 0, 0, 0, 9, 0, 0, 0, 'a'},
		"offset at end":   {1, 0, 0, 0, 8, 0, 0, 0},
		"no NUL":          {1, 0, 0, 0, 8, 0, 0, 0, 'a', 'b'},
		"huge count":      {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0},
		"huge offset":     {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0},
	} {
		_, err := ParseSYCLSymbolTable(string(bad))
		assert.True(t, errors.Is(err, format.ErrTruncated), "%s: %v", name, err)
	}
}

// TestSYCLImagesFromCompressed: SYCL images in LLVM main's compressed v3
// binaries (the only compression main has for them: InflatedSize in the
// container header, zstd or zlib, no image flag) are inflated for
// registration, with kernel names from main's symbol table; the images
// register through LLVM 22's descriptor as any other.
func TestSYCLImagesFromCompressed(t *testing.T) {
	blob, err := SYCLBlobFromBinaries(syclBlobInput(t))
	require.NoError(t, err)
	bins, err := offload.ParseAll(blob, offload.ReadOptions{})
	require.NoError(t, err)
	imgs := make([]*offload.Image, len(bins))
	for i, b := range bins {
		imgs[i] = &offload.Image{ImageKind: b.ImageKind, OffloadKind: b.OffloadKind, Strings: b.Strings, Image: b.Image}
	}
	want := wantBlobImages()
	for _, codec := range []string{"zstd", "zlib", ""} {
		z, err := offload.AppendBinaryV3(nil, imgs, codec, 0)
		require.NoError(t, err)
		zb, _, err := offload.Parse(z)
		require.NoError(t, err)
		assert.Equal(t, codec != "", offload.Compressed(zb[0]), codec)
		got, err := SYCLImagesFromBinaries(z)
		require.NoError(t, err, codec)
		require.Len(t, got, len(want))
		for i, g := range got {
			assert.Equal(t, want[i].triple, g.Triple, "%s image %d", codec, i)
			assert.Equal(t, want[i].image, g.Image, "%s image %d", codec, i)
			assert.Equal(t, uint8(want[i].imageKind), g.ImageKind, "%s image %d", codec, i)
			if len(want[i].symbols) == 0 {
				assert.Empty(t, g.Symbols)
			} else {
				assert.Equal(t, want[i].symbols, g.Symbols, "%s image %d", codec, i)
			}
		}
		_, err = SYCL(Options{Triple: hostTriple}, got)
		require.NoError(t, err)
	}
	// 22's form reads the same way.
	got, err := SYCLImagesFromBinaries(packV1(0, 8, []byte("x"), "triple", "spirv64", "symbols", "a\nb"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, got[0].Symbols)
	_, err = SYCLImagesFromBinaries(packV1(0, 1, []byte("x")))
	assert.ErrorContains(t, err, "expected sycl")
}

// FuzzParseSYCLSymbolTable: the table reader never panics, and what it
// reads is written back to a table that reads the same.
func FuzzParseSYCLSymbolTable(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 12, 0, 0, 0, 14, 0, 0, 0, 'k', 0, 'a', 'b', 0})
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		names, err := ParseSYCLSymbolTable(string(b))
		if err != nil {
			return
		}
		tab, err := AppendSYCLSymbolTable(nil, names)
		if err != nil {
			t.Fatalf("names read from a table cannot be written: %v", err)
		}
		again, err := ParseSYCLSymbolTable(string(tab))
		if err != nil || len(again) != len(names) {
			t.Fatalf("round trip: %v, %d vs %d names", err, len(again), len(names))
		}
		for i := range names {
			if names[i] != again[i] {
				t.Fatalf("name %d: %q vs %q", i, names[i], again[i])
			}
		}
	})
}
