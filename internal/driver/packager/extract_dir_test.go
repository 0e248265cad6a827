package packager

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExtractMissingDir: extract -d with a directory that does not exist,
// under a missing parent, or that is a file, is one error naming the -d
// argument (not the first file that would have been written there), and
// nothing is written; an existing directory works.
func TestExtractMissingDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "img"), []byte("hi"), 0o644))
	env := &Env{Stdout: &discard{}, Stderr: &discard{}, Tool: "offload-packager", Dir: dir}
	require.NoError(t, Create(context.Background(), env, filepath.Join(dir, "p.bin"),
		[]string{"file=" + filepath.Join(dir, "img") + ",kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx90a"}))
	for arg, want := range map[string]string{
		"missing-dir":                     "'missing-dir': No such file or directory",
		"missing/sub":                     "'missing/sub': No such file or directory",
		"img":                             "'img': Not a directory",
		filepath.Join(dir, "abs-missing"): "'" + filepath.Join(dir, "abs-missing") + "': No such file or directory",
	} {
		_, err := extractIn(dir, ExtractOptions{Input: "p.bin", OutDir: arg})
		assert.EqualError(t, err, want, arg)
	}
	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 2, "nothing written")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	out, err := extractIn(dir, ExtractOptions{Input: "p.bin", OutDir: "d"})
	require.NoError(t, err, out)
	ents, _ = os.ReadDir(filepath.Join(dir, "d"))
	assert.Len(t, ents, 1)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestNameMaxOutputs: create -o and extract's file= outputs with names of
// 240, 250 and 255 bytes work (their hidden temporaries are shortened to
// fit NAME_MAX); a name derived from a long input name that would exceed
// 255 bytes is one error naming it.
func TestNameMaxOutputs(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "img"), []byte("payload"), 0o644))
	env := &Env{Stdout: &discard{}, Stderr: &discard{}, Tool: "offload-packager", Dir: dir}
	for _, n := range []int{240, 250, 255} {
		pkg := strings.Repeat("p", n-4) + ".bin"
		img := strings.Repeat("i", n-4) + ".img"
		for i := 0; i < 2; i++ { // new, then replacing
			require.NoError(t, Create(context.Background(), env, filepath.Join(dir, pkg),
				[]string{"file=" + filepath.Join(dir, "img") + ",kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx90a"}), n)
			out, err := extractIn(dir, ExtractOptions{Input: pkg, Images: []string{"arch=gfx90a,file=" + img}})
			require.NoError(t, err, out)
			b, err := os.ReadFile(filepath.Join(dir, img))
			require.NoError(t, err)
			assert.Equal(t, "payload", string(b))
		}
	}
	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 7, "no temporaries left")
	_, err := extractIn(dir, ExtractOptions{Input: strings.Repeat("p", 251) + ".bin"})
	assert.ErrorContains(t, err, "-amdgcn-amd-amdhsa-gfx90a.0.': File name too long")
}
