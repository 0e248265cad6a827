package split

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reachRows are the kernels of testdata/reach.ll, each with the way it
// reaches its functions and what its part must define besides the kernel
// and the seeds (@ext_tab, a non-discardable variable, and @seed_fn, the
// function it points at).
var reachRows = []struct {
	kernel, how string
	keep        []string
}{
	{"k_bundle", "operand bundles of a call and of llvm.assume", []string{"bundle_fn", "assume_fn"}},
	{"k_deopt", "a deopt bundle", []string{"deopt_fn"}},
	{"k_region", "llvm.directive.region.entry bundles (shared variable, UDR combiner and initializer) and a call inside the region", []string{"@g_shared", "udr_combiner", "udr_init", "in_region"}},
	{"k_table", "a function-pointer table", []string{"@tab", "tab_a", "tab_b"}},
	{"k_nested", "a variable pointing at a struct that holds a function pointer", []string{"@nested_outer", "@nested_inner", "nested_fn"}},
	{"k_constexpr", "getelementptr, ptrtoint and sub constant expressions in initializers, add(ptrtoint) in a store", []string{"@gep_holder", "gep_fn", "@p2i_holder", "p2i_fn", "p2i_fn2", "inst_fn"}},
	{"k_select", "select and phi of function pointers", []string{"sel_a", "sel_b", "phi_fn"}},
}

// TestReachabilityRows: the closure of each kernel of testdata/reach.ll
// holds exactly its row's functions and variables, under intel's rule for
// indirect calls and under upstream's; every part verifies; the dead
// function, the dead table and its function are in no part. It is the set
// llvm-split --split-by-category=kernel keeps (checked in
// TestReachabilityLLVMSplit).
func TestReachabilityRows(t *testing.T) {
	m := parseFixture(t, "reach.ll")
	for _, opts := range []ClosureOptions{{}, {IndirectAll: true}} {
		x := m.NewExtractor(opts)
		for _, r := range reachRows {
			k := m.Lookup(r.kernel)
			require.True(t, k >= 0, r.kernel)
			ir, _ := x.Emit(nil, &Part{Entries: []int32{int32(k)}})
			want := append([]string{r.kernel, "@ext_tab", "seed_fn"}, r.keep...)
			sort.Strings(want)
			assert.Equal(t, want, defined(ir), "%s (%s), %+v", r.kernel, r.how, opts)
			for _, d := range []string{"dead_fn", "dead_tab", "dead_tab_fn"} {
				assert.NotContains(t, string(ir), "@"+d, "%s", r.kernel)
			}
			verify(t, ir)
		}
	}
	// KeepReachable: the union, linkage kept.
	ir := string(m.KeepReachable(nil, nil, ClosureOptions{}))
	verify(t, []byte(ir))
	want := []string{"@ext_tab", "seed_fn"}
	for _, r := range reachRows {
		want = append(want, r.kernel)
		want = append(want, r.keep...)
	}
	sort.Strings(want)
	assert.Equal(t, want, defined([]byte(ir)))
	assert.Contains(t, ir, "define internal spir_func void @bundle_fn()")
}

// TestReachabilityLLVMSplit compares each kernel's part with LLVM 22's
// llvm-split --split-by-category=kernel on testdata/reach.ll: the defined
// functions and variables are the same.
func TestReachabilityLLVMSplit(t *testing.T) {
	src, err := os.ReadFile("testdata/reach.ll")
	require.NoError(t, err)
	crossCheckKernels(t, src, regexp.MustCompile(`(?m)^define spir_kernel void @(\w+)`), len(reachRows))
}

// crossCheckKernels runs llvm-split --split-by-category=kernel on the IR
// src and compares each part's defined names with the closure of its
// kernel (upstream's rule for indirect calls). Names starting with "llvm."
// are left out: upstream copies llvm.used and llvm.compiler.used into
// every part, we drop them.
func crossCheckKernels(t *testing.T, src []byte, kernelRe *regexp.Regexp, parts int) {
	t.Helper()
	dir := t.TempDir()
	bc := runTool(t, src, tool(t, "llvm-as"), "-o", "-", "-")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.bc"), bc, 0o644))
	runTool(t, nil, tool(t, "llvm-split"), "--split-by-category=kernel", "-S", filepath.Join(dir, "in.bc"), "-o", filepath.Join(dir, "out"))
	m, err := Parse("in.ll", runTool(t, bc, tool(t, "llvm-dis"), "-o", "-", "-"))
	require.NoError(t, err)
	x := m.NewExtractor(ClosureOptions{IndirectAll: true})
	n := 0
	for ; ; n++ {
		up, err := os.ReadFile(filepath.Join(dir, "out_"+strconv.Itoa(n)+".ll"))
		if err != nil {
			break
		}
		k := kernelRe.FindSubmatch(up)
		require.True(t, k != nil, "part %d has a kernel", n)
		i := m.Lookup(string(k[1]))
		require.True(t, i >= 0, "%s", k[1])
		ir, _ := x.Emit(nil, &Part{Entries: []int32{int32(i)}})
		verify(t, ir)
		assert.Equal(t, withoutLLVM(defined(up)), withoutLLVM(defined(ir)), "kernel %s", k[1])
	}
	assert.Equal(t, parts, n, "llvm-split parts")
}

func withoutLLVM(d []string) []string {
	var out []string
	for _, s := range d {
		if !strings.HasPrefix(strings.TrimPrefix(s, "@"), "llvm.") {
			out = append(out, s)
		}
	}
	return out
}

// hipReach compiles testdata/reach.hip for gfx90a with clang 22
// (-fgpu-rdc keeps the unused device functions external) and returns the
// llvm-dis text of the module.
func hipReach(t *testing.T) []byte {
	t.Helper()
	ll := runTool(t, nil, tool(t, "clang"), "-x", "hip", "--offload-device-only", "-nogpulib", "-nogpuinc",
		"--offload-arch=gfx90a", "-fgpu-rdc", "-O2", "-S", "-emit-llvm", "-o", "-", "testdata/reach.hip")
	return runTool(t, runTool(t, ll, tool(t, "llvm-as"), "-o", "-", "-"), tool(t, "llvm-dis"), "-o", "-", "-")
}

// TestReachabilityClangHIP: on clang's HIP device code, where the kernels
// reach device functions only through an llvm.assume "align" bundle
// (__builtin_assume_aligned on a function's address), a function-pointer
// table in a global, a struct in a global and a ptrtoint constant
// expression, (a) each kernel's part equals llvm-split's, and (b)
// KeepReachable keeps exactly the reached functions. LLVM 22's
// hipstdpar-select-accelerator-code (opt) follows the call graph only: it
// keeps none of them and writes poison/undef where they were used, so the
// table and the struct no longer point at code. Ours keeps them, and
// drops only the two functions nothing reaches.
func TestReachabilityClangHIP(t *testing.T) {
	txt := hipReach(t)
	crossCheckKernels(t, txt, regexp.MustCompile(`(?m)^define protected amdgpu_kernel void @(\w+)`), 4)

	m, err := Parse("reach.hip.ll", txt)
	require.NoError(t, err)
	ours := m.KeepReachable(nil, nil, ClosureOptions{})
	verify(t, ours)
	kernels := []string{"_Z8k_bundlePi", "_Z7k_tablePi", "_Z8k_structPi", "_Z11k_constexprPl"}
	reached := []string{"_Z9in_bundlei", "_Z2sqi", "_Z3negi", "_Z10via_structi", "_Z13via_constexpri"}
	globals := []string{"@table", "@ops"}
	want := append(append(append([]string{}, kernels...), reached...), globals...)
	got := defined(ours)
	for _, w := range want {
		assert.Contains(t, got, w)
	}
	for _, d := range []string{"_Z4deadi", "_Z13dead_table_fni"} {
		assert.Regexp(t, `(?m)^define hidden [^\n]*@`+d+`\(`, string(txt), "clang keeps %s, external, with -fgpu-rdc", d)
		assert.NotContains(t, got, d)
		assert.NotContains(t, string(ours), "@"+d)
	}
	assert.Contains(t, string(ours), `[ "align"(ptr @_Z9in_bundlei, i64 16) ]`)
	assert.Contains(t, string(ours), "[ptr @_Z2sqi, ptr @_Z3negi]")

	up := runTool(t, txt, tool(t, "opt"), "-passes=hipstdpar-select-accelerator-code", "-S", "-o", "-", "-")
	upDefined := defined(up)
	for _, k := range kernels {
		assert.Contains(t, upDefined, k)
	}
	for _, f := range append(reached, "_Z4deadi", "_Z13dead_table_fni") {
		assert.NotContains(t, upDefined, f, "LLVM's pass drops %s", f)
	}
	assert.Contains(t, string(up), `"align"(ptr poison, i64 16)`)
}

// TestReachabilityClangSYCL: clang's SYCL device code with a
// function-pointer table (an addrspacecast constant expression in the
// kernel) and a ptrtoint constant expression stored by a kernel: each
// kernel's part equals llvm-split's, and the table's functions are in the
// table kernel's part only.
func TestReachabilityClangSYCL(t *testing.T) {
	ll := runTool(t, nil, tool(t, "clang"), "-cc1", "-fsycl-is-device", "-triple", "spirv64", "-O2", "-emit-llvm", "-o", "-", "testdata/reach-sycl.cpp")
	txt := runTool(t, runTool(t, ll, tool(t, "llvm-as"), "-o", "-", "-"), tool(t, "llvm-dis"), "-o", "-", "-")
	crossCheckKernels(t, txt, regexp.MustCompile(`(?m)^define spir_kernel void @(\w+)`), 3)
	m, err := Parse("reach-sycl.ll", txt)
	require.NoError(t, err)
	x := m.NewExtractor(ClosureOptions{})
	for k, want := range map[string][]string{
		"_ZTS4KTab":  {"_ZTS4KTab", "@_ZL5table", "_Z2sqi", "_Z3negi"},
		"_ZTS5KAddr": {"_ZTS5KAddr", "_Z9addr_onlyi"},
	} {
		i := m.Lookup(k)
		require.True(t, i >= 0, k)
		ir, _ := x.Emit(nil, &Part{Entries: []int32{int32(i)}})
		verify(t, ir)
		sort.Strings(want)
		assert.Equal(t, want, defined(ir), k)
	}
}

// TestReachabilityClangObjC: a call inside an operand bundle on real clang
// output. ARC on arm64 attaches the retain of a returned object to the
// call (clang.arc.attachedcall naming
// @llvm.objc.retainAutoreleasedReturnValue); the closure of the caller
// keeps that declaration, or the module would not verify.
func TestReachabilityClangObjC(t *testing.T) {
	ll := runTool(t, nil, tool(t, "clang"), "--target=arm64-apple-macosx", "-fobjc-arc", "-O2", "-S", "-emit-llvm", "-o", "-", "testdata/reach-arc.m")
	txt := runTool(t, runTool(t, ll, tool(t, "llvm-as"), "-o", "-", "-"), tool(t, "llvm-dis"), "-o", "-", "-")
	require.Contains(t, string(txt), `"clang.arc.attachedcall"(ptr @llvm.objc.retainAutoreleasedReturnValue)`)
	m, err := Parse("reach-arc.ll", txt)
	require.NoError(t, err)
	ir := string(m.KeepReachable(nil, func(g *Global) bool { return g.Name() == "k" }, ClosureOptions{}))
	verify(t, []byte(ir))
	assert.Contains(t, ir, "declare extern_weak ptr @llvm.objc.retainAutoreleasedReturnValue(ptr)")
	assert.NotContains(t, ir, "define void @unused(")
}
