package offload

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLLVMStringHashVectors(t *testing.T) {
	// Spec §5.3.
	tests := []struct {
		key  string
		h    uint32
		home int
	}{
		{"feature", 0x907be7c2, 2},
		{"arch", 0xf386c709, 9},
		{"file", 0xd4e6b353, 19},
		{"triple", 0x0819b0d8, 24},
		{"kind", 0xc8207aa5, 37},
		{"symbols", 0x49a1f865, 37},
		{"foo", 0xe08b2673, 51},
	}
	for _, tt := range tests {
		h := LLVMStringHash(tt.key)
		assert.Equal(t, tt.h, h, "hash(%q) = %08x", tt.key, h)
		assert.Equal(t, tt.home, int(h&63), tt.key)
	}
}

func TestPackagerOrderClang(t *testing.T) {
	args := ParseImageArg("file=a.bc,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda,feature=+ptx80")
	var keys []string
	for _, kv := range PackagerOrder(args) {
		keys = append(keys, kv.Key)
	}
	assert.Equal(t, []string{"feature", "arch", "file", "triple", "kind"}, keys)

	// kind inserted before symbols pushes symbols one bucket on.
	got := PackagerOrder(ParseImageArg("kind=sycl,symbols=x"))
	assert.Equal(t, []KV{{"kind", "sycl"}, {"symbols", "x"}}, got)
	got = PackagerOrder(ParseImageArg("symbols=x,kind=sycl"))
	assert.Equal(t, []KV{{"symbols", "x"}, {"kind", "sycl"}}, got)

	// repeated keys join with ','.
	got = PackagerOrder(ParseImageArg("foo=1,foo,foo=3"))
	assert.Equal(t, []KV{{"foo", "1,,3"}}, got)
}

func TestParseImageArg(t *testing.T) {
	assert.Equal(t, []KV{{"a", "b=c"}, {"d", ""}, {"", ""}, {"", "x"}}, ParseImageArg("a=b=c,d,,=x"))
	assert.Equal(t, []KV{{"", ""}}, ParseImageArg(""))
}

func TestImageKindFor(t *testing.T) {
	tests := []struct {
		name string
		head []byte
		want format.ImageKind
	}{
		{"a.o", nil, format.ImgObject},
		{"dir/a.bc", nil, format.ImgBitcode},
		{"a.cubin", nil, format.ImgCubin},
		{"a.fatbin", nil, format.ImgFatbinary},
		{"a.s", nil, format.ImgPTX},
		{"a.spv", nil, format.ImgNone},
		{"a", nil, format.ImgNone},
		{"x.o/a", nil, format.ImgNone},
		{"a.tar.o", nil, format.ImgObject},
		{".o", nil, format.ImgObject},
		{"a.txt", []byte("BC\xc0\xde...."), format.ImgBitcode},
		{"a.o", []byte{0xde, 0xc0, 0x17, 0x0b, 0, 0}, format.ImgBitcode},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ImageKindFor(tt.name, tt.head), tt.name)
	}
}

func annotatedImage() *Image {
	return &Image{
		ImageKind:   format.ImgNone,
		OffloadKind: format.OfkOpenMP,
		Strings:     []KV{{"arch", "generic"}, {"triple", "x86_64-unknown-linux-gnu"}},
		Image:       []byte("ABC"),
	}
}

func TestAppendBinaryGolden(t *testing.T) {
	want, err := os.ReadFile("testdata/annotated-llvm22.bin")
	require.NoError(t, err)
	assert.Equal(t, want, AppendBinary(nil, annotatedImage()))

	want, err = os.ReadFile("testdata/nokeys-llvm22.bin")
	require.NoError(t, err)
	require.True(t, len(want) == 88, "len(want) = %d", len(want))
	assert.Equal(t, want, AppendBinary(nil, &Image{Image: []byte("ABC")}))
}

func TestWriteV1Streams(t *testing.T) {
	img := annotatedImage()
	want := AppendBinary(nil, img)
	for _, n := range []int{0, 1, 7, 8, 9, 1000} {
		payload := bytes.Repeat([]byte{0xAB}, n)
		img.Image = payload
		want = AppendBinary(nil, img)
		var buf bytes.Buffer
		img2 := *img
		img2.Image = []byte("ignored")
		w, err := writeV1(&buf, &img2, bytes.NewReader(payload), int64(n))
		require.NoError(t, err)
		assert.Equal(t, int64(len(want)), w)
		assert.Equal(t, want, buf.Bytes(), "n=%d", n)
	}
	_, err := writeV1(&bytes.Buffer{}, img, strings.NewReader("ab"), 3)
	require.Error(t, err)
}

func TestStrtabTailMerge(t *testing.T) {
	// Spec §4 example.
	data, off := format.StringTable([]string{"triple", "x86_64-unknown-linux-gnu", "arch", "gnu", "x", "linux-gnu", "y", "u"})
	assert.Equal(t, "\x00y\x00x\x00x86_64-unknown-linux-gnu\x00arch\x00triple\x00", string(data))
	base := uint64(5)
	assert.Equal(t, base+uint64(len("x86_64-unknown-linux-gnu")-len("linux-gnu")), off["linux-gnu"])
	assert.Equal(t, base+uint64(len("x86_64-unknown-linux-gnu")-1), off["u"])
	assert.Equal(t, uint64(0), off[""])
}

func TestRoundTripV1(t *testing.T) {
	imgs := []*Image{
		annotatedImage(),
		{ImageKind: format.ImgBitcode, OffloadKind: format.OfkHIP, Flags: 7,
			Strings: []KV{{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx90a:xnack+"}, {"empty", ""}, {"arch2", "gfx90a:xnack+"}},
			Image:   bytes.Repeat([]byte("x"), 17)},
		{},
	}
	var buf []byte
	for _, img := range imgs {
		buf = AppendBinary(buf, img)
	}
	for _, shift := range []int{0, 1, 3} { // unaligned in memory
		mem := make([]byte, shift+len(buf))
		copy(mem[shift:], buf)
		got, err := ParseAll(mem[shift:], ReadOptions{})
		require.NoError(t, err)
		require.True(t, len(got) == len(imgs), "len(got) = %d", len(got))
		off := int64(0)
		for i, b := range got {
			img := imgs[i]
			assert.Equal(t, uint32(1), b.Version)
			assert.Equal(t, off, b.Offset)
			assert.Equal(t, img.ImageKind, b.ImageKind)
			assert.Equal(t, img.OffloadKind, b.OffloadKind)
			assert.Equal(t, img.Flags, b.Flags)
			assert.Equal(t, len(img.Strings), len(b.Strings))
			if len(img.Strings) > 0 {
				assert.Equal(t, img.Strings, b.Strings)
			}
			assert.Equal(t, string(img.Image), string(b.Image))
			one, n, err := Parse(mem[shift+int(off):])
			require.NoError(t, err)
			assert.Equal(t, int64(b.Size), n)
			assert.Equal(t, b.Strings, one[0].Strings)
			off += int64(b.Size)
		}
		// zero-copy
		if len(got[1].Image) > 0 {
			assert.Equal(t, &mem[shift+int(got[1].Offset)+int(got[1].ImageOffset)], &got[1].Image[0])
		}
	}
	assert.Equal(t, "gfx90a:xnack+", (&Binary{Strings: []KV{{"arch", "a"}, {"arch", "gfx90a:xnack+"}}}).Get("arch"))
	assert.Equal(t, "", (&Binary{}).Get("arch"))
}

func TestParseAllTrailing(t *testing.T) {
	buf := AppendBinary(nil, annotatedImage())
	buf = append(buf, make([]byte, 8)...)
	_, err := ParseAll(buf, ReadOptions{})
	require.Error(t, err)
	assert.Equal(t, msgParseFailed, LLVMError(err))
	var fe *format.FormatError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, int64(0xa0), fe.Off)

	// A v3 binary's Size is not a multiple of 8: the next one starts at the
	// 8-byte boundary. v2/v3 come only from newer main, which always steps
	// that way, so ParseAll does too for them, with or without Align8 (a
	// raw zlib v3 package used to fail in dump and kernels).
	v3, err := AppendBinaryV3(nil, []*Image{annotatedImage()}, "zlib", 0)
	require.NoError(t, err)
	require.NotZero(t, le.Uint64(v3[8:])%8, "the fixture must need padding")
	two := append(append([]byte{}, v3...), v3...)
	for _, align := range []bool{true, false} {
		got, err := ParseAll(two, ReadOptions{Align8: align})
		require.NoError(t, err, "Align8=%v", align)
		require.True(t, len(got) == 2, "Align8=%v: len(got) = %d", align, len(got))
		assert.Equal(t, int64(len(v3)), got[1].Offset)
	}
	// A v1 binary followed by padding still fails without Align8, as in
	// LLVM 22 (checked above); a v3 one followed by a v1 one steps to the
	// boundary.
	mixed := append(append([]byte{}, v3...), AppendBinary(nil, annotatedImage())...)
	got, err := ParseAll(mixed, ReadOptions{})
	require.NoError(t, err)
	require.Len(t, got, 2)
	// v3 binaries back to back with no padding (stepped by Size) still parse.
	bare := v3[:le.Uint64(v3[8:])]
	got, err = ParseAll(append(append([]byte{}, bare...), bare...), ReadOptions{})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, int64(len(bare)), got[1].Offset)
}

func TestRoundTripV2V3(t *testing.T) {
	imgs := []*Image{
		annotatedImage(),
		{ImageKind: format.ImgSPIRV, OffloadKind: format.OfkSYCL, Flags: 1,
			Strings: []KV{{"triple", "spirv64-unknown-unknown"}, {"symbols", "a\x00b\x00c"}, {"arch", ""}},
			Image:   bytes.Repeat([]byte{1, 2, 3}, 1000)},
		{ImageKind: format.ImgObject, Image: nil},
	}
	verify := func(t *testing.T, buf []byte, version uint32) {
		got, n, err := Parse(buf)
		require.NoError(t, err)
		assert.Equal(t, int64(le.Uint64(buf[8:])), n)
		require.True(t, len(got) == len(imgs), "len(got) = %d", len(got))
		for i, b := range got {
			assert.Equal(t, version, b.Version)
			assert.Equal(t, imgs[i].ImageKind, b.ImageKind)
			assert.Equal(t, imgs[i].OffloadKind, b.OffloadKind)
			assert.Equal(t, imgs[i].Flags, b.Flags)
			assert.Equal(t, len(imgs[i].Strings), len(b.Strings))
			for j, kv := range imgs[i].Strings {
				assert.Equal(t, kv, b.Strings[j])
			}
			assert.True(t, bytes.Equal(imgs[i].Image, b.Image))
			assert.Equal(t, uint64(n), b.Size)
		}
	}
	t.Run("v2", func(t *testing.T) {
		buf, err := AppendBinaryV2(nil, imgs)
		require.NoError(t, err)
		assert.Equal(t, uint32(2), le.Uint32(buf[4:]))
		assert.Equal(t, uint64(32), le.Uint64(buf[16:]))
		assert.True(t, len(buf)%8 == 0)
		verify(t, buf, 2)
	})
	for _, codec := range []string{"none", "zstd", "zlib"} {
		t.Run("v3-"+codec, func(t *testing.T) {
			buf, err := AppendBinaryV3(nil, imgs, codec, 0)
			require.NoError(t, err)
			assert.Equal(t, uint32(3), le.Uint32(buf[4:]))
			assert.Equal(t, uint64(40), le.Uint64(buf[16:]))
			assert.True(t, len(buf)%8 == 0)
			verify(t, buf, 3)
			if codec != "none" {
				plain, err := AppendBinaryV3(nil, imgs, "", 0)
				require.NoError(t, err)
				assert.Equal(t, uint64(len(plain)), le.Uint64(buf[32:]))
				assert.True(t, len(buf) < len(plain))
			}
		})
	}
	_, err := AppendBinaryV3(nil, imgs, "lzma", 0)
	require.Error(t, err)
	_, err = AppendBinaryV2(nil, nil)
	require.Error(t, err)
}

// TestLLVMStringHashLibLLVM checks every length class against hashes that
// libLLVM-22.so computed (testdata/hashgen.cpp).
func TestLLVMStringHashLibLLVM(t *testing.T) {
	data, err := os.ReadFile("testdata/hash-vectors-llvm22.txt")
	require.NoError(t, err)
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		hexKey, hexHash, ok := strings.Cut(line, " ")
		require.True(t, ok, "bad line %q", line)
		key, err := hex.DecodeString(hexKey)
		require.NoError(t, err)
		want, err := strconv.ParseUint(hexHash, 16, 32)
		require.NoError(t, err)
		if got := LLVMStringHash(string(key)); got != uint32(want) {
			t.Errorf("len %d: hash %08x, libLLVM %08x", len(key), got, want)
		}
		n++
	}
	require.True(t, n > 600, "only %d vectors", n)
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type countWriter struct {
	n    int64
	head []byte
}

func (w *countWriter) Write(p []byte) (int, error) {
	if len(w.head) < 256 {
		w.head = append(w.head, p[:min(len(p), 256-len(w.head))]...)
	}
	w.n += int64(len(p))
	return len(p), nil
}

func TestWriteV1Large(t *testing.T) {
	const n = 32<<20 + 5
	img := annotatedImage()
	var w countWriter
	got, err := writeV1(&w, img, io.LimitReader(zeroReader{}, n), n)
	require.NoError(t, err)
	hdr := HeaderV1(img, n)
	assert.Equal(t, int64(len(hdr))+n+3, got)
	assert.Equal(t, got, w.n)
	assert.Equal(t, hdr, w.head[:len(hdr)])
	assert.Equal(t, uint64(got), le.Uint64(hdr[8:]), "Size")
}

// TestAppendBinaryImageOffset: the returned ImageOffset is where the reader
// finds the payload.
func TestAppendBinaryImageOffset(t *testing.T) {
	img := annotatedImage()
	b, off := AppendBinaryImage([]byte("prefix"), img)
	bins, _, err := Parse(b[len("prefix"):])
	require.NoError(t, err)
	assert.Equal(t, bins[0].ImageOffset, off)
	assert.Equal(t, img.Image, b[len("prefix")+int(off):len("prefix")+int(off)+len(img.Image)])
	assert.Equal(t, AppendBinary(nil, img), b[len("prefix"):])
}
