package packager

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/bundle"
)

// TestLargeCompressedShapes: compressed bundles over smallCCOB that are
// not one binary bundle filling the data (a text bundle, two binary
// bundles back to back with padding) are listed by dump (the text one
// from a scan while decoding, the other through a temporary file) and
// extracted with the right bytes; contents that hold no bundle are an
// error. Nothing is left in TMPDIR.
func TestLargeCompressedShapes(t *testing.T) {
	d := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	big := bytes.Repeat([]byte("device code 0123456789\n"), (smallCCOB+1<<20)/23)
	var text bytes.Buffer
	_, err := bundle.WriteText(&text, ";", []bundle.Input{
		{ID: "host-x86_64-unknown-linux-gnu-", Data: bytes.NewReader([]byte("; host\n")), Size: 7},
		{ID: "hip-amdgcn-amd-amdhsa--gfx90a", Data: bytes.NewReader(big), Size: int64(len(big))}})
	require.NoError(t, err)
	one, err := bundle.AppendBinary(nil, []string{"hip-amdgcn-amd-amdhsa--gfx90a"}, [][]byte{big}, 1)
	require.NoError(t, err)
	two, err := bundle.AppendBinary(nil, []string{"hip-amdgcn-amd-amdhsa--gfx1100"}, [][]byte{[]byte("\x7fELF second")}, 1)
	require.NoError(t, err)
	pair := append(append(append([]byte(nil), one...), make([]byte, 4096)...), two...)
	for name, src := range map[string][]byte{"text.ccob": text.Bytes(), "pair.ccob": pair, "none.ccob": big} {
		b, _, err := bundle.Compress(nil, src, bundle.CompressOptions{Level: 1})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(d, name), b, 0o644))
	}

	out, diags, err := runDump(d, DumpOptions{Files: []string{"text.ccob"}, All: true})
	require.NoError(t, err, diags)
	require.Contains(t, out, "format          text")
	require.Contains(t, out, "id              hip-amdgcn-amd-amdhsa--gfx90a")
	require.Contains(t, out, "id              host-x86_64-unknown-linux-gnu-")

	out, diags, err = runDump(d, DumpOptions{Files: []string{"pair.ccob"}, JSON: true})
	require.NoError(t, err, diags)
	var doc struct {
		Files []struct {
			Objects []struct {
				Bundles []struct {
					Format  string `json:"format"`
					Entries []struct {
						ID        string `json:"id"`
						Size      int64  `json:"size"`
						ImageKind string `json:"image_kind"`
					} `json:"entries"`
				} `json:"bundles"`
			} `json:"objects"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	bs := doc.Files[0].Objects[0].Bundles
	require.Len(t, bs, 2, out)
	require.Equal(t, "hip-amdgcn-amd-amdhsa--gfx1100", bs[1].Entries[0].ID)
	require.Equal(t, "object", bs[1].Entries[0].ImageKind)
	require.EqualValues(t, len(big), bs[0].Entries[0].Size)

	_, _, err = runDump(d, DumpOptions{Files: []string{"none.ccob"}})
	require.ErrorContains(t, err, "no bundle")

	x := filepath.Join(d, "x")
	require.NoError(t, os.Mkdir(x, 0o755))
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Tool: "offload-packager", Dir: d}
	for _, in := range []string{"text.ccob", "pair.ccob"} {
		require.NoError(t, Extract(context.Background(), env, ExtractOptions{Input: in, OutDir: "x"}))
	}
	got, err := os.ReadFile(filepath.Join(x, "text.ccob.0.hip-amdgcn-amd-amdhsa--gfx90a"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(big, got), "text entry: %d bytes", len(got))
	got, err = os.ReadFile(filepath.Join(x, "pair.ccob.0.hip-amdgcn-amd-amdhsa--gfx90a"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(big, got), "binary entry: %d bytes", len(got))
	got, err = os.ReadFile(filepath.Join(x, "pair.ccob.1.hip-amdgcn-amd-amdhsa--gfx1100"))
	require.NoError(t, err)
	require.Equal(t, "\x7fELF second", string(got))
	left, _ := os.ReadDir(tmp)
	names := []string{}
	for _, e := range left {
		names = append(names, e.Name())
	}
	require.Empty(t, names, "left in TMPDIR: %s", strings.Join(names, " "))
}
