package sycldev

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTextIRInput: a single textual IR input is read as it is (no
// llvm-link, no llvm-dis) and gives the same parts as its bitcode; a parse
// error then names the .ll file and its line.
func TestTextIRInput(t *testing.T) {
	needTools(t, "llvm-as", "llvm-dis", "opt")
	dir := t.TempDir()
	bc := fixture(t, dir, "globals", "")
	ll := strings.TrimSuffix(bc, ".bc") + ".ll"
	for _, in := range []string{bc, ll} {
		sub := filepath.Join(dir, filepath.Ext(in)[1:])
		require.NoError(t, os.Mkdir(sub, 0o755))
		stderr, err := runLinker(t, "--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only", "-S", "-o", filepath.Join(sub, "p.table"), in)
		require.NoError(t, err, stderr)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "bc"))
	require.NoError(t, err)
	require.Greater(t, len(ents), 3)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".table") {
			continue
		}
		if strings.HasSuffix(e.Name(), ".ll") {
			// the text differs where llvm-dis normalises spelling (quotes)
			verifyIR(t, filepath.Join(dir, "ll", e.Name()))
			continue
		}
		a := readFile(t, filepath.Join(dir, "bc", e.Name()))
		b := readFile(t, filepath.Join(dir, "ll", e.Name()))
		assert.Equal(t, a, b, e.Name())
	}

	bad := filepath.Join(dir, "bad.ll")
	require.NoError(t, os.WriteFile(bad, []byte("target triple = \"spirv64\"\n\ndefine spir_kernel void @k( {\n"), 0o644))
	_, err = runLinker(t, "--triple=spirv64", "--ir-output-only", "-o", filepath.Join(dir, "bad.table"), bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad)
	assert.Contains(t, err.Error(), ":3")
	assert.NoFileExists(t, filepath.Join(dir, "bad.table"))

	_, err = runLinker(t, "--triple=spirv64", "--ir-output-only", "-o", filepath.Join(dir, "x.table"), filepath.Join(dir, "..", filepath.Base(dir), "bc", "p.table"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Unsupported file type")
}
