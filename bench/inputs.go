package main

import (
	"bytes"
	"fmt"
	"github.com/offload-kit/offload-kit/bench/kernelgen"
	"os"
	"path/filepath"
	"strconv"
)

// Inputs. Every input is made by the LLVM 22 tools (or by patching what
// they made), never by the tool under test, so a broken offload-kit
// command cannot spoil the other rows.

const (
	mib        = 1 << 20
	hostTriple = "x86_64-pc-linux-gnu"
	ompTarget  = "x86_64-unknown-linux-gnu"
)

func (c *config) p(name ...string) string { return filepath.Join(append([]string{c.work}, name...)...) }
func (c *config) ours(n string) string    { return filepath.Join(c.bin, n) }
func (c *config) tool(n string) string    { return filepath.Join(c.llvm, n) }

func sizeName(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// hostObject compiles a small C file into a relocatable host object.
func hostObject(c *config) error {
	if exists(c.p("host.o")) {
		return nil
	}
	if err := os.WriteFile(c.p("host.c"), []byte("int host_fn(int x) { return x + 1; }\n"), 0o644); err != nil {
		return err
	}
	return c.sh(c.work, c.tool("clang"), "-c", "host.c", "-o", "host.o")
}

// payload makes, for a payload of n bytes: pay-N.bin (the image),
// pay-N.pkg (an OffloadBinary holding it, made by llvm-offload-binary)
// and, when fat is set, pay-N.fat.o (host.o with the package in an
// SHT_LLVM_OFFLOADING section .llvm.offloading, as clang
// -fembed-offload-object lays it out, made by llvm-objcopy). The image is
// named .o, so its image kind is "elf", which the linker wrappers link.
func payload(c *config, n int64, fat bool) error {
	bin, pkg, obj := payloadFiles(c, n)
	if err := writeData(bin, n, 1); err != nil {
		return err
	}
	if !exists(pkg) {
		if err := c.sh(c.work, c.tool("llvm-offload-binary"), "-o", pkg, imageArg(bin)); err != nil {
			return err
		}
	}
	if !fat || exists(obj) {
		return nil
	}
	if err := hostObject(c); err != nil {
		return err
	}
	return c.sh(c.work, append(append([]string{c.tool("llvm-objcopy")}, objcopyEmbed(pkg)...), "host.o", obj)...)
}

// objcopyEmbed are the llvm-objcopy options that add a package as clang
// does: SHT_LLVM_OFFLOADING (which llvm-objdump --offloading and
// clang-linker-wrapper look for), SHF_EXCLUDE, read-only, 8-aligned.
func objcopyEmbed(pkg string) []string {
	return []string{"--add-section=.llvm.offloading=" + pkg, "--set-section-type=.llvm.offloading=0x6fff4c0b",
		"--set-section-flags=.llvm.offloading=readonly,exclude", "--set-section-alignment=.llvm.offloading=8"}
}

func payloadFiles(c *config, n int64) (bin, pkg, obj string) {
	s := strconv.FormatInt(n, 10)
	return c.p("pay-" + s + ".o"), c.p("pay-" + s + ".pkg"), c.p("pay-" + s + ".fat.o")
}

func removePayload(c *config, n int64) {
	bin, pkg, obj := payloadFiles(c, n)
	os.Remove(bin)
	os.Remove(pkg)
	os.Remove(obj)
}

func imageArg(file string) string {
	return "--image=file=" + file + ",triple=" + ompTarget + ",arch=generic,kind=openmp"
}

// ompProgram compiles the OpenMP program of the issue 4 link row and the
// object templates: omp/a.o (a function with a target region, named
// kern_000000), omp/b.o (main), omp/b2.o (main after a host-only edit).
func ompProgram(c *config) error {
	dir := c.p("omp")
	if exists(filepath.Join(dir, "b2.o")) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// b2.o is b.c after a host-only edit, compiled under the same file
	// name (the device image's symbol table names the source file).
	files := map[string]string{
		"a.c":    "int kern_000000(int x) {\n  int r = 0;\n#pragma omp target map(tofrom: r)\n  { for (int i = 0; i < 64; i++) r += x * i; }\n  return r;\n}\n",
		"b.c":    "#include <stdio.h>\nint kern_000000(int);\nint main(void) { printf(\"%d\\n\", kern_000000(21)); return 0; }\n",
		"v2/b.c": "#include <stdio.h>\nint kern_000000(int);\nint main(void) { printf(\"result: %d\\n\", kern_000000(42)); return 0; }\n",
	}
	if err := os.MkdirAll(filepath.Join(dir, "v2"), 0o755); err != nil {
		return err
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	for _, f := range [][2]string{{"a.c", "a.o"}, {"b.c", "b.o"}, {"v2/b.c", "b2.o"}} {
		src, obj := filepath.Base(f[0]), filepath.Join(dir, f[1])
		if err := c.sh(filepath.Join(dir, filepath.Dir(f[0])), "clang-22", "-fopenmp", "-fopenmp-targets="+ompTarget, "-O1", "-c", src, "-o", obj); err != nil {
			return err
		}
	}
	return nil
}

// fatObjects makes n small fat objects, distinct copies of omp/a.o with
// the kernel renamed (same length, so every offset stays valid): four
// fifths as plain objects, the rest as members of archives of up to 50
// members. It returns the input arguments for a link, main object first.
func fatObjects(c *config, n int) ([]string, error) {
	if err := ompProgram(c); err != nil {
		return nil, err
	}
	dir := c.p("objs-" + strconv.Itoa(n))
	list := filepath.Join(dir, "inputs")
	if b, err := os.ReadFile(list); err == nil {
		return append([]string{c.p("omp", "b.o")}, splitLines(string(b))...), nil
	}
	tmpl, err := os.ReadFile(c.p("omp", "a.o"))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "ar"), 0o755); err != nil {
		return nil, err
	}
	var inputs, members []string
	plain := n - n/5
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("k%06d.o", i)
		path := filepath.Join(dir, name)
		if i > plain {
			path = filepath.Join(dir, "ar", name)
			members = append(members, path)
		} else {
			inputs = append(inputs, path)
		}
		b := bytes.ReplaceAll(tmpl, []byte("kern_000000"), fmt.Appendf(nil, "kern_%06d", i))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return nil, err
		}
	}
	for k := 0; len(members) > 0; k++ {
		m := members[:min(50, len(members))]
		members = members[len(m):]
		lib := filepath.Join(dir, fmt.Sprintf("libk%d.a", k))
		if err := c.sh(dir, append([]string{c.tool("llvm-ar"), "rcs", lib}, m...)...); err != nil {
			return nil, err
		}
		for _, f := range m {
			os.Remove(f)
		}
		inputs = append(inputs, lib)
	}
	if err := os.WriteFile(list, []byte(joinLines(inputs)), 0o644); err != nil {
		return nil, err
	}
	return append([]string{c.p("omp", "b.o")}, inputs...), nil
}

// wrapperArgs is the clang-linker-wrapper command line that clang-22
// -fopenmp builds (trimmed of the crt files and system libraries, which
// only the host link reads), with the given inputs.
func wrapperArgs(c *config, tool string, out string, inputs []string, extra ...string) []string {
	a := []string{tool, "--host-triple=" + hostTriple, "--linker-path=/usr/bin/ld"}
	a = append(a, extra...)
	a = append(a, "-o", out)
	a = append(a, inputs...)
	return append(a, "-lomp", "-lomptarget", "-L"+filepath.Join(filepath.Dir(c.llvm), "lib"))
}

// kernelModule writes split/N/in.ll and in.bc: the synthetic module of
// bench/split (N kernels, each calling its own helper and one shared
// function, spread over 50 translation units; sycl.md §4.7).
func kernelModule(c *config, n int) (string, error) {
	return moduleFile(c, "split", n, kernelgen.Module, true)
}

// bigBody is the helper length of the RSS row's module: 4000 kernels
// make about 64 MiB of text, so the Go runtime's few MiB are noise next
// to it.
const bigBody = 600

// bigKernelModule writes the RSS row's module as text (sycl-linker reads
// a single .ll in place; bitcode would be charged llvm-dis's memory).
func bigKernelModule(c *config, n int) (string, error) {
	text := func(n int) []byte { return kernelgen.ModuleBody(n, bigBody) }
	return moduleFile(c, "split-big", n, text, false)
}

// moduleFile writes DIR/N/in.ll, the text of a synthetic module of n
// kernels, and with bitcode in.bc made from it by llvm-as; it returns the
// file the rows read (in.bc, or in.ll without bitcode), and does nothing
// when that exists.
func moduleFile(c *config, dir string, n int, text func(n int) []byte, bitcode bool) (string, error) {
	dir = c.p(dir, strconv.Itoa(n))
	ll, bc := filepath.Join(dir, "in.ll"), filepath.Join(dir, "in.bc")
	in := ll
	if bitcode {
		in = bc
	}
	if exists(in) {
		return in, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(ll, text(n), 0o644); err != nil {
		return "", err
	}
	if !bitcode {
		return ll, nil
	}
	return bc, c.sh(dir, c.tool("llvm-as"), ll, "-o", bc)
}

func bigSplitSide(c *config, n int) side {
	dir := c.p("split-big", strconv.Itoa(n))
	out := c.splitOut("split-big", n, "ours")
	return side{argv: []string{c.ours("sycl-linker"), "--triple=spir64", "--module-split-mode=kernel", "--ir-output-only", "-S",
		"-o", filepath.Join(out, "parts.table"), filepath.Join(dir, "in.ll")}, dir: dir, fresh: []string{out}}
}

func splitSides(c *config, n int) (ours, ref side) {
	dir := c.p("split", strconv.Itoa(n))
	bc := filepath.Join(dir, "in.bc")
	o, r := c.splitOut("split", n, "ours"), c.splitOut("split", n, "ref")
	ours = side{argv: []string{c.ours("sycl-linker"), "--triple=spir64", "--module-split-mode=kernel", "--ir-output-only", "-S",
		"-o", filepath.Join(o, "parts.table"), bc}, dir: dir, fresh: []string{o}}
	ref = side{argv: []string{c.tool("llvm-split"), "--split-by-category=kernel", "-S", bc, "-o", filepath.Join(r, "out")},
		dir: dir, fresh: []string{r}}
	return
}

// splitOut is where a split writes its thousands of modules: the memory
// file system (c.fast) when there is one, for both tools. On this VM's
// disk, creating 12 000 small files costs 0.3 s one minute and 5 s the
// next (the host's I/O, in the kernel), which would decide the rows.
func (c *config) splitOut(kind string, n int, side string) string {
	if c.fast != "" {
		return filepath.Join(c.fast, kind, strconv.Itoa(n), side)
	}
	return c.p(kind, strconv.Itoa(n), side)
}

func splitLines(s string) []string {
	var out []string
	for _, l := range bytes.Split([]byte(s), []byte("\n")) {
		if len(l) > 0 {
			out = append(out, string(l))
		}
	}
	return out
}

func joinLines(l []string) string {
	var b bytes.Buffer
	for _, s := range l {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String()
}
