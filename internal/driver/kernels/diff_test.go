package kernels

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/codeobj"
	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/cudatools"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// tensileKernel is one kernel of a Tensile-style assembly code object:
// no .size (the symbol has st_size 0), a local label inside, the metadata
// written by hand.
type tensileKernel struct {
	name                 string
	nops                 int // s_nop instructions (4 bytes each) before s_endpgm
	sgprs, vgprs, agprs  int
	lds, scratch, spills int
}

// tensileCodeObject assembles the kernels for the target ID with clang
// 22 (-x assembler) into dir/name and returns the path.
func tensileCodeObject(t *testing.T, dir, name, target string, ks []tensileKernel) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, ".amdgcn_target \"amdgcn-amd-amdhsa--%s\"\n.text\n", target)
	for _, k := range ks {
		fmt.Fprintf(&b, ".globl %[1]s\n.p2align 8\n.type %[1]s,@function\n%[1]s:\n  s_mov_b32 s0, 0\nlabel_%[1]s:\n", k.name)
		for i := 0; i < k.nops; i++ {
			b.WriteString("  s_nop 0\n")
		}
		b.WriteString("  s_endpgm\n")
	}
	b.WriteString(".rodata\n")
	for _, k := range ks {
		fmt.Fprintf(&b, ".p2align 6\n.amdhsa_kernel %s\n  .amdhsa_next_free_vgpr %d\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 4\n  .amdhsa_group_segment_fixed_size %d\n  .amdhsa_private_segment_fixed_size %d\n.end_amdhsa_kernel\n",
			k.name, max(k.vgprs, 4), k.lds, k.scratch)
	}
	b.WriteString(".amdgpu_metadata\n---\namdhsa.version: [ 1, 1 ]\namdhsa.kernels:\n")
	for _, k := range ks {
		fmt.Fprintf(&b, `  - .name: %[1]s
    .symbol: %[1]s.kd
    .args: []
    .group_segment_fixed_size: %[2]d
    .kernarg_segment_align: 8
    .kernarg_segment_size: 0
    .max_flat_workgroup_size: 256
    .private_segment_fixed_size: %[3]d
    .sgpr_count: %[4]d
    .sgpr_spill_count: 0
    .vgpr_count: %[5]d
    .agpr_count: %[6]d
    .vgpr_spill_count: %[7]d
    .wavefront_size: 64
`, k.name, k.lds, k.scratch, k.sgprs, k.vgprs, k.agprs, k.spills)
	}
	b.WriteString("...\n.end_amdgpu_metadata\n")
	src := filepath.Join(dir, name+".s")
	require.NoError(t, os.WriteFile(src, []byte(b.String()), 0o644))
	clitest.Sh(t, dir, llvmtools.Tool(t, "clang"), "-target", "amdgcn-amd-amdhsa", "-mcpu="+target, "-x", "assembler", src, "-o", name)
	return name
}

// diffOut runs kernels diff and returns its output and error.
func diffOut(t *testing.T, dir string, opt DiffOptions) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := Diff(context.Background(), &Env{Stdout: &out, Stderr: &out, Dir: dir}, opt)
	return out.String(), err
}

// TestKernelsDiffTensile: two Tensile-style code objects (st_size 0
// kernels), the first for gfx90a:xnack-, the second for gfx90a: the
// targets match by processor with the feature change shown, and each
// kernel's size (from the layout), registers, spills, LDS and scratch
// deltas are the ones assembled; budgets set the error, in text, JSON and
// Markdown; bad rules are usage errors.
func TestKernelsDiffTensile(t *testing.T) {
	d := t.TempDir()
	a := tensileCodeObject(t, d, "old.co", "gfx90a:xnack-", []tensileKernel{
		{name: "Cijk_MT64x64", nops: 10, sgprs: 30, vgprs: 40, agprs: 8, lds: 4096},
		{name: "Cijk_MT32x32", nops: 2, sgprs: 20, vgprs: 16},
		{name: "Cijk_gone", nops: 1, sgprs: 10, vgprs: 8},
	})
	b := tensileCodeObject(t, d, "new.co", "gfx90a", []tensileKernel{
		{name: "Cijk_MT64x64", nops: 30, sgprs: 30, vgprs: 52, agprs: 8, lds: 8192, scratch: 64, spills: 3},
		{name: "Cijk_MT32x32", nops: 2, sgprs: 20, vgprs: 16},
		{name: "Cijk_fresh", nops: 3, sgprs: 12, vgprs: 8},
	})
	out, err := diffOut(t, d, DiffOptions{A: a, B: b, Format: "json"})
	require.NoError(t, err, out)
	var rep DiffReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Archs, 1, "gfx90a:xnack- and gfx90a are one processor")
	ad := rep.Archs[0]
	assert.Equal(t, ArchDiff{Arch: "gfx90a", Class: "machine", TargetA: "gfx90a:xnack-", TargetB: "gfx90a", FuncsA: 3, FuncsB: 3,
		Before: 256 + 256 + 12, After: 256 + 256 + 20, Delta: 8, Added: 1, Removed: 1, Changed: 1, Features: "xnack- -> (none)"}, ad,
		"each kernel but the last runs to the next one (.p2align 8); the last to the end of .text")
	var doc struct {
		Changes []struct {
			Name, Status  string
			Before, After map[string]int64
			Delta         map[string]int64
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	got := map[string]string{}
	for _, c := range doc.Changes {
		got[c.Name] = c.Status
		if c.Name == "Cijk_MT64x64" {
			assert.Equal(t, map[string]int64{"size": 256, "regs": 48, "sgprs": 30, "vgprs": 40, "agprs": 8, "spills": 0, "lds": 4096, "scratch": 0}, c.Before)
			assert.Equal(t, map[string]int64{"size": 256, "regs": 60, "sgprs": 30, "vgprs": 52, "agprs": 8, "spills": 3, "lds": 8192, "scratch": 64}, c.After)
			assert.Equal(t, map[string]int64{"size": 0, "regs": 12, "sgprs": 0, "vgprs": 12, "agprs": 0, "spills": 3, "lds": 4096, "scratch": 64}, c.Delta)
		}
	}
	assert.Equal(t, map[string]string{"Cijk_MT64x64": "changed", "Cijk_gone": "removed", "Cijk_fresh": "added"}, got, "Cijk_MT32x32 did not change")

	// Budgets.
	for _, c := range []struct {
		rules string
		fail  []string // the breaks, "" for none
	}{
		{"spills>0", []string{"spills>0: spills is 3"}},
		{"regs+8", []string{"regs+8: regs 48 -> 60 (+12)"}},
		{"regs+12", nil},
		{"lds+50%", []string{"lds+50%: lds 4096 -> 8192 (+100.0%)"}},
		{"scratch+0", []string{"scratch+0: scratch 0 -> 64"}},
		{"size+0%,vgprs>60,sgprs>12", []string{"Cijk_MT32x32: sgprs>12: sgprs is 20"}},
	} {
		out, err := diffOut(t, d, DiffOptions{A: a, B: b, Format: "json", FailOn: c.rules})
		var rep DiffReport
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		if c.fail == nil {
			assert.NoError(t, err, c.rules)
			assert.Zero(t, rep.Violations, c.rules)
			continue
		}
		require.Error(t, err, c.rules)
		assert.Contains(t, err.Error(), "budget: ", c.rules)
		assert.Contains(t, err.Error(), c.fail[0], c.rules)
	}
	// sgprs>12 holds for every kernel of B, changed or not: MT32x32 (20)
	// and fresh (12: not over) too.
	out, err = diffOut(t, d, DiffOptions{A: a, B: b, Format: "json", FailOn: "sgprs>12"})
	require.Error(t, err)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 2, rep.Violations, "MT64x64 (30) and the unchanged MT32x32 (20)")

	// A budget file: rules a line, comments, commas.
	require.NoError(t, os.WriteFile(filepath.Join(d, "budget.txt"), []byte("# CI budget\nspills>0   # no spills\nregs+16, size+5%\n\n"), 0o644))
	out, err = diffOut(t, d, DiffOptions{A: a, B: b, BudgetFile: "budget.txt"})
	require.Error(t, err)
	assert.Contains(t, out, "\nBUDGET (spills>0, regs+16, size+5%): 1 function(s) over\n")
	assert.Contains(t, out, "  gfx90a:xnack- -> gfx90a Cijk_MT64x64: spills>0: spills is 3\n")
	assert.Regexp(t, `\n\s*\+0\s+FAIL changed\s+gfx90a:xnack- -> gfx90a\s+machine\s+256\s+48->60\s+30\s+0->3\s+4096->8192\s+0->64\s+Cijk_MT64x64\n`, out)
	assert.Regexp(t, `\n\s*\+8\s+524\s+532\s+1\s+1\s+1\s+machine\s+gfx90a:xnack- -> gfx90a\n`, out)
	assert.Regexp(t, `\n\s*\+20\s+added\s+gfx90a:xnack- -> gfx90a\s+machine\s+20\s+8\s+12\s+0\s+0\s+0\s+Cijk_fresh\n`, out)
	assert.Regexp(t, `\n\s*-12\s+removed\s+gfx90a:xnack- -> gfx90a\s+machine\s+12\s+8\s+10\s+0\s+0\s+0\s+Cijk_gone\n`, out)

	// Markdown for a pull-request comment.
	out, err = diffOut(t, d, DiffOptions{A: a, B: b, Format: "md", FailOn: "spills>0"})
	require.Error(t, err)
	assert.Contains(t, out, "### Kernel changes: `old.co` → `new.co`\n\n**Budget** (`spills>0`): **1 function(s) over**\n\n")
	assert.Contains(t, out, "| Δ bytes | before | after | added | removed | changed | code | target |\n|---:|---:|---:|---:|---:|---:|---:|---|\n| +8 | 524 | 532 | 1 | 1 | 1 | machine | gfx90a:xnack- -> gfx90a |\n")
	assert.Contains(t, out, "| +0 | FAIL changed | gfx90a:xnack- -> gfx90a | machine | 256 | 48->60 | 30 | 0->3 | 4096->8192 | 0->64 | Cijk_MT64x64 |\n")
	assert.Contains(t, out, "<details><summary>Over budget</summary>\n\n- `gfx90a:xnack- -> gfx90a` Cijk_MT64x64: spills>0: spills is 3\n\n</details>\n")

	// Rules that do not parse are usage errors, before any input is read.
	for _, c := range []struct{ rules, msg string }{
		{"spills>x", `--fail-on: budget rule "spills>x": "x" is not a whole number of 0 or more`},
		{"bytes+1", `--fail-on: budget rule "bytes+1": unknown metric "bytes" (one of size, regs, sgprs, vgprs, agprs, spills, lds, scratch)`},
		{"regs=8", `--fail-on: budget rule "regs=8": want METRIC>N, METRIC+N or METRIC+N% (e.g. spills>0, regs+8, size+5%)`},
		{"size+-5%", `--fail-on: budget rule "size+-5%": "-5" is not a whole number of 0 or more`},
	} {
		_, err := diffOut(t, d, DiffOptions{A: "missing-a", B: "missing-b", FailOn: c.rules})
		var fe *diag.FlagError
		require.True(t, errors.As(err, &fe), "%s: %v", c.rules, err)
		assert.Equal(t, c.msg, err.Error())
	}
	require.NoError(t, os.WriteFile(filepath.Join(d, "bad.txt"), []byte("spills>0\nregs+eight\n"), 0o644))
	_, err = diffOut(t, d, DiffOptions{A: a, B: b, BudgetFile: "bad.txt"})
	var fe *diag.FlagError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, `--budget-file: bad.txt:2: budget rule "regs+eight": "eight" is not a whole number of 0 or more`, err.Error())
}

// TestKernelsCubinResourcesAgainstCuobjdump: a compressed fat binary
// that CUDA 13.5's ptxas and fatbinary make at test time (cubins for
// sm_75, sm_90 relocatable, sm_90a, sm_100f and sm_120f from the
// clang-made PTX, nvcc 13's cubin, and the PTX): for every function of
// every cubin entry, kernels reports the arch, REG, STACK, SHARED and
// CONSTANT[0] that cuobjdump -res-usage prints for the fat binary.
func TestKernelsCubinResourcesAgainstCuobjdump(t *testing.T) {
	d := t.TempDir()
	ptx, err := os.ReadFile("../../../format/codeobj/testdata/saxpy-sm90-clang22.ptx")
	require.NoError(t, err)
	nvcc, err := filepath.Abs("../../../format/codeobj/testdata/cuda13/kernels-sm90-nvcc13.cubin")
	require.NoError(t, err)
	images := []string{"--image3=kind=elf,sm=90,file=" + nvcc}
	for _, a := range []struct {
		sm  string
		rel bool
	}{{"75", false}, {"90", true}, {"90a", false}, {"100f", false}, {"120f", false}} {
		src := strings.Replace(string(ptx), ".target sm_90", ".target sm_"+a.sm, 1)
		src = regexp.MustCompile(`(?m)^\.version .*$`).ReplaceAllString(src, ".version 8.8")
		p := filepath.Join(d, "s"+a.sm+".ptx")
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		args := []string{"-arch=sm_" + a.sm, p, "-o", filepath.Join(d, "s"+a.sm+".cubin")}
		if a.rel {
			args = append([]string{"-c"}, args...)
		}
		clitest.Sh(t, d, append([]string{cudatools.Tool(t, "ptxas")}, args...)...)
		images = append(images, "--image3=kind=elf,sm="+a.sm+",file="+filepath.Join(d, "s"+a.sm+".cubin"), "--image3=kind=ptx,sm="+a.sm+",file="+p)
	}
	clitest.Sh(t, d, append([]string{cudatools.Tool(t, "fatbinary"), "--create=all.fatbin", "--compress-all"}, images...)...)

	type fnRes struct {
		arch, name                   string
		reg, stack, shared, constant int64
	}
	var want []fnRes
	arch := ""
	blocks := regexp.MustCompile(`(?m)^arch = (\S+)$|Function (\S+):\n\s+REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:\d+ (?:CONSTANT\[[1-9]\]:\d+ )*(?:CONSTANT\[0\]:(\d+) )?`)
	for _, m := range blocks.FindAllStringSubmatch(string(clitest.Sh(t, d, cudatools.Tool(t, "cuobjdump"), "-res-usage", "all.fatbin")), -1) {
		if m[1] != "" {
			arch = m[1]
			continue
		}
		n := func(s string) int64 {
			if s == "" {
				return -1
			}
			v, _ := strconv.ParseInt(s, 10, 64)
			return v
		}
		want = append(want, fnRes{arch, m[2], n(m[3]), n(m[4]), n(m[5]), n(m[6])})
	}
	require.Len(t, want, 3+2+4, "nvcc's 3 kernels, the relocatable cubin's kernel and device function, one kernel for each other arch")

	rep := kernelsDoc(t, d, Options{Files: []string{"all.fatbin"}})
	var got []fnRes
	for _, img := range rep.Files[0].Images {
		require.Empty(t, img.Error)
		if img.CodeKind != "cubin" {
			continue
		}
		assert.NotZero(t, img.Uncompressed, "compressed")
		for _, fn := range img.Functions {
			r := fn.Resources
			c := int64(-1)
			if r.Has(codeobj.ResConstant) {
				c = r.Constant
			}
			got = append(got, fnRes{img.Arch, fn.Name, r.Registers, r.Stack, r.LDS, c})
		}
	}
	key := func(s []fnRes) func(i, j int) bool {
		return func(i, j int) bool { return s[i].arch+s[i].name < s[j].arch+s[j].name }
	}
	sort.Slice(want, key(want))
	sort.Slice(got, key(got))
	assert.Equal(t, want, got)
}

// curandReleases are two releases of NVIDIA's cuRAND for CUDA 13, which
// scripts/install-deps.sh unpacks from NVIDIA's PyPI wheels
// (nvidia-curand 10.4.0.35 and 10.4.5.25) under /opt/offload-kit: real
// third-party fat binaries with zstd-compressed cubin and PTX entries for
// sm_75 to sm_121. A missing one fails the test (a differential test
// that cannot run is a defect).
var curandReleases = [2]string{"10.4.0.35", "10.4.5.25"}

func curandLib(t *testing.T, version string) string {
	t.Helper()
	p := "/opt/offload-kit/curand-" + version + "/nvidia/cu13/lib/libcurand.so.10"
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("cuRAND %s: %v (scripts/install-deps.sh installs it)", version, err)
	}
	return p
}

// cuobjdumpFunctions runs cuobjdump -res-usage on a library and returns
// each cubin function's REG by arch and name (the largest of its copies),
// and how many function records it printed.
func cuobjdumpFunctions(t *testing.T, lib string) (map[[2]string]int64, int) {
	t.Helper()
	out := clitest.Sh(t, "", cudatools.Tool(t, "cuobjdump"), "-res-usage", lib)
	regs := map[[2]string]int64{}
	n, arch := 0, ""
	for _, m := range regexp.MustCompile(`(?m)^arch = (\S+)$|Function (\S+):\n\s+REG:(\d+) `).FindAllStringSubmatch(string(out), -1) {
		if m[1] != "" {
			arch = m[1]
			continue
		}
		v, _ := strconv.ParseInt(m[3], 10, 64)
		k := [2]string{arch, m[2]}
		regs[k] = max(regs[k], v)
		n++
	}
	return regs, n
}

// TestKernelsCurandReleases: kernels and kernels diff on two cuRAND
// releases. Every cubin function of each has the REG, STACK, SHARED and
// CONSTANT[0] cuobjdump -res-usage prints (TestKernelsCubinResources'
// comparison, at the scale of a real library), and diff's regs+0 budget
// flags exactly the functions whose REG grew from one release to the
// other by cuobjdump's numbers.
func TestKernelsCurandReleases(t *testing.T) {
	a, b := curandLib(t, curandReleases[0]), curandLib(t, curandReleases[1])
	d := t.TempDir()
	grew := 0
	var regsA map[[2]string]int64
	for i, lib := range []string{a, b} {
		regs, n := cuobjdumpFunctions(t, lib)
		rep := kernelsDoc(t, d, Options{Files: []string{lib}})
		got := map[[2]string]int64{}
		count := 0
		for _, img := range rep.Files[0].Images {
			require.Empty(t, img.Error, img.Container)
			if img.CodeKind != "cubin" {
				continue
			}
			for _, fn := range img.Functions {
				k := [2]string{img.Arch, fn.Name}
				got[k] = max(got[k], fn.Resources.Registers)
				count++
			}
		}
		assert.Equal(t, n, count, "%s: as many cubin functions as cuobjdump lists", lib)
		assert.Equal(t, regs, got, "%s: REG of every function", lib)
		if i == 0 {
			regsA = regs
			continue
		}
		for k, v := range regs {
			if w, ok := regsA[k]; ok && v > w {
				grew++
			}
		}
	}
	require.NotZero(t, grew, "some function needs more registers in the later release")
	out, err := diffOut(t, d, DiffOptions{A: a, B: b, Format: "json", FailOn: "regs+0"})
	require.Error(t, err)
	var rep DiffReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	machine := 0
	for _, c := range rep.Changes {
		if len(c.Breaks) > 0 && c.Class == "machine" {
			machine++
		}
	}
	assert.Equal(t, grew, machine, "regs+0 flags the functions whose REG grew")
}

// TestKernelsGGML: ggml's CUDA build (the npm package's
// libggml-cuda.so: 1001 zstd-compressed fatbin entries, PTX for sm_75,
// sm_80 and sm_90, SASS for sm_86, sm_89, sm_120a and sm_121a). Every
// cubin function has the arch, REG, STACK, SHARED and CONSTANT[0] that
// cuobjdump -res-usage prints (26,924 records); each arch's machine code
// and PTX bytes are apart, and only the archs cuobjdump -lelf lists have
// machine code, only those -lptx lists have PTX; the largest rows of the
// text report, PTX, are in the PTX/IR column.
func TestKernelsGGML(t *testing.T) {
	lib := cudatools.ThirdParty(t, cudatools.GGML)
	d := t.TempDir()
	type fnRes struct {
		arch, name                   string
		reg, stack, shared, constant int64
	}
	count := map[fnRes]int{}
	arch := ""
	re := regexp.MustCompile(`(?m)^arch = (\S+)$|Function (\S+):\n\s+REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:\d+ (?:CONSTANT\[[1-9]\]:\d+ )*(?:CONSTANT\[0\]:(\d+) )?`)
	n := 0
	for _, m := range re.FindAllStringSubmatch(string(clitest.Sh(t, "", cudatools.Tool(t, "cuobjdump"), "-res-usage", lib)), -1) {
		if m[1] != "" {
			arch = m[1]
			continue
		}
		v := func(s string) int64 {
			if s == "" {
				return -1
			}
			x, _ := strconv.ParseInt(s, 10, 64)
			return x
		}
		count[fnRes{arch, m[2], v(m[3]), v(m[4]), v(m[5]), v(m[6])}]++
		n++
	}
	require.Greater(t, n, 20000)
	rep := kernelsDoc(t, d, Options{Files: []string{lib}})
	got := map[fnRes]int{}
	for _, img := range rep.Files[0].Images {
		require.Empty(t, img.Error, img.Container)
		if img.CodeKind != "cubin" {
			continue
		}
		for _, fn := range img.Functions {
			r := fn.Resources
			c := int64(-1)
			if r.Has(codeobj.ResConstant) {
				c = r.Constant
			}
			got[fnRes{img.Arch, fn.Name, r.Registers, r.Stack, r.LDS, c}]++
		}
	}
	assert.Equal(t, count, got, "every cubin function as cuobjdump -res-usage prints it")

	elf, ptx := map[string]bool{}, map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(ELF|PTX) file\s+\d+: \S+\.(sm_\w+)\.(?:cubin|ptx)$`).FindAllStringSubmatch(string(clitest.Sh(t, "", cudatools.Tool(t, "cuobjdump"), "-lelf", "-lptx", lib)), -1) {
		map[string]map[string]bool{"ELF": elf, "PTX": ptx}[m[1]][m[2]] = true
	}
	require.NotEmpty(t, elf)
	require.NotEmpty(t, ptx)
	for _, a := range rep.Totals.ByArch {
		assert.Equal(t, elf[a.Key], a.Machine > 0, "%s: machine code bytes %d", a.Key, a.Machine)
		assert.Equal(t, ptx[a.Key], a.IR > 0, "%s: PTX bytes %d", a.Key, a.IR)
		assert.Equal(t, a.Machine+a.IR, a.Bytes)
	}

	out, err := runKernels(d, Options{Files: []string{lib}, Top: 6})
	require.NoError(t, err)
	_, fns, _ := strings.Cut(out, "\nFUNCTIONS (")
	lines := strings.Split(fns, "\n")
	require.Greater(t, len(lines), 8)
	assert.Equal(t, "MACHINE  PTX/IR  ARCH   TYPE    REGS  LDS  SCRATCH  SPILLS  MAXTHR  NAME", lines[1])
	for _, l := range lines[2:8] {
		f := strings.Fields(l)
		assert.Equal(t, "-", f[0], "the largest functions are PTX, in the PTX/IR column: %s", l)
		assert.True(t, ptx[f[2]], l)
	}
}

// TestPairTargets: targets of one code class pair by exact target ID
// first, then by processor (gfx900:xnack- with gfx900, sm_100 with
// sm_100f); what is left of a processor pairs in sorted order, the rest
// with nothing.
func TestPairTargets(t *testing.T) {
	side := func(ids ...string) diffSide {
		s := diffSide{}
		for _, id := range ids {
			class, arch, _ := strings.Cut(id, " ")
			s[[2]string{class, arch}] = map[string]*diffFn{}
		}
		return s
	}
	var got []string
	for _, p := range pairTargets(side("machine gfx900:xnack-", "machine gfx90a", "machine sm_100", "ir sm_90", "machine gfx1030", "machine gfx90a:xnack-"),
		side("machine gfx900", "machine gfx90a:xnack+", "machine gfx90a:xnack-", "machine sm_100f", "machine sm_90", "machine gfx1100")) {
		got = append(got, strings.TrimSpace(p[0][0]+" "+p[0][1])+" => "+strings.TrimSpace(p[1][0]+" "+p[1][1]))
	}
	sort.Strings(got)
	assert.Equal(t, []string{
		" => machine gfx1100",
		" => machine sm_90", // PTX for sm_90 is not SASS for sm_90
		"ir sm_90 => ",
		"machine gfx1030 => ",
		"machine gfx900:xnack- => machine gfx900",
		"machine gfx90a => machine gfx90a:xnack+",
		"machine gfx90a:xnack- => machine gfx90a:xnack-",
		"machine sm_100 => machine sm_100f",
	}, got)
	assert.Equal(t, "f", strings.TrimPrefix(features("sm_100", "sm_100f"), "(none) -> "))
	assert.Equal(t, "xnack- -> (none)", features("gfx900:xnack-", "gfx900"))
	assert.Equal(t, "sm_100", processor("sm_100a"))
	assert.Equal(t, "sm_90", processor("sm_90"))
}

// TestMarkdownCell: a C++ name stays literal in a GitHub table cell.
func TestMarkdownCell(t *testing.T) {
	assert.Equal(t, "void f&lt;a\\|b>(float\\*, double\\*, \\`x\\`) &lt;", mdCell("void f<a|b>(float*, double*, `x`) <"))
}
