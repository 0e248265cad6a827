package bundler

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostFromDevNull is the bundle every HIP link makes: an empty host
// entry read from /dev/null (a character device, not a file) and device
// code objects, 4096-aligned; plain and compressed. Outputs must equal the
// reference's (header fields and unbundled payloads for the compressed one).
func TestHostFromDevNull(t *testing.T) {
	needOracle(t)
	for _, extra := range [][]string{nil, {"-compress"}} {
		a, b := t.TempDir(), t.TempDir()
		for _, d := range []string{a, b} {
			write(t, d, "gfx90a.o", []byte("\x7fELF fake gfx90a code object"))
			write(t, d, "gfx1100.o", []byte("\x7fELF fake gfx1100 code object, longer"))
		}
		args := append([]string{"-type=o", "-bundle-align=4096",
			"-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx1100",
			"-input=/dev/null", "-input=gfx90a.o", "-input=gfx1100.o", "-output=out.hipfb"}, extra...)
		want, got := runTheirs(t, a, nil, args...), runOurs(t, b, nil, args...)
		require.Equal(t, want.code, got.code, "exit code: %s / %s", want.stderr, got.stderr)
		require.Equal(t, 0, got.code, got.stderr)
		if extra == nil {
			assert.Equal(t, read(t, a, "out.hipfb"), read(t, b, "out.hipfb"), "byte-identical bundle")
			continue
		}
		// Compressed: each tool unbundles the other's output.
		for _, d := range []string{a, b} {
			other := b
			if d == b {
				other = a
			}
			write(t, d, "theirs.hipfb", read(t, other, "out.hipfb"))
		}
		un := []string{"-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx1100", "-input=theirs.hipfb", "-output=x.o", "-unbundle"}
		require.Equal(t, 0, runTheirs(t, a, nil, un...).code)
		require.Equal(t, 0, runOurs(t, b, nil, un...).code)
		assert.Equal(t, read(t, a, "gfx1100.o"), read(t, a, "x.o"))
		assert.Equal(t, read(t, b, "gfx1100.o"), read(t, b, "x.o"))
	}
}

// TestStreamingUnbundleHashAndSize: like clang-offload-bundler, the
// streaming path (a CCOB file decoded straight into the outputs) does not
// check the stored hash (the reference only computes it for -verbose, and
// then only prints whether it matches); a wrong uncompressed size is still
// an error here, leaving no output.
func TestStreamingUnbundleHashAndSize(t *testing.T) {
	needOracle(t)
	d := t.TempDir()
	code := make([]byte, 20<<20) // past the 16 MiB windowed-decoding threshold
	for i := range code {
		code[i] = byte(i*7 + i/3 + i>>13)
	}
	write(t, d, "dev.o", code)
	res := runTheirs(t, d, nil, "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a",
		"-input=/dev/null", "-input=dev.o", "-output=b.hipfb", "-compress")
	require.Equal(t, 0, res.code, res.stderr)
	good := read(t, d, "b.hipfb")
	un := []string{"-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=x.hipfb", "-output=out.o", "-unbundle"}
	write(t, d, "x.hipfb", good)
	require.Equal(t, 0, runOurs(t, d, nil, un...).code)
	assert.Equal(t, code, read(t, d, "out.o"))

	bad := append([]byte(nil), good...)
	bad[24] ^= 0xff // the stored hash
	write(t, d, "x.hipfb", bad)
	for _, verbose := range []bool{false, true} {
		args := un
		if verbose {
			args = append(append([]string{}, un...), "-verbose")
		}
		theirs := runTheirs(t, d, nil, args...)
		theirsOut := read(t, d, "out.o")
		require.NoError(t, os.Remove(filepath.Join(d, "out.o")))
		ours := runOurs(t, d, nil, args...)
		assert.Equal(t, theirs.code, ours.code)
		assert.Equal(t, 0, ours.code, ours.stderr)
		assert.Equal(t, theirsOut, read(t, d, "out.o"))
		speed := regexp.MustCompile(`(?m)^Decompression speed: .*\n`)
		assert.Equal(t, speed.ReplaceAllString(theirs.stderr, ""), speed.ReplaceAllString(ours.stderr, ""))
		if verbose {
			assert.Contains(t, ours.stderr, "Hashes match: No")
		}
		require.NoError(t, os.Remove(filepath.Join(d, "out.o")))
	}

	bad = append([]byte(nil), good...)
	bad[16]++ // the uncompressed size
	write(t, d, "x.hipfb", bad)
	got := runOurs(t, d, nil, un...)
	assert.Equal(t, 1, got.code)
	assert.Contains(t, got.stderr, "header says")
	_, err := os.Stat(filepath.Join(d, "out.o"))
	assert.True(t, os.IsNotExist(err), "no output after a failed check")
}
