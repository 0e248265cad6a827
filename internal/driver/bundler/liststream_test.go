package bundler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/bundle"
)

// TestListCompressedShapes: -list of compressed bundles of every shape
// that takes the streaming path (≥ 16 MiB decompressed) prints what
// clang-offload-bundler 22 prints: a text bundle (-type=ll, scanned while
// decoding), an object bundle (-type=o over an ELF, decoded into a
// temporary file), a binary bundle listed as -type=bc and -type=o (from
// its header), contents that are no bundle at all (nothing listed), and
// a text bundle damaged near its end (both fail: the text is scanned to
// the end). The bundles are made by the reference; the CCOB around them
// by bundle.Compress (the reference's -compress writes binary bundles
// only). -verbose prints the reference's statistics for them.
func TestListCompressedShapes(t *testing.T) {
	needOracle(t)
	d := t.TempDir()
	big := codeLike(17<<20, 7)
	write(t, d, "dev.ll", big)
	write(t, d, "host.ll", []byte("; host\n"))
	write(t, d, "dev.o", big)
	host := filepath.Join("..", "..", "..", "elfembed", "testdata", "hello-x86_64-linux-gnu.o")
	hostObj, err := os.ReadFile(host)
	require.NoError(t, err)
	write(t, d, "host.o", hostObj)
	targets := "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a"
	for _, mk := range [][]string{
		{"-type=ll", targets, "-input=host.ll", "-input=dev.ll", "-output=text.bundle"},
		{"-type=o", targets, "-input=host.o", "-input=dev.o", "-output=obj.bundle"},
		{"-type=bc", targets, "-input=host.ll", "-input=dev.o", "-output=bin.bundle"},
	} {
		r := runTheirs(t, d, nil, mk...)
		require.Equal(t, 0, r.code, "%v: %s", mk, r.stderr)
	}
	ccob := func(in, out string, damage bool) {
		b, _, err := bundle.Compress(nil, read(t, d, in), bundle.CompressOptions{Level: 1})
		require.NoError(t, err)
		if damage {
			for i := len(b) - 200; i < len(b)-100; i++ {
				b[i] ^= 0x5a
			}
		}
		write(t, d, out, b)
	}
	ccob("text.bundle", "text.ccob", false)
	ccob("text.bundle", "text-bad.ccob", true)
	ccob("obj.bundle", "obj.ccob", false)
	ccob("bin.bundle", "bin.ccob", false)
	ccob("dev.o", "none.ccob", false)
	for _, c := range []struct {
		typ, file string
		want      int // IDs listed
	}{
		{"ll", "text.ccob", 2}, {"ll", "text-bad.ccob", -1}, {"o", "obj.ccob", 2},
		{"bc", "bin.ccob", 2}, {"o", "bin.ccob", 2}, {"bc", "none.ccob", 0}, {"o", "none.ccob", 0}, {"ll", "none.ccob", 0},
	} {
		args := []string{"-list", "-type=" + c.typ, "-input=" + c.file}
		want, got := runTheirs(t, d, nil, args...), runOurs(t, d, nil, args...)
		assert.Equal(t, want.code, got.code, "%v: %s / %s", args, want.stderr, got.stderr)
		assert.Equal(t, want.stdout, got.stdout, "%v", args)
		if c.want >= 0 {
			assert.Equal(t, c.want, strings.Count(got.stdout, "\n"), "%v", args)
		} else {
			assert.NotEqual(t, 0, got.code, "%v", args)
		}
		// -verbose: the same statistics, but for the decompression speed.
		args = append(args, "-verbose")
		want, got = runTheirs(t, d, nil, args...), runOurs(t, d, nil, args...)
		assert.Equal(t, want.code, got.code, "%v", args)
		assert.Equal(t, want.stdout, got.stdout, "%v", args)
		if want.code == 0 {
			assert.Equal(t, withoutSpeed(want.stderr), withoutSpeed(got.stderr), "%v", args)
		}
	}
}

func withoutSpeed(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "Decompression speed:") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestListCompressedBombs: CCOB blobs whose RLE blocks expand 125 KB to
// 4 GiB (zeros, a binary bundle with a 3.9 GiB entry, a text bundle) are
// listed right (the hardening suite bounds the time and RSS of the
// command on the same shapes: internal/hardening/bomb_test.go).
func TestListCompressedBombs(t *testing.T) {
	d := t.TempDir()
	const n = 4 << 30
	ids := "host-x86_64-unknown-linux-gnu"
	hdr, _ := bundle.AppendBinary(nil, []string{ids}, [][]byte{nil}, 1)
	// The bundle's one entry runs over the zeros: patch its size.
	le := func(b []byte, off int, v uint64) {
		for i := range 8 {
			b[off+i] = byte(v >> (8 * i))
		}
	}
	le(hdr, 32, uint64(len(hdr)))
	le(hdr, 40, n-uint64(len(hdr)))
	cases := []struct {
		name, typ string
		blob      []byte
		want      string
	}{
		{"zeros", "bc", rleBlob(nil, 0, n), ""},
		{"zeros-o", "o", rleBlob(nil, 0, n), ""},
		{"binary", "bc", rleBlob(hdr, 0, n-len(hdr)), ids + "\n"},
		{"text", "ll", rleBlob([]byte("\n; __CLANG_OFFLOAD_BUNDLE____START__ a\n"), ' ', n, []byte("\n; __CLANG_OFFLOAD_BUNDLE____END__ a\n")), "a\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			write(t, d, c.name, c.blob)
			got := runOurs(t, d, nil, "-list", "-type="+c.typ, "-input="+c.name)
			require.Equal(t, 0, got.code, got.stderr)
			require.Equal(t, c.want, got.stdout)
		})
	}
}

// rleBlob is a CCOB v3 blob of one hand-made zstd frame: head raw, n
// bytes of fill in 128 KiB RLE blocks, tail raw.
func rleBlob(head []byte, fill byte, n int, tail ...[]byte) []byte {
	f := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3}
	var parts [][3]int // kind (0 raw head, 1 rle, 2 raw tail), size
	if len(head) > 0 {
		parts = append(parts, [3]int{0, len(head)})
	}
	for left := n; left > 0; left -= 128 << 10 {
		parts = append(parts, [3]int{1, min(left, 128<<10)})
	}
	var tl []byte
	if len(tail) > 0 && len(tail[0]) > 0 {
		tl = tail[0]
		parts = append(parts, [3]int{2, len(tl)})
	}
	for i, p := range parts {
		h := uint32(p[1]) << 3
		if i == len(parts)-1 {
			h |= 1
		}
		switch p[0] {
		case 0:
			f = append(append(f, byte(h), byte(h>>8), byte(h>>16)), head...)
		case 1:
			f = append(f, byte(h|2), byte(h>>8), byte(h>>16), fill)
		case 2:
			f = append(append(f, byte(h), byte(h>>8), byte(h>>16)), tl...)
		}
	}
	hd := bundle.Header{Version: 3, Method: bundle.Zstd, UncompressedSize: uint64(len(head) + n + len(tl))}
	hd.TotalFileSize = uint64(hd.Size() + len(f))
	return append(hd.AppendHeader(nil), f...)
}
