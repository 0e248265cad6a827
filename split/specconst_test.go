package split

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpecConstants(t *testing.T) {
	m := parseFixture(t, "specconst.ll")
	x := m.NewExtractor(ClosureOptions{})
	p := Part{Entries: m.EntryPoints(false)}
	ir, cl := x.Emit(nil, &p)
	for _, tc := range []struct {
		mode  SpecMode
		wants []string
	}{
		{SpecNative, []string{
			"%call.i = call spir_func i32 @_Z20__spirv_SpecConstantii(i32 0, i32 42)",
			"%call2.i = call spir_func double @_Z20__spirv_SpecConstantid(i32 1, double 1.500000e+00)",
			"%call4.i = call spir_func i32 @_Z20__spirv_SpecConstantii(i32 0, i32 42)",
			"declare spir_func i32 @_Z20__spirv_SpecConstantii(i32, i32)",
			`!{!"uid_int", i32 0, i32 0, i32 4}`, `!{!"uid_dbl", i32 1, i32 0, i32 8}`,
		}},
		{SpecEmulation, []string{
			"%sc1.p = getelementptr i8, ptr addrspace(4) %1, i32 0",
			"%call.i = load i32, ptr addrspace(4) %sc1.p, align 4",
			"%sc2.p = getelementptr i8, ptr addrspace(4) %1, i32 8",
			`!{!"uid_int", i32 0, i32 0, i32 4, i32 -1, i32 4, i32 4}`,
		}},
		{SpecDefault, []string{
			"%call.i = select i1 true, i32 42, i32 42",
			"!sycl.specialization-constants-default-values-module = !{}",
		}},
	} {
		out, info, err := m.LowerSpecConsts(ir, tc.mode)
		require.NoError(t, err)
		verify(t, out)
		for _, w := range tc.wants {
			assert.Contains(t, string(out), w, "mode %d", tc.mode)
		}
		assert.NotContains(t, string(out), "= tail call spir_func noundef i32 @_Z37")
		require.True(t, info.Changed)
		props := m.Properties(&p, cl, PropOptions{SpecConsts: info}).Text()
		switch tc.mode {
		case SpecNative:
			assert.Contains(t, props, "[SYCL/specialization constants]\nuid_int=2|gBAAAAAAAAAAAAAAAAAAAQAAAAA\n")
			ps, err := syclprop.ParseText(strings.NewReader(props))
			require.NoError(t, err)
			all := ps.Set("SYCL/specialization constants default values").Props[0]
			want := append(u32s(42), binary.LittleEndian.AppendUint64(nil, math.Float64bits(1.5))...)
			assert.Equal(t, withBits(want), all.Bytes)
		case SpecDefault:
			assert.Contains(t, props, "[SYCL/misc properties]\nspecConstsReplacedWithDefault=1|1\n")
		}
	}
}

// specconst-composite.ll is scc.cpp (a struct { char; int; float[2] } spec
// constant returned through sret, and a char scalar) compiled with
// clang-22 -cc1 -fsycl-is-device -triple spirv64 -O2 -emit-llvm.
func TestSpecConstantsComposite(t *testing.T) {
	m := parseFixture(t, "specconst-composite.ll")
	x := m.NewExtractor(ClosureOptions{})
	p := Part{Entries: m.EntryPoints(false)}
	ir, cl := x.Emit(nil, &p)
	for _, mode := range []SpecMode{SpecNative, SpecEmulation, SpecDefault} {
		out, info, err := m.LowerSpecConsts(ir, mode)
		require.NoError(t, err, "mode %d", mode)
		verify(t, out)
		require.Len(t, info.Consts, 2)
		assert.Equal(t, "uid_p", info.Consts[1].SymID)
		// defaults: 'z' | 'a', pad, 7, 1.0f, 2.5f (emulation pads after 'z')
		p := append([]byte{97, 0, 0, 0}, u32s(7, math.Float32bits(1), math.Float32bits(2.5))...)
		switch mode {
		case SpecNative:
			assert.Equal(t, []SpecDesc{{1, 0, 1}, {2, 4, 4}, {3, 8, 4}, {4, 12, 4}}, info.Consts[1].Descs)
			assert.Equal(t, append([]byte{'z'}, p...), info.Defaults)
			assert.Contains(t, string(out), "%sc2.c1 = call spir_func [2 x float] @_Z29__spirv_SpecConstantCompositeff_RA2_f(float %sc2.2, float %sc2.3)")
			assert.Contains(t, string(out), "%sc2.v = call spir_func %struct.P @_Z29__spirv_SpecConstantCompositeaiA2_f_Rstruct.P(i8 %sc2.0, i32 %sc2.1, [2 x float] %sc2.c1)")
			assert.Contains(t, string(out), "store %struct.P %sc2.v, ptr %p.i, align 4")
		case SpecEmulation:
			assert.Equal(t, []SpecDesc{{0, 0, 1}, {math.MaxUint32, 1, 3}}, info.Consts[0].Descs)
			assert.Equal(t, []SpecDesc{{1, 0, 16}}, info.Consts[1].Descs)
			assert.Equal(t, append([]byte{'z', 0, 0, 0}, p...), info.Defaults)
			assert.Contains(t, string(out), "getelementptr i8, ptr addrspace(4) %1, i32 4")
		case SpecDefault:
			assert.Contains(t, string(out), "store %struct.P { i8 97, i32 7, [2 x float] [float 1.000000e+00, float 2.500000e+00] }, ptr %p.i, align 4")
		}
		_ = m.Properties(&p0, cl, PropOptions{SpecConsts: info})
	}
}

var p0 Part
