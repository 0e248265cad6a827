package split

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const reqNone = "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n"

// Per kernel: a kernel that only uses a virtual-function set keeps the set's
// functions as declarations (their bodies, and the fp64 they use, belong to
// the set's image) and lists the sets it uses; the image of a set defines
// its functions with external linkage and names the set.
func TestVirtualFunctionsPerKernel(t *testing.T) {
	m := parseFixture(t, "features/virtual.ll")
	got := emitParts(t, m, m.Split(Options{Mode: ModeKernel}), PropOptions{ExportedSymbols: true})
	var order []string
	for _, e := range got {
		order = append(order, e.names)
	}
	require.Equal(t, []string{"kernel2", "kernel", "foo", "bar"}, order)

	assert.Equal(t, reqNone+"[SYCL/virtual functions]\nuses-virtual-functions-set=2|4AAAAAAAAAwclRXLiFmc\n", got[0].props.Text())
	assert.Equal(t, reqNone+"[SYCL/virtual functions]\nuses-virtual-functions-set=2|4BAAAAAAAAwclRXLiFmcsMXZ01iZv9G\n", got[1].props.Text())
	assert.Equal(t, withBits([]byte("set-bar,set-foo")), propBytes(t, got[1].props.Text(), "SYCL/virtual functions", "uses-virtual-functions-set"))
	k := got[1].ir
	assert.Contains(t, k, "\ndeclare spir_func void @foo(ptr addrspace(4) noundef align 8 %this) #0\n")
	assert.Contains(t, k, "addrspacecast (ptr @foo to ptr addrspace(4))")
	for _, s := range []string{"define linkonce_odr spir_func void @foo", "fmul", "@scale", "$foo", "sycl_used_aspects"} {
		assert.NotContains(t, k, s)
	}
	// foo's image: exported (not exported as a symbol: sets link by name),
	// fp64 from its own body
	assert.Equal(t, "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|gAAAAAAAAAgBAAAA\n"+
		"[SYCL/virtual functions]\nvirtual-functions-set=2|4AAAAAAAAAwclRXLm92b\n", got[2].props.Text())
	assert.Equal(t, withBits([]byte("set-foo")), propBytes(t, got[2].props.Text(), "SYCL/virtual functions", "virtual-functions-set"))
	assert.Contains(t, got[2].ir, "\ndefine spir_func void @foo(ptr addrspace(4) noundef align 8 %this) #0 !sycl_used_aspects !0 {\n")
	assert.NotContains(t, got[2].ir, "comdat")
	assert.Equal(t, reqNone+"[SYCL/virtual functions]\nvirtual-functions-set=2|4AAAAAAAAAwclRXLiFmc\n", got[3].props.Text())

	js, err := got[1].props.MarshalJSONSets()
	require.NoError(t, err)
	assert.Equal(t, `{"SYCL/device requirements":{"aspects":""},"SYCL/devicelib req mask":{"DeviceLibReqMask":0},`+
		`"SYCL/virtual functions":{"uses-virtual-functions-set":"c2V0LWJhcixzZXQtZm9v"}}`, string(js))
}

// Per source, the indirectly-callable value is part of the key: each set
// gets its own image, apart from the kernels that use it.
func TestVirtualFunctionsPerSource(t *testing.T) {
	m := parseFixture(t, "features/virtual.ll")
	got := emitParts(t, m, m.Split(Options{Mode: ModeSource}), PropOptions{})
	var order []string
	for _, e := range got {
		order = append(order, e.names)
	}
	require.Equal(t, []string{"kernel,kernel2", "foo", "bar"}, order)
	assert.Equal(t, reqNone+"[SYCL/virtual functions]\nuses-virtual-functions-set=2|4BAAAAAAAAwclRXLiFmcsMXZ01iZv9G\n", got[0].props.Text())
	assert.Contains(t, got[0].ir, "declare spir_func void @foo(")

	// without a split the one image defines the sets (the first set named)
	none := emitParts(t, m, m.Split(Options{Mode: ModeNone}), PropOptions{})
	require.Len(t, none, 1)
	assert.Equal(t, "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|gAAAAAAAAAgBAAAA\n"+
		"[SYCL/virtual functions]\nvirtual-functions-set=2|4AAAAAAAAAwclRXLm92b\n", none[0].props.Text())
	assert.Contains(t, none[0].ir, "define spir_func void @foo(")
}

func TestImplicitLocalArgAndRegisteredKernels(t *testing.T) {
	m := parseFixture(t, "features/kernels.ll")
	got := emitParts(t, m, m.Split(Options{Mode: ModeKernel}), PropOptions{})
	var order []string
	for _, e := range got {
		order = append(order, e.names)
	}
	require.Equal(t, []string{"_ZTS7KernelA", "_Z3barv", "_Z17__sycl_kernel_foov"}, order)

	assert.Equal(t, reqNone+"[SYCL/implicit local arg]\n_ZTS7KernelA=1|1\n", got[0].props.Text())
	assert.Contains(t, got[0].ir, "\n!0 = !{}\n", "no registered kernel left")
	// the pairs of other kernels and the malformed pair are pruned
	assert.Equal(t, reqNone+"[SYCL/registered kernels]\nbar=2|4AAAAAAAAAwXaNjYhJnd\n(void(*)())bar=2|4AAAAAAAAAwXaNjYhJnd\n", got[1].props.Text())
	assert.Equal(t, withBits([]byte("_Z3barv")), propBytes(t, got[1].props.Text(), "SYCL/registered kernels", "bar"))
	assert.Contains(t, got[1].ir, "\n!0 = !{!3, !5}\n")
	assert.Equal(t, reqNone+"[SYCL/registered kernels]\nfoo=2|wCAAAAAAAAwXaFzNf91c5NGbftWZy5WZs9lZv9md\nbar=2|wCAAAAAAAAwXaFzNf91c5NGbftWZy5WZs9lZv9md\n", got[2].props.Text())
	assert.Equal(t, withBits([]byte("_Z17__sycl_kernel_foov")), propBytes(t, got[2].props.Text(), "SYCL/registered kernels", "foo"))
	assert.Contains(t, got[2].ir, "\n!0 = !{!1, !4}\n")

	js, err := got[1].props.MarshalJSONSets()
	require.NoError(t, err)
	assert.Equal(t, `{"SYCL/device requirements":{"aspects":""},"SYCL/devicelib req mask":{"DeviceLibReqMask":0},`+
		`"SYCL/registered kernels":{"(void(*)())bar":"X1ozYmFydg==","bar":"X1ozYmFydg=="}}`, string(js))
	js, err = got[0].props.MarshalJSONSets()
	require.NoError(t, err)
	assert.Contains(t, string(js), `"SYCL/implicit local arg":{"_ZTS7KernelA":1}`)

	// one image: every well-formed pair (the malformed one, which names no
	// kernel, is pruned); "bar" keeps its first kernel
	none := emitParts(t, m, m.Split(Options{Mode: ModeNone}), PropOptions{})
	assert.Contains(t, none[0].props.Text(), "[SYCL/registered kernels]\nfoo=2|wCAAAAAAAAwXaFzNf91c5NGbftWZy5WZs9lZv9md\nbar=2|4AAAAAAAAAwXaNjYhJnd\n(void(*)())bar=2|4AAAAAAAAAwXaNjYhJnd\n")
	assert.Contains(t, none[0].ir, "\n!0 = !{!1, !3, !4, !5}\n")
}

// TestPropertySetOrder: every set in intel's order (sycl.md §7.5, and
// ComputeModuleRuntimeInfo.cpp@46a4a43c for the newer sets: implicit local
// arg right after assert used, virtual functions and registered kernels
// last); sanUsed and specConstsReplacedWithDefault join the misc set where
// it already is.
func TestPropertySetOrder(t *testing.T) {
	m := parseFixture(t, "features/order.ll")
	parts, err := m.SplitESIMD(m.Split(Options{Mode: ModeNone}), ClosureOptions{})
	require.NoError(t, err)
	sc := &SpecConstInfo{Changed: true, DefaultValues: true, Consts: []SpecConst{{SymID: "sc", Descs: []SpecDesc{{0, 0, 4}}}}, Defaults: u32s(42)}
	got := emitParts(t, m, parts, PropOptions{ProgramMetadata: true, ExportedSymbols: true, ImportedSymbols: true, SpecConsts: sc})
	require.Len(t, got, 1)
	text := got[0].props.Text()
	assert.Equal(t, "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|513\n"+
		"[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\nreqd_work_group_size_uint64_t=2|ADAAAAAAAAAEAAAAAAAAAEAAAAAAAAAABAAAAAAAAAA\n"+
		"[SYCL/specialization constants]\nsc=2|gBAAAAAAAAAAAAAAAAAAAQAAAAA\n"+
		"[SYCL/specialization constants default values]\nall=2|gAAAAAAAAAgKAAAA\n"+
		"[SYCL/imported symbols]\n__devicelib_ConvertBF16ToFINTEL=1|1\n"+
		"[SYCL/program metadata]\nek@reqd_work_group_size=2|gBAAAAAAAAAEAAAABAAAAEAAAAA\ndg_uid@global_id_mapping=2|QAAAAAAAAAAZnB\n"+
		"[SYCL/misc properties]\nisEsimdImage=1|1\nsycl-register-alloc-mode=1|2\nsanUsed=2|gAAAAAAAAAQYzFmb\nspecConstsReplacedWithDefault=1|1\n"+
		"[SYCL/assert used]\nek=1|1\n"+
		"[SYCL/implicit local arg]\nek=1|1\n"+
		"[SYCL/device globals]\ndg_uid=2|ABAAAAAAAAAEAAAAAAAAAA\n"+
		"[SYCL/host pipes]\nhp_uid=2|gAAAAAAAAAACAAAA\n"+
		"[SYCL/virtual functions]\nuses-virtual-functions-set=2|YBAAAAAAAAwclRXLhxyclRXLiB\n"+
		"[SYCL/registered kernels]\nek_name=2|QAAAAAAAAAQZrB\n", text)
	assert.Equal(t, withBits(u32s(16, 0)), propBytes(t, text, "SYCL/device globals", "dg_uid"))
	assert.Equal(t, withBits(u32s(8)), propBytes(t, text, "SYCL/host pipes", "hp_uid"))
	assert.Equal(t, withBits([]byte("set-a,set-b")), propBytes(t, text, "SYCL/virtual functions", "uses-virtual-functions-set"))
	assert.Equal(t, withBits([]byte("ek")), propBytes(t, text, "SYCL/registered kernels", "ek_name"))
	assert.Equal(t, withBits([]byte("dg")), propBytes(t, text, "SYCL/program metadata", "dg_uid@global_id_mapping"))
	assert.Equal(t, withBits([]byte("asan")), propBytes(t, text, "SYCL/misc properties", "sanUsed"))
	wg := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 16), 1), 1)
	assert.Equal(t, withBits(wg), propBytes(t, text, "SYCL/device requirements", "reqd_work_group_size_uint64_t"))
	back, err := syclprop.ParseText(strings.NewReader(text))
	require.NoError(t, err)
	assert.Equal(t, got[0].props, back)
	js, err := got[0].props.MarshalJSONSets()
	require.NoError(t, err)
	assert.Equal(t, `{"SYCL/assert used":{"ek":1},"SYCL/device globals":{"dg_uid":"EAAAAAAAAAA="},`+
		`"SYCL/device requirements":{"aspects":"","reqd_work_group_size_uint64_t":"EAAAAAAAAAABAAAAAAAAAAEAAAAAAAAA"},`+
		`"SYCL/devicelib req mask":{"DeviceLibReqMask":513},"SYCL/host pipes":{"hp_uid":"CAAAAA=="},`+
		`"SYCL/implicit local arg":{"ek":1},"SYCL/imported symbols":{"__devicelib_ConvertBF16ToFINTEL":1},`+
		`"SYCL/misc properties":{"isEsimdImage":1,"sanUsed":"YXNhbg==","specConstsReplacedWithDefault":1,"sycl-register-alloc-mode":2},`+
		`"SYCL/program metadata":{"dg_uid@global_id_mapping":"ZGc=","ek@reqd_work_group_size":"EAAAAAEAAAABAAAA"},`+
		`"SYCL/registered kernels":{"ek_name":"ZWs="},"SYCL/specialization constants":{"sc":"AAAAAAAAAAAEAAAA"},`+
		`"SYCL/specialization constants default values":{"all":"KgAAAA=="},`+
		`"SYCL/virtual functions":{"uses-virtual-functions-set":"c2V0LWEsc2V0LWI="}}`, string(js))

	// a misc set whose only entry is specConstsReplacedWithDefault comes
	// where that entry is added: after the host pipes
	g := parseFixture(t, "features/globals.ll")
	k2 := Part{Entries: []int32{int32(g.Lookup("k2"))}}
	x := g.NewExtractor(ClosureOptions{})
	ps := g.Properties(&k2, x.Closure(k2.Entries), PropOptions{SpecConsts: &SpecConstInfo{DefaultValues: true}})
	var sets []string
	for _, s := range ps {
		sets = append(sets, s.Name)
	}
	assert.Equal(t, []string{"SYCL/devicelib req mask", "SYCL/device requirements", "SYCL/device globals", "SYCL/host pipes", "SYCL/misc properties"}, sets)
}
