package packager

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// docJSON returns the JSON example of docs/dump-json.md with its //
// comments removed.
func docJSON(t *testing.T) []byte {
	return clitest.DocJSONBlock(t, "../../../docs/dump-json.md", 0)
}

// shape records the JSON type at every path of v ("files[].objects[].name"
// → "string"), array elements merged. A payload's contents has an
// object's lists, so paths inside one are recorded as the object's.
func shape(v any, path string, into map[string]string) {
	clitest.Shape(v, path, into, func(path string) string {
		if i := strings.LastIndex(path, ".contents."); i >= 0 {
			return "files[].objects[]." + path[i+len(".contents."):]
		}
		return path
	})
}

// TestDumpJSONMatchesDoc: the schema in docs/dump-json.md is the output.
// Dumps of real inputs of every kind (OffloadBinary objects and packages,
// bitcode hosts, plain and compressed bundles in sections, nested
// containers, old-driver objects, bundles whose entries are packages,
// fatbins compressed and with identifiers in sections and alone, HCF,
// Mach-O, damaged files) only have fields the example has, with the same
// JSON types, and together have every field it has.
func TestDumpJSONMatchesDoc(t *testing.T) {
	var example any
	require.NoError(t, json.Unmarshal(docJSON(t), &example), "the example in docs/dump-json.md is JSON once comments are removed")
	doc := map[string]string{}
	shape(example, "", doc)

	fx := fixtures(t)
	d := oldDriverObjects(t)
	clitest.CopyInto(t, fx, d, "omp.o", "hip.o", "raw.pkg", "lto.o", "hipfb.o", "hipfbz.o", "nested.o", "mach.o", "trunc.pkg", "gnu.a")
	for _, f := range []string{"saxpy.fatbin", "elf_ptx_zstd.fatbin", "ident_opts.fatbin", "kern_nvcc.o", "multipass.hcf", "sscp.hcf"} {
		clitest.CopyInto(t, nestedTestdata, d, f)
	}
	// A host object carrying an HCF object in .rodata, as AdaptiveCpp's
	// multipass objects do (a const unsigned char array).
	hcfBytes, err := os.ReadFile(filepath.Join(nestedTestdata, "multipass.hcf"))
	require.NoError(t, err)
	var src strings.Builder
	src.WriteString("const unsigned char acpp_hcf[] = {")
	for _, c := range hcfBytes {
		fmt.Fprintf(&src, "%d,", c)
	}
	src.WriteString("};\nconst unsigned char *get(void) { return acpp_hcf; }\n")
	require.NoError(t, os.WriteFile(filepath.Join(d, "acpp.c"), []byte(src.String()), 0o644))
	clitest.Sh(t, d, llvmtools.Tool(t, "clang"), "-c", "acpp.c", "-o", "acpp.o")
	// A bundle whose entry is an OffloadBinary package.
	clitest.Sh(t, d, llvmtools.Tool(t, "clang-offload-bundler"), "-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=raw.pkg", "-output=pkg.hipfb")
	inputs := []string{"omp.o", "hip.o", "raw.pkg", "lto.o", "hipfb.o", "hipfbz.o", "nested.o", "old.o", "old.a", "gnu.a", "pkg.hipfb",
		"saxpy.fatbin", "elf_ptx_zstd.fatbin", "ident_opts.fatbin", "kern_nvcc.o", "multipass.hcf", "sscp.hcf", "acpp.o", "mach.o", "trunc.pkg"}
	out, _, err := runDump(d, DumpOptions{Files: inputs, JSON: true})
	require.Error(t, err, "trunc.pkg is damaged")
	assert.Contains(t, out, `"section": ".rodata"`, "the HCF object in acpp.o is found")
	var real any
	require.NoError(t, json.Unmarshal([]byte(out), &real))
	got := map[string]string{}
	shape(real, "", got)
	clitest.AssertShapes(t, "docs/dump-json.md", doc, got)
	assert.Equal(t, "2", strings.TrimSpace(strings.Split(strings.Split(string(docJSON(t)), `"schema":`)[1], ",")[0]))
	assert.Equal(t, 2, DumpSchema)
}
