package linkwrap

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// partitionOMP writes an OpenMP program of tus C files with regions
// target regions each, offloaded to the host CPU: the regions call a
// declare-target function of their file, one shared by all files
// (defined in tu0), a recursive one, and read and write declare-target
// arrays; main (in tu0) runs every region and prints each result and
// whether it ran on the offload device. edit changes one region: "t/k".
func partitionOMP(t *testing.T, dir string, tus, regions int, edit string) {
	t.Helper()
	for tu := 0; tu < tus; tu++ {
		var b strings.Builder
		p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
		p(`#include <stdio.h>`)
		p(`#include <omp.h>`)
		p(`#pragma omp declare target`)
		if tu != 0 {
			p(`extern int g_tab[8];`)
		}
		p(`int shared_mix(int a, int b);`)
		if tu == 0 {
			p(`int g_tab[8] = {3, 1, 4, 1, 5, 9, 2, 6};`)
			p(`__attribute__((noinline)) int shared_mix(int a, int b) { return (a * 31) ^ (b + g_tab[b & 7]); }`)
		}
		p(`static int hits_%d[%d];`, tu, regions)
		p(`static __attribute__((noinline)) int helper_%d(int x) { int a = x; for (int i = 0; i < 8; i++) a = a * 3 + g_tab[(i + %d) & 7]; return a; }`, tu, tu)
		p(`static __attribute__((noinline)) int fib_%d(int n) { return n < 2 ? n : fib_%d(n - 1) + fib_%d(n - 2); }`, tu, tu, tu)
		p(`#pragma omp end declare target`)
		for k := 0; k < regions; k++ {
			extra := ""
			if edit == fmt.Sprintf("%d/%d", tu, k) {
				extra = " r += 1000;"
			}
			p(`int run_%d_%d(int x, int *dev) {`, tu, k)
			p(`  int r = 0, d = 0;`)
			p(`#pragma omp target map(tofrom: r, d)`)
			p(`  { d = !omp_is_initial_device(); hits_%d[%d]++; r = helper_%d(x + %d) + shared_mix(x, %d) + fib_%d(%d) + hits_%d[%d];%s }`, tu, k, tu, k, k, tu, k%9, tu, k, extra)
			p(`  *dev = d;`)
			p(`  return r;`)
			p(`}`)
		}
		if tu == 0 {
			for t2 := 0; t2 < tus; t2++ {
				for k := 0; k < regions; k++ {
					p(`int run_%d_%d(int, int *);`, t2, k)
				}
			}
			p(`int main(void) {`)
			p(`  int all = 1, dev;`)
			for t2 := 0; t2 < tus; t2++ {
				for k := 0; k < regions; k++ {
					p(`  printf("run_%d_%d %%d\n", run_%d_%d(%d, &dev)); all &= dev;`, t2, k, t2, k, k+t2)
				}
			}
			p(`  printf("g_tab %%d on_device=%%d\n", g_tab[1], all);`)
			p(`  return 0;`)
			p(`}`)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("tu%d.c", tu)), []byte(b.String()), 0o644))
	}
}

// TestPartitionedOpenMPRuns: an OpenMP program offloaded to the host CPU
// (x86_64), compiled with -foffload-lto, linked through clang -B with
// --device-partitions=3: the device image is made of 3 parts, and the
// program prints what LLVM 22's link of it prints, every region on the
// offload device. After a one-region edit one part is compiled again
// and the output still matches.
func TestPartitionedOpenMPRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	dir := t.TempDir()
	const tus, regions = 3, 6
	partitionOMP(t, dir, tus, regions, "")
	flags := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-foffload-lto", "-O2"}
	cc1 := func(tu int) {
		sh(t, dir, nil, append(append([]string{cc}, flags...), "-c", fmt.Sprintf("tu%d.c", tu), "-o", fmt.Sprintf("tu%d.o", tu))...)
	}
	var objs []string
	for tu := 0; tu < tus; tu++ {
		cc1(tu)
		objs = append(objs, fmt.Sprintf("tu%d.o", tu))
	}
	link := append(append([]string{cc}, flags...), "-L"+lib, "-Wno-unused-command-line-argument")
	cacheDir := filepath.Join(dir, "cache")
	ours := func(out string) string {
		args := append(append(append([]string{}, link...), "-B"+bin, "-o", out, "-Xlinker", "--device-partitions=3",
			"-Xlinker", "--wrapper-verbose", "-Xlinker", "--cache-dir="+cacheDir), objs...)
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		return string(b)
	}
	ref := func(out string) string {
		sh(t, dir, nil, append(append(append([]string{}, link...), "-o", out), objs...)...)
		return sh(t, dir, nil, "./"+out)
	}
	want := ref("whole")
	require.Contains(t, want, " on_device=1\n")
	log := ours("parts")
	assert.Contains(t, log, "device link for x86_64-unknown-linux-gnu: 3 parts, 3 compiled, 0 from the cache")
	assert.Equal(t, want, sh(t, dir, nil, "./parts"), "output of the program linked in parts")
	partitionOMP(t, dir, tus, regions, "1/2")
	cc1(1)
	want = ref("whole-edit")
	require.Contains(t, want, "run_1_2 ")
	log = ours("parts-edit")
	assert.Contains(t, log, "device link for x86_64-unknown-linux-gnu: 3 parts, 1 compiled, 2 from the cache")
	assert.Equal(t, want, sh(t, dir, nil, "./parts-edit"), "output after the edit")
}
