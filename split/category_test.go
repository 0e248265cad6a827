package split

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hand-written IR parsed directly (no LLVM tools needed).
const catIR = `target triple = "spir64-unknown-unknown"

define spir_kernel void @sg8a() #0 !intel_reqd_sub_group_size !1 {
  ret void
}
define spir_kernel void @sg8b() #0 !intel_reqd_sub_group_size !1 {
  ret void
}
define spir_kernel void @sg16() #0 !intel_reqd_sub_group_size !2 {
  ret void
}
define spir_kernel void @asp_pair() #0 !sycl_used_aspects !3 {
  ret void
}
define spir_kernel void @id_empty() #1 {
  ret void
}
define spir_kernel void @id_dash() #2 {
  ret void
}
define spir_kernel void @id_none() {
  ret void
}
define amdgpu_kernel void @amd() #0 {
  ret void
}
define ptx_kernel void @ptx() #0 {
  ret void
}
define spir_func void @__spirv_Foo() #0 {
  ret void
}
define spir_func void @_Z10__sycl_barv() #0 {
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" }
attributes #1 = { "sycl-module-id"="" }
attributes #2 = { "sycl-module-id"="-" }

!1 = !{i32 8}
!2 = !{i32 16}
!3 = !{!4, i32 5}
!4 = !{!"fp64", i32 6}
`

func TestSourceCategories(t *testing.T) {
	m, err := Parse("cat.ll", []byte(catIR))
	require.NoError(t, err)
	parts := m.Split(Options{Mode: ModeSource})
	var got []string
	for _, p := range parts {
		got = append(got, strings.Join(names(m, p), ","))
	}
	// same sub-group size together, different apart; pair-form aspects;
	// "", "-" and a missing id are three different categories; builtins
	// with sycl-module-id are not entry points; AMD and PTX kernels are.
	assert.ElementsMatch(t, []string{"sg8a,sg8b", "amd,ptx", "sg16", "asp_pair", "id_empty", "id_dash", "id_none"}, got)
	x := m.NewExtractor(ClosureOptions{})
	e := int32(m.Lookup("asp_pair"))
	f := m.PartFeatures(&Part{Entries: []int32{e}}, x.Closure([]int32{e}))
	assert.Equal(t, []int{5, 6}, f.Aspects)
	assert.True(t, f.FP64)
	e = int32(m.Lookup("sg16"))
	ps := m.Properties(&Part{Entries: []int32{e}}, x.Closure([]int32{e}), PropOptions{})
	assert.Contains(t, ps.Text(), "reqd_sub_group_size=1|16\n")
}

func TestKernelsOnly(t *testing.T) {
	m, err := Parse("cat.ll", []byte(catIR))
	require.NoError(t, err)
	all := len(m.EntryPoints(false))
	only := len(m.EntryPoints(true))
	assert.Equal(t, 9, all)
	assert.Equal(t, 9, only) // no SYCL_EXTERNAL functions here besides builtins
}

func TestEmptyModule(t *testing.T) {
	m, err := Parse("e.ll", []byte("target triple = \"spir64\"\n@g = global i32 1\n"))
	require.NoError(t, err)
	parts := m.Split(Options{Mode: ModeKernel})
	require.Len(t, parts, 1)
	assert.Equal(t, "<GLOBAL>", parts[0].Key)
	ir, _ := m.NewExtractor(ClosureOptions{}).Emit(nil, &parts[0])
	assert.Contains(t, string(ir), "@g = global i32 1")
}

func TestUndefined(t *testing.T) {
	src := "define spir_kernel void @k() {\n  call void @ext()\n  call void @_Z18__spirv_ocl_printfPc(ptr null)\n  call void @llvm.trap()\n  ret void\n}\n" +
		"declare void @ext()\ndeclare void @_Z18__spirv_ocl_printfPc(ptr)\ndeclare void @llvm.trap()\n"
	m, err := Parse("u.ll", []byte(src))
	require.NoError(t, err)
	cl := m.NewExtractor(ClosureOptions{}).Closure([]int32{int32(m.Lookup("k"))})
	assert.Equal(t, []string{"ext"}, m.Undefined(cl))
}

func TestDeterministic(t *testing.T) {
	emit := func() string {
		m, err := Parse("cat.ll", []byte(catIR))
		require.NoError(t, err)
		var b strings.Builder
		x := m.NewExtractor(ClosureOptions{})
		for _, mode := range []Mode{ModeNone, ModeKernel, ModeSource} {
			for _, p := range m.Split(Options{Mode: mode}) {
				ir, cl := x.Emit(nil, &p)
				b.WriteString(p.Key + "\n" + string(ir) + m.Properties(&p, cl, PropOptions{}).Text() + m.SymbolTable(&p))
			}
		}
		return b.String()
	}
	first := emit()
	for i := 0; i < 5; i++ {
		assert.Equal(t, first, emit())
	}
}

// HIP stdpar flavour: amdgpu kernels, a reachable device function, an
// unreachable one, a function-pointer table reached from a kernel.
const hipIR = `target triple = "amdgcn-amd-amdhsa"

@tab = internal addrspace(1) constant [1 x ptr] [ptr @via_tab]
@unused_tab = internal addrspace(1) constant [1 x ptr] [ptr @dead2]

define internal void @via_tab() {
  ret void
}
define void @dead1() {
  ret void
}
define internal void @dead2() {
  ret void
}
define hidden void @helper(ptr %p) {
  store i32 1, ptr %p
  ret void
}
define amdgpu_kernel void @k(ptr %p) {
  call void @helper(ptr %p)
  %f = load ptr, ptr addrspace(1) @tab
  ret void
}
`

func TestKeepReachableHIP(t *testing.T) {
	m, err := Parse("hip.ll", []byte(hipIR))
	require.NoError(t, err)
	ir := string(m.KeepReachable(nil, nil, ClosureOptions{}))
	for _, keep := range []string{"define amdgpu_kernel void @k(", "define hidden void @helper(", "@tab = ", "define internal void @via_tab("} {
		assert.Contains(t, ir, keep)
	}
	for _, drop := range []string{"dead1", "dead2", "unused_tab"} {
		assert.NotContains(t, ir, drop)
	}
	if !testing.Short() {
		verify(t, []byte(ir))
	}
	// a custom root set
	ir = string(m.KeepReachable(nil, func(g *Global) bool { return g.Name() == "dead1" }, ClosureOptions{}))
	assert.Contains(t, ir, "@dead1")
	assert.NotContains(t, ir, "@k(")
}

// TestStressRoundTrip parses llvm-stress modules (every instruction kind
// the generator knows) and writes them back whole: the copy must verify.
func TestStressRoundTrip(t *testing.T) {
	stress := tool(t, "llvm-stress")
	for _, seed := range []string{"1", "2", "3"} {
		ll := runTool(t, nil, stress, "-seed="+seed, "-size=300", "-o", "-")
		txt := runTool(t, runTool(t, ll, tool(t, "llvm-as"), "-o", "-", "-"), tool(t, "llvm-dis"), "-o", "-", "-")
		m, err := Parse("stress"+seed+".ll", txt)
		require.NoError(t, err)
		ir := m.KeepReachable(nil, func(g *Global) bool { return g.Kind == Function && !g.Decl }, ClosureOptions{})
		verify(t, ir)
		assert.Equal(t, len(defined(txt)), len(defined(ir)), "seed %s", seed)
	}
}

// TestRealCXX runs the model on clang output for STL-heavy C++ with debug
// info (vtables, invoke/landingpad, comdats, declarations with !dbg): the
// closure of each function, internalised, must verify.
func TestRealCXX(t *testing.T) {
	clang := tool(t, "clang")
	txt := runTool(t, nil, clang, "--target=x86_64-linux-gnu", "-S", "-emit-llvm", "-O2", "-g", "-o", "-", "testdata/cxx-stl.cpp")
	txt = runTool(t, runTool(t, txt, tool(t, "llvm-as"), "-o", "-", "-"), tool(t, "llvm-dis"), "-o", "-", "-")
	m, err := Parse("cxx-stl.ll", txt)
	require.NoError(t, err)
	x := m.NewExtractor(ClosureOptions{})
	for _, name := range []string{"_Z5totalRKSt6vectorIP5ShapeSaIS1_EE", "_Z5sortvRSt6vectorIiSaIiEE", "_Z1ff",
		"_Z11count_wordsRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"} {
		i := m.Lookup(name)
		require.True(t, i >= 0, name)
		ir, _ := x.Emit(nil, &Part{Entries: []int32{int32(i)}})
		verify(t, ir)
		assert.True(t, len(ir) < len(txt), name)
	}
}
