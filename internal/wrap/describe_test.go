package wrap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDescribeGolden keeps the description of every golden object.
func TestDescribeGolden(t *testing.T) {
	for name, obj := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			got, err := Describe(obj)
			require.NoError(t, err)
			golden(t, name+".describe", got)
		})
	}
}

// TestDescribeMatchesReference: the description of our object and of LLVM's
// for the same input are identical (code and unwind sections are not part
// of the description).
func TestDescribeMatchesReference(t *testing.T) {
	for _, triple := range []string{hostTriple, "aarch64-unknown-linux-gnu", winTriple} {
		t.Run(triple, func(t *testing.T) { testDescribeMatchesReference(t, triple) })
	}
}

func testDescribeMatchesReference(t *testing.T, triple string) {
	tool(t, "llvm-offload-wrapper")
	dir := t.TempDir()
	opts := Options{Triple: triple}
	for _, tc := range wrapCases(opts) {
		t.Run(tc.kind, func(t *testing.T) {
			obj, err := tc.build()
			require.NoError(t, err)
			ref, err := os.ReadFile(filepath.Join(dir, refWrapperFor(t, dir, triple, tc.kind, tc.input)))
			require.NoError(t, err)
			a, err := Describe(obj)
			require.NoError(t, err)
			b, err := Describe(ref)
			require.NoError(t, err)
			assert.Equal(t, b, a)
			assert.Contains(t, a, "kind="+tc.kind)
		})
	}
}

func TestDescribeRejectsGarbage(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("\x7fELF"), []byte(strings.Repeat("x", 100))} {
		if s, err := Describe(in); err == nil || s != "" {
			t.Errorf("Describe(%q) = %q, %v; want an error", in, s, err)
		}
	}
}

// FuzzDescribe: no panics on arbitrary bytes; an error implies "".
func FuzzDescribe(f *testing.F) {
	obj, err := OpenMP(Options{Triple: hostTriple}, [][]byte{packV1(1, 1, []byte("ABC"), "triple", hostTriple)})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(obj)
	if obj, err = HIP(Options{Triple: "aarch64-linux-gnu"}, testFatbin(20)); err == nil {
		f.Add(obj)
	}
	if obj, err = SYCL(Options{Triple: winTriple}, []SYCLImage{{Triple: "t", Image: []byte("x"), Symbols: []string{"k"}}}); err == nil {
		f.Add(obj)
	}
	for _, triple := range []string{hostTriple, winTriple} {
		if obj, err = SYCL(Options{Triple: triple}, syclPropImages()); err == nil {
			f.Add(obj)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := Describe(b); err != nil && s != "" {
			t.Fatalf("error with output: %v", err)
		}
	})
}
