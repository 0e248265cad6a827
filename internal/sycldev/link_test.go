package sycldev

import (
	"bytes"
	"context"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

const llvmBin = llvmtools.Dir

// needTools fails the test when an LLVM 22 tool is missing (these checks
// must not pass by skipping); only -short skips it.
func needTools(t *testing.T, names ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs LLVM 22 tools; skipped with -short")
	}
	for _, n := range names {
		if _, ok := run.FindProgram(n, []string{llvmBin}, ""); !ok {
			t.Fatalf("%s not found in %s: the LLVM 22 tools are required", n, llvmBin)
		}
	}
}

const src = `
template <typename N, typename K>
[[clang::sycl_kernel_entry_point(N)]] void kl(K k) { k(); }
struct KD; struct KI;
void f(double *d, int *i) {
  kl<KD>([=] { d[0] = d[1] * 2.5; });
  kl<KI>([=] { i[0] = i[1] + 1; });
}
`

// TestLinkImages checks the in-process API linker-wrapper uses: Link
// returns one Image per part with its kernels and property sets, writes
// nothing at Output, and AppendBinary gives the OffloadBinary Run writes.
func TestLinkImages(t *testing.T) {
	needTools(t, "clang", "llvm-link", "llvm-dis", "llc")
	dir := t.TempDir()
	cpp, bc := filepath.Join(dir, "k.cpp"), filepath.Join(dir, "k.bc")
	require.NoError(t, os.WriteFile(cpp, []byte(src), 0o644))
	var out, errb bytes.Buffer
	require.NoError(t, run.Exec{}.Run(context.Background(), &run.Cmd{
		Args:   []string{filepath.Join(llvmBin, "clang"), "-cc1", "-fsycl-is-device", "-triple", "spirv64", "-O2", "-emit-llvm-bc", cpp, "-o", bc},
		Stderr: &errb,
	}), errb.String())
	o, err := ParseArgs([]string{"--triple=spirv64", "--module-split-mode=kernel", "-o", filepath.Join(dir, "dev.out"), bc})
	require.NoError(t, err)
	env := &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin)}}
	imgs, err := Link(context.Background(), env, *o)
	require.NoError(t, err, errb.String())
	require.Len(t, imgs, 2)
	assert.NoFileExists(t, filepath.Join(dir, "dev.out"))
	fp64 := map[string]bool{}
	for _, im := range imgs {
		require.Len(t, im.Kernels, 1)
		assert.Equal(t, format.ImgSPIRV, im.Kind)
		assert.Equal(t, "spirv64", im.Triple)
		assert.Equal(t, []byte{0x03, 0x02, 0x23, 0x07}, im.Data[:4], "SPIR-V magic")
		text, err := im.PropertiesText()
		require.NoError(t, err)
		assert.Contains(t, text, "[SYCL/device requirements]")
		fp64[im.Kernels[0]] = im.Properties.Text() != "" && bytes.Contains([]byte(text), []byte("aspects=2|gAAAAAAAAAgBAAAA"))
		b, err := im.AppendBinary(nil)
		require.NoError(t, err)
		bins, err := offload.ParseAll(b, offload.ReadOptions{})
		require.NoError(t, err)
		require.Len(t, bins, 1)
		assert.Equal(t, im.Kernels[0], bins[0].Get("symbols"))
		assert.Equal(t, text, bins[0].Get("properties"))
		assert.Equal(t, format.OfkSYCL, bins[0].OffloadKind)
	}
	assert.Equal(t, map[string]bool{"_ZTS2KD": true, "_ZTS2KI": false}, fp64, "aspect fp64 (6) only for the double kernel")

	o.IROutputOnly = true
	_, err = Link(context.Background(), env, *o)
	assert.ErrorContains(t, err, "--ir-output-only")
}
