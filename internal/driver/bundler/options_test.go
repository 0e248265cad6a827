package bundler

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/bundle"
)

func TestParseArgs(t *testing.T) {
	o, _, err := parseArgs("clang-offload-bundler", []string{"-type", "bc", "--targets=a-b-c-d-e,f-g-h-i-j", "-input=x", "-input", "y",
		"-output=z", "-unbundle", "-compress=false", "-compression-level=7", "-bundle-align=4096", "-hip-openmp-compatible", "-verbose"})
	require.NoError(t, err)
	assert.Equal(t, "bc", o.Type)
	assert.Equal(t, []string{"a-b-c-d-e", "f-g-h-i-j"}, o.Targets)
	assert.Equal(t, []string{"x", "y"}, o.Inputs)
	assert.Equal(t, []string{"z"}, o.Outputs)
	assert.True(t, o.Unbundle)
	assert.True(t, o.HipOpenMPCompatible)
	require.NotNil(t, o.Compress)
	assert.False(t, *o.Compress)
	require.NotNil(t, o.CompressionLevel)
	assert.Equal(t, 7, *o.CompressionLevel)
	assert.Equal(t, uint64(4096), o.BundleAlign)
	require.NotNil(t, o.Verbose)
	assert.True(t, *o.Verbose)

	_, _, err = parseArgs("clang-offload-bundler", []string{"-targets=x"})
	assert.EqualError(t, err, "clang-offload-bundler: for the --type option: must be specified at least once!")
	_, _, err = parseArgs("clang-offload-bundler", []string{"-type=bc", "-bundle-align=-1"})
	assert.EqualError(t, err, "clang-offload-bundler: for the --bundle-align option: '-1' value invalid for uint argument!")
}

// TestNoPartialOutputs: when unbundling fails, no output is left behind.
func TestNoPartialOutputs(t *testing.T) {
	dir := t.TempDir()
	raw, err := bundle.AppendBinary(nil, []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a"}, [][]byte{[]byte("h"), []byte("d")}, 1)
	require.NoError(t, err)
	write(t, dir, "b.bc", raw)
	r := runOurs(t, dir, nil, "-unbundle", "-type=bc", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a",
		"-input=b.bc", "-output=ok.out", "-output=missing/dir.out")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "'missing/dir.out': No such file or directory")
	_, err = os.Stat(filepath.Join(dir, "ok.out"))
	assert.True(t, os.IsNotExist(err), "partial output left behind")
	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 1, "temporary files left behind")

	r = runOurs(t, dir, nil, "-unbundle", "-type=bc", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a",
		"-input=b.bc", "-output=h.out", "-output=d.out")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, []byte("h"), read(t, dir, "h.out"))
	assert.Equal(t, []byte("d"), read(t, dir, "d.out"))
}

// TestObjectWithoutHost: HIP-only targets with a relocatable object as
// first input (the reference crashes) must fail cleanly.
func TestObjectWithoutHost(t *testing.T) {
	dir := t.TempDir()
	makeHostObject(t, dir)
	r := runOurs(t, dir, nil, "-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=host.o", "-output=x.o")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "needs a host target")
}
