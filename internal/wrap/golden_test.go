package wrap

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/release"
)

// goldenCases are the objects whose llvm-readelf/llvm-objdump views are kept
// in testdata/*.golden.
func goldenCases(t *testing.T) map[string][]byte {
	t.Helper()
	opts := Options{Triple: hostTriple}
	omp1 := packV1(1, 1, []byte("ABC"), "triple", hostTriple, "arch", "generic")
	raw := []byte("not an offload binary, registered whole")
	mk := func(b []byte, err error) []byte {
		t.Helper()
		require.NoError(t, err)
		return b
	}
	a64 := Options{Triple: "aarch64-unknown-linux-gnu"}
	win := Options{Triple: winTriple}
	llvm16 := Options{Triple: hostTriple, Release: release.Of(16, "golden")}
	llvm19 := Options{Triple: hostTriple, Release: release.Of(19, "golden")}
	return map[string][]byte{
		"openmp-win": mk(OpenMP(win, [][]byte{omp1, raw})),
		"cuda-win":   mk(CUDA(win, testFatbin(100))),
		"hip-win":    mk(HIP(win, testFatbin(100))),
		"sycl-win": mk(SYCL(win, []SYCLImage{
			{Triple: "spirv64-unknown-unknown", Image: []byte("SPIRV"), Symbols: []string{"k1", "k2"}},
		})),
		"openmp-aarch64": mk(OpenMP(a64, [][]byte{omp1, raw})),
		"cuda-aarch64":   mk(CUDA(a64, testFatbin(100))),
		"hip-aarch64":    mk(HIP(a64, testFatbin(100))),
		"sycl-aarch64": mk(SYCL(a64, []SYCLImage{
			{Triple: "spirv64-unknown-unknown", Image: []byte("SPIRV"), Symbols: []string{"k1", "k2"}},
		})),
		"openmp":             mk(OpenMP(opts, [][]byte{omp1, raw})),
		"openmp-relocatable": mk(OpenMP(Options{Triple: hostTriple, Relocatable: true}, [][]byte{omp1})),
		"cuda":               mk(CUDA(opts, testFatbin(100))),
		"cuda-small":         mk(CUDA(opts, []byte("abc"))),
		"hip":                mk(HIP(opts, testFatbin(100))),
		"sycl": mk(SYCL(opts, []SYCLImage{
			{Triple: "spirv64-unknown-unknown", Image: []byte("SPIRV"), Symbols: []string{"k1", "k2"}},
			{Triple: "spirv64-unknown-unknown", Image: []byte("IMG2")},
		})),
		// Property sets in intel's layout (sycl_props_test.go).
		"sycl-props":         mk(SYCL(opts, syclPropImages())),
		"sycl-props-aarch64": mk(SYCL(a64, syclPropImages())),
		"sycl-props-win":     mk(SYCL(win, syclPropImages())),
		// LLVM 16 and 19 registration objects (Options.Release, legacy.go).
		"openmp-llvm16":      mk(OpenMP(llvm16, [][]byte{omp1, raw})),
		"openmp-llvm19":      mk(OpenMP(llvm19, [][]byte{omp1, raw})),
		"cuda-llvm16":        mk(CUDA(llvm16, testFatbin(100))),
		"cuda-llvm19":        mk(CUDA(llvm19, testFatbin(100))),
		"hip-llvm16":         mk(HIP(llvm16, testFatbin(100))),
		"hip-llvm19":         mk(HIP(llvm19, testFatbin(100))),
		"hip-llvm16-aarch64": mk(HIP(Options{Triple: a64.Triple, Release: llvm16.Release}, testFatbin(100))),
		"hip-llvm19-aarch64": mk(HIP(Options{Triple: a64.Triple, Release: llvm19.Release}, testFatbin(100))),
	}
}

// TestGoldenObjects compares the readelf/objdump view of each emitted object
// with testdata/<name>.golden (refresh with go test -update).
func TestGoldenObjects(t *testing.T) {
	tool(t, "llvm-readelf")
	dir := t.TempDir()
	for name, obj := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			writeFile(t, dir, name+".o", obj)
			golden(t, name+".obj", dumpObject(t, dir, name+".o"))
			// Deterministic: building again gives the same bytes.
			again := goldenCases(t)[name]
			if string(again) != string(obj) {
				t.Error("output is not deterministic")
			}
		})
	}
}

// shape is the part of an object's structure compared with LLVM's: section
// names with type and flags, and symbols with binding, type, visibility and
// whether they are defined.
func shape(t *testing.T, path string, skipSec func(string) bool) (secs, syms []string) {
	t.Helper()
	f, err := elf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	for _, s := range f.Sections {
		if s.Name == "" || skipSec(s.Name) {
			continue
		}
		secs = append(secs, fmt.Sprintf("%s %v %v align=%d", s.Name, s.Type, s.Flags, s.Addralign))
	}
	ss, err := f.Symbols()
	require.NoError(t, err)
	for _, s := range ss {
		if elf.ST_TYPE(s.Info) == elf.STT_SECTION {
			continue
		}
		where := "UND"
		switch {
		case s.Section == elf.SHN_ABS:
			where = "ABS"
		case s.Section != elf.SHN_UNDEF && int(s.Section) < len(f.Sections):
			where = f.Sections[s.Section].Name
			if skipSec(where) {
				continue
			}
		}
		syms = append(syms, fmt.Sprintf("%s %v %v %v %s size=%d", s.Name, elf.ST_BIND(s.Info), elf.ST_TYPE(s.Info),
			elf.ST_VISIBILITY(s.Other), where, s.Size))
	}
	sort.Strings(syms)
	return secs, syms
}

// wrapCase is one wrapper object to compare with LLVM's: the offload kind,
// the input the reference wrapper gets, and how we build ours.
type wrapCase struct {
	kind  string
	input []byte
	build func() ([]byte, error)
}

// wrapCases are the OpenMP, CUDA and HIP objects the reference tests
// compare, for one host.
func wrapCases(opts Options) []wrapCase {
	omp := packV1(1, 1, []byte("ABCDEFGHIJ"), "triple", hostTriple, "arch", "generic")
	return []wrapCase{
		{"openmp", omp, func() ([]byte, error) { return OpenMP(opts, [][]byte{omp}) }},
		{"cuda", testFatbin(64), func() ([]byte, error) { return CUDA(opts, testFatbin(64)) }},
		{"hip", testFatbin(64), func() ([]byte, error) { return HIP(opts, testFatbin(64)) }},
	}
}

// TestReferenceStructure compares sections and symbols with the objects
// LLVM 22 makes for the same inputs (llvm-offload-wrapper + llc). Known,
// intended differences: no .rodata jump table, .shstrtab separate from
// .strtab, and function sizes (the code is ours).
func TestReferenceStructure(t *testing.T) {
	for _, triple := range []string{hostTriple, "aarch64-unknown-linux-gnu"} {
		t.Run(strings.Split(triple, "-")[0], func(t *testing.T) { testReferenceStructure(t, triple) })
	}
}

func testReferenceStructure(t *testing.T, triple string) {
	tool(t, "llvm-offload-wrapper")
	dir := t.TempDir()
	opts := Options{Triple: triple}
	for _, tc := range wrapCases(opts) {
		t.Run(tc.kind, func(t *testing.T) {
			obj, err := tc.build()
			require.NoError(t, err)
			ours := writeFile(t, dir, tc.kind+"-ours.o", obj)
			ref := filepath.Join(dir, refWrapperFor(t, dir, triple, tc.kind, tc.input))
			skip := func(n string) bool {
				return strings.HasSuffix(n, "strtab") || n == ".symtab" ||
					strings.HasSuffix(n, ".rodata")
			}
			s1, y1 := shape(t, ours, skip)
			s2, y2 := shape(t, ref, skip)
			assert.Equal(t, strings.Join(s2, "\n"), strings.Join(s1, "\n"))
			noSize := func(v []string) string {
				var out []string
				for _, s := range v {
					if strings.Contains(s, "STT_FUNC") {
						s = s[:strings.LastIndex(s, " size=")]
					}
					out = append(out, s)
				}
				return strings.Join(out, "\n")
			}
			assert.Equal(t, noSize(y2), noSize(y1))
		})
	}
}
