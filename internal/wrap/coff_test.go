package wrap

import (
	"debug/pe"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const winTriple = "x86_64-pc-windows-msvc"

// coffShape lists sections (name, characteristics) and symbols (name,
// storage class, section name) of a COFF object for comparison with LLVM's.
func coffShape(t *testing.T, path string) (secs, syms []string) {
	t.Helper()
	f, err := pe.Open(path)
	require.NoError(t, err)
	defer f.Close()
	skip := map[int]bool{}
	for i, s := range f.Sections {
		if s.Name == ".rdata" && s.Characteristics == 0x40300040 {
			skip[i+1] = true // LLVM's jump table for the HIP switch; we compare and branch
			continue
		}
		secs = append(secs, fmt.Sprintf("%s %#x", s.Name, s.Characteristics))
	}
	for i := 0; i < len(f.COFFSymbols); i++ {
		s := f.COFFSymbols[i]
		name, err := s.FullName(f.StringTable)
		require.NoError(t, err)
		sec := "UND"
		switch {
		case s.SectionNumber == -1:
			sec = "ABS"
		case s.SectionNumber > 0 && int(s.SectionNumber) <= len(f.Sections):
			sec = f.Sections[s.SectionNumber-1].Name
		}
		i += int(s.NumberOfAuxSymbols)
		if name == ".file" || strings.HasPrefix(name, "$") || skip[int(s.SectionNumber)] {
			continue
		}
		syms = append(syms, fmt.Sprintf("%s class=%d %s", name, s.StorageClass, sec))
	}
	sort.Strings(syms)
	return secs, syms
}

// TestCOFFReferenceStructure compares our Windows objects with llc's for
// the same input: sections in order with their characteristics, symbols
// with storage class and section, and the unwind information of each
// function (our functions have the same prologs as LLVM's).
func TestCOFFReferenceStructure(t *testing.T) {
	tool(t, "llvm-offload-wrapper")
	readobj := tool(t, "llvm-readobj")
	dir := t.TempDir()
	opts := Options{Triple: winTriple}
	for _, tc := range wrapCases(opts) {
		t.Run(tc.kind, func(t *testing.T) {
			obj, err := tc.build()
			require.NoError(t, err)
			ours := writeFile(t, dir, tc.kind+"-ours.obj", obj)
			ref := filepath.Join(dir, refWrapperFor(t, dir, winTriple, tc.kind, tc.input))
			s1, y1 := coffShape(t, ours)
			s2, y2 := coffShape(t, ref)
			assert.Equal(t, strings.Join(s2, "\n"), strings.Join(s1, "\n"))
			// LLVM names its local functions and data; we relocate
			// against section symbols, so only compare the symbols
			// that must match: section, external, weak and absolute.
			filter := func(v []string) string {
				var out []string
				for _, s := range v {
					if !strings.Contains(s, "class=3 ") || strings.HasSuffix(s, " ABS") || isSectionSym(s) {
						out = append(out, s)
					}
				}
				return strings.Join(out, "\n")
			}
			assert.Equal(t, filter(y2), filter(y1))
			u1, u2 := unwindCodes(t, readobj, dir, ours), unwindCodes(t, readobj, dir, ref)
			if tc.kind == "hip" {
				// LLVM allocates registers differently for HIP (no
				// RegisterFatBinaryEnd call); both describe three functions.
				assert.Equal(t, strings.Count(u2, "PrologSize"), strings.Count(u1, "PrologSize"))
			} else {
				assert.Equal(t, u2, u1)
			}
		})
	}
}

func isSectionSym(s string) bool {
	f := strings.Fields(s)
	return len(f) == 3 && f[0] == f[2]
}

// unwindCodes extracts the prolog sizes and unwind codes, in function
// order, from llvm-readobj --unwind.
func unwindCodes(t *testing.T, readobj, dir, file string) string {
	t.Helper()
	out := runCmd(t, dir, readobj, "--unwind", file)
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "PrologSize") || strings.HasPrefix(l, "0x") && strings.Contains(l, ":") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestCOFFLinks links each Windows object into a DLL with lld-link against
// a stub runtime compiled by clang for x86_64-pc-windows-msvc, so that
// every relocation and symbol resolves as a real link needs. The link has
// one 56-byte offload entry in llvm_offload_entries$OE (as a host object
// clang compiled would; with no entry at all lld-link drops the empty
// section and refuses LLVM's object and ours alike), and lld-link's map
// must put __stop_llvm_offload_entries 56 bytes after
// __start_llvm_offload_entries: while the weak externals were linked to the
// wrong aliases, both bounds got one address and nothing was registered.
func TestCOFFLinks(t *testing.T) {
	clang := tool(t, "clang")
	lld := tool(t, "lld-link")
	dir := t.TempDir()
	stub := `void *__cudaRegisterFatBinary(void *w) { return w; }
void __cudaRegisterFatBinaryEnd(void *h) {}
void __cudaUnregisterFatBinary(void *h) {}
int __cudaRegisterFunction() { return 0; }
void __cudaRegisterVar() {}
void __cudaRegisterManagedVar() {}
void *__hipRegisterFatBinary(void *w) { return w; }
void __hipUnregisterFatBinary(void *h) {}
int __hipRegisterFunction() { return 0; }
void __hipRegisterVar() {}
void __hipRegisterManagedVar() {}
void __hipRegisterSurface() {}
void __hipRegisterTexture() {}
void __tgt_register_lib(void *d) {}
void __tgt_unregister_lib(void *d) {}
void __sycl_register_lib(void *d) {}
void __sycl_unregister_lib(void *d) {}
int atexit(void (*f)(void)) { return 0; }
`
	const entry = `#pragma section("llvm_offload_entries$OE", read)
__declspec(allocate("llvm_offload_entries$OE")) char offload_entry[56] = {0};
`
	writeFile(t, dir, "stub.c", []byte(stub))
	writeFile(t, dir, "entry.c", []byte(entry))
	runCmd(t, dir, clang, "--target="+winTriple, "-c", "stub.c", "-o", "stub.obj")
	runCmd(t, dir, clang, "--target="+winTriple, "-c", "entry.c", "-o", "entry.obj")
	opts := Options{Triple: winTriple}
	for name, build := range map[string]func() ([]byte, error){
		"openmp": func() ([]byte, error) {
			return OpenMP(opts, [][]byte{packV1(1, 1, []byte("IMG"), "triple", hostTriple), []byte("raw")})
		},
		"cuda": func() ([]byte, error) { return CUDA(opts, testFatbin(64)) },
		"hip":  func() ([]byte, error) { return HIP(opts, testFatbin(64)) },
		"sycl": func() ([]byte, error) {
			return SYCL(opts, []SYCLImage{{Triple: "spirv64", Image: []byte("SPV"), Symbols: []string{"k1", "k2"}}})
		},
		"sycl-props": func() ([]byte, error) { return SYCL(opts, syclPropImages()) },
	} {
		t.Run(name, func(t *testing.T) {
			obj, err := build()
			require.NoError(t, err)
			writeFile(t, dir, name+".obj", obj)
			runCmd(t, dir, lld, "/dll", "/noentry", "/nodefaultlib", "/out:"+name+".dll", "/map:"+name+".map", name+".obj", "stub.obj", "entry.obj")
			if strings.HasPrefix(name, "sycl") {
				return // SYCL walks no entry range
			}
			m, err := os.ReadFile(filepath.Join(dir, name+".map"))
			require.NoError(t, err)
			addr := map[string]uint64{}
			for _, l := range strings.Split(string(m), "\n") {
				if f := strings.Fields(l); len(f) >= 3 {
					if v, err := strconv.ParseUint(f[2], 16, 64); err == nil {
						addr[f[1]] = v
					}
				}
			}
			start, stop := addr["__start_llvm_offload_entries"], addr["__stop_llvm_offload_entries"]
			require.NotZero(t, start, "__start_llvm_offload_entries in the map")
			assert.Equal(t, uint64(56), stop-start, "__stop_ - __start_llvm_offload_entries: the one entry")
		})
	}
}
