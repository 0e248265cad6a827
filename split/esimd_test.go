package split

import (
	"errors"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// emitted is one emitted part: its entry names, IR and property sets.
type emitted struct {
	part  Part
	names string // entry names joined by ","
	ir    string
	props syclprop.Sets
}

// emitParts emits every part, checks each with opt -passes=verify, and
// computes its property sets.
func emitParts(t *testing.T, m *Module, parts []Part, opts PropOptions) []emitted {
	t.Helper()
	x := m.NewExtractor(ClosureOptions{})
	var out []emitted
	for _, p := range parts {
		ir, cl := x.Emit(nil, &p)
		verify(t, ir)
		out = append(out, emitted{part: p, names: strings.Join(names(m, p), ","), ir: string(ir), props: m.Properties(&p, cl, opts)})
	}
	return out
}

func TestESIMDMarker(t *testing.T) {
	m := parseFixture(t, "features/esimd.ll")
	require.True(t, m.HasESIMD())
	for n, want := range map[string]bool{
		"esimd_k": true, "esimd_helper": true, "esimd_body": true,
		"wrapper_k": true, // calls the marked esimd_body: the marker is copied up
		"sycl_k":    false, "other_k": false, "shared": false, "table": false,
	} {
		assert.Equal(t, want, m.IsESIMD(int32(m.Lookup(n))), n)
	}
	assert.False(t, parseFixture(t, "example.ll").HasESIMD())
}

// In source mode a.cpp holds ESIMD and SYCL kernels: its part (ID 1, after
// b.cpp's) is divided into an ESIMD part and a SYCL part that share the ID;
// @shared is copied into both; no part mixes the two kinds.
func TestSplitESIMDSource(t *testing.T) {
	m := parseFixture(t, "features/esimd.ll")
	top := m.Split(Options{Mode: ModeSource})
	require.Len(t, top, 2)
	parts, err := m.SplitESIMD(top, ClosureOptions{})
	require.NoError(t, err)
	got := emitParts(t, m, parts, PropOptions{})
	require.Len(t, got, 3)
	type row struct {
		names string
		id    int
		esimd bool
	}
	var rows []row
	for _, e := range got {
		rows = append(rows, row{e.names, e.part.ID, e.part.ESIMD})
	}
	assert.Equal(t, []row{{"other_k", 0, false}, {"esimd_k,wrapper_k", 1, true}, {"sycl_k", 1, false}}, rows)
	assert.True(t, strings.HasSuffix(got[1].part.Key, " <ESIMD>"))
	assert.True(t, strings.HasSuffix(got[2].part.Key, " <SYCL>"))

	assert.Equal(t, []string{"@table", "esimd_body", "esimd_helper", "esimd_k", "shared", "wrapper_k"}, defined([]byte(got[1].ir)))
	assert.Equal(t, []string{"@table", "shared", "sycl_k"}, defined([]byte(got[2].ir)))
	assert.NotContains(t, got[2].ir, "sycl_explicit_simd")

	const base = "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n"
	assert.Equal(t, base+"[SYCL/misc properties]\noptLevel=1|2\n", got[0].props.Text())
	assert.Equal(t, base+"[SYCL/misc properties]\nisEsimdImage=1|1\noptLevel=1|2\n", got[1].props.Text())
	assert.Equal(t, base+"[SYCL/misc properties]\noptLevel=1|2\n", got[2].props.Text())
	js, err := got[1].props.MarshalJSONSets()
	require.NoError(t, err)
	assert.Equal(t, `{"SYCL/device requirements":{"aspects":""},"SYCL/devicelib req mask":{"DeviceLibReqMask":0},`+
		`"SYCL/misc properties":{"isEsimdImage":1,"optLevel":2}}`, string(js))
}

// With no split, the one part is divided too (ID 0 for both halves).
// Without the ESIMD split, the mixed part gets neither isEsimdImage nor
// optLevel (intel drops optLevel for merged ESIMD+SYCL images).
func TestSplitESIMDNone(t *testing.T) {
	m := parseFixture(t, "features/esimd.ll")
	top := m.Split(Options{Mode: ModeNone})
	require.Len(t, top, 1)
	assert.False(t, top[0].ESIMD)
	mixed := emitParts(t, m, top, PropOptions{})
	assert.Equal(t, "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n", mixed[0].props.Text())

	parts, err := m.SplitESIMD(top, ClosureOptions{})
	require.NoError(t, err)
	got := emitParts(t, m, parts, PropOptions{})
	require.Len(t, got, 2)
	assert.Equal(t, "esimd_k,wrapper_k", got[0].names)
	assert.Equal(t, "sycl_k,other_k", got[1].names)
	assert.Equal(t, []int{0, 0}, []int{got[0].part.ID, got[1].part.ID})
	assert.True(t, got[0].part.ESIMD)
	assert.Contains(t, got[0].props.Text(), "[SYCL/misc properties]\nisEsimdImage=1|1\noptLevel=1|2\n")
}

// Per-kernel parts hold one kind each already: SplitESIMD keeps them and
// marks the ESIMD ones.
func TestSplitESIMDKernel(t *testing.T) {
	m := parseFixture(t, "features/esimd.ll")
	top := m.Split(Options{Mode: ModeKernel})
	parts, err := m.SplitESIMD(top, ClosureOptions{})
	require.NoError(t, err)
	assert.Equal(t, top, parts)
	var esimd []string
	for i, p := range parts {
		assert.Equal(t, i, p.ID)
		if p.ESIMD {
			esimd = append(esimd, names(m, p)...)
		}
	}
	assert.Equal(t, []string{"wrapper_k", "esimd_k"}, esimd)
}

func TestSplitESIMDInvokeSimd(t *testing.T) {
	m := parseFixture(t, "features/esimd-invoke.ll")
	_, err := m.SplitESIMD(m.Split(Options{Mode: ModeSource}), ClosureOptions{})
	var ee *ESIMDError
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, &ESIMDError{Entry: "sycl_k", Func: "simd_target"}, ee)
	assert.EqualError(t, err, "SYCL entry point sycl_k uses ESIMD function simd_target other than by a direct call (invoke_simd?): "+
		"ESIMD and SYCL code cannot be split into separate images")
}

// A module without ESIMD code is returned as it is.
func TestSplitESIMDNoESIMD(t *testing.T) {
	m := parseFixture(t, "example.ll")
	top := m.Split(Options{Mode: ModeSource})
	parts, err := m.SplitESIMD(top, ClosureOptions{})
	require.NoError(t, err)
	assert.Equal(t, top, parts)
}
