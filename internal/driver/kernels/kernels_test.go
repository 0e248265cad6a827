package kernels

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/codeobj"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// nestedTestdata holds the packager's real nested containers (fatbins
// from nvcc, HCF from AdaptiveCpp; README.md there says how each was made).
const nestedTestdata = "../packager/testdata/nested"

func runKernels(dir string, opt Options) (string, error) {
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Tool: "offload-packager", Dir: dir}
	err := Run(context.Background(), env, opt)
	return out.String(), err
}

// kernelsDoc runs kernels --json (with opt's other options) and decodes
// the document.
func kernelsDoc(t *testing.T, dir string, opt Options) *Report {
	t.Helper()
	opt.JSON = true
	out, err := runKernels(dir, opt)
	require.NoError(t, err)
	var rep Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Equal(t, Schema, rep.Schema)
	return &rep
}

// amdFacts is what LLVM's tools say about one AMDGPU code object: each
// function's size and whether it has a kernel descriptor (llvm-nm -S),
// each FUNC symbol's size in .symtab (llvm-readelf --symbols), and each
// kernel's resources and the target (the metadata note, llvm-readelf
// --notes).
type amdFacts struct {
	funcs    map[string]fnFact
	symSizes map[string]int64
	res      map[string]codeobj.Resources
	target   string
}

type fnFact struct {
	Size   int64
	Kernel bool
}

func amdgpuFacts(t *testing.T, path string) amdFacts {
	t.Helper()
	f := amdFacts{funcs: map[string]fnFact{}, symSizes: map[string]int64{}, res: map[string]codeobj.Resources{}}
	kds := map[string]bool{}
	for _, l := range strings.Split(string(clitest.Sh(t, "", llvmtools.Tool(t, "llvm-nm"), "-S", "--defined-only", path)), "\n") {
		fs := strings.Fields(l)
		if len(fs) != 4 {
			continue
		}
		size, err := strconv.ParseInt(fs[1], 16, 64)
		require.NoError(t, err, l)
		switch {
		case fs[2] == "T" || fs[2] == "t":
			f.funcs[fs[3]] = fnFact{Size: size}
		case (fs[2] == "R" || fs[2] == "r") && strings.HasSuffix(fs[3], ".kd"):
			kds[strings.TrimSuffix(fs[3], ".kd")] = true
		}
	}
	for k := range kds {
		if fn, ok := f.funcs[k]; ok {
			fn.Kernel = true
			f.funcs[k] = fn
		}
	}
	out := string(clitest.Sh(t, "", llvmtools.Tool(t, "llvm-readelf"), "--symbols", "--notes", path))
	// .symtab's defined FUNC symbols: "Num: Value Size Type Bind Vis Ndx Name".
	inSymtab := false
	var cur *codeobj.Resources
	var curName string
	flush := func() {
		if cur != nil && curName != "" {
			f.res[curName] = *cur
		}
		cur, curName = nil, ""
	}
	kv := regexp.MustCompile(`^(?:  - |    )\.([a-z_]+):\s+(\S+)$`)
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "Symbol table '"):
			inSymtab = strings.HasPrefix(l, "Symbol table '.symtab'")
			continue
		case strings.HasPrefix(l, "Displaying notes"):
			inSymtab = false
		case strings.HasPrefix(l, "amdhsa.target:"):
			f.target = strings.Trim(strings.TrimSpace(strings.TrimPrefix(l, "amdhsa.target:")), "'")
		}
		if inSymtab {
			fs := strings.Fields(l)
			if len(fs) == 8 && fs[3] == "FUNC" && fs[6] != "UND" {
				size, err := strconv.ParseInt(fs[2], 0, 64)
				require.NoError(t, err, l)
				f.symSizes[fs[7]] = size
			}
			continue
		}
		if strings.HasPrefix(l, "  - .") {
			flush()
			cur = &codeobj.Resources{}
		} else if !strings.HasPrefix(l, "    ") {
			flush()
		}
		m := kv.FindStringSubmatch(l)
		if m == nil || cur == nil {
			continue
		}
		v, _ := strconv.ParseInt(m[2], 10, 64)
		switch m[1] {
		case "symbol":
			curName = strings.TrimSuffix(m[2], ".kd")
		case "sgpr_count":
			cur.SGPRs = v
			cur.Recorded |= codeobj.ResSGPRs
		case "vgpr_count":
			cur.VGPRs = v
			cur.Recorded |= codeobj.ResVGPRs
		case "agpr_count":
			cur.AGPRs = v
			cur.Recorded |= codeobj.ResAGPRs
		case "group_segment_fixed_size":
			cur.LDS = v
			cur.Recorded |= codeobj.ResLDS
		case "private_segment_fixed_size":
			cur.Scratch = v
			cur.Recorded |= codeobj.ResScratch
		case "kernarg_segment_size":
			cur.Kernarg = v
			cur.Recorded |= codeobj.ResKernarg
		case "sgpr_spill_count":
			cur.SGPRSpills = v
			cur.Recorded |= codeobj.ResSGPRSpills
		case "vgpr_spill_count":
			cur.VGPRSpills = v
			cur.Recorded |= codeobj.ResVGPRSpills
		case "max_flat_workgroup_size":
			cur.MaxThreads = v
			cur.Recorded |= codeobj.ResMaxThreads
		}
	}
	flush()
	require.NotEmpty(t, f.funcs, path)
	return f
}

// checkAMDGPUImage compares one image of the kernels view with LLVM's
// tools on the code object file holding the same bytes.
func checkAMDGPUImage(t *testing.T, img Image, path string) {
	t.Helper()
	want := amdgpuFacts(t, path)
	got := map[string]fnFact{}
	gotSizes := map[string]int64{}
	var sum int64
	for _, fn := range img.Functions {
		got[fn.Name] = fnFact{fn.Size, fn.Kernel}
		gotSizes[fn.Name] = fn.Size
		sum += fn.Size
		if fn.Kernel {
			require.NotNil(t, fn.Resources, fn.Name)
			assert.Equal(t, want.res[fn.Name], *fn.Resources, "%s: resources as the metadata note says", fn.Name)
		}
	}
	assert.Equal(t, want.funcs, got, "%s: functions, sizes and kernels as llvm-nm -S says", path)
	assert.Equal(t, want.symSizes, gotSizes, "%s: FUNC sizes as llvm-readelf --symbols says", path)
	assert.Len(t, want.res, len(want.funcs)-countFuncs(want.funcs, false), "every kernel has a metadata entry")
	assert.Equal(t, want.target, img.Target)
	assert.Equal(t, "amdgpu", img.CodeKind)
	assert.Equal(t, sum, img.CodeBytes)
	st, err := os.Stat(path)
	require.NoError(t, err)
	if img.Uncompressed == 0 {
		assert.Equal(t, st.Size(), img.Size, "stored size is the code object's size")
	}
}

func countFuncs(m map[string]fnFact, kernel bool) int {
	n := 0
	for _, f := range m {
		if f.Kernel == kernel {
			n++
		}
	}
	return n
}

// rocrandArchs are the 7 GPU targets of Debian's librocrand.so.1.1.
var rocrandArchs = []string{"gfx1030", "gfx803", "gfx900:xnack-", "gfx906:xnack-", "gfx908:xnack-", "gfx90a:xnack+", "gfx90a:xnack-"}

// rocrandObjects extracts librocrand's code objects with llvm-objdump
// --offloading (into a new directory: it writes beside its input) and
// returns the directory and the file of each arch.
func rocrandObjects(t *testing.T) (string, map[string]string) {
	const name = "librocrand.so.1.1"
	d := clitest.LinkedInto(t, clitest.Rocrand, name)
	_, diags, ok := clitest.Objdump(t, d, name)
	require.True(t, ok, diags)
	files := map[string]string{}
	for _, a := range rocrandArchs {
		files[a] = filepath.Join(d, name+".0.hipv4-amdgcn-amd-amdhsa--"+a)
	}
	return d, files
}

// TestKernelsRocrand: every code object of Debian's librocrand.so.1.1
// (all 7 GPU targets), seen through kernels, has the functions, sizes,
// kernels, resources and target that llvm-nm -S and llvm-readelf
// --symbols --notes show for the code objects llvm-objdump --offloading
// extracts. The same objects given bare, and in a compressed bundle
// larger than what the listing decompresses, give the same functions.
func TestKernelsRocrand(t *testing.T) {
	d, files := rocrandObjects(t)
	rep := kernelsDoc(t, d, Options{Files: []string{"librocrand.so.1.1"}})
	require.Len(t, rep.Files, 1)
	imgs := rep.Files[0].Images
	var archs []string
	for _, img := range imgs {
		archs = append(archs, img.Arch)
		assert.Equal(t, "hip", img.Kind)
		assert.Equal(t, "amdgcn-amd-amdhsa", img.Triple)
		assert.Empty(t, img.Note+img.Error)
		checkAMDGPUImage(t, img, files[img.Arch])
	}
	assert.Equal(t, rocrandArchs, archs)
	assert.Len(t, rep.Totals.ByArch, 7)
	assert.Equal(t, 560, rep.Totals.ByFile[0].Kernels)

	t.Run("bare", func(t *testing.T) {
		for _, a := range []string{"gfx90a:xnack+", "gfx1030"} {
			rep := kernelsDoc(t, d, Options{Files: []string{files[a]}})
			require.Len(t, rep.Files[0].Images, 1, "a code object given as input is one image")
			img := rep.Files[0].Images[0]
			assert.Equal(t, a, img.Arch)
			assert.Equal(t, "code object", img.Container)
			checkAMDGPUImage(t, img, files[a])
		}
	})

	t.Run("compressed bundle", func(t *testing.T) {
		// 18 MB uncompressed: over what the listing decompresses, so the
		// entries are decoded by the kernels view, streaming.
		filler := filepath.Join(d, "filler.bin")
		require.NoError(t, os.WriteFile(filler, make([]byte, 6<<20), 0o644))
		targets := "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx942"
		args := []string{llvmtools.Tool(t, "clang-offload-bundler"), "-type=o", "-compress", "-input=/dev/null", "-input=" + filler}
		for _, a := range rocrandArchs {
			targets += ",hip-amdgcn-amd-amdhsa--" + a
			args = append(args, "-input="+files[a])
		}
		clitest.Sh(t, d, append(args, targets, "-output=big.ccob")...)
		st, err := os.Stat(filepath.Join(d, "big.ccob"))
		require.NoError(t, err)
		require.Less(t, st.Size(), int64(16<<20), "compressed (the listing decodes only the header of a bundle over 16 MiB uncompressed)")
		rep := kernelsDoc(t, d, Options{Files: []string{"big.ccob"}})
		imgs := rep.Files[0].Images
		require.Len(t, imgs, 8)
		assert.Equal(t, "not a code object: functions not listed", imgs[0].Note, "the filler")
		for _, img := range imgs[1:] {
			assert.Equal(t, "unknown", img.ImageKind, "the listing did not decode %s", img.Arch)
			assert.Empty(t, img.Note+img.Error)
			checkAMDGPUImage(t, img, files[img.Arch])
		}
	})
}

// hipObject compiles HIP source for gfx90a (clang 22, non-RDC: a bundle
// in .hip_fatbin) and returns the object's name in dir.
func hipObject(t *testing.T, dir, name, src string) string {
	t.Helper()
	return hipObjectFor(t, dir, name, "gfx90a", src)
}

// hipObjectFor is hipObject for another --offload-arch (a target ID).
func hipObjectFor(t *testing.T, dir, name, arch, src string) string {
	t.Helper()
	// mini_hip.h (shared with linker-wrapper's HIP tests) declares what
	// clang's host side of a kernel needs.
	clitest.CopyInto(t, "../linkwrap/testdata/hip", dir, "mini_hip.h")
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".hip"), []byte("#include \"mini_hip.h\"\n"+src), 0o644))
	clitest.Sh(t, dir, llvmtools.Tool(t, "clang"), "-x", "hip", "--offload-arch="+arch, "-nogpuinc", "-nogpulib", "-O2", "-c", name+".hip", "-o", name+".o")
	return name + ".o"
}

// hipCode extracts the gfx90a code object of a hipObject with
// llvm-objdump --offloading and returns llvm-nm's view of it.
func hipCode(t *testing.T, dir, obj string) amdFacts {
	t.Helper()
	_, diags, ok := clitest.Objdump(t, dir, obj)
	require.True(t, ok, diags)
	return amdgpuFacts(t, filepath.Join(dir, obj+".0.hipv4-amdgcn-amd-amdhsa--gfx90a"))
}

// TestKernelsDuplicates: the same kernel compiled in two TUs is one
// duplicate whose extra copy is the bytes saved (llvm-nm's size); two
// copies of librocrand are 7 duplicate images, saving one copy's bytes,
// and their kernels are not counted again.
func TestKernelsDuplicates(t *testing.T) {
	d := t.TempDir()
	const same = `extern "C" __global__ void same(float *p, float f) { p[0] = p[1] * f + p[2]; }` + "\n"
	// fill<char> and fill<unsigned char> compile to the same bytes: one
	// body under two names in one image.
	const twins = `template <typename T> __global__ void fill(T *p, int n) { for (int i = 0; i < n; i++) p[i] = T(i); }
template __global__ void fill<char>(char *, int);
template __global__ void fill<unsigned char>(unsigned char *, int);
`
	a := hipObject(t, d, "a", same+twins+`extern "C" __global__ void only_a(int *p) { p[0] = 1; }`)
	b := hipObject(t, d, "b", same+`extern "C" __global__ void only_b(int *p, int n) { for (int i = 0; i < n; i++) p[i] = i * i; }`)
	fa, fb := hipCode(t, d, a), hipCode(t, d, b)
	require.Equal(t, fa.funcs["same"], fb.funcs["same"])
	size := fa.funcs["same"].Size
	require.NotZero(t, size)

	rep := kernelsDoc(t, d, Options{Files: []string{a, b}, Duplicates: true})
	dup := rep.Duplicates
	require.NotNil(t, dup)
	require.Len(t, dup.Kernels, 2, "same() is in both, fill<char> is fill<unsigned char>")
	var k, tw DupKernel
	for _, x := range dup.Kernels {
		if x.Name == "same" {
			k = x
		} else {
			tw = x
		}
	}
	assert.Equal(t, DupKernel{Arch: "gfx90a", Name: "same", Names: []string{"same"}, Size: size, Copies: 2, Saved: size,
		Where: []string{"a.o: a.o: bundle 0 entry 1", "b.o: b.o: bundle 0 entry 1"},
		List:  []DupCopy{{"same", "same", "a.o: a.o: bundle 0 entry 1"}, {"same", "same", "b.o: b.o: bundle 0 entry 1"}}, Hash: k.Hash}, k)
	twinSize := fa.funcs["_Z4fillIcEvPT_i"].Size
	require.Equal(t, twinSize, fa.funcs["_Z4fillIhEvPT_i"].Size, "llvm-nm: the twins have one size")
	assert.Equal(t, DupKernel{Arch: "gfx90a", Name: tw.Names[0], Names: []string{tw.Names[0], tw.Names[1]}, Size: twinSize, Copies: 2, Saved: twinSize,
		Where: []string{"a.o: a.o: bundle 0 entry 1"},
		List:  []DupCopy{{tw.Names[0], tw.List[0].Mangled, "a.o: a.o: bundle 0 entry 1"}, {tw.Names[1], tw.List[1].Mangled, "a.o: a.o: bundle 0 entry 1"}}, Hash: tw.Hash}, tw)
	assert.ElementsMatch(t, []string{"void fill<char>(char*, int)", "void fill<unsigned char>(unsigned char*, int)"}, tw.Names, "every name of the body")
	assert.Equal(t, size+twinSize, dup.KernelBytesSaved)
	assert.Empty(t, dup.Images)
	assert.Zero(t, dup.ImageBytesSaved)

	out, err := runKernels(d, Options{Files: []string{a, b}, Duplicates: true})
	require.NoError(t, err)
	assert.Contains(t, out, "\nDUPLICATE FUNCTIONS (2, "+strconv.FormatInt(size+twinSize, 10)+" bytes saved by keeping one copy)\n")
	assert.Regexp(t, `\n\s*`+strconv.FormatInt(size, 10)+`\s+gfx90a\s+2\s+`+strconv.FormatInt(size, 10)+`\s+same\n    copy: same  \(a.o: a.o: bundle 0 entry 1\)\n    copy: same  \(b.o: b.o: bundle 0 entry 1\)\n`, out)
	assert.Contains(t, out, "    copy: void fill<unsigned char>(unsigned char*, int)  (a.o: a.o: bundle 0 entry 1)\n", "the twin is named")

	// Two copies of a whole library.
	r := clitest.LinkedInto(t, clitest.Rocrand, "one.so")
	require.NoError(t, os.Symlink(clitest.Rocrand, filepath.Join(r, "two.so")))
	rep = kernelsDoc(t, r, Options{Files: []string{"one.so", "two.so"}, Duplicates: true})
	var stored int64
	for _, img := range rep.Files[0].Images {
		stored += img.Size
	}
	require.Len(t, rep.Duplicates.Images, 7)
	assert.Equal(t, stored, rep.Duplicates.ImageBytesSaved)
	for _, di := range rep.Duplicates.Images {
		assert.Equal(t, 2, di.Copies)
		assert.Equal(t, di.Size, di.Saved)
		assert.Equal(t, []string{"one.so", "two.so"}, []string{strings.Split(di.Where[0], ":")[0], strings.Split(di.Where[1], ":")[0]})
	}
	// Within one library, functions are duplicated only within an arch.
	for _, dk := range rep.Duplicates.Kernels {
		for _, w := range dk.Where {
			assert.True(t, strings.HasPrefix(w, "one.so: "), "the copies in two.so are counted as images: %s", w)
		}
	}
}

// TestKernelsDiff: two builds for gfx90a, one kernel added, one removed,
// one grown: diff reports each with llvm-nm's sizes, and the arch total.
func TestKernelsDiff(t *testing.T) {
	d := t.TempDir()
	const keep = `extern "C" __global__ void keep(int *p) { p[0] = 42; }` + "\n"
	a := hipObject(t, d, "old", keep+
		`extern "C" __global__ void gone(int *p) { p[1] = 7; }`+"\n"+
		`extern "C" __global__ void grows(float *p) { p[0] = p[1] + 1.0f; }`)
	b := hipObject(t, d, "new", keep+
		`extern "C" __global__ void fresh(int *p) { p[2] = 9; }`+"\n"+
		`extern "C" __global__ void grows(float *p) { float s = 0; for (int i = 0; i < 64; i++) s += p[i] * p[i + 64]; p[0] = s; }`)
	fa, fb := hipCode(t, d, a), hipCode(t, d, b)
	require.Greater(t, fb.funcs["grows"].Size, fa.funcs["grows"].Size)
	require.Equal(t, fa.funcs["keep"], fb.funcs["keep"])

	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &out, Dir: d}
	require.NoError(t, Diff(context.Background(), env, DiffOptions{A: a, B: b, Format: "json"}))
	var doc struct {
		Schema int
		A, B   string
		Archs  []struct {
			Arch, TargetA, TargetB string
			Before, After, Delta   int64
		} `json:"archs"`
		Changes []struct {
			Arch, Name, Status string
			Before, After      *map[string]int64
			Delta              map[string]int64
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	got := map[string][3]int64{}
	status := map[string]string{}
	size := func(m *map[string]int64) int64 {
		if m == nil {
			return 0
		}
		return (*m)["size"]
	}
	for _, c := range doc.Changes {
		assert.Equal(t, "gfx90a", c.Arch)
		got[c.Name] = [3]int64{size(c.Before), size(c.After), size(c.After) - size(c.Before)}
		status[c.Name] = c.Status
	}
	sa, sb := fa.funcs, fb.funcs
	assert.Equal(t, map[string][3]int64{
		"gone":  {sa["gone"].Size, 0, -sa["gone"].Size},
		"fresh": {0, sb["fresh"].Size, sb["fresh"].Size},
		"grows": {sa["grows"].Size, sb["grows"].Size, sb["grows"].Size - sa["grows"].Size},
	}, got, "keep() did not change")
	assert.Equal(t, map[string]string{"gone": "removed", "fresh": "added", "grows": "changed"}, status)
	total := func(m map[string]fnFact) int64 {
		var s int64
		for _, f := range m {
			s += f.Size
		}
		return s
	}
	require.Len(t, doc.Archs, 1)
	assert.Equal(t, [3]int64{total(sa), total(sb), total(sb) - total(sa)}, [3]int64{doc.Archs[0].Before, doc.Archs[0].After, doc.Archs[0].Delta})

	// The text form lists the largest change first; --top keeps one.
	out.Reset()
	require.NoError(t, Diff(context.Background(), env, DiffOptions{A: a, B: b, Top: 1}))
	assert.Contains(t, out.String(), "--- old.o\n+++ new.o\n")
	assert.Contains(t, out.String(), "\nCHANGES (3, top 1)\n")
	assert.Regexp(t, `\n\s*\+`+strconv.FormatInt(got["grows"][2], 10)+`\s+changed\s+gfx90a\s+machine\s+\d+->\d+\s`, out.String())
}

// TestKernelsTable: --top, --sort and --families on librocrand: the rows
// are the JSON document's functions in the asked order.
func TestKernelsTable(t *testing.T) {
	d := clitest.LinkedInto(t, clitest.Rocrand, "r.so")
	rep := kernelsDoc(t, d, Options{Files: []string{"r.so"}})
	rs := rows(rep)
	require.Len(t, rs, 560)
	table := func(opt Options) []string {
		opt.Files = []string{"r.so"}
		out, err := runKernels(d, opt)
		require.NoError(t, err)
		_, fns, ok := strings.Cut(out, "\nFUNCTIONS (")
		if opt.Families {
			_, fns, ok = strings.Cut(out, "\nFAMILIES (")
		}
		require.True(t, ok, out)
		fns, _, _ = strings.Cut(fns, "\n\n")
		lines := strings.Split(fns, "\n")
		if last := lines[len(lines)-1]; strings.Contains(last, "; --all for all") {
			// The summary line of a cut table.
			assert.Regexp(t, `^\d+ of \d+ (functions|families); --all for all, --top N for more$`, last)
			lines = lines[:len(lines)-1]
		}
		return lines
	}
	for _, c := range []struct {
		sort string
		key  func(r kernelRow) int64
	}{
		{"size", func(r kernelRow) int64 { return r.fn.Size }},
		{"regs", func(r kernelRow) int64 { return r.fn.Resources.VGPRs + r.fn.Resources.AGPRs }},
		{"lds", func(r kernelRow) int64 { return r.fn.Resources.LDS }},
	} {
		lines := table(Options{Sort: c.sort, Top: 5})
		assert.Equal(t, "560, top 5 by "+c.sort+")", lines[0])
		require.Len(t, lines, 7, "header and 5 rows")
		var keys []int64
		for _, r := range rs {
			keys = append(keys, c.key(r))
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] > keys[j] })
		for i, l := range lines[2:] {
			fs := strings.Fields(l)
			var v int64
			switch c.sort {
			case "size":
				v, _ = strconv.ParseInt(fs[0], 10, 64)
			case "regs":
				p := strings.Split(fs[4], "/")
				vg, _ := strconv.ParseInt(p[1], 10, 64)
				ag, _ := strconv.ParseInt(p[2], 10, 64)
				v = vg + ag
			case "lds":
				v, _ = strconv.ParseInt(fs[5], 10, 64)
			}
			assert.Equal(t, keys[i], v, "--sort %s row %d: %s", c.sort, i, l)
		}
	}
	// --sort name: ascending demangled names.
	lines := table(Options{Sort: "name"})
	require.Len(t, lines, 562)
	var names []string
	for _, r := range rs {
		names = append(names, r.fn.Demangled)
	}
	sort.Strings(names)
	for i, l := range lines[2:] {
		assert.True(t, strings.HasSuffix(l, "  "+names[i]), "row %d: %s", i, l)
	}
	// --families: one row per (arch, family), bytes summed.
	fam := map[[2]string]int64{}
	for _, r := range rs {
		fam[[2]string{arch(r.img), r.fn.Family}] += r.fn.Size
	}
	lines = table(Options{Families: true, Top: 3})
	assert.Equal(t, strconv.Itoa(len(fam))+", largest 3)", lines[0])
	require.Len(t, lines, 5)
	var top []int64
	for _, v := range fam {
		top = append(top, v)
	}
	sort.Slice(top, func(i, j int) bool { return top[i] > top[j] })
	for i, l := range lines[2:] {
		fs := strings.Fields(l)
		b, _ := strconv.ParseInt(fs[0], 10, 64)
		assert.Equal(t, top[i], b, l)
		assert.Equal(t, "-", fs[1], "no PTX/IR bytes: %s", l)
		family := strings.Join(fs[6:], " ")
		assert.Equal(t, b, fam[[2]string{fs[2], family}], l)
	}
	assert.Contains(t, fam, [2]string{"gfx90a:xnack-", "rocrand_host::detail::generate_kernel"}, "template instances are one family")
	// Totals agree with the functions.
	var sum int64
	for _, r := range rs {
		sum += r.fn.Size
	}
	assert.Equal(t, sum, rep.Totals.ByFile[0].Bytes)
}

// TestKernelsOwnOutputs: the images of what our links take and make: an
// OpenMP x86_64 offload fat object (clang 22 -fopenmp
// -fopenmp-targets=x86_64-unknown-linux-gnu -c) lists the functions
// llvm-nm -S shows in its host ELF image, with the offloading entry point
// as a kernel; a SPIR-V image in a package lists spirv-dis's entry points
// as kernels.
func TestKernelsOwnOutputs(t *testing.T) {
	d := t.TempDir()
	clitest.CopyInto(t, "../packager/testdata", d, "omp.c")
	clitest.Sh(t, d, llvmtools.Tool(t, "clang"), "-c", "omp.c", "-o", "omp.o", "-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu")
	// The image, as LLVM's tools extract it: the .llvm.offloading section,
	// then the package's only image.
	clitest.Sh(t, d, llvmtools.Tool(t, "llvm-objcopy"), "--dump-section=.llvm.offloading=omp.pkg", "omp.o", "/dev/null")
	clitest.Sh(t, d, llvmtools.Tool(t, "llvm-offload-binary"), "omp.pkg", "--image=file=omp.img,kind=openmp")
	img := filepath.Join(d, "omp.img")
	want := map[string]fnFact{}
	for _, l := range strings.Split(string(clitest.Sh(t, "", llvmtools.Tool(t, "llvm-nm"), "-S", "--defined-only", img)), "\n") {
		fs := strings.Fields(l)
		if len(fs) == 4 && (fs[2] == "T" || fs[2] == "t" || fs[2] == "W") {
			size, _ := strconv.ParseInt(fs[1], 16, 64)
			want[fs[3]] = fnFact{size, strings.HasPrefix(fs[3], "__omp_offloading_")}
		}
	}
	require.NotEmpty(t, want)
	rep := kernelsDoc(t, d, Options{Files: []string{"omp.o"}})
	require.Len(t, rep.Files[0].Images, 1)
	im := rep.Files[0].Images[0]
	assert.Equal(t, "openmp", im.Kind)
	assert.Equal(t, "x86_64-unknown-linux-gnu", im.Triple)
	assert.Equal(t, "host-elf", im.CodeKind)
	got := map[string]fnFact{}
	for _, fn := range im.Functions {
		got[fn.Name] = fnFact{fn.Size, fn.Kernel}
	}
	assert.Equal(t, want, got)
	assert.Equal(t, 1, countFuncs(got, true), "one target region")

	// A SPIR-V image (clang 22 OpenCL for spirv64) in a package, as SYCL
	// links carry them.
	require.NoError(t, os.WriteFile(filepath.Join(d, "k.cl"), []byte(
		"__kernel void scale(__global float *p, float f) { p[get_global_id(0)] *= f; }\n"+
			"__kernel void fill(__global int *p) { p[0] = 7; }\n"), 0o644))
	clitest.Sh(t, d, llvmtools.Tool(t, "clang"), "--target=spirv64", "-cl-std=CL2.0", "-O1", "-c", "k.cl", "-o", "k.spv")
	clitest.Sh(t, d, llvmtools.Tool(t, "llvm-offload-binary"), "-o", "spv.pkg", "--image=file=k.spv,triple=spirv64-unknown-unknown,arch=generic,kind=sycl")
	dis := string(clitest.Sh(t, d, "spirv-dis", "k.spv"))
	var entries []string
	for _, m := range regexp.MustCompile(`OpEntryPoint \w+ %\S+ "([^"]+)"`).FindAllStringSubmatch(dis, -1) {
		entries = append(entries, m[1])
	}
	require.Len(t, entries, 2)
	functions := strings.Count(dis, "OpFunctionEnd")
	for _, f := range []string{"spv.pkg", "k.spv"} {
		rep := kernelsDoc(t, d, Options{Files: []string{f}})
		require.Len(t, rep.Files[0].Images, 1, f)
		im := rep.Files[0].Images[0]
		assert.Equal(t, "spirv", im.CodeKind, f)
		var kernels []string
		var sum int64
		for _, fn := range im.Functions {
			if fn.Kernel {
				kernels = append(kernels, fn.Name)
			}
			assert.Zero(t, fn.Size%4, "whole words")
			sum += fn.Size
		}
		sort.Strings(entries)
		sort.Strings(kernels)
		assert.Equal(t, entries, kernels, f)
		assert.Len(t, im.Functions, functions, f)
		assert.Equal(t, sum, im.CodeBytes)
	}
}

// TestKernelsCompressedImages: fatbin entries compressed with zstd (CUDA
// 13's default for PTX, fatbinary --compress-all for both) and
// OffloadBinary v3 images are decoded to list their functions. The
// decoded cubin of elf_ptx_zstd.fatbin is byte-identical to the plain one
// in saxpy.fatbin (one duplicate image, the same functions); the
// compressed PTX of nvcc 13's fatbin has the kernels of its cubin.
func TestKernelsCompressedImages(t *testing.T) {
	d := t.TempDir()
	clitest.CopyInto(t, nestedTestdata, d, "elf_ptx_zstd.fatbin", "saxpy.fatbin")
	clitest.CopyInto(t, "../../../format/codeobj/testdata/cuda13", d, "kernels-sm90-nvcc13.fatbin")
	clitest.CopyInto(t, "../../../format/codeobj/testdata", d, "kern-gfx90a-clang22.co")
	rep := kernelsDoc(t, d, Options{Files: []string{"elf_ptx_zstd.fatbin", "saxpy.fatbin"}, Duplicates: true})
	z, plain := rep.Files[0].Images, rep.Files[1].Images
	require.Len(t, z, 2)
	require.Len(t, plain, 1)
	assert.Equal(t, "cubin", z[0].CodeKind)
	assert.Equal(t, int64(4200), z[0].Uncompressed)
	assert.Less(t, z[0].Size, z[0].Uncompressed)
	assert.Equal(t, plain[0].Functions, z[0].Functions)
	require.Len(t, rep.Duplicates.Images, 1)
	assert.Equal(t, []string{"elf_ptx_zstd.fatbin: elf_ptx_zstd.fatbin: fatbin 0 entry 0", "saxpy.fatbin: saxpy.fatbin: fatbin 0 entry 0"}, rep.Duplicates.Images[0].Where)
	assert.Equal(t, "ptx", z[1].CodeKind)
	assert.Equal(t, "sm_90", z[1].Target)
	assert.Equal(t, kernelNames(z[0]), kernelNames(z[1]), "the PTX has the cubin's kernel")
	assert.Equal(t, []string{"_Z5saxpyifPKfPf"}, kernelNames(z[1]))

	rep = kernelsDoc(t, d, Options{Files: []string{"kernels-sm90-nvcc13.fatbin"}})
	imgs := rep.Files[0].Images
	require.Len(t, imgs, 2)
	require.Equal(t, "ptx", imgs[0].CodeKind)
	assert.Equal(t, kernelNames(imgs[1]), kernelNames(imgs[0]), "the PTX has the cubin's kernels")
	assert.Len(t, kernelNames(imgs[0]), 3)

	// An OffloadBinary v3 package compressed with zstd. (Not zlib here: a
	// package file whose compressed size is not a multiple of 8 fails
	// dump's ParseAll, which does not step over the writer's padding.)
	co, err := os.ReadFile(filepath.Join(d, "kern-gfx90a-clang22.co"))
	require.NoError(t, err)
	want := amdgpuFacts(t, filepath.Join(d, "kern-gfx90a-clang22.co"))
	for _, codec := range []string{"zstd"} {
		pkg, err := offload.AppendBinaryV3(nil, []*offload.Image{{ImageKind: format.ImgObject, OffloadKind: format.OfkHIP, Image: co,
			Strings: []offload.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: "gfx90a"}}}}, codec, 0)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(d, codec+".pkg"), pkg, 0o644))
		rep := kernelsDoc(t, d, Options{Files: []string{codec + ".pkg"}})
		require.Len(t, rep.Files[0].Images, 1, codec)
		img := rep.Files[0].Images[0]
		assert.Equal(t, int64(len(co)), img.Uncompressed, codec)
		assert.Equal(t, int64(len(pkg)), (img.Size+7)&^7, codec)
		got := map[string]fnFact{}
		for _, fn := range img.Functions {
			got[fn.Name] = fnFact{fn.Size, fn.Kernel}
		}
		assert.Equal(t, want.funcs, got, codec)
	}
}

func kernelNames(img Image) []string {
	var k []string
	for _, fn := range img.Functions {
		if fn.Kernel {
			k = append(k, fn.Name)
		}
	}
	sort.Strings(k)
	return k
}

// TestKernelsDecodeLimits: a compressed image that says it decodes to
// more than maxDecoded is an error on that image, decoded by nobody.
func TestKernelsDecodeLimits(t *testing.T) {
	_, err := packager.DecodeZstd(nil, []byte{0x28, 0xb5, 0x2f, 0xfd}, maxDecoded+1)
	assert.ErrorContains(t, err, "over the 1073741824-byte limit")
	fs := &fatbinSource{}
	_, err = fs.decoder(0)()
	assert.Error(t, err, "not in the file")
}

// TestKernelsJSONMatchesDoc: docs/kernels-json.md's examples are the
// output (the packager's jsondoc_test.go mechanism): kernels --json --duplicates over
// inputs that between them have every field (AMDGPU kernels with AGPRs,
// SGPR and VGPR spills; a cubin's resources; a zstd fatbin entry; an
// image that is not a code object and one that is damaged; a missing
// file; duplicate kernels and images), and kernels diff --json.
func TestKernelsJSONMatchesDoc(t *testing.T) {
	const docPath = "../../../docs/kernels-json.md"
	d := t.TempDir()
	const same = `extern "C" __global__ void same(float *p, float f) { p[0] = p[1] * f + p[2]; }` + "\n"
	a := hipObject(t, d, "a", same+`extern "C" __global__ void mfma(float *p) { asm volatile("v_accvgpr_write_b32 a5, 0" ::: "a5"); p[0] = 1; }`)
	var clobber []string
	for i := 0; i < 100; i++ {
		clobber = append(clobber, `"s`+strconv.Itoa(i)+`"`)
	}
	b := hipObject(t, d, "b", same+`extern "C" __global__ void sspill(int *p, int a, int b, int c, int d, int e, int f, int g, int h) {
  asm volatile("" ::: `+strings.Join(clobber, ",")+`);
  p[0] = a + b * c - d + e * f - g + h;
}`)
	clitest.CopyInto(t, "../../../format/codeobj/testdata/cuda13", d, "kernels-sm90-nvcc13.cubin")
	clitest.CopyInto(t, "../../../format/codeobj/testdata", d, "kern-gfx90a-clang22.co")
	clitest.CopyInto(t, nestedTestdata, d, "elf_ptx_zstd.fatbin")
	cubin, err := os.ReadFile(filepath.Join(d, "kernels-sm90-nvcc13.cubin"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(d, "copy.cubin"), cubin, 0o644))
	co, err := os.ReadFile(filepath.Join(d, "kern-gfx90a-clang22.co"))
	require.NoError(t, err)
	strs := []offload.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: "gfx90a"}}
	pkg := offload.AppendBinary(nil, &offload.Image{ImageKind: format.ImgObject, OffloadKind: format.OfkHIP, Strings: strs, Image: []byte("not code\n")})
	pkg = offload.AppendBinary(pkg, &offload.Image{ImageKind: format.ImgObject, OffloadKind: format.OfkHIP, Strings: strs, Image: co[:300]})
	require.NoError(t, os.WriteFile(filepath.Join(d, "odd.pkg"), pkg, 0o644))

	out, err := runKernels(d, Options{JSON: true, Duplicates: true,
		Files: []string{a, b, "kernels-sm90-nvcc13.cubin", "copy.cubin", "kern-gfx90a-clang22.co", "elf_ptx_zstd.fatbin", "odd.pkg", "missing.o"}})
	require.Error(t, err, "missing.o")
	var real any
	require.NoError(t, json.Unmarshal([]byte(out), &real), out)
	for _, want := range []string{`"note": "not a code object`, `"error": "16 section headers at 0x2878 run past the end (300 bytes)`, `"agprs": 6`, `"sgpr_spills": `, `"vgpr_spills": 2`, `"stack": 256`, `"uncompressed_size": 4200`} {
		assert.Contains(t, out, want)
	}
	var doc any
	require.NoError(t, json.Unmarshal(clitest.DocJSONBlock(t, docPath, 0), &doc), "the first example is JSON once comments are removed")
	noFold := func(p string) string { return p }
	want, got := map[string]string{}, map[string]string{}
	clitest.Shape(doc, "", want, noFold)
	clitest.Shape(real, "", got, noFold)
	clitest.AssertShapes(t, "docs/kernels-json.md", want, got)

	// Diffs: a to b (functions added and removed), and a to c, built
	// for gfx90a:xnack+ with same() changed, under a budget it breaks.
	c := hipObjectFor(t, d, "c", "gfx90a:xnack+", `extern "C" __global__ void same(float *p, float f) { p[0] = p[1] * f + p[2] * p[3]; }`)
	want, got = map[string]string{}, map[string]string{}
	require.NoError(t, json.Unmarshal(clitest.DocJSONBlock(t, docPath, 1), &doc), "the diff example")
	clitest.Shape(doc, "", want, noFold)
	for _, pair := range [][2]string{{a, b}, {a, c}} {
		var buf bytes.Buffer
		err := Diff(context.Background(), &Env{Stdout: &buf, Stderr: &buf, Dir: d}, DiffOptions{A: pair[0], B: pair[1], Format: "json", FailOn: "size+0,sgprs>90"})
		require.Error(t, err, "over budget")
		require.NoError(t, json.Unmarshal(buf.Bytes(), &real), buf.String())
		clitest.Shape(real, "", got, noFold)
	}
	clitest.AssertShapes(t, "docs/kernels-json.md (diff)", want, got)
	assert.Contains(t, string(clitest.DocJSONBlock(t, docPath, 0)), `"schema": 2,`)
	assert.Equal(t, 2, Schema)
}

// TestKernelsFamilies: a family is the demangled name without template
// arguments, parameters, return type or qualifiers.
func TestKernelsFamilies(t *testing.T) {
	for name, want := range map[string][2]string{
		"_Z8tile_sumIfLi128EEvPKT_PS0_": {"void tile_sum<float, 128>(float const*, float*)", "tile_sum"},
		"_ZN12rocrand_host6detail15generate_kernelILj256EdN14rocrand_device13mtgp32_engineEEEvPT1_PT0_m": {
			"void rocrand_host::detail::generate_kernel<256u, double, rocrand_device::mtgp32_engine>(rocrand_device::mtgp32_engine*, double*, unsigned long)",
			"rocrand_host::detail::generate_kernel"},
		"_Z5saxpyifPKfPf":    {"saxpy(int, float, float const*, float*)", "saxpy"},
		"_ZNK3Foo3barIiEEvv": {"void Foo::bar<int>() const", "Foo::bar"},
		"_ZTS2N1":            {"typeinfo name for N1", "typeinfo name for N1"},
		"scale":              {"scale", "scale"},
		"_Z":                 {"_Z", "_Z"},
	} {
		assert.Equal(t, want, demangled(name), name)
	}
}

// FuzzCCOBEntries: any bytes as a compressed bundle whose entries 0 and 1
// are wanted: no panic, every wanted image is either parsed or carries
// an error, and nothing is parsed twice.
func FuzzCCOBEntries(f *testing.F) {
	co, err := os.ReadFile("../../../format/codeobj/testdata/kern-gfx90a-clang22.co")
	require.NoError(f, err)
	plain, err := bundle.AppendBinary(nil, []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a"}, [][]byte{nil, co}, 4096)
	require.NoError(f, err)
	for _, zlib := range []bool{false, true} {
		blob, _, err := bundle.Compress(nil, plain, bundle.CompressOptions{Zlib: zlib})
		require.NoError(f, err)
		f.Add(blob)
	}
	f.Add([]byte("CCOB"))
	f.Fuzz(func(t *testing.T, blob []byte) {
		if h, err := bundle.ParseHeader(blob); err == nil && h.UncompressedSize > 1<<20 {
			return // real, but slow to fuzz: the limits are tested apart
		}
		imgs := []*Image{{}, {}}
		cj := &ccobJob{blob: blob, want: map[int]*Image{0: imgs[0], 1: imgs[1]}}
		parsed := map[*Image]int{}
		cj.run(false, func(img *Image, data []byte) {
			parsed[img]++
			parseImage(img, data, true, &nameCache{m: map[string][2]string{}})
		})
		for i, img := range imgs {
			assert.LessOrEqual(t, parsed[img], 1)
			assert.True(t, parsed[img] == 1 || img.Error != "", "entry %d: parsed or an error", i)
		}
	})
}

// TestKernelsImageErrorExitStatus: a zstd fatbin entry whose header says
// it decodes to 2 GiB (over the 1 GiB limit) is reported on its row and
// in the JSON, and makes the run fail, naming the entry; the other entry
// is still listed.
func TestKernelsImageErrorExitStatus(t *testing.T) {
	d := t.TempDir()
	clitest.CopyInto(t, nestedTestdata, d, "elf_ptx_zstd.fatbin")
	data, err := os.ReadFile(filepath.Join(d, "elf_ptx_zstd.fatbin"))
	require.NoError(t, err)
	// Entry 0's header is at 0x10; its uncompressed size at +0x38.
	binary.LittleEndian.PutUint64(data[0x10+0x38:], 2<<30)
	require.NoError(t, os.WriteFile(filepath.Join(d, "big.fatbin"), data, 0o644))
	out, err := runKernels(d, Options{Files: []string{"big.fatbin"}})
	require.Error(t, err)
	assert.Equal(t, "big.fatbin: fatbin 0 entry 0: zstd entry decodes to 2147483648 bytes, over the 1073741824-byte limit for listing functions (exceeds limit) at offset 0x10", err.Error())
	assert.Contains(t, out, "big.fatbin: fatbin 0 entry 0 error: zstd entry decodes to 2147483648 bytes")
	assert.Contains(t, out, "\nFUNCTIONS (2)\n", "the PTX entry's functions are listed")
	out, err = runKernels(d, Options{Files: []string{"big.fatbin"}, JSON: true})
	require.Error(t, err)
	var rep Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Contains(t, rep.Files[0].Images[0].Error, "over the 1073741824-byte limit")
}

// TestKernelsRawBitcode: device bitcode given as a file (clang 22
// -emit-llvm --offload-device-only) is one image whose functions are the
// module's definitions with their FUNCTION_BLOCK sizes (4 × the NumWords
// llvm-bcanalyzer -dump prints), kernels by calling convention, counted
// as PTX/IR; it used to be an empty report.
func TestKernelsRawBitcode(t *testing.T) {
	d := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(d, "k.hip"), []byte(`#define G __attribute__((global))
#define D __attribute__((device))
D __attribute__((noinline)) float twice(float x) { return x * 2; }
template <typename T> G void scale(T *p, T f) { p[0] = twice(p[1]) * f; }
template G void scale<float>(float *, float);
template G void scale<double>(double *, double);
`), 0o644))
	clitest.Sh(t, d, llvmtools.Tool(t, "clang"), "-x", "hip", "--offload-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib", "-O2", "-emit-llvm", "-c", "k.hip", "-o", "k.bc")
	var sizes []int64
	for _, m := range regexp.MustCompile(`<FUNCTION_BLOCK NumWords=(\d+)`).FindAllStringSubmatch(string(clitest.Sh(t, d, llvmtools.Tool(t, "llvm-bcanalyzer"), "-dump", "k.bc")), -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		sizes = append(sizes, 4*n)
	}
	require.Len(t, sizes, 3)
	rep := kernelsDoc(t, d, Options{Files: []string{"k.bc"}})
	require.Len(t, rep.Files[0].Images, 1)
	img := rep.Files[0].Images[0]
	assert.Equal(t, "bitcode", img.CodeKind)
	assert.Equal(t, "ir", img.CodeClass)
	assert.Equal(t, "amdgcn-amd-amdhsa", img.Triple)
	var got []int64
	kernels := map[string]bool{}
	for _, fn := range img.Functions {
		got = append(got, fn.Size)
		kernels[fn.Demangled] = fn.Kernel
		assert.Equal(t, "bitcode", fn.SizeFrom)
	}
	assert.Equal(t, sizes, got, "in module order")
	assert.Equal(t, map[string]bool{"twice(float)": false, "void scale<float>(float*, float)": true, "void scale<double>(double*, double)": true}, kernels)
	assert.Equal(t, sizes[0]+sizes[1]+sizes[2], rep.Totals.ByFile[0].IR)
	assert.Zero(t, rep.Totals.ByFile[0].Machine)
}
