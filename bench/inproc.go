package main

// Issue 15: the SYCL IR pipeline with LLVM in-process (libLLVM in
// sycl-linker's helper processes, internal/llvmpool).

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/offload-kit/offload-kit/bench/kernelgen"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
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
			oursKey:  func(c *config) string { n, _ := inprocKernels(c); return fmt.Sprint("inproc-split/ours/", n) },
			target:   fixed(target{maxWallRatio: 0.05, text: "≤ 0.05× wall"}),
			method:   "`sycl-linker --triple=spirv64 --module-split-mode=kernel --ir-output-only in.bc -o out.table`: the module is linked and read, split, and every part written as bitcode, all through libLLVM in sycl-linker's helper processes (`-v` says so); llvm-split writes bitcode too. Both write to `/dev/shm` when there is one. " + splitValidated,
			validate: func(c *config, who string, s side) error { n, _ := inprocKernels(c); return validateSplit(c, s, n) },
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
			method:  splitValidated,
			validate: func(c *config, who string, s side) error {
				a, b := inprocKernels(c)
				if who == "ref" {
					return validateSplit(c, s, a)
				}
				return validateSplit(c, s, b)
			},
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
			target:   fixed(target{maxWallRatio: 1.25, maxRSSRatio: 1.5, text: "≤ 1.25× wall, ≤ 1.5× RSS"}),
			runs:     15,
			validate: validateTwoTU,
			method:   "two clang 22 `-fsycl-is-device` translation units (three kernels, one fp64), linked, read and compiled to one SPIR-V image; ours in its helper process (RSS: the largest process of the tree). Each output must be one OffloadBinary whose image passes `spirv-val` and has the three kernels' entry points.",
		},
		{
			name: "the same through linker-wrapper via clang -B", issue: 15, refDesc: "clang++ -fsycl (LLVM's clang-linker-wrapper: clang --sycl-link, clang-sycl-linker)",
			setup:    syclProgram,
			ours:     func(c *config) side { return syclLinkSide(c, []string{"-B" + c.bin}, "app.ours") },
			ref:      func(c *config) side { return syclLinkSide(c, nil, "app.ref") },
			runs:     11,
			target:   fixed(target{maxWallRatio: 1.0, text: "≤ 1.0× wall"}),
			validate: validateSYCLProgram,
			method:   "the two translation units of the row above compiled by `clang++ -fsycl -O2 -c` (fat host objects) and a host object with `main` and empty `__sycl_register_lib`/`__sycl_unregister_lib`, linked by `clang++ -fsycl a.o b.o rt.o` (one SPIR-V image, no split), the host link by `ld` included: `-B bin` picks up our `clang-linker-wrapper`, which links the SYCL device code in-process (libLLVM in its helper processes); LLVM's runs `clang --sycl-link`, which runs `clang-sycl-linker`. Each program must embed one device image (`.sycl_offloading.0.data`) that passes `spirv-val` and has the three kernels' entry points, and three offloading entries.",
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
			validate: func(c *config, who string, s side) error {
				n, _ := inprocKernels(c)
				return validateKernelImages(c, who, s, n)
			},
			method: "ours: one OffloadBinary per kernel at -o (SPIR-V from libLLVM's SPIR-V backend in the helper processes); the reference splits with llvm-split and runs one llc per part, as many at once as there are CPUs. Every image of both sides must pass `spirv-val`, one per kernel; ours must have one entry point each, every kernel once, and 24 of them, spread over the kernels, must be byte for byte llc's SPIR-V of the same part (the parts written by `sycl-linker --ir-output-only`).",
		},
	}
}

// spirvValid runs spirv-val on each image (as many at once as there are
// CPUs); the first failure names the image (its index and label).
func spirvValid(c *config, imgs [][]byte, label func(i int) string) error {
	dir, err := os.MkdirTemp(c.tmp, "spirv-val-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	errs := make([]error, len(imgs))
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for i, img := range imgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f := filepath.Join(dir, fmt.Sprintf("%d.spv", i))
			if err := os.WriteFile(f, img, 0o644); err != nil {
				errs[i] = err
				return
			}
			out, err := exec.Command("spirv-val", f).CombinedOutput()
			if err != nil {
				errs[i] = fmt.Errorf("image %d (%s): spirv-val: %v: %s", i, label(i), err, firstLines(string(out), 2))
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// offloadSPIRV reads the OffloadBinaries in file: want images (-1: any
// number), each SPIR-V.
func offloadSPIRV(file string, want int) ([]*offload.Binary, error) {
	buf, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	bins, err := offload.ParseAll(buf, offload.ReadOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if want >= 0 && len(bins) != want {
		return nil, fmt.Errorf("%s: %d images, want %d", file, len(bins), want)
	}
	for i, b := range bins {
		if format.Identify(b.Image) != format.KindSPIRV {
			return nil, fmt.Errorf("%s: image %d is not SPIR-V", file, i)
		}
	}
	return bins, nil
}

// spirvEntryPoints are the names of a SPIR-V module's OpEntryPoints.
func spirvEntryPoints(img []byte) []string {
	if len(img) < 20 || len(img)%4 != 0 {
		return nil
	}
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(img[4*i:]) }
	var names []string
	for i := 5; i < len(img)/4; {
		n, op := int(word(i)>>16), word(i)&0xffff
		if n == 0 || i+n > len(img)/4 {
			break
		}
		const opEntryPoint = 15 // model, id, name (a literal string), interface...
		if op == opEntryPoint && n > 3 {
			s := img[4*(i+3) : 4*(i+n)]
			if j := bytes.IndexByte(s, 0); j >= 0 {
				names = append(names, string(s[:j]))
			}
		}
		i += n
	}
	return names
}

// validateTwoTU: the 2-TU link's output is one OffloadBinary whose one
// image is valid SPIR-V with the three kernels.
func validateTwoTU(c *config, who string, s side) error {
	bins, err := offloadSPIRV(filepath.Join(s.dir, s.argv[len(s.argv)-1]), 1)
	if err != nil {
		return err
	}
	if eps := spirvEntryPoints(bins[0].Image); len(eps) != 3 {
		return fmt.Errorf("the image has %d entry points (%q), want the 3 kernels", len(eps), eps)
	}
	return spirvValid(c, [][]byte{bins[0].Image}, func(int) string { return who })
}

// validateSYCLProgram: the program linked by clang++ -fsycl embeds one
// device image (the wrapper's .sycl_offloading.N.data), valid SPIR-V
// with the three kernels, and three offloading entries.
func validateSYCLProgram(c *config, who string, s side) error {
	exe := filepath.Join(s.dir, s.argv[len(s.argv)-1])
	f, err := elf.Open(exe)
	if err != nil {
		return err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return fmt.Errorf("%s: %v", exe, err)
	}
	var imgs [][]byte
	entries := 0
	for _, sym := range syms {
		switch {
		case strings.HasPrefix(sym.Name, ".offloading.entry._Z"):
			entries++
		case strings.HasPrefix(sym.Name, ".sycl_offloading.") && strings.HasSuffix(sym.Name, ".data"):
			if int(sym.Section) >= len(f.Sections) {
				return fmt.Errorf("%s: %s: no section", exe, sym.Name)
			}
			sec := f.Sections[sym.Section]
			data, err := sec.Data()
			if err != nil || sym.Value < sec.Addr || sym.Value-sec.Addr+sym.Size > uint64(len(data)) {
				return fmt.Errorf("%s: %s: not inside %s", exe, sym.Name, sec.Name)
			}
			img := data[sym.Value-sec.Addr:][:sym.Size]
			if format.Identify(img) != format.KindSPIRV {
				return fmt.Errorf("%s: %s is not SPIR-V", exe, sym.Name)
			}
			imgs = append(imgs, img)
		}
	}
	if len(imgs) != 1 || entries != 3 {
		return fmt.Errorf("%s: %d device images and %d offloading entries, want 1 and 3", exe, len(imgs), entries)
	}
	if eps := spirvEntryPoints(imgs[0]); len(eps) != 3 {
		return fmt.Errorf("%s: the image has %d entry points (%q), want the 3 kernels", exe, len(eps), eps)
	}
	return spirvValid(c, imgs, func(int) string { return who })
}

// spirvSample is how many of the per-kernel images are compared byte for
// byte with llc's SPIR-V of the same part.
const spirvSample = 24

// validateKernelImages: ours wrote n OffloadBinaries, one SPIR-V image
// per kernel, each with one entry point and every kernel once, all
// passing spirv-val; a sample of them are byte for byte llc's SPIR-V for
// the same part (sycl-linker --ir-output-only gives the parts, whose .sym
// files name their kernels). The reference's parts: n .spv files, all
// passing spirv-val.
func validateKernelImages(c *config, who string, s side, n int) error {
	if who == "ref" {
		spvs, err := filepath.Glob(filepath.Join(s.fresh[0], "part*.spv"))
		if err != nil {
			return err
		}
		if len(spvs) != n {
			return fmt.Errorf("%d SPIR-V files, want %d", len(spvs), n)
		}
		imgs := make([][]byte, len(spvs))
		for i, f := range spvs {
			if imgs[i], err = os.ReadFile(f); err != nil {
				return err
			}
		}
		return spirvValid(c, imgs, func(i int) string { return filepath.Base(spvs[i]) })
	}
	bins, err := offloadSPIRV(filepath.Join(s.fresh[0], "out.bin"), n)
	if err != nil {
		return err
	}
	imgs := make([][]byte, len(bins))
	byKernel := map[string]int{}
	for i, b := range bins {
		imgs[i] = b.Image
		eps := spirvEntryPoints(b.Image)
		if len(eps) != 1 {
			return fmt.Errorf("image %d has %d entry points, want 1", i, len(eps))
		}
		if _, dup := byKernel[eps[0]]; dup {
			return fmt.Errorf("kernel %s has two images", eps[0])
		}
		byKernel[eps[0]] = i
	}
	if err := spirvValid(c, imgs, func(i int) string { return spirvEntryPoints(imgs[i])[0] }); err != nil {
		return err
	}
	// llc on a sample of the same parts
	dir, err := os.MkdirTemp(c.tmp, "parts-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := c.sh(s.dir, c.ours("sycl-linker"), "--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only", "-o", filepath.Join(dir, "out.table"), s.argv[len(s.argv)-1]); err != nil {
		return err
	}
	for k := range spirvSample {
		i := k * n / spirvSample
		part := filepath.Join(dir, fmt.Sprintf("out_%d", i))
		sym, err := os.ReadFile(part + ".sym")
		if err != nil {
			return err
		}
		kernel := strings.TrimSpace(string(sym))
		j, ok := byKernel[kernel]
		if !ok {
			return fmt.Errorf("no image for kernel %s (part %d)", kernel, i)
		}
		want, err := exec.Command(c.tool("llc"), "-mtriple=spirv64", "-filetype=obj", part+".bc", "-o", "-").Output()
		if err != nil {
			return fmt.Errorf("llc %s.bc: %v", part, err)
		}
		if !bytes.Equal(want, imgs[j]) {
			return fmt.Errorf("kernel %s: the image differs from llc's SPIR-V for its part (%d bytes against %d)", kernel, len(imgs[j]), len(want))
		}
	}
	return nil
}
