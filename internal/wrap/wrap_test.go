package wrap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenMPImageOf: the registered range of an OffloadBinary is its
// payload, a raw image is registered whole, and a broken header is an
// error with format/offload's sentinel (the hand parser this replaced
// called the last two ErrCorrupt; the codec, like LLVM, reports a field
// that points past Size as truncation).
func TestOpenMPImageOf(t *testing.T) {
	bin := packV1(1, 1, []byte("ABC"), "triple", hostTriple, "arch", "generic")
	im, err := OpenMPImageOf(bin)
	require.NoError(t, err)
	assert.Equal(t, "ABC", string(bin[im.Start:im.End]))
	im, err = OpenMPImageOf([]byte("raw"))
	require.NoError(t, err)
	assert.Equal(t, uint64(0), im.Start)
	assert.Equal(t, uint64(3), im.End)

	bad := func(mut func(b []byte) []byte, want error) {
		t.Helper()
		b := mut(append([]byte(nil), bin...))
		if _, err := OpenMPImageOf(b); !errors.Is(err, want) {
			t.Errorf("err = %v, want %v", err, want)
		}
	}
	bad(func(b []byte) []byte { return b[:20] }, format.ErrTruncated)
	bad(func(b []byte) []byte { b[4] = 2; return b }, format.ErrVersion)
	bad(func(b []byte) []byte { b[8] = 0xff; b[9] = 0xff; return b }, format.ErrTruncated)
	bad(func(b []byte) []byte { b[16] = 0xf0; return b }, format.ErrTruncated)
	bad(func(b []byte) []byte { b[64] = 0xff; return b }, format.ErrTruncated) // ImageSize
}

// TestOpenMPImagesRange: the driver's ranges are registered as given, and
// a range outside the image is refused.
func TestOpenMPImagesRange(t *testing.T) {
	bin := packV1(1, 1, []byte("ABC"), "triple", hostTriple, "arch", "generic")
	im, err := OpenMPImageOf(bin)
	require.NoError(t, err)
	a, err := OpenMP(Options{Triple: hostTriple}, [][]byte{bin})
	require.NoError(t, err)
	b, err := OpenMPImages(Options{Triple: hostTriple}, []OpenMPImage{im})
	require.NoError(t, err)
	assert.Equal(t, a, b)
	_, err = OpenMPImages(Options{Triple: hostTriple}, []OpenMPImage{{Data: bin, Start: 8, End: uint64(len(bin)) + 1}})
	assert.ErrorIs(t, err, format.ErrCorrupt)
}

func TestUnsupportedTriples(t *testing.T) {
	for _, tr := range []string{"", "x86_64-w64-windows-gnu", "aarch64-pc-windows-msvc", "aarch64-apple-darwin", "riscv64-unknown-linux-gnu"} {
		_, err := OpenMP(Options{Triple: tr}, nil)
		if !errors.Is(err, format.ErrUnsupported) {
			t.Errorf("%q: err = %v, want ErrUnsupported", tr, err)
		}
	}
	// -r on COFF: the object is made, as LLVM 22's wrapper makes it (the
	// linker-wrapper refuses after the host link, in LLVM's words;
	// TestCOFFRecordsMatchLLVM/openmp-relocatable compares it).
	if _, err := OpenMP(Options{Triple: "x86_64-pc-windows-msvc", Relocatable: true}, nil); err != nil {
		t.Errorf("COFF relocatable: err = %v", err)
	}
	for _, tr := range []string{"x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu", "x86_64-linux", "aarch64-linux-gnu", "x86_64-pc-windows-msvc"} {
		if _, err := CUDA(Options{Triple: tr}, []byte("x")); err != nil {
			t.Errorf("%q: %v", tr, err)
		}
	}
}

func TestOpenMPBadImage(t *testing.T) {
	bin := packV1(1, 1, []byte("ABC"), "triple", hostTriple)
	bin[4] = 9
	if _, err := OpenMP(Options{Triple: hostTriple}, [][]byte{[]byte("ok"), bin}); err == nil ||
		!bytes.Contains([]byte(err.Error()), []byte("openmp image 1")) {
		t.Errorf("err = %v", err)
	}
}

func TestSYCLImageFromBinary(t *testing.T) {
	b := packV1(0, 8, []byte("spv"), "triple", "spirv64-unknown-unknown", "arch", "", "symbols", "a\nb\nc")
	im, err := syclImageFromBinary(b)
	require.NoError(t, err)
	assert.Equal(t, "spirv64-unknown-unknown", im.Triple)
	assert.Equal(t, "spv", string(im.Image))
	assert.Equal(t, 3, len(im.Symbols))
	assert.Equal(t, "c", im.Symbols[2])
	im, err = syclImageFromBinary(packV1(6, 8, nil, "symbols", ""))
	require.NoError(t, err)
	assert.Equal(t, 0, len(im.Symbols))
	assert.Equal(t, uint8(6), im.ImageKind)
	if _, err := syclImageFromBinary([]byte("spv")); !errors.Is(err, format.ErrMagic) {
		t.Errorf("err = %v", err)
	}
	if _, err := SYCL(Options{Triple: hostTriple}, []SYCLImage{{Symbols: []string{"a\x00b"}}}); err == nil {
		t.Error("NUL in a symbol accepted")
	}
}

// FuzzSYCLImageFromBinary: no panics; an error implies a zero result.
func FuzzSYCLImageFromBinary(f *testing.F) {
	f.Add(packV1(0, 8, []byte("spv"), "triple", "spirv64", "symbols", "a\nb"))
	f.Add(packV1(1, 1, []byte("ABC"), "triple", hostTriple, "arch", "generic"))
	f.Fuzz(func(t *testing.T, b []byte) {
		im, err := syclImageFromBinary(b)
		if err != nil && (im.Triple != "" || im.Image != nil || im.Symbols != nil) {
			t.Fatalf("error with a result: %v", err)
		}
		if err == nil {
			if _, err := SYCL(Options{Triple: hostTriple}, []SYCLImage{im}); err != nil &&
				!bytes.Contains([]byte(err.Error()), []byte("NUL")) {
				t.Fatal(err)
			}
		}
		if _, err := OpenMP(Options{Triple: hostTriple}, [][]byte{b}); err == nil {
			return
		}
	})
}

// TestLargeImageNotCopied: building and streaming an object with a large
// image allocates far less than the image (the bytes are referenced).
func TestLargeImageNotCopied(t *testing.T) {
	img := make([]byte, 32<<20)
	bin := packV1(1, 1, img, "triple", hostTriple, "arch", "generic")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	o, err := BuildOpenMP(Options{Triple: hostTriple}, [][]byte{bin})
	require.NoError(t, err)
	n, err := o.WriteTo(io.Discard)
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	if n < int64(len(bin)) {
		t.Fatalf("wrote %d bytes", n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("allocated %d bytes for a %d-byte image", alloc, len(bin))
	}
}

func ExampleOpenMP() {
	// A v1 OffloadBinary holding the linked device image would normally
	// come from the device link; any bytes are accepted.
	obj, err := OpenMP(Options{Triple: "x86_64-unknown-linux-gnu"}, [][]byte{[]byte("raw device image")})
	if err != nil {
		panic(err)
	}
	desc, _ := Describe(obj)
	fmt.Print(strings.SplitAfter(desc, "\n")[0])
	// Output: registration object: kind=openmp machine=EM_X86_64
}
