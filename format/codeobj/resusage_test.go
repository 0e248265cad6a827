package codeobj

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/cudatools"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// cuobjdumpRes is one function of cuobjdump -res-usage: REG, STACK,
// SHARED and CONSTANT[0] (-1 when cuobjdump prints no CONSTANT[0]).
type cuobjdumpRes struct{ reg, stack, shared, constant int64 }

// resUsage runs cuobjdump -res-usage on a cubin.
func resUsage(t *testing.T, path string) map[string]cuobjdumpRes {
	t.Helper()
	out, err := exec.Command(cudatools.Tool(t, "cuobjdump"), "-res-usage", path).CombinedOutput()
	require.NoError(t, err, string(out))
	re := regexp.MustCompile(`Function (\S+):\n\s+REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:\d+ (?:CONSTANT\[[1-9]\]:\d+ )*(?:CONSTANT\[0\]:(\d+) )?`)
	got := map[string]cuobjdumpRes{}
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		n := func(s string) int64 {
			if s == "" {
				return -1
			}
			v, err := strconv.ParseInt(s, 10, 64)
			require.NoError(t, err)
			return v
		}
		got[m[1]] = cuobjdumpRes{n(m[2]), n(m[3]), n(m[4]), n(m[5])}
	}
	require.NotEmpty(t, got, string(out))
	return got
}

func ours(t *testing.T, path string) (*Object, map[string]cuobjdumpRes) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	o, err := Parse(data)
	require.NoError(t, err)
	got := map[string]cuobjdumpRes{}
	for _, fn := range o.Functions {
		r := fn.Resources
		c := int64(-1)
		if r.Has(ResConstant) {
			c = r.Constant
		}
		require.True(t, r.Has(ResRegisters|ResStack|ResLDS), fn.Name)
		got[fn.Name] = cuobjdumpRes{r.Registers, r.Stack, r.LDS, c}
	}
	return o, got
}

// patchSection rewrites the sh_info of the section named name.
func patchShInfo(t *testing.T, data []byte, name string, info uint32) []byte {
	t.Helper()
	f, err := parseELF(data)
	require.NoError(t, err)
	out := append([]byte(nil), data...)
	shoff := binary.LittleEndian.Uint64(data[40:])
	for i := range f.sections {
		if f.sections[i].name == name {
			binary.LittleEndian.PutUint32(out[shoff+uint64(i)*64+44:], info)
			return out
		}
	}
	t.Fatalf("no section %s", name)
	return nil
}

// TestCubinResourcesAgainstCuobjdump: cubins that CUDA 13.5's ptxas makes
// at test time from the clang-made PTX (a kernel calling a device
// function) for several arches, relocatable and linked, the nvcc 13
// fixtures, and cubins whose register records were patched: for every
// function cuobjdump -res-usage lists, REG, STACK, SHARED and
// CONSTANT[0] (or its absence) are ours, and we list no other function.
// The patched ones pin the rule: a kernel's REG is its EIATTR_REGCOUNT,
// else its text section's sh_info bits 24-31; a device function's is the
// sh_info bits, whatever EIATTR_REGCOUNT says.
func TestCubinResourcesAgainstCuobjdump(t *testing.T) {
	d := t.TempDir()
	ptx, err := os.ReadFile(filepath.Join("testdata", "saxpy-sm90-clang22.ptx"))
	require.NoError(t, err)
	cubins := []string{filepath.Join("testdata", "saxpy-sm90-ptxas13.cubin"), filepath.Join("testdata", "cuda13", "kernels-sm90-nvcc13.cubin")}
	targets := map[string]string{}
	for _, a := range []string{"sm_75", "sm_90", "sm_90a", "sm_100a", "sm_100f", "sm_120f"} {
		for _, rel := range []bool{false, true} {
			src := strings.Replace(string(ptx), ".target sm_90", ".target "+a, 1)
			src = regexp.MustCompile(`(?m)^\.version .*$`).ReplaceAllString(src, ".version 8.8")
			in := filepath.Join(d, a+".ptx")
			require.NoError(t, os.WriteFile(in, []byte(src), 0o644))
			out := filepath.Join(d, a+".cubin")
			args := []string{"-arch=" + a, in, "-o", out}
			if rel {
				out = filepath.Join(d, a+"-rel.cubin")
				args = []string{"-arch=" + a, "-c", in, "-o", out}
			}
			b, err := exec.Command(cudatools.Tool(t, "ptxas"), args...).CombinedOutput()
			require.NoError(t, err, string(b))
			cubins = append(cubins, out)
			targets[out] = strings.TrimSuffix(a, "f") // the ELF does not mark a family-specific cubin
		}
	}
	// Device function: sh_info's register bits set to 7 (ptxas leaves
	// them 0 and records 24 in EIATTR_REGCOUNT).
	rel, err := os.ReadFile(filepath.Join(d, "sm_90-rel.cubin"))
	require.NoError(t, err)
	p := filepath.Join(d, "patched-func.cubin")
	require.NoError(t, os.WriteFile(p, patchShInfo(t, rel, ".text._Z5scaleff", 7<<24|uint32(mustInfo(t, rel, ".text._Z5scaleff"))), 0o644))
	cubins = append(cubins, p)
	// Kernel: sh_info's bits set to 5 and its EIATTR_REGCOUNT record
	// turned into another attribute: sh_info counts.
	k := patchShInfo(t, rel, ".text._Z5saxpyifPKfPf", 5<<24|uint32(mustInfo(t, rel, ".text._Z5saxpyifPKfPf")))
	k = dropRegcount(t, k, "_Z5saxpyifPKfPf")
	p = filepath.Join(d, "patched-kernel.cubin")
	require.NoError(t, os.WriteFile(p, k, 0o644))
	cubins = append(cubins, p)

	for _, c := range cubins {
		t.Run(filepath.Base(c), func(t *testing.T) {
			o, got := ours(t, c)
			assert.Equal(t, resUsage(t, c), got)
			if want, ok := targets[c]; ok {
				assert.Equal(t, want, o.Target)
			}
		})
	}
	_, got := ours(t, filepath.Join(d, "patched-func.cubin"))
	assert.Equal(t, int64(7), got["_Z5scaleff"].reg)
	_, got = ours(t, filepath.Join(d, "patched-kernel.cubin"))
	assert.Equal(t, int64(5), got["_Z5saxpyifPKfPf"].reg)
}

func mustInfo(t *testing.T, data []byte, name string) uint32 {
	t.Helper()
	f, err := parseELF(data)
	require.NoError(t, err)
	s := f.section(name)
	require.NotNil(t, s, name)
	return s.info
}

// dropRegcount turns the EIATTR_REGCOUNT record of the named function in
// .nv.info into an EIATTR_MAX_STACK_SIZE one (same layout).
func dropRegcount(t *testing.T, data []byte, fn string) []byte {
	t.Helper()
	f, err := parseELF(data)
	require.NoError(t, err)
	idx := -1
	require.NoError(t, f.symbols(func(i int, s *elfSymbol) {
		if s.name == fn {
			idx = i
		}
	}))
	s := f.section(".nv.info")
	require.NotNil(t, s)
	recs, err := eiattrs(f.bytes(s), int64(s.off))
	require.NoError(t, err)
	out := append([]byte(nil), data...)
	n := 0
	for _, r := range recs {
		if r.attr == eiattrRegCount && int(binary.LittleEndian.Uint32(r.val)) == idx {
			out[r.off+1] = 0x23
			n++
		}
	}
	require.Equal(t, 1, n)
	return out
}

// TestTensileLayoutSizes: a Tensile-style code object (hand-written
// assembly: kernels without .size, local labels inside them, metadata
// written by hand without amdhsa.target), assembled by clang 22. Every
// function runs to the next function symbol of .text or to its end, as
// llvm-readelf -sS shows the layout; resources are the note's
// (llvm-readelf --notes); the target ID comes from the ELF header, as
// llvm-readobj --file-headers names the processor.
func TestTensileLayoutSizes(t *testing.T) {
	d := t.TempDir()
	co := filepath.Join(d, "tensile.co")
	b, err := exec.Command(llvmtools.Path("clang"), "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-x", "assembler",
		filepath.Join("testdata", "tensile-gfx90a.s"), "-o", co).CombinedOutput()
	require.NoError(t, err, string(b))
	data, err := os.ReadFile(co)
	require.NoError(t, err)
	o, err := Parse(data)
	require.NoError(t, err)

	// The layout as llvm-readelf -sS prints it.
	out := tool(t, "llvm-readelf", "-sS", "--wide", co)
	secs := map[string][2]int64{} // index → address, size
	for _, m := range regexp.MustCompile(`\[\s*(\d+)\] \S+\s+\S+\s+([0-9a-f]+) [0-9a-f]+ ([0-9a-f]+)`).FindAllStringSubmatch(out, -1) {
		a, _ := strconv.ParseInt(m[2], 16, 64)
		s, _ := strconv.ParseInt(m[3], 16, 64)
		secs[m[1]] = [2]int64{a, s}
	}
	type sym struct {
		value, size int64
		ndx         string
	}
	funcs := map[string]sym{}
	starts := map[string][]int64{}
	for _, m := range regexp.MustCompile(`(?m)^\s*\d+: ([0-9a-f]+)\s+(\d+) FUNC\s+\S+\s+\S+\s+(\d+) (\S+)$`).FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseInt(m[1], 16, 64)
		s, _ := strconv.ParseInt(m[2], 10, 64)
		if _, dup := funcs[m[4]]; !dup {
			funcs[m[4]] = sym{v, s, m[3]}
			starts[m[3]] = append(starts[m[3]], v)
		}
	}
	require.Len(t, funcs, 2)
	want := map[string]int64{}
	for name, s := range funcs {
		require.Zero(t, s.size, "%s has no .size", name)
		end := secs[s.ndx][0] + secs[s.ndx][1]
		for _, v := range starts[s.ndx] {
			if v > s.value && v < end {
				end = v
			}
		}
		want[name] = end - s.value
	}
	got := map[string]int64{}
	for _, fn := range o.Functions {
		got[fn.Name] = fn.Size
		assert.Equal(t, SizeLayout, fn.SizeFrom, fn.Name)
		assert.True(t, fn.Kernel, fn.Name)
	}
	assert.Equal(t, want, got)
	assert.Equal(t, int64(256), got["Cijk_Alik_Bljk_SB_MT64x64"], "up to the next kernel (.p2align 8)")
	b, err = exec.Command(llvmtools.Path("llvm-readobj"), "--file-headers", co).Output()
	require.NoError(t, err)
	hdr := string(b)
	require.Contains(t, hdr, "EF_AMDGPU_MACH_AMDGCN_GFX90A (0x3F)")
	require.Contains(t, hdr, "EF_AMDGPU_FEATURE_XNACK_ANY_V4", "any: no :xnack± in the target ID")
	assert.Equal(t, "amdgcn-amd-amdhsa--gfx90a", o.Target)
	CheckNotes(t, co, o)
}

// noteKeys maps the metadata keys parseAMDGPU reads to their fields.
var noteKeys = map[string]ResourceSet{
	".sgpr_count": ResSGPRs, ".vgpr_count": ResVGPRs, ".agpr_count": ResAGPRs,
	".group_segment_fixed_size": ResLDS, ".private_segment_fixed_size": ResScratch,
	".kernarg_segment_size": ResKernarg, ".sgpr_spill_count": ResSGPRSpills,
	".vgpr_spill_count": ResVGPRSpills, ".max_flat_workgroup_size": ResMaxThreads,
}

// CheckNotes compares every kernel's resources with its entry in the
// metadata note as LLVM 22's llvm-readelf --notes prints it: each key parseAMDGPU
// reads is recorded with the note's value, and a key the note lacks is
// not recorded; every kernel of the note is a kernel of ours.
func CheckNotes(t *testing.T, path string, o *Object) {
	t.Helper()
	want := map[string]Resources{}
	var cur *Resources
	var name string
	flush := func() {
		if cur != nil && name != "" {
			want[name] = *cur
		}
		cur, name = nil, ""
	}
	kv := regexp.MustCompile(`^  (?:- |  )(\.[a-z_]+):\s+(\S+)$`)
	notes, err := exec.Command(llvmtools.Path("llvm-readelf"), "--notes", path).Output() // LLVM 22's
	require.NoError(t, err)
	for _, l := range strings.Split(string(notes), "\n") {
		if strings.HasPrefix(l, "  - .") {
			flush()
			cur = &Resources{}
		} else if !strings.HasPrefix(l, "    ") {
			flush()
		}
		m := kv.FindStringSubmatch(l)
		if m == nil || cur == nil {
			continue
		}
		if m[1] == ".symbol" {
			name = strings.TrimSuffix(m[2], ".kd")
			continue
		}
		if bit, ok := noteKeys[m[1]]; ok {
			v, err := strconv.ParseInt(m[2], 10, 64)
			require.NoError(t, err, l)
			cur.set(bit, v)
		}
	}
	flush()
	require.NotEmpty(t, want, path)
	got := map[string]Resources{}
	for _, fn := range o.Functions {
		if fn.Kernel {
			require.NotNil(t, fn.Resources, fn.Name)
			got[fn.Name] = *fn.Resources
		}
	}
	assert.Equal(t, want, got, path)
}
