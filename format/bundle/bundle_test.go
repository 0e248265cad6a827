package bundle

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
)

// The example from the spec: one entry "ABCD", -bundle-align=16.
const specExample = "5f5f434c414e475f4f46464c4f41445f" + "4255 4e44 4c45 5f5f 0100 0000 0000 0000" +
	"6000 0000 0000 0000 0400 0000 0000 0000" + "1f00 0000 0000 0000 6869 7076 342d 616d" +
	"6467 636e 2d61 6d64 2d61 6d64 6873 612d" + "2d67 6678 3930 6100 0000 0000 0000 0000" + "41424344"

func unhex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	require.NoError(t, err)
	return b
}

func TestWriteBinarySpecExample(t *testing.T) {
	got, err := AppendBinary(nil, []string{"hipv4-amdgcn-amd-amdhsa--gfx90a"}, [][]byte{[]byte("ABCD")}, 16)
	require.NoError(t, err)
	assert.Equal(t, unhex(t, specExample), got)

	b, err := Parse(got)
	require.NoError(t, err)
	require.Len(t, b.Entries, 1)
	assert.Equal(t, Entry{ID: "hipv4-amdgcn-amd-amdhsa--gfx90a", Offset: 0x60, Size: 4, Data: []byte("ABCD")}, b.Entries[0])
	assert.Equal(t, int64(0x57), b.HeaderSize)
	assert.Equal(t, int64(len(got)), b.End)
}

func TestBinaryRoundTrip(t *testing.T) {
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx1100"}
	data := [][]byte{{}, []byte("CCOB and __CLANG_OFFLOAD_BUNDLE__ inside"), bytes.Repeat([]byte{7}, 1000)}
	for _, align := range []uint64{1, 2, 6, 4096} {
		buf, err := AppendBinary(nil, ids, data, align)
		require.NoError(t, err)
		b, err := Parse(buf)
		require.NoError(t, err)
		require.Len(t, b.Entries, 3)
		for i, e := range b.Entries {
			assert.Equal(t, ids[i], e.ID)
			assert.Equal(t, data[i], e.Data)
			assert.Zero(t, uint64(e.Offset)%align)
		}
	}
	_, err := AppendBinary(nil, ids, data, 0)
	assert.Error(t, err)
}

func TestParseErrors(t *testing.T) {
	good, err := AppendBinary(nil, []string{"a-b-c-d-e", "f-g-h-i-j"}, [][]byte{[]byte("xy"), []byte("z")}, 1)
	require.NoError(t, err)
	corrupt := func(off int, v byte) []byte {
		b := bytes.Clone(good)
		b[off] = v
		return b
	}
	for _, tc := range []struct {
		name string
		in   []byte
		err  error
		off  int64
	}{
		{"empty", nil, format.ErrTruncated, 0},
		{"magic", []byte("__CLANG_OFFLOAD_BUNDLX__\x00\x00\x00\x00\x00\x00\x00\x00"), format.ErrMagic, 0},
		{"count", good[:30], format.ErrTruncated, 24},
		{"too many", corrupt(24, 0xff), format.ErrTruncated, 24},
		{"truncated table", good[:40], format.ErrTruncated, 24},
		{"offset out of range", corrupt(32, 0xf0), format.ErrTruncated, 32},
		{"zero offset", func() []byte { b := bytes.Clone(good); copy(b[32:40], make([]byte, 8)); return b }(), format.ErrTruncated, 32},
		{"id too long", corrupt(48, 0xff), format.ErrTruncated, 56},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse(tc.in)
			assert.Nil(t, b)
			require.ErrorIs(t, err, tc.err)
			var fe *format.FormatError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.off, fe.Off)
		})
	}
	// Lenient parsing keeps the entries before the bad one.
	bad := corrupt(32+24+9, 0xff) // second entry's offset
	b, err := ParseLenient(bad)
	assert.Error(t, err)
	require.Len(t, b.Entries, 1)
	assert.Equal(t, "a-b-c-d-e", b.Entries[0].ID)
}

func TestTextRoundTrip(t *testing.T) {
	for _, typ := range []string{"i", "ii", "cui", "hipi", "d", "ll", "s"} {
		c, ok := CommentFor(typ)
		require.True(t, ok)
		var buf bytes.Buffer
		in := []Input{BytesInput("host-x86_64-unknown-linux-gnu-", []byte("int a;\n")), BytesInput("hip-amdgcn-amd-amdhsa--gfx90a", []byte("int b;"))}
		_, err := WriteText(&buf, c, in)
		require.NoError(t, err)
		b, err := ParseText(buf.Bytes(), c)
		require.NoError(t, err)
		require.Len(t, b.Entries, 2)
		assert.Equal(t, "int a;\n", string(b.Entries[0].Data))
		assert.Equal(t, "int b;", string(b.Entries[1].Data))
	}
	want := map[string]string{"i": "//", "ll": ";", "s": "#", "d": "#"}
	for typ, c := range want {
		got, _ := CommentFor(typ)
		assert.Equal(t, c, got, typ)
	}
	_, ok := CommentFor("bc")
	assert.False(t, ok)
}

func TestNormalizeID(t *testing.T) {
	// Values observed from clang-offload-bundler 22.1.8.
	for in, want := range map[string]string{
		"hip-amdgcn-amd-amdhsa-gnu-gfx90a":      "hip-amdgcn-amd-amdhsa--gfx90a",
		"hip-amdgcn-amd-amdhsa-gfx90a":          "hip-amdgcn-amd-amdhsa--",
		"host-x86_64-unknown-linux-gnu":         "host-x86_64-unknown-linux-gnu-",
		"openmp-nvptx64-nvidia-cuda--sm_70":     "openmp-nvptx64-nvidia-cuda-unknown-sm_70",
		"openmp-x86_64--linux-gnu":              "openmp-x86_64-unknown-linux-gnu-",
		"openmp-x86_64-linux-gnu-unknown":       "openmp-x86_64-unknown-linux-gnu-",
		"openmp-x86_64-pc-win32-gnu":            "openmp-x86_64-pc-windows-gnu-",
		"hip-amdgcn--amdhsa--gfx90a":            "hip-amdgcn-unknown-amdhsa--gfx90a",
		"host-x86_64-unknown-linux-gnu-gfx90a":  "host-x86_64-unknown-linux-gnu-gfx90a",
		"host-x86_64-unknown-linux-gnu-foo:bar": "host-x86_64-unknown-linux-gnu-",
		"hip-spirv64-amd-amdhsa--amdgcnspirv":   "hip-spirv64-amd-amdhsa--amdgcnspirv",
		"openmp-armv7-unknown-linux-gnueabihf":  "openmp-armv7-unknown-linux-gnueabihf-",
		"hip-amdgcn-amd-amdhsa--gfx90a:xnack+":  "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
	} {
		got, ok := normalizeID(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	_, ok := normalizeID("hip-amdgcn")
	assert.False(t, ok)
}

func TestCompatible(t *testing.T) {
	for _, tc := range []struct {
		code, target string
		hipOMP, want bool
	}{
		{"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a", false, true},
		{"hip-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a", false, true},
		{"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", false, true},
		{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx90a", false, false},
		{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx90a:xnack-", false, false},
		{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+", false, true},
		{"hip-amdgcn-amd-amdhsa--gfx1030", "hip-amdgcn-amd-amdhsa--gfx1030:xnack+", false, false},
		{"hip-amdgcn-amd-amdhsa--gfx90a", "openmp-amdgcn-amd-amdhsa--gfx90a", false, false},
		{"hip-amdgcn-amd-amdhsa--gfx90a", "openmp-amdgcn-amd-amdhsa--gfx90a", true, true},
		{"openmp-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a", true, true},
		{"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa-gnu-gfx90a", false, false},
		{"host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu", false, true},
		{"host-x86_64-unknown-linux-gnu-", "host-x86_64-pc-linux-gnu", false, false},
		{"openmp-nvptx64-nvidia-cuda-sm_70", "openmp-nvptx64-nvidia-cuda-sm_70", false, true},
	} {
		c, _ := ParseTarget(tc.code)
		tg, _ := ParseTarget(tc.target)
		assert.Equal(t, tc.want, Compatible(c, tg, tc.hipOMP), "%s vs %s", tc.code, tc.target)
	}
}

func TestCCOBRoundTrip(t *testing.T) {
	src := bytes.Repeat([]byte("s_load_dword s[4:5] CCOB v_mad_f32\n"), 5000)
	for _, o := range []CompressOptions{
		{}, {Version: 2}, {Zlib: true}, {Version: 2, Zlib: true, Level: 9},
		{Level: 19}, {Level: 1, ChunkSize: 4096, Concurrency: 3},
	} {
		blob, h, err := Compress(nil, src, o)
		require.NoError(t, err)
		assert.Equal(t, uint64(len(blob)), h.TotalFileSize)
		assert.Equal(t, truncatedMD5(src), h.Hash)
		d, err := Decompress(blob, Limits{})
		require.NoError(t, err, "%+v", o)
		assert.Equal(t, src, d.Data)
		assert.Equal(t, h, d.Header)
	}
}

func TestCCOBErrors(t *testing.T) {
	src := []byte(strings.Repeat("hello offload ", 100))
	blob, _, err := Compress(nil, src, CompressOptions{})
	require.NoError(t, err)

	mut := func(f func(b []byte)) []byte { b := bytes.Clone(blob); f(b); return b }
	for _, tc := range []struct {
		name string
		in   []byte
		err  error
	}{
		{"short", blob[:6], format.ErrTruncated},
		{"magic", mut(func(b []byte) { b[0] = 'X' }), format.ErrMagic},
		{"version", mut(func(b []byte) { b[4] = 9 }), format.ErrVersion},
		{"method", mut(func(b []byte) { b[6] = 5 }), format.ErrUnsupported},
		{"header", blob[:20], format.ErrTruncated},
		{"total too big", mut(func(b []byte) { b[8]++ }), format.ErrTruncated},
		{"total too small", mut(func(b []byte) { copy(b[8:16], []byte{3, 0, 0, 0, 0, 0, 0, 0}) }), format.ErrCorrupt},
		{"hash", mut(func(b []byte) { b[24] ^= 1 }), ErrChecksum},
		{"size", mut(func(b []byte) { b[16]++ }), ErrChecksum},
		{"limit", mut(func(b []byte) { b[23] = 0x10 }), format.ErrLimit},
		{"ratio", mut(func(b []byte) { b[20] = 1 }), format.ErrLimit},
		{"payload", mut(func(b []byte) { b[40] ^= 0xff; b[41] ^= 0xff }), format.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decompress(tc.in, Limits{})
			assert.Nil(t, d)
			assert.ErrorIs(t, err, tc.err)
			var fe *format.FormatError
			assert.True(t, errors.As(err, &fe))
		})
	}
	d, err := Decompress(mut(func(b []byte) { b[24] ^= 1 }), Limits{SkipVerify: true})
	require.NoError(t, err)
	assert.Equal(t, src, d.Data)
}

func TestCCOBVersion1(t *testing.T) {
	src := []byte("version one bundle")
	v3, _, err := Compress(nil, src, CompressOptions{Zlib: true})
	require.NoError(t, err)
	h := Header{Version: 1, Method: Zlib, UncompressedSize: uint64(len(src)), Hash: truncatedMD5(src)}
	v1 := append(h.AppendHeader(nil), v3[32:]...)
	d, err := Decompress(v1, Limits{})
	require.NoError(t, err)
	assert.Equal(t, src, d.Data)
	assert.Equal(t, uint64(0), d.Header.TotalFileSize)
}

func TestScanConcatenated(t *testing.T) {
	one, err := AppendBinary(nil, []string{"hip-amdgcn-amd-amdhsa--gfx90a"}, [][]byte{[]byte("CCOB in a payload")}, 1)
	require.NoError(t, err)
	two, err := AppendBinary(nil, []string{"hip-amdgcn-amd-amdhsa--gfx1100"}, [][]byte{bytes.Repeat([]byte("__CLANG_OFFLOAD_BUNDLE__CCOB"), 50)}, 8)
	require.NoError(t, err)
	// Stored (level 0) zlib keeps "CCOB" verbatim inside the compressed
	// payload: finding the next bundle by magic would split it.
	c2, _, err := Compress(nil, two, CompressOptions{Zlib: true, Level: 0})
	require.NoError(t, err)
	require.True(t, bytes.Contains(c2[4:], []byte("CCOB")))
	c1, _, err := Compress(nil, one, CompressOptions{Version: 2})
	require.NoError(t, err)
	var sec []byte
	sec = append(sec, one...)
	sec = append(sec, 0, 0, 0)
	sec = append(sec, c2...)
	sec = append(sec, c1...)
	sec = append(sec, two...)
	items, err := Scan(sec, Limits{})
	require.NoError(t, err)
	require.Len(t, items, 4)
	assert.False(t, items[0].Compressed)
	assert.True(t, items[1].Compressed)
	assert.Equal(t, int64(len(one)+3), items[1].Offset)
	assert.Equal(t, "hip-amdgcn-amd-amdhsa--gfx1100", items[1].Bundle.Entries[0].ID)
	assert.Equal(t, two, items[1].Data)
	assert.Equal(t, uint16(2), items[2].Header.Version)
	assert.Equal(t, []byte("CCOB in a payload"), items[2].Bundle.Entries[0].Data)
	assert.Equal(t, bytes.Repeat([]byte("__CLANG_OFFLOAD_BUNDLE__CCOB"), 50), items[3].Bundle.Entries[0].Data)

	_, err = Scan(append(bytes.Clone(sec), 'x'), Limits{})
	assert.ErrorIs(t, err, format.ErrMagic)
}

func TestFixtures(t *testing.T) {
	raw, err := os.ReadFile("testdata/bundle-hip-gfx90a-llvm22.bc")
	require.NoError(t, err)
	b, err := Parse(raw)
	require.NoError(t, err)
	assert.Equal(t, []string{"hip-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux-gnu-"}, b.ids())
	assert.Equal(t, "int host;\n", string(b.Entries[0].Data))
	assert.Len(t, b.Entries[1].Data, 3000)

	files, err := filepath.Glob("testdata/*.ccob")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		blob, err := os.ReadFile(f)
		require.NoError(t, err)
		d, err := Decompress(blob, Limits{})
		require.NoError(t, err, f)
		assert.Equal(t, raw, d.Data, f)
		assert.Equal(t, Zstd, d.Header.Method)
	}

	txt, err := os.ReadFile("testdata/bundle-hip-gfx90a-llvm22.ll")
	require.NoError(t, err)
	tb, err := ParseText(txt, ";")
	require.NoError(t, err)
	require.Len(t, tb.Entries, 2)
	var buf bytes.Buffer
	_, err = WriteText(&buf, ";", []Input{BytesInput(tb.Entries[0].ID, tb.Entries[0].Data), BytesInput(tb.Entries[1].ID, tb.Entries[1].Data)})
	require.NoError(t, err)
	assert.Equal(t, txt, buf.Bytes())
}
