package packager

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// bundleFixtures makes objects whose sections hold clang-offload-bundler
// bundles, as HIP's .hip_fatbin does, with the LLVM 22 tools: one bundle,
// bundles in two sections, two bundles back to back in one section, a
// CCOB blob, an archive of such objects, a COFF object, and broken ones.
func bundleFixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	w := func(name string, b []byte) { require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644)) }
	w("m.c", []byte("int main(void) { return 0; }\n"))
	clitest.Sh(t, dir, llvmtools.Tool(t, "clang"), "-c", "m.c", "-o", "m.o")
	clitest.Sh(t, dir, llvmtools.Tool(t, "clang"), "--target=x86_64-pc-windows-msvc", "-c", "m.c", "-o", "mw.obj")
	d1, d2 := make([]byte, 3000), make([]byte, 1234)
	for i := range d1 {
		d1[i] = byte(i*7 + i/5)
	}
	for i := range d2 {
		d2[i] = byte(i * 13)
	}
	w("d1.o", d1)
	w("d2.o", d2)
	bundler := llvmtools.Tool(t, "clang-offload-bundler")
	clitest.Sh(t, dir, bundler, "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx1100",
		"-input=/dev/null", "-input=d1.o", "-input=d2.o", "-output=s1.hipfb")
	clitest.Sh(t, dir, bundler, "-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx942", "-input=d2.o", "-output=s2.hipfb")
	clitest.Sh(t, dir, bundler, "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a",
		"-input=/dev/null", "-input=d1.o", "-output=c.hipfb", "-compress")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return b
	}
	s1 := read("s1.hipfb")
	w("cat.hipfb", append(append([]byte{}, s1...), read("s2.hipfb")...))
	w("trunc.hipfb", s1[:40])
	big := append([]byte{}, s1...)
	binary.LittleEndian.PutUint64(big[40:], 1<<30) // first entry's size
	w("big.hipfb", big)
	slash := append([]byte{}, s1...)
	i := bytes.Index(slash, []byte("hip-amdgcn-amd-amdhsa--gfx90a"))
	copy(slash[i:], "hip-amdgcn-amd-amdh/../../zzz")
	w("slash.hipfb", slash)
	objcopy := llvmtools.Tool(t, "llvm-objcopy")
	add := func(out, in string, secs ...string) {
		args := []string{objcopy}
		for _, s := range secs {
			args = append(args, "--add-section", s)
		}
		clitest.Sh(t, dir, append(args, in, out)...)
	}
	add("one.o", "m.o", ".hip_fatbin=s1.hipfb")
	add("two.o", "m.o", ".hip_fatbin=s1.hipfb", ".other=s2.hipfb")
	add("cat.o", "m.o", ".hip_fatbin=cat.hipfb")
	add("ccob.o", "m.o", ".hip_fatbin=c.hipfb")
	add("trunc.o", "m.o", ".hip_fatbin=trunc.hipfb")
	add("big.o", "m.o", ".hip_fatbin=big.hipfb")
	add("slash.o", "m.o", ".hip_fatbin=slash.hipfb")
	add("coff.obj", "mw.obj", ".hipfb=s1.hipfb")
	clitest.Sh(t, dir, llvmtools.Tool(t, "llvm-ar"), "rc", "lib.a", "two.o", "cat.o")
	return dir
}

// copyDir copies the regular files of src into a new directory.
func copyDir(t *testing.T, src string) string {
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range ents {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
		}
	}
	return dst
}

// newFiles lists the files of dir that are not in base, with contents.
func newFiles(t *testing.T, dir, base string) map[string][]byte {
	out := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(base, e.Name())); err == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = b
	}
	return out
}

func names(m map[string][]byte) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// TestDumpBundleExtractionParity: after listing, dump writes every bundle
// entry in an object's sections to <file>.<bundle>.<entry ID> and prints
// "Extracting offload bundle: ..." as llvm-objdump --offloading 22.1.8
// does: same stdout, exit status, file names and (uncompressed) contents.
// For a CCOB section the reference writes bytes of the object at the
// entry's offset; ours are the decompressed entry.
func TestDumpBundleExtractionParity(t *testing.T) {
	fx := bundleFixtures(t)
	d1, err := os.ReadFile(filepath.Join(fx, "d1.o"))
	require.NoError(t, err)
	for _, c := range []struct {
		file     string
		ccob     bool
		errRef   string // the reference's diagnostic (after "error: ")
		errOurs  string // a piece of ours
		refCrash bool
		// beyond: the reference fails with errRef where we succeed and
		// write these files (COFF objects, which it refuses).
		beyond []string
	}{
		{file: "one.o"}, {file: "two.o"}, {file: "cat.o"}, {file: "lib.a"},
		{file: "ccob.o", ccob: true},
		{file: "trunc.o", errRef: "'trunc.o': while extracting offload FatBin bundles: Stream Error", errOurs: "'trunc.o': while extracting offload FatBin bundles: section .hip_fatbin: bundle at offset 0x0: 3 entries do not fit"},
		{file: "coff.obj", errRef: "'coff.obj': while extracting offload FatBin bundles: COFF object files not supported", beyond: []string{
			"coff.obj.0.hip-amdgcn-amd-amdhsa--gfx1100", "coff.obj.0.hip-amdgcn-amd-amdhsa--gfx90a", "coff.obj.0.host-x86_64-unknown-linux-gnu-"}},
		{file: "slash.o", errRef: "'slash.o': while extracting offload Bundle Entries: No such file or directory", errOurs: "'slash.o': while extracting offload Bundle Entries: entry ID \"hip-amdgcn-amd-amdh/../../zzz\""},
		{file: "big.o", refCrash: true, errOurs: "outside the"},
	} {
		t.Run(c.file, func(t *testing.T) {
			rd, od := copyDir(t, fx), copyDir(t, fx)
			wantOut, wantDiag, wantOK := clitest.Objdump(t, rd, c.file)
			gotOut, gotDiag, err := runDump(od, DumpOptions{Files: []string{c.file}, ExtractBundles: true})
			refFiles, ourFiles := newFiles(t, rd, fx), newFiles(t, od, fx)
			if c.beyond != nil {
				require.False(t, wantOK)
				require.Len(t, wantDiag, 1)
				assert.True(t, strings.HasPrefix(wantDiag[0], "error: "+c.errRef), wantDiag[0])
				require.NoError(t, err, gotDiag)
				assert.Equal(t, c.beyond, names(ourFiles))
				assert.Equal(t, d1, ourFiles["coff.obj.0.hip-amdgcn-amd-amdhsa--gfx90a"])
				assert.Empty(t, ourFiles["coff.obj.0.host-x86_64-unknown-linux-gnu-"])
				assert.Contains(t, gotOut, "Extracting offload bundle: coff.obj.0.hip-amdgcn-amd-amdhsa--gfx90a\n")
				return
			}
			if c.refCrash {
				// llvm-objdump reads past its buffer and crashes here.
				require.Error(t, err)
				assert.Contains(t, strings.Join(gotDiag, "\n"), c.errOurs)
				assert.Empty(t, ourFiles, "nothing is written when a bundle is malformed")
				return
			}
			assert.Equal(t, wantOut, gotOut, "stdout")
			assert.Equal(t, wantOK, err == nil, "success")
			assert.Equal(t, names(refFiles), names(ourFiles), "files written")
			if c.errRef != "" {
				require.Len(t, wantDiag, 1)
				assert.True(t, strings.HasPrefix(wantDiag[0], "error: "+c.errRef), wantDiag[0])
				require.Len(t, gotDiag, 1)
				assert.Contains(t, gotDiag[0], c.errOurs)
			} else {
				assert.Equal(t, wantDiag, gotDiag, "diagnostics")
			}
			for name, b := range ourFiles {
				switch {
				case c.ccob && strings.HasSuffix(name, "gfx90a"):
					assert.Equal(t, d1, b, name)
				case !c.ccob:
					assert.Equal(t, refFiles[name], b, name)
				}
			}
		})
	}
	// Without --extract-bundles nothing is written.
	for _, opt := range []DumpOptions{{}, {All: true}, {JSON: true}} {
		od := copyDir(t, fx)
		opt.Files = []string{"two.o", "lib.a"}
		out, _, err := runDump(od, opt)
		require.NoError(t, err)
		assert.NotContains(t, out, "Extracting offload bundle")
		assert.Empty(t, newFiles(t, od, fx))
	}
}

// The reference tool must be the one that crashes on big.o, or the case
// above should compare with it instead.
func TestObjdumpCrashesOnOutOfRangeBundleEntry(t *testing.T) {
	fx := bundleFixtures(t)
	cmd := exec.Command(llvmtools.Tool(t, "llvm-objdump"), "--offloading", "big.o")
	cmd.Dir = copyDir(t, fx)
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.NotEqual(t, 1, ee.ExitCode(), "llvm-objdump now reports the error itself")
}

// FuzzSectionBundles: reading a section's bundles never panics or loops,
// and every entry it returns lies inside the data it came from.
func FuzzSectionBundles(f *testing.F) {
	one := []byte("__CLANG_OFFLOAD_BUNDLE__")
	one = binary.LittleEndian.AppendUint64(one, 1)
	one = binary.LittleEndian.AppendUint64(one, 59)
	one = binary.LittleEndian.AppendUint64(one, 3)
	one = binary.LittleEndian.AppendUint64(one, 3)
	one = append(one, "hip"...)
	one = append(one, "abc"...)
	f.Add(one)
	f.Add(append(append(append([]byte{}, one...), 0, 0, 0), one...))
	f.Add(append([]byte("CCOB\x03\x00\x01\x00"), make([]byte, 40)...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, sec []byte) {
		l := &lister{in: &input{data: sec}, full: true}
		bs, err := l.sectionBundles(sec)
		if err != nil {
			return
		}
		for _, b := range bs {
			for _, e := range b.Entries {
				if int64(len(e.data)) != e.Size {
					t.Fatalf("entry %q: %d bytes for size %d", e.ID, len(e.data), e.Size)
				}
				if e.Offset >= 0 && e.Offset+e.Size > int64(len(sec)) {
					t.Fatalf("entry %q at %d+%d outside the %d-byte section", e.ID, e.Offset, e.Size, len(sec))
				}
			}
		}
	})
}
