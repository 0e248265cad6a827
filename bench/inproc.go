package main

// Issue 15: the SYCL IR pipeline with LLVM in-process (libLLVM in
// sycl-linker's helper processes, internal/llvmpool).

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/offload-kit/offload-kit/bench/kernelgen"
)

// inprocKernels are the kernel counts of the issue's rows (fixed: the
// rows' names say them).
func inprocKernels(*config) (small, big int) { return 2000, 8000 }

// inprocModule writes inproc/N/in.bc: the synthetic module of the split
// rows, given as bitcode (the normal case).
func inprocModule(c *config, n int) (string, error) {
	return moduleFile(c, "inproc", n, kernelgen.Module, true)
}

// bcSplitSide: sycl-linker writing every part as bitcode.
func bcSplitSide(c *config, n int) side {
	dir := c.p("inproc", strconv.Itoa(n))
	o := c.splitOut("inproc", n, "ours")
	return side{argv: []string{c.ours("sycl-linker"), "--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only",
		"-o", filepath.Join(o, "out.table"), "in.bc"}, dir: dir, fresh: []string{o}}
}

// twoTUs compiles two SYCL translation units to device bitcode.
func twoTUs(c *config) error {
	dir := c.p("inproc", "2tu")
	if exists(filepath.Join(dir, "b.bc")) {
		return nil
	}
	return compileTwoTUs(c, dir, func(n string) []string {
		return []string{c.tool("clang"), "-cc1", "-fsycl-is-device", "-triple", "spirv64", "-O2", "-emit-llvm-bc", n + ".cpp", "-o", n + ".bc"}
	})
}

// compileTwoTUs writes twoTUSources to dir as N.cpp and runs compile(N)
// there for each.
func compileTwoTUs(c *config, dir string, compile func(n string) []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for n, src := range twoTUSources {
		if err := os.WriteFile(filepath.Join(dir, n+".cpp"), []byte(src), 0o644); err != nil {
			return err
		}
		if err := c.sh(dir, compile(n)...); err != nil {
			return err
		}
	}
	return nil
}

// twoTUSources are the two SYCL translation units of the 2-TU rows.
var twoTUSources = map[string]string{
	"a": "template <typename N, typename K>\n[[clang::sycl_kernel_entry_point(N)]] void kl(K k) { k(); }\nstruct KD; struct KI;\nint shared_helper(int x);\n" +
		"void f(double *d, int *i) {\n  kl<KD>([=] { d[0] = d[1] * 2.5; });\n  kl<KI>([=] { i[0] = shared_helper(i[1]) + 1; });\n}\n",
	"b": "template <typename N, typename K>\n[[clang::sycl_kernel_entry_point(N)]] void kl(K k) { k(); }\nstruct KB;\nint shared_helper(int x) { return x * 3; }\n" +
		"void g(int *i) { kl<KB>([=] { i[0] = shared_helper(i[2]); }); }\n",
}

// syclProgram compiles the two translation units with clang++ -fsycl
// (fat host objects holding SPIR-V device bitcode) and a host object that
// stands for the SYCL runtime (the image registration functions, empty)
// and holds main.
func syclProgram(c *config) error {
	dir := c.p("inproc", "2tu-fsycl")
	if exists(filepath.Join(dir, "rt.o")) {
		return nil
	}
	err := compileTwoTUs(c, dir, func(n string) []string {
		return []string{c.tool("clang++"), "-fsycl", "-O2", "-c", n + ".cpp", "-o", n + ".o"}
	})
	if err != nil {
		return err
	}
	rt := "void __sycl_register_lib(void *d) { (void)d; }\nvoid __sycl_unregister_lib(void *d) { (void)d; }\nint main(void) { return 0; }\n"
	if err := os.WriteFile(filepath.Join(dir, "rt.c"), []byte(rt), 0o644); err != nil {
		return err
	}
	return c.sh(dir, c.tool("clang"), "-O2", "-c", "rt.c", "-o", "rt.o")
}

// syclLinkSide links the program with clang++ -fsycl; LLVM's directory
// leads PATH because clang runs clang-sycl-linker by its bare name.
func syclLinkSide(c *config, b []string, out string) side {
	argv := []string{"env", "PATH=" + c.llvm + ":" + os.Getenv("PATH"), c.tool("clang++"), "-fsycl"}
	argv = append(append(argv, b...), "a.o", "b.o", "rt.o", "-o", out)
	return side{argv: argv, dir: c.p("inproc", "2tu-fsycl")}
}

func inprocCases() []benchCase {
	return []benchCase{
		{
			name: "in-process per-kernel split, 2000 kernels, .bc in, .bc out", issue: 15, refDesc: "llvm-split --split-by-category=kernel",
			setup: func(c *config) error { n, _ := inprocKernels(c); _, err := inprocModule(c, n); return err },
			ours:  func(c *config) side { n, _ := inprocKernels(c); return bcSplitSide(c, n) },
			ref: func(c *config) side {
				n, _ := inprocKernels(c)
				r := c.splitOut("inproc", n, "ref")
				return side{argv: []string{c.tool("llvm-split"), "--split-by-category=kernel", "in.bc", "-o", filepath.Join(r, "out")},
					dir: c.p("inproc", strconv.Itoa(n)), fresh: []string{r}}
			},
			oursKey: func(c *config) string { n, _ := inprocKernels(c); return fmt.Sprint("inproc-split/ours/", n) },
			target:  fixed(target{maxWallRatio: 0.05, text: "≤ 0.05× wall"}),
			method:  "`sycl-linker --triple=spirv64 --module-split-mode=kernel --ir-output-only in.bc -o out.table`: the module is linked and read, split, and every part written as bitcode, all through libLLVM in sycl-linker's helper processes (`-v` says so); llvm-split writes bitcode too. Both write to `/dev/shm` when there is one.",
		},
		{
			name: "in-process split scaling 2000→8000 kernels (.bc)", issue: 15, refDesc: "offload-kit at 2000 kernels",
			setup: func(c *config) error {
				a, b := inprocKernels(c)
				if _, err := inprocModule(c, a); err != nil {
					return err
				}
				_, err := inprocModule(c, b)
				return err
			},
			ours:    func(c *config) side { _, n := inprocKernels(c); return bcSplitSide(c, n) },
			ref:     func(c *config) side { n, _ := inprocKernels(c); return bcSplitSide(c, n) },
			oursKey: func(c *config) string { _, n := inprocKernels(c); return fmt.Sprint("inproc-split/ours/", n) },
			refKey:  func(c *config) string { n, _ := inprocKernels(c); return fmt.Sprint("inproc-split/ours/", n) },
			target:  fixed(target{maxWallRatio: 4.5, text: "≤ 4.5× (linear)"}),
		},
		{
			name: "SYCL link of 2 TUs, no split, SPIR-V out", issue: 15, refDesc: "clang-sycl-linker",
			setup: twoTUs,
			ours: func(c *config) side {
				return side{argv: []string{c.ours("sycl-linker"), "--triple=spirv64", "a.bc", "b.bc", "-o", "out/ours.bin"}, dir: c.p("inproc", "2tu"), fresh: []string{c.p("inproc", "2tu", "out")}}
			},
			ref: func(c *config) side {
				return side{argv: []string{c.tool("clang-sycl-linker"), "--triple=spirv64", "a.bc", "b.bc", "-o", "out/ref.bin"}, dir: c.p("inproc", "2tu"), fresh: []string{c.p("inproc", "2tu", "out")}}
			},
			target: fixed(target{maxWallRatio: 1.0, maxRSSRatio: 1.5, text: "≤ 1.0× wall, ≤ 1.5× RSS"}),
			runs:   15,
			method: "two clang 22 `-fsycl-is-device` translation units (three kernels, one fp64), linked, read and compiled to one SPIR-V image; ours in its helper process (RSS: the largest process of the tree).",
		},
		{
			name: "the same through linker-wrapper via clang -B", issue: 15, refDesc: "clang++ -fsycl (LLVM's clang-linker-wrapper: clang --sycl-link, clang-sycl-linker)",
			setup:  syclProgram,
			ours:   func(c *config) side { return syclLinkSide(c, []string{"-B" + c.bin}, "app.ours") },
			ref:    func(c *config) side { return syclLinkSide(c, nil, "app.ref") },
			runs:   11,
			method: "the two translation units of the row above compiled by `clang++ -fsycl -O2 -c` (fat host objects) and a host object with `main` and empty `__sycl_register_lib`/`__sycl_unregister_lib`, linked by `clang++ -fsycl a.o b.o rt.o` (one SPIR-V image, no split), the host link by `ld` included: `-B bin` picks up our `clang-linker-wrapper`, which links the SYCL device code in-process (libLLVM in its helper processes); LLVM's runs `clang --sycl-link`, which runs `clang-sycl-linker`. No target: report only.",
		},
		{
			name: "in-process per-kernel split + SPIR-V codegen, 2000 kernels", issue: 15, refDesc: "llvm-split, then one llc per part (in parallel)",
			setup: func(c *config) error { n, _ := inprocKernels(c); _, err := inprocModule(c, n); return err },
			ours: func(c *config) side {
				n, _ := inprocKernels(c)
				o := c.splitOut("inproc-spv", n, "ours")
				return side{argv: []string{c.ours("sycl-linker"), "--triple=spirv64", "--module-split-mode=kernel", "-o", filepath.Join(o, "out.bin"), "in.bc"},
					dir: c.p("inproc", strconv.Itoa(n)), fresh: []string{o}}
			},
			ref: func(c *config) side {
				n, _ := inprocKernels(c)
				r := c.splitOut("inproc-spv", n, "ref")
				script := fmt.Sprintf(`%s --split-by-category=kernel in.bc -o %s/part && ls %s/part* | xargs -P "$(nproc)" -I{} %s -mtriple=spirv64 -filetype=obj {} -o {}.spv`,
					c.tool("llvm-split"), r, r, c.tool("llc"))
				return side{argv: []string{"/bin/sh", "-c", script}, dir: c.p("inproc", strconv.Itoa(n)), fresh: []string{r}}
			},
			target: fixed(target{maxWallRatio: 0.1, text: "≤ 0.1× wall"}),
			method: "ours: one OffloadBinary per kernel at -o (SPIR-V from libLLVM's SPIR-V backend in the helper processes); the reference splits with llvm-split and runs one llc per part, as many at once as there are CPUs.",
		},
	}
}
