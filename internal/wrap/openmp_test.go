package wrap

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ompProg = `#include <stdio.h>
#include <omp.h>
int main(void) {
  int on_dev = -1, sum = 0, a[64];
  for (int i = 0; i < 64; i++) a[i] = i;
#pragma omp target map(from: on_dev) map(tofrom: sum) map(to: a)
  {
    on_dev = !omp_is_initial_device();
    for (int i = 0; i < 64; i++) sum += a[i];
  }
  printf("on_device=%d sum=%d\n", on_dev, sum);
  return 0;
}
`

// ompFixture compiles ompProg for host offload (x86_64 device) and links
// the device image the way clang-linker-wrapper does (spec §4.2), giving
// the fat host object and the v1 OffloadBinary that the wrapper receives.
type ompFixture struct {
	dir, clang, hostObj string
	image               []byte // the OffloadBinary around the linked image
	libs                []string
}

func newOMPFixture(t *testing.T) *ompFixture {
	t.Helper()
	clang := tool(t, "clang")
	libdir := "/usr/lib/llvm-22/lib"
	if !fileExists(filepath.Join(libdir, "libomptarget.so.22.1")) {
		t.Skip("libomptarget 22 not installed")
	}
	dir := t.TempDir()
	writeFile(t, dir, "prog.c", []byte(ompProg))
	targets := "-fopenmp-targets=" + hostTriple
	runCmd(t, dir, clang, "-fopenmp", targets, "-c", "prog.c", "-o", "prog.o")
	runCmd(t, dir, clang, "-fopenmp", targets, "--offload-device-only", "-c", "prog.c", "-o", "dev.o")
	libs := []string{"-L" + libdir, "-lomp", "-l:libomptarget.so.22.1", "-Wl,-rpath," + libdir}
	runCmd(t, dir, clang, append([]string{"--no-default-config", "-o", "dev.img", "--target=" + hostTriple,
		"-Wl,--no-undefined", "dev.o", "-Wl,-Bsymbolic", "-shared"}, libs...)...)
	img, err := os.ReadFile(filepath.Join(dir, "dev.img"))
	require.NoError(t, err)
	bin := packV1(1 /*IMG_Object*/, 1 /*OFK_OpenMP*/, img, "triple", hostTriple, "arch", "generic")
	return &ompFixture{dir: dir, clang: clang, hostObj: "prog.o", image: bin, libs: libs}
}

// link links the host object with extra objects and runs the program.
func (f *ompFixture) linkRun(t *testing.T, exe string, objs ...string) string {
	t.Helper()
	args := append([]string{"-fopenmp", "-o", exe}, objs...)
	runCmd(t, f.dir, f.clang, append(args, f.libs...)...)
	return runCmd(t, f.dir, filepath.Join(f.dir, exe))
}

// TestOpenMPHostOffload is the end-to-end proof: a real OpenMP program
// whose target region runs on the x86_64 "device" through libomptarget,
// registered only by our wrapper object.
func TestOpenMPHostOffload(t *testing.T) {
	f := newOMPFixture(t)
	t.Run("wrap", func(t *testing.T) { testOpenMPRuns(t, f) })
	t.Run("relocatable", func(t *testing.T) { testOpenMPRelocatable(t, f) })
	t.Run("reference", func(t *testing.T) { testOpenMPReference(t, f) })
}

func testOpenMPRuns(t *testing.T, f *ompFixture) {
	obj, err := OpenMP(Options{Triple: hostTriple}, [][]byte{f.image})
	require.NoError(t, err)
	writeFile(t, f.dir, "wrap.o", obj)
	out := f.linkRun(t, "prog", f.hostObj, "wrap.o")
	assert.Equal(t, "on_device=1 sum=2016\n", out)

	// The final executable keeps the image in an allocated
	// SHT_LLVM_OFFLOADING section that llvm-objdump --offloading lists.
	objdump := tool(t, "llvm-objdump")
	listing := runCmd(t, f.dir, objdump, "--offloading", "prog")
	assert.Contains(t, listing, "triple          "+hostTriple)
	assert.Contains(t, listing, "openmp")
}

// testOpenMPRelocatable follows spec §8: the wrapper object goes into a
// relocatable link, the objcopy step renames the entries section, and the
// result still registers and runs when linked into a program.
func testOpenMPRelocatable(t *testing.T, f *ompFixture) {
	obj, err := OpenMP(Options{Triple: hostTriple, Relocatable: true}, [][]byte{f.image})
	require.NoError(t, err)
	writeFile(t, f.dir, "wrap.o", obj)
	runCmd(t, f.dir, "ld", "--relocatable", "-o", "part.o", "wrap.o", f.hostObj)
	h := "1a2b3c"
	runCmd(t, f.dir, tool(t, "llvm-objcopy"), "part.o", "--remove-section", ".llvm.offloading",
		"--rename-section", "llvm_offload_entries=llvm_offload_entries_"+h,
		"--redefine-sym", "__start_llvm_offload_entries=__start_llvm_offload_entries_"+h,
		"--redefine-sym", "__stop_llvm_offload_entries=__stop_llvm_offload_entries_"+h)
	sections := runCmd(t, f.dir, tool(t, "llvm-readelf"), "-S", "part.o")
	assert.Regexp(t, `\.llvm\.offloading\.relocatable\s+LLVM_OFFLOADING`, sections)
	assert.NotRegexp(t, `\.llvm\.offloading\s`, sections)
	out := f.linkRun(t, "prog-r", "part.o")
	assert.Equal(t, "on_device=1 sum=2016\n", out)
}

// testOpenMPReference checks the harness itself: LLVM's own wrapper
// object gives the same program output.
func testOpenMPReference(t *testing.T, f *ompFixture) {
	ref := refWrapper(t, f.dir, "openmp", f.image)
	out := f.linkRun(t, "prog-ref", f.hostObj, ref)
	assert.Equal(t, "on_device=1 sum=2016\n", out)
}

// refWrapper builds LLVM's wrapper object for one input with
// llvm-offload-wrapper and llc, returning its file name in dir.
func refWrapper(t *testing.T, dir, kind string, input []byte) string {
	t.Helper()
	return refWrapperFor(t, dir, hostTriple, kind, input)
}

// refWrapperFor is refWrapper for another host triple.
func refWrapperFor(t *testing.T, dir, triple, kind string, input []byte) string {
	t.Helper()
	arch, _, _ := strings.Cut(triple, "-")
	in := writeFile(t, dir, "ref-"+arch+"-"+kind+".in", input)
	bc := filepath.Join(dir, "ref-"+arch+"-"+kind+".bc")
	obj := "ref-" + arch + "-" + kind + ".o"
	runCmd(t, dir, tool(t, "llvm-offload-wrapper"), "--kind="+kind, "--triple="+triple, "-o", bc, in)
	runCmd(t, dir, tool(t, "llc"), "-filetype=obj", "-relocation-model=pic", bc, "-o", obj)
	return obj
}

// dumpObject renders the golden view of an object: sections, symbols,
// relocations and disassembly, without the file name line.
func dumpObject(t *testing.T, dir, file string) string {
	t.Helper()
	var re string
	if strings.HasSuffix(file, "-win.o") {
		re = runCmd(t, dir, tool(t, "llvm-readobj"), "--sections", "--relocations", "--symbols", "--unwind", file)
	} else {
		re = runCmd(t, dir, tool(t, "llvm-readelf"), "-S", "-s", "-r", file)
		eh := runCmd(t, dir, tool(t, "llvm-dwarfdump"), "--eh-frame", file)
		re += eh[strings.Index(eh, ".eh_frame contents:"):]
	}
	dis := runCmd(t, dir, tool(t, "llvm-objdump"), "-dr", file)
	var b strings.Builder
	fmt.Fprintln(&b, re)
	for _, l := range strings.Split(dis, "\n") {
		if strings.Contains(l, "file format") {
			continue
		}
		fmt.Fprintln(&b, l)
	}
	return b.String()
}

// TestOpenMPRegistrationStub compares, on every available host, what
// __tgt_register_lib receives from our object and from LLVM's for the same
// images (one OffloadBinary, one raw buffer), using a recording stub.
func TestOpenMPRegistrationStub(t *testing.T) {
	src, err := filepath.Abs("testdata/omp/stub.c")
	require.NoError(t, err)
	inc := stubInclude(t)
	images := [][]byte{
		packV1(1, 1, []byte("ELF-image-bytes"), "triple", hostTriple, "arch", "generic"),
		[]byte("RAW image, registered whole"),
	}
	for _, h := range hostEnvs(t) {
		t.Run(h.name, func(t *testing.T) {
			dir := t.TempDir()
			obj, err := OpenMP(Options{Triple: h.triple}, images)
			require.NoError(t, err)
			writeFile(t, dir, "ours.o", obj)
			// llvm-offload-wrapper takes files: write both images.
			in0 := writeFile(t, dir, "img0.bin", images[0])
			in1 := writeFile(t, dir, "img1.bin", images[1])
			runCmd(t, dir, tool(t, "llvm-offload-wrapper"), "--kind=openmp", "--triple="+h.triple, "-o", "ref.bc", in0, in1)
			runCmd(t, dir, tool(t, "llc"), "-filetype=obj", "-relocation-model=pic", "ref.bc", "-o", "ref.o")
			logs := map[string]string{}
			for _, w := range []string{"ours", "ref"} {
				runCmd(t, dir, h.cc, inc, "-o", w, src, w+".o")
				logs[w] = h.exec(t, dir, w)
			}
			assert.Equal(t, logs["ref"], logs["ours"])
			if h.name == "x86_64" {
				// Windows x64 template under Linux (see gpu_test.go).
				win, err := OpenMP(Options{Triple: hostTriple, winABI: true}, images)
				require.NoError(t, err)
				writeFile(t, dir, "win.o", win)
				runCmd(t, dir, h.cc, "-DMS_ABI", inc, "-o", "win", src, "win.o")
				assert.Equal(t, logs["ours"], h.exec(t, dir, "win"))
			}
			want := "register images=2 entries=2\n" +
				" entry kind=1 size=0 name=__omp_offloading_region_a\n" +
				" entry kind=1 size=12 name=global_b\n" +
				" image 0 size=15 fnv=" + fnv([]byte("ELF-image-bytes")) + " same-entries=1,1 head=ELF\n" +
				" image 1 size=27 fnv=" + fnv(images[1]) + " same-entries=1,1 head=RAW\n" +
				"main\nunregister same=1\n"
			assert.Equal(t, want, logs["ours"])

			// Unwinding through the registration function works as with
			// LLVM's object (.eh_frame): the backtrace taken inside
			// __tgt_register_lib is the same and goes past the
			// constructor into the C library's start-up code.
			for _, w := range []string{"ours", "ref"} {
				runCmd(t, dir, h.cc, "-DBACKTRACE", inc, "-o", w+"-bt", src, w+".o")
				logs[w] = h.exec(t, dir, w+"-bt")
			}
			assert.Equal(t, logs["ref"], logs["ours"])
			bt, _, _ := strings.Cut(logs["ours"], "\n")
			if n := len(strings.Fields(bt)); n < 5 {
				t.Errorf("backtrace stops early (%d frames): %s", n-1, bt)
			}
			t.Log(bt)
		})
	}
}
