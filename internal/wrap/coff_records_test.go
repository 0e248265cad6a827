package wrap

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// TestCOFFRecordsMatchLLVM compares `llvm-readobj --sections --symbols` of
// our Windows (x86_64-pc-windows-msvc) registration objects with LLVM
// 22's for the same input: every section header and every symbol record
// with its aux records (section definitions with length, relocation count,
// checksum, number and selection; weak externals with the symbol they link
// to and the search characteristics; the .file record). OpenMP (one image
// and two), CUDA and HIP (plain and a compressed offload bundle) come from
// llvm-offload-wrapper + llc; SYCL from clang-linker-wrapper --save-temps
// on a COFF host object carrying a SPIR-V kernel (clang-sycl-linker does
// the device link), with our object made from the device image that the
// reference wrapped. coffNormalize says what is normalised and why.
func TestCOFFRecordsMatchLLVM(t *testing.T) {
	tool(t, "llvm-offload-wrapper")
	readobj := tool(t, "llvm-readobj")
	opts := Options{Triple: winTriple}
	omp := packV1(1, 1, []byte("ABCDEFGHIJ"), "triple", hostTriple, "arch", "generic")
	omp2 := packV1(1, 1, []byte("second image, 8-aligned after the first"), "triple", hostTriple, "arch", "generic")
	cases := []struct {
		name, kind string
		inputs     [][]byte
		build      func() ([]byte, error)
	}{
		{"openmp", "openmp", [][]byte{omp}, func() ([]byte, error) { return OpenMP(opts, [][]byte{omp}) }},
		{"openmp-2", "openmp", [][]byte{omp, omp2}, func() ([]byte, error) { return OpenMP(opts, [][]byte{omp, omp2}) }},
		{"cuda", "cuda", [][]byte{testFatbin(64)}, func() ([]byte, error) { return CUDA(opts, testFatbin(64)) }},
		{"cuda-small", "cuda", [][]byte{testFatbin(4)}, func() ([]byte, error) { return CUDA(opts, testFatbin(4)) }},
		{"cuda-16", "cuda", [][]byte{testFatbin(8)}, func() ([]byte, error) { return CUDA(opts, testFatbin(8)) }},
		{"hip", "hip", [][]byte{testFatbin(64)}, func() ([]byte, error) { return HIP(opts, testFatbin(64)) }},
		{"hip-17", "hip", [][]byte{testFatbin(9)}, func() ([]byte, error) { return HIP(opts, testFatbin(9)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ours := writeFile(t, dir, "ours.obj", must(t, tc.build))
			ref := llvmWinWrapper(t, dir, tc.kind, tc.inputs...)
			assertCOFFRecords(t, dir, readobj, ours, ref, tc.kind)
		})
	}
	t.Run("hip-compressed", func(t *testing.T) {
		dir := t.TempDir()
		fatbin := compressedBundle(t, dir)
		ours := writeFile(t, dir, "ours.obj", must(t, func() ([]byte, error) { return HIP(opts, fatbin) }))
		ref := llvmWinWrapper(t, dir, "hip", fatbin)
		assertCOFFRecords(t, dir, readobj, ours, ref, "hip")
	})
	t.Run("openmp-relocatable", func(t *testing.T) {
		dir := t.TempDir()
		ref, img := llvmWinOpenMPRelocatable(t, dir)
		ours := writeFile(t, dir, "ours.obj", must(t, func() ([]byte, error) {
			return OpenMP(Options{Triple: winTriple, Relocatable: true}, [][]byte{img})
		}))
		assertCOFFRecords(t, dir, readobj, ours, ref, "openmp")
	})
	for name, kernels := range map[string][]string{
		"sycl":            {"k1", "k2"},
		"sycl-long-names": {"kernel_with_a_name_longer_than_16_bytes", "k1", "k2"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ref, img := llvmWinSYCLWrapper(t, dir, kernels...)
			images, err := SYCLImagesFromBinaries(img)
			require.NoError(t, err)
			require.Len(t, images, 1)
			require.Equal(t, kernels, images[0].Symbols)
			ours := writeFile(t, dir, "ours.obj", must(t, func() ([]byte, error) { return SYCL(opts, images) }))
			assertCOFFRecords(t, dir, readobj, ours, ref, "sycl")
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o644))
}

func must(t *testing.T, f func() ([]byte, error)) []byte {
	t.Helper()
	b, err := f()
	require.NoError(t, err)
	return b
}

func assertCOFFRecords(t *testing.T, dir, readobj, ours, ref, kind string) {
	t.Helper()
	got := coffNormalize(t, runCmd(t, dir, readobj, "--sections", "--symbols", ours), kind, false)
	want := coffNormalize(t, runCmd(t, dir, readobj, "--sections", "--symbols", ref), kind, true)
	if os.Getenv("COFF_RECORDS_KEEP") != "" {
		writeFile(t, os.Getenv("COFF_RECORDS_KEEP"), strings.ReplaceAll(t.Name(), "/", "_")+".ours", []byte(got))
		writeFile(t, os.Getenv("COFF_RECORDS_KEEP"), strings.ReplaceAll(t.Name(), "/", "_")+".llvm", []byte(want))
		copyFile(t, ours, filepath.Join(os.Getenv("COFF_RECORDS_KEEP"), strings.ReplaceAll(t.Name(), "/", "_")+".ours.obj"))
		copyFile(t, ref, filepath.Join(os.Getenv("COFF_RECORDS_KEEP"), strings.ReplaceAll(t.Name(), "/", "_")+".llvm.obj"))
	}
	if got != want {
		t.Errorf("llvm-readobj --sections --symbols (normalised) of ours differs from LLVM's:\n%s", firstDiff(want, got))
	}
}

// firstDiff shows the first differing line of two texts with some context.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	ctx := func(v []string) string {
		lo, hi := max(0, i-12), min(len(v), i+6)
		var b strings.Builder
		for j := lo; j < hi; j++ {
			mark := "  "
			if j == i {
				mark = "> "
			}
			fmt.Fprintf(&b, "%s%s\n", mark, v[j])
		}
		return b.String()
	}
	return fmt.Sprintf("line %d; LLVM's:\n%sours:\n%s", i+1, ctx(w), ctx(g))
}

// llvmWinWrapper is LLVM 22's wrapper object for a Windows MSVC host:
// llvm-offload-wrapper, then llc as clang-linker-wrapper compiles it.
func llvmWinWrapper(t *testing.T, dir, kind string, inputs ...[]byte) string {
	t.Helper()
	args := []string{"--kind=" + kind, "--triple=" + winTriple, "-o", "ref.bc"}
	for i, in := range inputs {
		args = append(args, writeFile(t, dir, fmt.Sprintf("ref%d.in", i), in))
	}
	runCmd(t, dir, tool(t, "llvm-offload-wrapper"), args...)
	runCmd(t, dir, tool(t, "llc"), "-filetype=obj", "ref.bc", "-o", "ref.obj")
	return filepath.Join(dir, "ref.obj")
}

// compressedBundle is a compressed (CCOB) HIP offload bundle of two code
// objects, as clang -fgpu-rdc --offload-compress embeds it.
func compressedBundle(t *testing.T, dir string) []byte {
	t.Helper()
	writeFile(t, dir, "a.co", testFatbin(300))
	writeFile(t, dir, "b.co", testFatbin(500))
	runCmd(t, dir, tool(t, "clang-offload-bundler"), "-type=o", "-compress",
		"-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1100",
		"-input=/dev/null", "-input=a.co", "-input=b.co", "-output=bundle.hipfb")
	b, err := os.ReadFile(filepath.Join(dir, "bundle.hipfb"))
	require.NoError(t, err)
	require.Equal(t, "CCOB", string(b[:4]), "compressed bundle")
	return b
}

// llvmWinSYCLWrapper runs LLVM 22's clang-linker-wrapper for a Windows
// host on a COFF object that carries a SYCL OffloadBinary (SPIR-V kernels
// as bitcode), keeping its temporaries: it returns the wrapper object it
// compiled and the device link's output that it wrapped.
func llvmWinSYCLWrapper(t *testing.T, dir string, kernels ...string) (obj string, img []byte) {
	t.Helper()
	ir := `target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"
`
	for _, k := range kernels {
		ir += "define spir_kernel void @" + k + "() { ret void }\n"
	}
	writeFile(t, dir, "dev.ll", []byte(ir))
	writeFile(t, dir, "host.c", []byte("int main(void) { return 0; }\n"))
	runCmd(t, dir, tool(t, "llvm-as"), "dev.ll", "-o", "dev.bc")
	runCmd(t, dir, tool(t, "llvm-offload-binary"), "-o", "dev.bin", "--image=file=dev.bc,triple=spirv64-unknown-unknown,kind=sycl")
	runCmd(t, dir, tool(t, "clang"), "--target="+winTriple, "-c", "host.c", "-o", "host.obj", "-Xclang", "-fembed-offload-object=dev.bin")
	// clang runs clang-sycl-linker by name for the device link.
	t.Setenv("PATH", llvmtools.Dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	runCmd(t, dir, tool(t, "clang-linker-wrapper"), "--host-triple="+winTriple, "--linker-path=/bin/true",
		"--save-temps", "-o", "a.exe", "host.obj")
	img, err := os.ReadFile(filepath.Join(dir, "a.exe.spirv64..img"))
	require.NoError(t, err)
	return filepath.Join(dir, "a.exe.sycl.image.wrapper.o"), img
}

// llvmWinOpenMPRelocatable runs LLVM 22's clang-linker-wrapper -r for a
// Windows host on a COFF object carrying an OpenMP image for a Linux
// x86-64 device. It fails after the host link ("Relocatable linking is not
// supported on COFF targets"), but --save-temps keeps the wrapper object it
// made; the OffloadBinary it wrapped is read back from that object's
// .llvm.offloading.relocatable.
func llvmWinOpenMPRelocatable(t *testing.T, dir string) (obj string, img []byte) {
	t.Helper()
	clang := tool(t, "clang")
	writeFile(t, dir, "host.c", []byte("int main(void) { return 0; }\n"))
	writeFile(t, dir, "dev.c", []byte("int device_global = 1;\n"))
	runCmd(t, dir, clang, "--target=x86_64-unknown-linux-gnu", "-fPIC", "-c", "dev.c", "-o", "dev.o")
	runCmd(t, dir, tool(t, "llvm-offload-binary"), "-o", "dev.bin", "--image=file=dev.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp")
	runCmd(t, dir, clang, "--target="+winTriple, "-c", "host.c", "-o", "host.obj", "-Xclang", "-fembed-offload-object=dev.bin")
	cmd := exec.Command(tool(t, "clang-linker-wrapper"), "--host-triple="+winTriple, "--linker-path=/bin/true",
		"--save-temps", "-r", "-o", "out.obj", "host.obj")
	cmd.Dir = dir
	msg, err := cmd.CombinedOutput()
	require.Error(t, err, "LLVM refuses -r on COFF")
	require.Contains(t, string(msg), "error: Relocatable linking is not supported on COFF targets")
	obj = filepath.Join(dir, "out.obj.openmp.image.wrapper.o")
	runCmd(t, dir, tool(t, "llvm-objcopy"), "--dump-section=.llvm.offloading.relocatable=img.bin", obj, filepath.Join(dir, "scratch.obj"))
	img, err = os.ReadFile(filepath.Join(dir, "img.bin"))
	require.NoError(t, err)
	return obj, img
}

var (
	reNumberedRef = regexp.MustCompile(`^(\s*(?:Section|Linked): .*) \((-?\d+)\)$`)
	reHexName     = regexp.MustCompile(`^(\s*Name: \S+) \([0-9A-F ]+\)$`)
)

// coffNormalize reduces llvm-readobj --sections --symbols output to what
// must equal LLVM's. What it normalises, and why:
//
//   - the file name line and the raw 8 bytes after a section's name (a
//     long name is "/<offset>" into the string table, whose order is the
//     writer's choice; the name itself is kept);
//   - PointerToRawData and PointerToRelocations: file offsets, which follow
//     from the sizes of the code sections before them;
//   - for the code sections .text.startup and .pdata (and HIP's .xdata,
//     whose prologs differ: LLVM keeps other registers for HIP's switch):
//     RawDataSize, RelocationCount, and the Length, RelocationCount and
//     Checksum of their section definitions (our code is ours, so its
//     bytes, size and relocations differ; .xdata of OpenMP, CUDA and SYCL
//     is byte for byte llc's and stays compared), and the Value of the
//     function symbols in .text.startup (their offsets in that code);
//   - LLVM's HIP object only: the .rdata jump table llc makes for HIP's
//     switch over the entry type (we compare and branch), with its section
//     symbol; later section numbers and symbol indices are renumbered as
//     if it were not there.
//
// Everything else is compared as is: section names, order, flags and
// alignment; every symbol's name, value, section, types, storage class and
// order; every aux record, including each weak external's linked symbol
// and its index.
func coffNormalize(t *testing.T, out, kind string, llvm bool) string {
	t.Helper()
	type block struct {
		lines []string
		name  string
		num   int
		drop  bool
	}
	var head []string
	var secs, syms []*block
	var cur *block
	var list *[]*block
	for _, l := range strings.Split(out, "\n") {
		switch {
		case l == "  Section {":
			cur, list = &block{}, &secs
		case l == "  Symbol {":
			cur, list = &block{}, &syms
		case l == "  }" && cur != nil:
			*list = append(*list, cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		case strings.HasPrefix(l, "File:"), l == "Sections [", l == "Symbols [", l == "]", l == "":
		default:
			head = append(head, l)
		}
	}
	field := func(b *block, key string) string {
		for _, l := range b.lines {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), key+": "); ok {
				return v
			}
		}
		return ""
	}
	// Sections: numbers, and LLVM's HIP jump table.
	renum := map[int]int{}
	n := 0
	for _, s := range secs {
		s.num, _ = strconv.Atoi(field(s, "Number"))
		s.name = strings.Fields(field(s, "Name"))[0]
		if llvm && kind == "hip" && s.name == ".rdata" && strings.Contains(strings.Join(s.lines, "\n"), "(0x40300040)") {
			s.drop = true
			continue
		}
		n++
		renum[s.num] = n
	}
	// Symbols: indices (each record counts 1 + its aux records).
	symIdx := map[int]int{}
	idx, kept := 0, 0
	for _, s := range syms {
		s.name = field(s, "Name")
		if sec := reNumberedRef.FindStringSubmatch("  Section: " + field(s, "Section")); sec != nil {
			if num, _ := strconv.Atoi(sec[2]); num > 0 && renum[num] == 0 {
				s.drop = true
			}
		}
		naux, _ := strconv.Atoi(field(s, "AuxSymbolCount"))
		if !s.drop {
			symIdx[idx] = kept
			kept += 1 + naux
		}
		idx += 1 + naux
	}
	code := map[string]bool{".text.startup": true, ".pdata": true}
	if kind == "hip" {
		code[".xdata"] = true
	}
	var b strings.Builder
	for _, l := range head {
		fmt.Fprintln(&b, l)
	}
	render := func(kindName string, bl *block, isCode bool) {
		fmt.Fprintf(&b, "  %s {\n", kindName)
		for _, l := range bl.lines {
			key, _, _ := strings.Cut(strings.TrimSpace(l), ":")
			switch {
			case key == "PointerToRawData" || key == "PointerToRelocations":
				l = strings.SplitAfter(l, ":")[0] + " <file offset>"
			case isCode && (key == "RawDataSize" || key == "RelocationCount" || key == "Length" || key == "Checksum"):
				l = strings.SplitAfter(l, ":")[0] + " <code>"
			case key == "Number":
				num, _ := strconv.Atoi(strings.TrimSpace(strings.SplitAfter(l, ":")[1]))
				if r, ok := renum[num]; ok {
					l = strings.SplitAfter(l, ":")[0] + " " + strconv.Itoa(r)
				}
			}
			if m := reHexName.FindStringSubmatch(l); m != nil {
				l = m[1]
			}
			if m := reNumberedRef.FindStringSubmatch(l); m != nil {
				v, _ := strconv.Atoi(m[2])
				if strings.TrimSpace(l)[0] == 'S' && v > 0 {
					v = renum[v]
				} else if strings.TrimSpace(l)[0] == 'L' {
					v = symIdx[v]
				}
				l = fmt.Sprintf("%s (%d)", m[1], v)
			}
			b.WriteString(l + "\n")
		}
		b.WriteString("  }\n")
	}
	b.WriteString("Sections [\n")
	for _, s := range secs {
		if !s.drop {
			render("Section", s, code[s.name])
		}
	}
	b.WriteString("]\nSymbols [\n")
	for _, s := range syms {
		if s.drop {
			continue
		}
		isCode := code[s.name] && field(s, "StorageClass") == "Static (0x3)" && strings.HasPrefix(field(s, "Section"), s.name+" ")
		fn := strings.HasPrefix(field(s, "Section"), ".text.startup ") && strings.HasPrefix(field(s, "ComplexType"), "Function")
		if fn {
			for i, l := range s.lines {
				if strings.HasPrefix(strings.TrimSpace(l), "Value:") {
					s.lines[i] = strings.SplitAfter(l, ":")[0] + " <code offset>"
				}
			}
		}
		render("Symbol", s, isCode)
	}
	b.WriteString("]\n")
	return b.String()
}

// TestFatbinAlignmentELF: on x86-64 ELF too, a fatbin of exactly 16 bytes
// is 1-aligned and one of 17 bytes 16-aligned, as llc places an [n x i8]
// constant (more than 128 bits: 16).
func TestFatbinAlignmentELF(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{8, 9} { // testFatbin(n) has n+8 bytes
		for _, kind := range []string{"cuda", "hip"} {
			fb := testFatbin(n)
			build := CUDA
			sec := ".nv_fatbin"
			if kind == "hip" {
				build, sec = HIP, ".hip_fatbin"
			}
			obj, err := build(Options{Triple: hostTriple}, fb)
			require.NoError(t, err)
			ours := writeFile(t, dir, fmt.Sprintf("ours-%s-%d.o", kind, n), obj)
			ref := filepath.Join(dir, refWrapperFor(t, dir, hostTriple, kind, fb))
			align := func(p string) uint64 {
				f, err := elf.Open(p)
				require.NoError(t, err)
				defer f.Close()
				s := f.Section(sec)
				require.NotNil(t, s, sec)
				return s.Addralign
			}
			if a, b := align(ours), align(ref); a != b {
				t.Errorf("%s of %d bytes: alignment %d, LLVM's %d", kind, len(fb), a, b)
			}
		}
	}
}
