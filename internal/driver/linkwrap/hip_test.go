package linkwrap

import (
	"bytes"
	"context"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"os"
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/workdir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHIPFatbinInProcess checks the in-process HIP bundle against
// clang-offload-bundler -type=o -bundle-align=4096 byte for byte.
func TestHIPFatbinInProcess(t *testing.T) {
	dir := t.TempDir()
	imgs := []linkedImage{
		{key: groupKey{"amdgcn-amd-amdhsa", "gfx942"}, kind: format.OfkHIP, data: []byte("BBBBBB"), path: filepath.Join(dir, "g2.img")},
		{key: groupKey{"amdgcn-amd-amdhsa", "gfx90a"}, kind: format.OfkHIP, data: []byte("AAAA"), path: filepath.Join(dir, "g1.img")},
	}
	d := &driver{opt: &Options{}, exe: filepath.Join(dir, "app"), work: workdir.New(workdir.Options{SaveTemps: true, KeepDir: dir}),
		env: Env{Env: driverenv.Env{Stderr: &bytes.Buffer{}}}}
	path, fb, err := d.hipFatbin(imgs)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "app.hipfb"), path)
	b, err := bundle.Parse(fb)
	require.NoError(t, err)
	var ids []string
	for _, e := range b.Entries {
		ids = append(ids, e.ID)
	}
	assert.Equal(t, []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx942", "hip-amdgcn-amd-amdhsa--gfx90a"}, ids)

	tool, ok := run.FindProgram("clang-offload-bundler", []string{llvmBin}, os.Getenv("PATH"))
	if !ok {
		t.Skip("no clang-offload-bundler to compare with")
	}
	for _, im := range imgs {
		require.NoError(t, os.WriteFile(im.path, im.data, 0o644))
	}
	ref := filepath.Join(dir, "ref.hipfb")
	require.NoError(t, run.Exec{}.Run(context.Background(), &run.Cmd{Args: []string{tool, "-type=o", "-bundle-align=4096",
		"-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx942,hip-amdgcn-amd-amdhsa--gfx90a",
		"-input=/dev/null", "-input=" + imgs[0].path, "-input=" + imgs[1].path, "-output=" + ref}}))
	want, err := os.ReadFile(ref)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, fb), "in-process bundle differs from clang-offload-bundler's")
}

func TestHIPFatbinCompressed(t *testing.T) {
	dir := t.TempDir()
	d := &driver{opt: &Options{Compress: true, CompressionLevel: "9"}, exe: filepath.Join(dir, "app"),
		work: workdir.New(workdir.Options{SaveTemps: true, KeepDir: dir}), env: Env{Env: driverenv.Env{Stderr: &bytes.Buffer{}}}}
	_, fb, err := d.hipFatbin([]linkedImage{{key: groupKey{"amdgcn-amd-amdhsa", "gfx90a"}, kind: format.OfkHIP, data: bytes.Repeat([]byte("A"), 5000)}})
	require.NoError(t, err)
	assert.Equal(t, "CCOB", string(fb[:4]))
	dec, err := bundle.Decompress(fb, bundle.Limits{})
	require.NoError(t, err)
	b, err := bundle.Parse(dec.Data)
	require.NoError(t, err)
	assert.Equal(t, 2, len(b.Entries))
}
