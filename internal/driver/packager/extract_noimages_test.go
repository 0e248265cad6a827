package packager

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
)

// TestExtractNoImages: the umbrella extract of a text file, an empty
// file or a host object without offload data fails with one
// "<file>: no device images" error and writes nothing, with or without
// filters; llvm-offload-binary (the oracle for the personality) exits 0
// silently on the same inputs, and so does the personality.
func TestExtractNoImages(t *testing.T) {
	src := t.TempDir()
	inputs := map[string][]byte{"text.txt": []byte("hello\n"), "empty": nil}
	host, err := os.ReadFile(filepath.Join(fixtures(t), "nf.c"))
	require.NoError(t, err)
	inputs["nf.c"] = host
	if b, err := os.ReadFile("/bin/true"); err == nil {
		inputs["true"] = b // a host executable without offload sections
	}
	for name, data := range inputs {
		require.NoError(t, os.WriteFile(filepath.Join(src, name), data, 0o644))
	}
	for name := range inputs {
		for _, filters := range [][]string{nil, {"--image=kind=openmp"}} {
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				clitest.CopyInto(t, src, dir, name)
				var out, errb bytes.Buffer
				env := &Env{Dir: dir, Stdout: &out, Stderr: &errb, Tool: "offload-packager"}
				err := Extract(context.Background(), env, ExtractOptions{Input: name, Images: filters})
				require.ErrorIs(t, err, ErrNoImages)
				assert.Equal(t, 1, exitCode(&errb, "offload-packager", err))
				assert.Equal(t, "offload-packager: error: "+name+": no device images\n", errb.String())
				assert.Empty(t, out.String())
				ents, _ := os.ReadDir(dir)
				assert.Len(t, ents, 1, "nothing written")

				checkParity(t, src, []string{name}, append([]string{name}, filters...)...)
			})
		}
	}
}

// TestBareListsInsteadOfWriting: "offload-packager FILE" (no --image)
// writes nothing: it lists the names extract would write and names that
// command; with --image it extracts as llvm-offload-binary does.
func TestBareListsInsteadOfWriting(t *testing.T) {
	in, err := filepath.Abs(filepath.Join(fatbinTestdata, "kern_nvcc.o"))
	require.NoError(t, err)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	env := &Env{Dir: dir, Stdout: &out, Stderr: &errb, Tool: "offload-packager"}
	require.NoError(t, BareMain(context.Background(), env, "offload-packager", []string{in}))
	assert.Equal(t, in+" holds 3 device images; nothing was written. 'offload-packager extract "+in+"' writes:\n"+
		"  kern_nvcc.o.fatbin0.0.sm_80.cubin\n  kern_nvcc.o.fatbin0.1.sm_90.cubin\n  kern_nvcc.o.fatbin0.2.sm_90.ptx\n", out.String())
	assert.Empty(t, errb.String())
	ents, _ := os.ReadDir(dir)
	assert.Empty(t, ents, "nothing written")

	// What it lists is what extract writes.
	out.Reset()
	require.NoError(t, Extract(context.Background(), env, ExtractOptions{Input: in}))
	for _, n := range []string{"kern_nvcc.o.fatbin0.0.sm_80.cubin", "kern_nvcc.o.fatbin0.1.sm_90.cubin", "kern_nvcc.o.fatbin0.2.sm_90.ptx"} {
		assert.FileExists(t, filepath.Join(dir, n))
	}

	// No images: extract's error.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.txt"), []byte("x"), 0o644))
	assert.ErrorIs(t, BareMain(context.Background(), env, "offload-packager", []string{"t.txt"}), ErrNoImages)
}
