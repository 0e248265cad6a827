package bundler

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

var clang = llvmtools.Path("clang")

func makeHostObject(t *testing.T, dir string) {
	t.Helper()
	write(t, dir, "h.c", []byte("int host_fn(int x){return x+1;}\nint g = 5;\nconst char s[] = \"host\";\n"))
	cmd := exec.Command(clang, "-c", "-O1", "h.c", "-o", "host.o")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("clang: %v %s", err, out)
	}
}

// TestObjectBundle bundles into a real ELF host object with both tools and
// unbundles each result with both tools.
func TestObjectBundle(t *testing.T) {
	needOracle(t)
	dir := t.TempDir()
	makeHostObject(t, dir)
	write(t, dir, "d0.bin", codeLike(300, 1))
	write(t, dir, "d1.bin", []byte("CCOB__CLANG_OFFLOAD_BUNDLE__ inside"))
	targets := "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,openmp-nvptx64-nvidia-cuda-sm_70"
	args := []string{"-type=o", targets, "-input=host.o", "-input=d0.bin", "-input=d1.bin"}
	if r := runTheirs(t, dir, nil, append(args, "-output=theirs.o")...); r.code != 0 {
		t.Fatalf("oracle: %+v", r)
	}
	if r := runOurs(t, dir, nil, append(args, "-output=ours.o")...); r.code != 0 {
		t.Fatalf("ours: %+v", r)
	}
	if !bytes.Equal(read(t, dir, "theirs.o"), read(t, dir, "ours.o")) {
		t.Errorf("object bundles differ; first difference at %d", firstDiff(read(t, dir, "theirs.o"), read(t, dir, "ours.o")))
	}
	readelf := func(name string) string {
		cmd := exec.Command(llvmtools.Path("llvm-readelf"), "-S", "-s", name)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("readelf %s: %v", name, err)
		}
		return string(bytes.ReplaceAll(out, []byte(name), nil))
	}
	if a, b := readelf("theirs.o"), readelf("ours.o"); a != b {
		t.Errorf("readelf differs:\ntheirs:\n%s\nours:\n%s", a, b)
	}
	for _, src := range []string{"theirs.o", "ours.o"} {
		l1 := runTheirs(t, dir, nil, "-list", "-type=o", "-input="+src)
		l2 := runOurs(t, dir, nil, "-list", "-type=o", "-input="+src)
		if l1 != l2 {
			t.Fatalf("list %s: theirs %+v ours %+v", src, l1, l2)
		}
		u := []string{"-unbundle", "-type=o", targets, "-input=" + src}
		r1 := runTheirs(t, dir, nil, append(u, "-output=t0", "-output=t1", "-output=t2")...)
		r2 := runOurs(t, dir, nil, append(u, "-output=o0", "-output=o1", "-output=o2")...)
		if r1 != r2 || r1.code != 0 {
			t.Fatalf("unbundle %s: theirs %+v ours %+v", src, r1, r2)
		}
		for i, n := range []string{"1", "2"} {
			if !bytes.Equal(read(t, dir, "t"+n), read(t, dir, "o"+n)) {
				t.Fatalf("unbundle %s: device output %d differs", src, i+1)
			}
		}
		if a, b := elfSummary(t, read(t, dir, "t0")), elfSummary(t, read(t, dir, "o0")); a != b {
			t.Errorf("unbundled host of %s differs:\ntheirs:\n%s\nours:\n%s", src, a, b)
		}
		if !bytes.Equal(read(t, dir, "t0"), read(t, dir, "o0")) {
			t.Errorf("%s: unbundled host objects differ", filepath.Base(src))
		}
	}
}

// TestObjectBundleByteIdentical bundles into (and unbundles the host
// from) objects of several compilers, languages, options and targets —
// string tables shared with or separate from section names, COMDAT groups
// with local signatures (g++), debug sections, 32-bit and big-endian — and
// requires byte-identical files from both tools.
func TestObjectBundleByteIdentical(t *testing.T) {
	needOracle(t)
	dir := t.TempDir()
	write(t, dir, "h.c", []byte("int host_fn(int x){return x+1;}\nint g = 5;\nstatic int l;\nint *pl = &l;\nconst char s[] = \"host\";\n"))
	write(t, dir, "cx.cpp", []byte(`#include <vector>
#include <string>
template<class T> T sum(const std::vector<T>& v){T s{}; for(auto&x:v) s+=x; return s;}
struct S { virtual ~S(){} virtual int f(){return 1;} };
int api(int n){ std::vector<double> v(n,1.5); std::string z="abc"; S s; return (int)sum(v)+z.size()+s.f(); }
static int hidden_counter = 3; int *exported = &hidden_counter;
`))
	write(t, dir, "d0.bin", codeLike(300, 1))
	write(t, dir, "d1.bin", []byte("CCOB__CLANG_OFFLOAD_BUNDLE__ inside"))
	targets := "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,openmp-nvptx64-nvidia-cuda-sm_70"
	for _, cc := range [][]string{
		{clang + "++", "-O2", "cx.cpp"},
		{clang + "++", "-O0", "-g", "cx.cpp"},
		{clang + "++", "-O1", "-ffunction-sections", "-fdata-sections", "-fPIC", "cx.cpp"},
		{"g++", "-O2", "cx.cpp"},
		{"g++", "-O0", "-g", "cx.cpp"},
		{"gcc", "-O2", "h.c"},
		{clang, "-O2", "-m32", "h.c"},
		{clang, "-O2", "--target=aarch64-linux-gnu", "h.c"},
		{clang, "-O2", "--target=powerpc64-linux-gnu", "h.c"},
		{"aarch64-linux-gnu-gcc", "-O2", "-g", "h.c"},
	} {
		t.Run(fmt.Sprint(cc), func(t *testing.T) {
			cmd := exec.Command(cc[0], append([]string{"-c", "-o", "host.o"}, cc[1:]...)...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", cc, err, out) // scripts/install-deps.sh installs every compiler
			}
			args := []string{"-type=o", targets, "-input=host.o", "-input=d0.bin", "-input=d1.bin"}
			require.Equal(t, 0, runTheirs(t, dir, nil, append(args, "-output=theirs.o")...).code)
			require.Equal(t, 0, runOurs(t, dir, nil, append(args, "-output=ours.o")...).code)
			if a, b := read(t, dir, "theirs.o"), read(t, dir, "ours.o"); !bytes.Equal(a, b) {
				t.Fatalf("bundles differ at byte %d", firstDiff(a, b))
			}
			u := []string{"-unbundle", "-type=o", targets, "-input=theirs.o"}
			require.Equal(t, 0, runTheirs(t, dir, nil, append(u, "-output=t0", "-output=t1", "-output=t2")...).code)
			require.Equal(t, 0, runOurs(t, dir, nil, append(u, "-output=o0", "-output=o1", "-output=o2")...).code)
			if a, b := read(t, dir, "t0"), read(t, dir, "o0"); !bytes.Equal(a, b) {
				t.Fatalf("unbundled hosts differ at byte %d", firstDiff(a, b))
			}
		})
	}
}

// TestArchiveUnbundle unbundles an archive of bundled objects into
// device archives with both tools.
func TestArchiveUnbundle(t *testing.T) {
	needOracle(t)
	dir := t.TempDir()
	makeHostObject(t, dir)
	write(t, dir, "a.bin", codeLike(333, 2))
	write(t, dir, "b.bin", codeLike(64, 3))
	mk := func(out string, args ...string) {
		if r := runTheirs(t, dir, nil, append(args, "-output="+out)...); r.code != 0 {
			t.Fatalf("oracle: %+v", r)
		}
	}
	mk("m1.o", "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx908:xnack+", "-input=host.o", "-input=a.bin", "-input=b.bin")
	mk("m2.o", "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,openmp-nvptx64-nvidia-cuda-sm_70", "-input=host.o", "-input=b.bin", "-input=a.bin")
	mk("m3.o", "-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack-,hip-amdgcn-amd-amdhsa--gfx1030", "-input=a.bin", "-input=b.bin", "-compress")
	cmd := exec.Command(llvmtools.Path("llvm-ar"), "rc", "lib.a", "m1.o", "m2.o", "m3.o")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("llvm-ar: %v %s", err, out)
	}
	for _, tc := range [][]string{
		{"-targets=hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx908:xnack+,openmp-nvptx64-nvidia-cuda-sm_70"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack+,hip-amdgcn-amd-amdhsa--gfx1030"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack-,openmp-amdgcn-amd-amdhsa--gfx1030", "-hip-openmp-compatible"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx942"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx942", "-allow-missing-bundles"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-check-input-archive"},
	} {
		args := append([]string{"-unbundle", "-type=a", "-input=lib.a"}, tc...)
		n := len(bytes.Split([]byte(tc[0]), []byte(",")))
		var to, oo []string
		for i := 0; i < n; i++ {
			to = append(to, "-output=t"+string(rune('0'+i))+".a")
			oo = append(oo, "-output=o"+string(rune('0'+i))+".a")
		}
		r1 := runTheirs(t, dir, nil, append(args, to...)...)
		r2 := runOurs(t, dir, nil, append(args, oo...)...)
		if r1 != r2 {
			t.Fatalf("%v: theirs %+v ours %+v", tc, r1, r2)
		}
		if r1.code != 0 {
			continue
		}
		for i := 0; i < n; i++ {
			a, b := read(t, dir, "t"+string(rune('0'+i))+".a"), read(t, dir, "o"+string(rune('0'+i))+".a")
			if !bytes.Equal(a, b) {
				t.Fatalf("%v: archive %d differs:\n%q\n%q", tc, i, a, b)
			}
		}
	}
}

// elfSummary describes sections (but not .strtab's layout) and symbols.
func elfSummary(t *testing.T, b []byte) string {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var s string
	for _, sec := range f.Sections {
		if sec.Name == ".strtab" {
			continue
		}
		d, _ := sec.Data()
		s += fmt.Sprintf("%s %v %v %d %d %x\n", sec.Name, sec.Type, sec.Flags, sec.Addralign, sec.Size, d)
	}
	syms, _ := f.Symbols()
	for _, sym := range syms {
		s += fmt.Sprintf("%+v\n", sym)
	}
	return s
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

var tmpRE = regexp.MustCompile(`"[^"]*llvm-objcopy"|/tmp/clang-offload-bundler-[0-9a-f]+\.tmp`)

// TestPrintCommands compares -### with an object host.
func TestPrintCommands(t *testing.T) {
	needOracle(t)
	dir := t.TempDir()
	makeHostObject(t, dir)
	write(t, dir, "d.bin", []byte("ABCD"))
	mask := func(r result) result { r.stderr = tmpRE.ReplaceAllString(r.stderr, "X"); return r }
	args := []string{"-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a", "-input=host.o", "-input=d.bin", "-###"}
	rt := mask(runTheirs(t, dir, nil, append(args, "-output=t.o")...))
	ro := mask(runOurs(t, dir, nil, append(args, "-output=t.o")...))
	if rt != ro {
		t.Fatalf("theirs %+v\nours %+v", rt, ro)
	}
	if r := runTheirs(t, dir, nil, "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a", "-input=host.o", "-input=d.bin", "-output=fat.o"); r.code != 0 {
		t.Fatal(r)
	}
	u := []string{"-unbundle", "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a", "-input=fat.o", "-###"}
	rt = mask(runTheirs(t, dir, nil, append(u, "-output=t0", "-output=t1")...))
	ro = mask(runOurs(t, dir, nil, append(u, "-output=o0", "-output=o1")...))
	if rt != ro {
		t.Fatalf("theirs %+v\nours %+v", rt, ro)
	}
	for _, n := range []string{"0", "1"} {
		if !bytes.Equal(read(t, dir, "t"+n), read(t, dir, "o"+n)) {
			t.Fatalf("output %s differs", n)
		}
	}
}
