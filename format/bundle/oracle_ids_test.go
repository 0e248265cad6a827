package bundle

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

var refBundler = llvmtools.Path("clang-offload-bundler")

// bundlerRun runs clang-offload-bundler 22.1.8 in dir; it returns stdout
// and stderr.
func bundlerRun(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(refBundler, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// unusualIDs exercise format/triple's tables through the bundler: arch
// spellings 22.1.8 does and does not know (spirv1.2 is not an
// architecture, spirv1.5 is), the meta vendor, names that are OSes or
// environments only in later LLVMs (chipstar, sycl, hipstdpar), ARM
// sub-architectures, Windows and Apple triples.
var unusualIDs = []string{
	"hip-spirv1.2-amd-amdhsa--gfx90a", "hip-spirv1.5-meta-amdhsa--gfx90a", "openmp-spirv1.6-unknown-vulkan1.3-compute",
	"openmp-spirv64v1.2-unknown-unknown-", "openmp-x86_64-meta-linux-gnu", "openmp-x86_64-linux-meta-gnu",
	"openmp-x86_64-unknown-chipstar-sycl", "hip-amdgcn-amd-amdhsa-hipstdpar-gfx90a", "openmp-x86_64-unknown-linux-sycl",
	"openmp-armv7-linux-gnueabihf--", "openmp-thumbv7-unknown-linux-gnueabihf", "openmp-x86_64-pc-win32-gnu",
	"openmp-i686-pc-mingw32-elf", "openmp-x86_64-w64-windows-gnu", "openmp-x86_64-apple-macosx10.15-",
	"openmp-dxil-unknown-shadermodel6.3-library", "openmp-aarch64_lfi-unknown-linux-gnu", "openmp-x86_64-unknown-opencl-",
	"hip-amdgcn-amd-amdhsa-unknown-gfx1251:xnack+", "openmp-nvptx64-nvidia-cuda12.0--sm_90a", "openmp-foo-bar-baz-qux",
}

// TestIDsLikeReference bundles each ID with clang-offload-bundler 22.1.8:
// where it rejects the triple, ParseTarget finds no architecture; where it
// writes the bundle, -list prints normalizeID's spelling.
func TestIDsLikeReference(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "h.i"), []byte("int h;\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d.i"), []byte("int d;\n"), 0o644))
	for _, id := range unusualIDs {
		os.Remove(filepath.Join(dir, "o.i"))
		_, errs, err := bundlerRun(t, dir, "-type=i", "-targets=host-x86_64-unknown-linux-gnu,"+id, "-input=h.i", "-input=d.i", "-output=o.i")
		tg, ok := ParseTarget(id)
		require.True(t, ok, id)
		if err != nil {
			assert.Contains(t, errs, "unknown target triple", id)
			assert.Equal(t, ArchType(""), ArchType(tg.Triple.Arch), "%s: the reference rejects its triple", id)
			continue
		}
		assert.NotEqual(t, ArchType(""), ArchType(tg.Triple.Arch), "%s: the reference accepts its triple", id)
		out, errs, err := bundlerRun(t, dir, "-list", "-type=i", "-input=o.i")
		require.NoError(t, err, errs)
		lines := strings.Fields(out)
		require.Len(t, lines, 2, out)
		got, _ := normalizeID(id)
		assert.Equal(t, lines[1], got, id)
	}
}

// ArchType keeps the assertion messages readable.
type ArchType string

// TestCompatibleLikeReference bundles a code object for one ID and
// unbundles it for another with clang-offload-bundler 22.1.8
// (-allow-missing-bundles): the entry is extracted exactly when
// Compatible says so. Among the pairs: ARM and Thumb, MinGW vendors
// ("w64" vs "pc"), Apple OS versions, the meta vendor and target-ID
// features.
func TestCompatibleLikeReference(t *testing.T) {
	pairs := [][2]string{
		{"openmp-thumbv7-unknown-linux-gnueabihf", "openmp-armv7-unknown-linux-gnueabihf"},
		{"openmp-thumbv7-unknown-linux-gnueabihf", "openmp-armv6-unknown-linux-gnueabihf"},
		{"openmp-x86_64-w64-windows-gnu", "openmp-x86_64-pc-windows-gnu"},
		{"openmp-x86_64-pc-windows-gnu", "openmp-x86_64-w64-windows-gnu"},
		{"openmp-x86_64-pc-windows-msvc", "openmp-x86_64-w64-windows-msvc"},
		{"openmp-x86_64-apple-macosx10.15-", "openmp-x86_64-apple-macosx11-"},
		{"openmp-x86_64-apple-macosx10.15-", "openmp-x86_64-apple-darwin-"},
		{"openmp-spirv64-meta-linux-gnu", "openmp-spirv64-unknown-linux-gnu"},
		{"openmp-spirv64-meta-linux-gnu", "openmp-spirv64-meta-linux-gnu"},
		{"openmp-spirv64v1.5-unknown-unknown-", "openmp-spirv64-unknown-unknown-"},
		{"openmp-x86_64-unknown-linux-sycl", "openmp-x86_64-unknown-linux-"},
		{"openmp-x86_64-pc-linux-gnu", "openmp-x86_64-pc-linux-gnuelf"},
		{"openmp-x86_64-pc-linux-gnu", "openmp-x86_64-pc-linux-gnucoff"},
		{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+"},
		{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a"},
		{"hip-amdgcn-amd-amdhsa--gfx908", "hip-amdgcn-amd-amdhsa-hipstdpar-gfx908"},
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "h.i"), []byte("int h;\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d.i"), []byte("int d;\n"), 0o644))
	for _, p := range pairs {
		for _, f := range []string{"o.i", "h2.i", "d2.i"} {
			os.Remove(filepath.Join(dir, f))
		}
		_, errs, err := bundlerRun(t, dir, "-type=i", "-targets=host-x86_64-unknown-linux-gnu,"+p[0], "-input=h.i", "-input=d.i", "-output=o.i")
		require.NoError(t, err, errs)
		_, errs, err = bundlerRun(t, dir, "-type=i", "-unbundle", "-allow-missing-bundles", "-targets=host-x86_64-unknown-linux-gnu,"+p[1], "-input=o.i", "-output=h2.i", "-output=d2.i")
		require.NoError(t, err, errs)
		b, err := os.ReadFile(filepath.Join(dir, "d2.i"))
		require.NoError(t, err)
		ref := strings.Contains(string(b), "int d;")
		// The ID as written into the bundle, as the reference matches it.
		written, _ := normalizeID(p[0])
		code, _ := ParseTarget(written)
		want, _ := ParseTarget(p[1])
		assert.Equal(t, ref, Compatible(code, want, false), "%s extracted for %s", p[0], p[1])
	}
}
