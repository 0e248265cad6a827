package bundler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListLargeCompressedFromHeader: -list of a large compressed bundle
// (ours or the reference's, three targets, 20 MiB) prints what
// clang-offload-bundler prints, decoding only up to the bundle header:
// damage further on is not even seen, where the reference, which
// decompresses everything first, fails.
func TestListLargeCompressedFromHeader(t *testing.T) {
	needOracle(t)
	d := t.TempDir()
	a, b := make([]byte, 12<<20), make([]byte, 8<<20)
	for i := range a {
		a[i] = byte(i*7 + i>>9)
	}
	for i := range b {
		b[i] = byte(i*3 + i>>11)
	}
	write(t, d, "a.o", a)
	write(t, d, "b.o", b)
	mk := []string{"-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx1100",
		"-input=/dev/null", "-input=a.o", "-input=b.o", "-compress"}
	r := runTheirs(t, d, nil, append(mk, "-output=theirs.cb")...)
	require.Equal(t, 0, r.code, r.stderr)
	r = runOurs(t, d, nil, append(mk, "-output=ours.cb")...)
	require.Equal(t, 0, r.code, r.stderr)
	for _, f := range []string{"theirs.cb", "ours.cb"} {
		list := []string{"-list", "-type=o", "-input=" + f}
		want, got := runTheirs(t, d, nil, list...), runOurs(t, d, nil, list...)
		assert.Equal(t, want.code, got.code, f)
		assert.Equal(t, want.stdout, got.stdout, f)
		assert.Equal(t, want.stderr, got.stderr, f)
		assert.Contains(t, got.stdout, "hip-amdgcn-amd-amdhsa--gfx1100")
	}
	// Damage near the end of the reference's single frame.
	bad := read(t, d, "theirs.cb")
	bad = append([]byte(nil), bad...)
	for i := len(bad) - 64; i < len(bad)-8; i++ {
		bad[i] ^= 0x5a
	}
	write(t, d, "bad.cb", bad)
	list := []string{"-list", "-type=o", "-input=bad.cb"}
	want, got := runTheirs(t, d, nil, list...), runOurs(t, d, nil, list...)
	assert.NotEqual(t, 0, want.code, "the reference decompresses everything: %s", want.stdout)
	assert.Equal(t, 0, got.code, got.stderr)
	assert.Equal(t, runOurs(t, d, nil, "-list", "-type=o", "-input=theirs.cb").stdout, got.stdout)
}

// TestListBackToBack: -list of binary bundles back to back (as a linked
// .hip_fatbin holds them) prints what clang-offload-bundler 22 prints: the
// first bundle's IDs only (issue 12; dump lists every bundle).
func TestListBackToBack(t *testing.T) {
	needOracle(t)
	d := t.TempDir()
	write(t, d, "a.o", []byte("first device image"))
	write(t, d, "b.o", []byte("second device image, longer"))
	for _, mk := range [][]string{
		{"-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a", "-input=/dev/null", "-input=a.o", "-output=one"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx1100", "-input=b.o", "-output=two"},
	} {
		r := runTheirs(t, d, nil, append([]string{"-type=o"}, mk...)...)
		require.Equal(t, 0, r.code, r.stderr)
	}
	pad := make([]byte, 4096-len(read(t, d, "one"))%4096)
	write(t, d, "both", append(append(append([]byte{}, read(t, d, "one")...), pad...), read(t, d, "two")...))
	list := []string{"-list", "-type=o", "-input=both"}
	want, got := runTheirs(t, d, nil, list...), runOurs(t, d, nil, list...)
	assert.Equal(t, want, got)
	assert.Equal(t, "hip-amdgcn-amd-amdhsa--gfx90a\nhost-x86_64-unknown-linux-gnu-\n", got.stdout)
}
