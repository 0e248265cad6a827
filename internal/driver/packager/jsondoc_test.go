package packager

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docJSON returns the JSON example of docs/dump-json.md with its //
// comments removed.
func docJSON(t *testing.T) []byte {
	return docJSONBlock(t, "../../../docs/dump-json.md", 0)
}

// docJSONBlock returns the n-th ```json block of a document with its //
// comments removed.
func docJSONBlock(t *testing.T, path string, n int) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	rest := string(b)
	var ok bool
	for i := 0; i <= n; i++ {
		_, rest, ok = strings.Cut(rest, "```json\n")
		require.True(t, ok, "%s has %d ```json blocks", path, n+1)
	}
	block, _, ok := strings.Cut(rest, "\n```")
	require.True(t, ok)
	var out []byte
	inStr, esc := false, false
	for i := 0; i < len(block); i++ {
		c := block[i]
		switch {
		case inStr:
			out = append(out, c)
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(block) && block[i+1] == '/':
			for i < len(block) && block[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		default:
			out = append(out, c)
		}
	}
	return out
}

// shape records the JSON type at every path of v ("files[].objects[].name"
// → "string"), array elements merged. A payload's contents has an
// object's lists, so paths inside one are recorded as the object's.
func shape(v any, path string, into map[string]string) {
	shapeWith(v, path, into, func(path string) string {
		if i := strings.LastIndex(path, ".contents."); i >= 0 {
			return "files[].objects[]." + path[i+len(".contents."):]
		}
		return path
	})
}

// shapeWith is shape with the document's own folding of recursive paths.
func shapeWith(v any, path string, into map[string]string, fold func(string) string) {
	path = fold(path)
	switch x := v.(type) {
	case map[string]any:
		into[path] = "object"
		for k, e := range x {
			shapeWith(e, strings.TrimPrefix(path+"."+k, "."), into, fold)
		}
	case []any:
		into[path] = "array"
		for _, e := range x {
			shapeWith(e, path+"[]", into, fold)
		}
	case string:
		into[path] = "string"
	case float64:
		into[path] = "number"
	case bool:
		into[path] = "bool"
	case nil:
		into[path] = "null"
	}
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
	copyInto(t, fx, d, "omp.o", "hip.o", "raw.pkg", "lto.o", "hipfb.o", "hipfbz.o", "nested.o", "mach.o", "trunc.pkg", "gnu.a")
	for _, f := range []string{"saxpy.fatbin", "elf_ptx_zstd.fatbin", "ident_opts.fatbin", "kern_nvcc.o", "multipass.hcf", "sscp.hcf"} {
		copyInto(t, nestedTestdata, d, f)
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
	sh(t, d, oracle(t, "clang"), "-c", "acpp.c", "-o", "acpp.o")
	// A bundle whose entry is an OffloadBinary package.
	sh(t, d, oracle(t, "clang-offload-bundler"), "-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=raw.pkg", "-output=pkg.hipfb")
	inputs := []string{"omp.o", "hip.o", "raw.pkg", "lto.o", "hipfb.o", "hipfbz.o", "nested.o", "old.o", "old.a", "gnu.a", "pkg.hipfb",
		"saxpy.fatbin", "elf_ptx_zstd.fatbin", "ident_opts.fatbin", "kern_nvcc.o", "multipass.hcf", "sscp.hcf", "acpp.o", "mach.o", "trunc.pkg"}
	out, _, err := runDump(d, DumpOptions{Files: inputs, JSON: true})
	require.Error(t, err, "trunc.pkg is damaged")
	assert.Contains(t, out, `"section": ".rodata"`, "the HCF object in acpp.o is found")
	var real any
	require.NoError(t, json.Unmarshal([]byte(out), &real))
	got := map[string]string{}
	shape(real, "", got)
	assertShapes(t, "docs/dump-json.md", doc, got)
	assert.Equal(t, "2", strings.TrimSpace(strings.Split(strings.Split(string(docJSON(t)), `"schema":`)[1], ",")[0]))
	assert.Equal(t, 2, DumpSchema)
}

// assertShapes: the output has only the paths the documented example
// has, with the same JSON types, and together has every one of them.
func assertShapes(t *testing.T, name string, doc, got map[string]string) {
	t.Helper()
	var undocumented, unseen []string
	for p, typ := range got {
		dt, ok := doc[p]
		switch {
		case !ok:
			undocumented = append(undocumented, p)
		case dt != typ && !(typ == "array" && dt == "array"):
			undocumented = append(undocumented, p+" is "+typ+", documented as "+dt)
		}
	}
	for p := range doc {
		if _, ok := got[p]; !ok {
			unseen = append(unseen, p)
		}
	}
	sort.Strings(undocumented)
	sort.Strings(unseen)
	assert.Empty(t, undocumented, "fields in the output that %s does not show", name)
	assert.Empty(t, unseen, "fields %s shows that no output has (add an input that has them)", name)
}
