package packager

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

// nestedTestdata holds the inputs made by tools not installed here
// (NVIDIA's fatbinary, AdaptiveCpp); testdata/nested/README.md says how.
const nestedTestdata = "testdata/nested"

// TestNestedGolden dumps nested containers with --all and --json and
// compares with testdata/golden (refresh with -update). Inputs: non-RDC HIP
// objects made by clang 22 (a bundle, and a CCOB-compressed bundle, in
// .hip_fatbin), a package whose image is a bundle, CUDA fatbins made by
// NVIDIA's fatbinary, and HCF files written by AdaptiveCpp.
func TestNestedGolden(t *testing.T) {
	fx := fixtures(t)
	d := t.TempDir()
	clitest.CopyInto(t, fx, d, "hipfb.o", "hipfbz.o", "nested.o", "nested.pkg")
	for _, f := range []string{"saxpy.fatbin", "rdc.fatbin", "sscp.hcf", "multipass.hcf"} {
		b, err := os.ReadFile(filepath.Join(nestedTestdata, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(d, filepath.Base(f)), b, 0o644))
	}
	for _, name := range []string{"hipfb.o", "hipfbz.o", "nested.o", "nested.pkg", "saxpy.fatbin", "rdc.fatbin", "sscp.hcf", "multipass.hcf"} {
		for _, mode := range []string{"all", "json"} {
			t.Run(name+"."+mode, func(t *testing.T) {
				out, diags, err := runDump(d, DumpOptions{Files: []string{name}, All: mode == "all", JSON: mode == "json"})
				require.NoError(t, err, diags)
				golden(t, filepath.Join("testdata", "golden", name+"."+mode+".golden"), out)
			})
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test -update")
	assert.Equal(t, string(want), got)
}

// TestExtractNested: a plain extract writes every bundle and fatbin entry,
// named as llvm-objdump names bundle entries, also through the file://
// URI form of the HIP runtime.
func TestExtractNested(t *testing.T) {
	fx := fixtures(t)
	d := t.TempDir()
	clitest.CopyInto(t, fx, d, "hipfb.o", "hipfbz.o")
	run := func(in string) string {
		var out strings.Builder
		env := &Env{Stdout: &out, Stderr: &out, Tool: "offload-packager", Dir: d}
		require.NoError(t, Extract(context.Background(), env, ExtractOptions{Input: in, OutDir: "x"}))
		return out.String()
	}
	require.NoError(t, os.Mkdir(filepath.Join(d, "x"), 0o755))
	assert.Equal(t, "Extracted: hipfbz.o.0.host-x86_64-unknown-linux-gnu-\nExtracted: hipfbz.o.0.hipv4-amdgcn-amd-amdhsa--gfx1100\nExtracted: hipfbz.o.0.hipv4-amdgcn-amd-amdhsa--gfx90a\n", run("hipfbz.o"))
	plain := run("hipfb.o")
	assert.Contains(t, plain, "Extracted: hipfb.o.0.hipv4-amdgcn-amd-amdhsa--gfx1100\n")
	// The compressed and uncompressed bundles carry the same gfx90a code object.
	a, _ := os.ReadFile(filepath.Join(d, "x", "hipfb.o.0.hipv4-amdgcn-amd-amdhsa--gfx90a"))
	b, _ := os.ReadFile(filepath.Join(d, "x", "hipfbz.o.0.hipv4-amdgcn-amd-amdhsa--gfx90a"))
	require.NotEmpty(t, a)
	assert.Equal(t, a, b)
	assert.Equal(t, "\x7fELF", string(a[:4]))

	// The same bundle through a file:// URI naming the .hip_fatbin range.
	uri := "file://" + filepath.Join(d, "hipfb.o") + "#offset=4096&size=" + sectionSize(t, filepath.Join(d, "hipfb.o"), ".hip_fatbin")
	out := run(uri)
	assert.Contains(t, out, "Extracted: hipfb.o.0.hipv4-amdgcn-amd-amdhsa--gfx90a\n")
}

func sectionSize(t *testing.T, obj, name string) string {
	out := string(clitest.Sh(t, ".", llvmtools.Tool(t, "llvm-readelf"), "-S", "-W", obj))
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(strings.TrimLeft(strings.SplitN(l, "]", 2)[len(strings.SplitN(l, "]", 2))-1], " "))
		if len(f) > 5 && f[0] == name {
			return "0x" + f[4]
		}
	}
	t.Fatalf("no section %s in %s", name, obj)
	return ""
}
