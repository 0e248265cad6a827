package bitcode

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModuleTripleFixtures(t *testing.T) {
	for _, tc := range []struct {
		file, want string
	}{
		{"host-one-flto.bc", "x86_64-unknown-linux-gnu"},
		{"host-one-thinlto.bc", "x86_64-unknown-linux-gnu"},
		{"host-one-darwin.bc", "x86_64-apple-macosx10.4.0"}, // behind a wrapper header
		{"linked.bc", "x86_64-unknown-linux-gnu"},
		{"debug-g-flto.bc", "x86_64-unknown-linux-gnu"},
		{"symtab/kinds.bc", "x86_64-unknown-linux-gnu"},
		{"none.bc", ""}, // no target triple line
		{"several.bc", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			bc := readTestdata(t, tc.file)
			got, err := ModuleTriple(bc)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			if bytes.HasPrefix(bc, format.BitcodeWrapper) {
				return
			}
			got, err = ModuleTriple(append(wrap(bc, 8), 0, 0, 0, 0))
			require.NoError(t, err, "wrapped")
			assert.Equal(t, tc.want, got, "wrapped")
		})
	}
}

func TestModuleTripleErrors(t *testing.T) {
	flto := readTestdata(t, "host-one-flto.bc")
	for _, tc := range []struct {
		name     string
		in       []byte
		sentinel error
	}{
		{"two modules", readTestdata(t, "two-modules.bc"), format.ErrUnsupported},
		{"magic only", []byte("BC\xC0\xDE"), format.ErrCorrupt},
		{"text", []byte("target triple = \"spirv64\"\n"), format.ErrMagic},
		{"empty", nil, format.ErrMagic},
		{"truncated", flto[:len(flto)/2&^3], format.ErrTruncated},
		{"wrapper past end", wrap(flto, 0)[:100], format.ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ModuleTriple(tc.in)
			assert.Empty(t, got)
			require.ErrorIs(t, err, tc.sentinel)
			var fe *format.FormatError
			assert.True(t, errors.As(err, &fe), "%T", err)
		})
	}
}

// TestModuleTripleLLVM checks ModuleTriple against llvm-as: the triple
// of the IR comes back byte for byte, including spellings LLVM does not
// know and escaped bytes.
func TestModuleTripleLLVM(t *testing.T) {
	if testing.Short() {
		t.Skip("LLVM cross-check skipped in -short mode")
	}
	as := filepath.Join(llvmBin, "llvm-as")
	if _, err := os.Stat(as); err != nil {
		t.Skipf("llvm-as not installed: %v", err)
	}
	dir := t.TempDir()
	for i, tc := range []struct{ ir, want string }{
		{`spirv64`, "spirv64"},
		{`spirv64-unknown-unknown`, "spirv64-unknown-unknown"},
		{`spir64_gen-unknown-unknown-sycldevice`, "spir64_gen-unknown-unknown-sycldevice"},
		{`SPIRV64`, "SPIRV64"},
		{`nvptx64-nvidia-cuda`, "nvptx64-nvidia-cuda"},
		{`a-b-c-d-e-f`, "a-b-c-d-e-f"},
		{`x\22y\C3\A9`, "x\"y\u00e9"},
		{``, ""},
	} {
		ll := filepath.Join(dir, fmt.Sprintf("t%d.ll", i))
		bc := ll[:len(ll)-3] + ".bc"
		src := fmt.Sprintf("target triple = \"%s\"\ndefine void @f() {\n  ret void\n}\n", tc.ir)
		require.NoError(t, os.WriteFile(ll, []byte(src), 0o644))
		out, err := exec.Command(as, ll, "-o", bc).CombinedOutput()
		require.NoError(t, err, "%s", out)
		b, err := os.ReadFile(bc)
		require.NoError(t, err)
		got, err := ModuleTriple(b)
		require.NoError(t, err, tc.ir)
		assert.Equal(t, tc.want, got, tc.ir)
	}
}
