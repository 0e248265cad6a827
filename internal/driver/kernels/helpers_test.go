package kernels

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// The helpers below are the packager tests' (fixtures_test.go,
// corpus_test.go, dump_test.go, jsondoc_test.go), which these tests
// used before the kernels report left the packager.

// nestedTestdata holds the packager's real nested containers (fatbins
// from nvcc, HCF from AdaptiveCpp; README.md there says how each was made).
const nestedTestdata = "../packager/testdata/nested"

// rocrand is Debian's librocrand1 (ROCm 5 rocRAND, installed by make
// deps): a real third-party shared library whose .hip_fatbin holds one
// bundle of eight entries, with ROCm 5's four-part host ID.
const rocrand = "/usr/lib/x86_64-linux-gnu/librocrand.so.1.1"

func oracle(t testing.TB, tool string) string {
	t.Helper()
	return llvmtools.Tool(t, tool)
}

// sh runs a command in dir and fails the test with its output on error.
func sh(t testing.TB, dir string, argv ...string) []byte {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out.String())
	}
	return out.Bytes()
}

func copyInto(t *testing.T, src, dst string, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, n), b, 0o644))
	}
}

// linkedInto returns a new directory holding a symlink named name to
// target, so that tools name their outputs after name inside it.
func linkedInto(t *testing.T, target, name string) string {
	d := t.TempDir()
	_, err := os.Stat(target)
	require.NoError(t, err, "run `make deps` (installs librocrand1)")
	require.NoError(t, os.Symlink(target, filepath.Join(d, name)))
	return d
}

// runObjdump returns llvm-objdump --offloading's stdout, its diagnostic
// lines with the program prefix removed, and whether it succeeded.
func runObjdump(t *testing.T, dir string, files ...string) (string, []string, bool) {
	cmd := exec.Command(oracle(t, "llvm-objdump"), append([]string{"--offloading"}, files...)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var diags []string
	for _, l := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		if l == "" {
			continue
		}
		_, msg, _ := strings.Cut(l, "llvm-objdump: ")
		diags = append(diags, msg)
	}
	return out.String(), diags, err == nil
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

// shapeWith records the JSON type at every path of v ("files[].images[].name"
// → "string"), array elements merged, paths passed through fold.
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
