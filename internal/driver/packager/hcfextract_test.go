package packager

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/hcf"
)

// TestExtractHCF: extract of a whole-file HCF writes each image's binary
// attachment (the bytes hcf.File.Attachment returns) and names it; an HCF
// without attachments is an error naming the file, never a silent success.
func TestExtractHCF(t *testing.T) {
	src, err := filepath.Abs("../../../format/hcf/testdata/multipass.hcf")
	require.NoError(t, err)
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	f, err := hcf.Parse(data)
	require.NoError(t, err)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	require.NoError(t, Extract(context.Background(), &Env{Dir: dir, Stdout: &out, Stderr: &errb, Tool: "offload-packager"}, ExtractOptions{Input: src}))
	n := 0
	for _, img := range f.Root.Child("images").Children {
		if !hcf.HasAttachment(img) {
			continue
		}
		want, err := f.Attachment(img)
		require.NoError(t, err)
		fmtName, _ := img.Get("format")
		name := "multipass." + img.Name + "." + hcfExt(fmtName)
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, "stdout %q", out.String())
		assert.Equal(t, want, got, name)
		assert.Contains(t, out.String(), "Extracted: "+name+"\n")
		n++
	}
	require.True(t, n >= 2, "fixture has %d attachments", n)

	empty, err := filepath.Abs("../../../format/hcf/testdata/minimal.hcf")
	require.NoError(t, err)
	dir = t.TempDir()
	err = Extract(context.Background(), &Env{Dir: dir, Stdout: &out, Stderr: &errb, Tool: "offload-packager"}, ExtractOptions{Input: empty})
	require.Error(t, err)
	assert.Contains(t, err.Error(), empty)
	assert.ErrorIs(t, err, errHCFEmpty)
	ents, _ := os.ReadDir(dir)
	assert.Empty(t, ents)
}
