package packager

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
)

func runDump(dir string, opt DumpOptions) (string, []string, error) {
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Tool: "offload-packager", Dir: dir}
	err := Dump(context.Background(), env, opt)
	var diags []string
	for _, l := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		if l != "" {
			diags = append(diags, strings.TrimPrefix(l, "offload-packager: "))
		}
	}
	if err != nil {
		diags = append(diags, "error: "+err.Error())
	}
	return out.String(), diags, err
}

// TestDumpParity checks that the default dump is byte-identical to
// llvm-objdump --offloading, with the same diagnostics and exit status,
// over real fat objects made by clang 22 and over broken inputs.
func TestDumpParity(t *testing.T) {
	dir := fixtures(t)
	cases := [][]string{
		{"omp.o"}, {"hip.o"}, {"sycl.o"}, {"coff.o"}, {"merged.o"}, {"app"},
		{"gnu.a"}, {"bsd.a"}, {"darwin.a"}, {"thin.a"},
		{"raw.pkg"}, {"concat.pkg"}, {"padded.pkg"}, {"trunc.pkg"}, {"trunc2.pkg"}, {"version2.pkg"},
		{"text.txt"}, {"empty"}, {"mach.o"}, {"missing.o"}, {"omp.host.o"}, {"omp.dev.o"},
		{"omp.o", "hip.o", "raw.pkg", "gnu.a"},
		{"omp.o", "trunc.pkg", "hip.o"},
	}
	for _, files := range cases {
		t.Run(strings.Join(files, "+"), func(t *testing.T) {
			wantOut, wantDiag, wantOK := clitest.Objdump(t, dir, files...)
			gotOut, gotDiag, err := runDump(dir, DumpOptions{Files: files})
			assert.Equal(t, wantOut, gotOut, "stdout")
			assert.Equal(t, wantOK, err == nil, "success")
			assert.Equal(t, wantDiag, gotDiag, "diagnostics")
		})
	}
}

func TestDumpJSON(t *testing.T) {
	dir := fixtures(t)
	out, _, err := runDump(dir, DumpOptions{Files: []string{"hip.o", "raw.pkg", "lto.o"}, JSON: true})
	require.NoError(t, err)
	var doc struct {
		Schema int        `json:"schema"`
		Files  []DumpFile `json:"files"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, DumpSchema, doc.Schema)
	require.Len(t, doc.Files, 3)
	hip := doc.Files[0].Objects[0]
	assert.Equal(t, "elf64-x86-64", hip.Format)
	require.Len(t, hip.Images, 2)
	assert.Equal(t, "gfx1100", hip.Images[0].Arch)
	assert.Equal(t, "gfx90a", hip.Images[1].Arch)
	assert.Equal(t, "hip", hip.Images[1].OffloadKind)
	assert.Equal(t, "bitcode", hip.Images[1].ImageKind)
	assert.Greater(t, hip.Images[1].ImageOffset, hip.Images[1].Offset)
	raw := doc.Files[1].Objects[0]
	require.Len(t, raw.Images, 4)
	assert.Equal(t, int64(0), raw.Images[0].Offset)
	assert.Equal(t, []string{"feature", "arch", "triple"}, keys(raw.Images[1]))
	assert.Equal(t, "+xnack", raw.Images[1].Strings[0].Value)
	// The bitcode host (clang -flto) is read in Go; objdump cannot.
	lto := doc.Files[2].Objects[0]
	require.Len(t, lto.Images, 4)
	assert.Equal(t, int64(-1), lto.Images[0].Offset)
	assert.Equal(t, "sm_90", lto.Images[2].Arch)
}

func keys(im DumpImage) []string {
	var k []string
	for _, kv := range im.Strings {
		k = append(k, kv.Key)
	}
	return k
}

func TestDumpAll(t *testing.T) {
	dir := fixtures(t)
	out, _, err := runDump(dir, DumpOptions{Files: []string{"raw.pkg"}, All: true})
	require.NoError(t, err)
	assert.Contains(t, out, "\nOFFLOADING IMAGE [1]:\nkind            elf\narch            gfx90a\ntriple          amdgcn-amd-amdhsa\nproducer        hip\nversion         1\n")
	assert.Contains(t, out, "  feature       +xnack\n")
	assert.Contains(t, out, "offset          0x0\n")
}

func TestDumpJSONErrorStillPrintsDocument(t *testing.T) {
	dir := fixtures(t)
	out, _, err := runDump(dir, DumpOptions{Files: []string{"trunc.pkg", "omp.o"}, JSON: true})
	require.Error(t, err)
	var doc struct{ Files []DumpFile }
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Contains(t, doc.Files[0].Error, "Invalid data")
	assert.Len(t, doc.Files[1].Objects[0].Images, 1)
	assert.True(t, errors.Is(err, err))
}
