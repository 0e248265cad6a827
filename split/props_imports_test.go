package split

import (
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestImportedSymbols(t *testing.T) {
	m := parseFixture(t, "features/imports.ll")
	parts := m.Split(Options{Mode: ModeKernel})
	props := func(opts PropOptions) map[string]string {
		out := map[string]string{}
		for _, e := range emitParts(t, m, parts, opts) {
			out[e.names] = e.props.Text()
		}
		return out
	}
	const reqs = "[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n"
	const k1Mask, k2Mask, fMask = "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|768\n", "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|512\n", "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n"

	// without -emit-imported-symbols: no set
	assert.Equal(t, map[string]string{"k1": k1Mask + reqs, "k2": k2Mask + reqs, "_Z7definedi": fMask + reqs}, props(PropOptions{}))

	// the bfloat16 device-library declarations are always imported
	bf16 := "[SYCL/imported symbols]\n__devicelib_ConvertFToBF16INTEL=1|1\n"
	assert.Equal(t, map[string]string{"k1": k1Mask + reqs + bf16, "k2": k2Mask + reqs + bf16, "_Z7definedi": fMask + reqs},
		props(PropOptions{ImportedSymbols: true}))

	// with -allow-device-image-dependencies, the user functions too (module
	// order); exported symbols come first
	got := props(PropOptions{ImportedSymbols: true, AllowDeviceImageDependencies: true, ExportedSymbols: true})
	assert.Equal(t, map[string]string{
		"k1": k1Mask + reqs + "[SYCL/imported symbols]\n_Z7ext_fooi=1|1\n_ZN2ns3barEv=1|1\n_Z4tmplIiEvT_=1|1\next_c=1|1\n" +
			"__devicelib_ConvertFToBF16INTEL=1|1\n",
		"k2":          k2Mask + reqs + "[SYCL/imported symbols]\n_Z7ext_fooi=1|1\n__devicelib_ConvertFToBF16INTEL=1|1\n",
		"_Z7definedi": fMask + reqs + "[SYCL/exported symbols]\n_Z7definedi=1|1\n[SYCL/imported symbols]\n_Z7ext_fooi=1|1\n",
	}, got)
	ps, err := syclprop.ParseText(strings.NewReader(got["k1"]))
	require.NoError(t, err)
	js, err := ps.MarshalJSONSets()
	require.NoError(t, err)
	assert.Equal(t, `{"SYCL/device requirements":{"aspects":""},"SYCL/devicelib req mask":{"DeviceLibReqMask":768},`+
		`"SYCL/imported symbols":{"_Z4tmplIiEvT_":1,"_Z7ext_fooi":1,"_ZN2ns3barEv":1,"__devicelib_ConvertFToBF16INTEL":1,"ext_c":1}}`, string(js))
}

func TestCanBeImported(t *testing.T) {
	for _, tc := range []struct {
		name             string
		always, withDeps bool
	}{
		{"__devicelib_ConvertFToBF16INTEL", true, true},
		{"__devicelib_ConvertBF16ToFINTELVec8", true, true},
		{"__devicelib_imf_fmabf16", false, false}, // a library, but not linked dynamically
		{"_Z7ext_fooi", false, true},
		{"ext_c", false, true},
		{"_ZN2ns3barEv", false, true},
		{"_ZN12_GLOBAL__N_14anonEv", false, true}, // "(anonymous namespace)::anon()"
		{"_Z4tmplIiEvT_", false, true},
		{"_Z8__helperv", false, false},
		{"_ZN4__ns3barEv", false, false},
		{"_Z6retfooIiE5__FooT_", false, false}, // "__Foo retfoo<int>(int)"
		{"_Z5ti128IiEnT_", false, false},       // "__int128 ti128<int>(int)"
		{"_Z20__spirv_SubgroupSizev", false, false},
		{"_Z19__sycl_getSpecConstv", false, false},
		{"_Z13__esimd_oword", false, false},
		{"__builtin_foo", false, false},
		{"llvm.memset.p4.i64", false, false},
		{"llvmfoo", false, true},
	} {
		assert.Equal(t, tc.always, canBeImported(tc.name, false), tc.name)
		assert.Equal(t, tc.withDeps, canBeImported(tc.name, true), tc.name)
	}
}

// Mangled names clang 22 emits (and a few by hand), with whether their
// demangling starts with "__"; checked against llvm-cxxfilt too.
var demangleCases = []struct {
	name string
	want bool
}{
	{"_Z3foov", false},
	{"_Z8__helperv", true},
	{"_Z9__spirv_Xi", true},
	{"_ZL8__staticv", true},
	{"_ZN2ns3barEv", false},
	{"_ZN4__ns3barEv", true},
	{"_ZN4__ns3__C1fEv", true},
	{"_ZNK2ns1S1mEv", false},
	{"_ZN2ns1SC1Ev", false},
	{"_ZN2ns1SD1Ev", false},
	{"_ZN2ns1ScviEv", false},
	{"_ZN2ns1SplEi", false},
	{"_ZN12_GLOBAL__N_14anonEv", false},
	{"_Z3arrRA4_i", false},
	{"_Z2ntILi3EEvv", false},
	{"_Z2ntILin2EEvv", false},
	{"_Z3fooILb1EEvv", false},
	{"_Z1fIJEEvv", false},
	{"_Z4tmplIiEvT_", false},
	{"_Z4packIJid5__FooEEvDpT_", false},
	{"_Z2idIdET_S0_", false},
	{"_Z2idI5__FooET_S1_", true},
	{"_Z6retfooIiE5__FooT_", true},
	{"_Z7retpfooIcEP5__FooT_", true},
	{"_Z4crefIiERK5__FooT_", true},
	{"_Z4ptrTI5__FooEPT_RKS1_", true},
	{"_Z2fpIiEPF5__FooiET_", true},
	{"_Z3fooIiEA4_5__Foov", true},
	{"_Z3fooIiEM5__FooFvvEv", false},
	{"_Z5ti128IiEnT_", true},
	{"_Z4i128v", false},
	{"_Z5nsretIiEN2ns1SET_", false},
	{"_Z5mkbarIiE3BarT_", false},
	{"_Z2f2IiEN4std23__xET_", false},
	{"_Z3fooIiEDv4_iv", false},
	{"_Z3fooIiEDnv", false},
	{"_Z2rrIiENSt16remove_referenceIT_E4typeES1_", false},
	{"_ZN1WI5__FooE4convIiEES0_T_", true},
	{"_ZN2ns1S3getIiEET_S2_", false},
	{"_ZN3Foo4makeI5__FooEET_v", true},
	{"_ZN3Foo4makeIiEET_v", false},
	{"_ZN1VIiE4makeI5__FooEET_v", true},
	{"_ZN3__n1A4selfIiEES0_T_", true},
	{"_ZN3__n1BI5__FooE1tIiEES1_T_", true},
	{"_ZN3__n1BIiE1tIcEEiT_", false},
	{"_ZN3__n1BIiE4selfIiEES1_T_", true},
	{"_ZN5__Foo2mkIiEEPS_v", true},
	{"_ZN5__Foo3getIiEES_T_", true},
	{"_ZNKSt6vectorIiSaIiEE4sizeEv", false},
	{"_ZSt9make_pairIi5__FooESt4pairINSt25__strip_reference_wrapperINSt5decayIT_E4typeEE6__typeENS2_INS3_IT0_E4typeEE6__typeEEOS4_OS9_", false},
	{"_ZNSt4pairIi5__FooEaSEOS1_Qcl13_S_assignableIT_T0_EE", false},
	{"_ZZ4mainE1x", false},
	{"_ZZ3usevENK3$_1clEv", false},
	{"_ZZ1fvENKUlT_E_clIiEEDaS_", false},
	{"_ZTV3Foo", false},
	{"cfunc", false},
	{"llvm.memcpy.p0.p0.i64", false},
}

func TestDemangledStartsDunder(t *testing.T) {
	for _, c := range demangleCases {
		assert.Equal(t, c.want, demangledStartsDunder(c.name), c.name)
	}
	// garbage must not loop or panic
	for _, s := range []string{"_Z", "_ZN", "_ZNE", "_Z3", "_Z9abc", "_ZIiE", "_ZN1AIE", "_Z1fT", "_ZSZ", "_Z1fA", "_ZZ", "_Z1fIX1EEvv", "_ZNNNNNN"} {
		assert.False(t, demangledStartsDunder(s), s)
	}
	filt := tool(t, "llvm-cxxfilt")
	for _, c := range demangleCases {
		out := strings.TrimSpace(string(runTool(t, nil, filt, c.name)))
		oracle := strings.HasPrefix(out, "__") && out != c.name // an undemangled name does not count
		assert.Equal(t, oracle, c.want, "%s demangles to %q", c.name, out)
	}
}

func FuzzDemangledStartsDunder(f *testing.F) {
	for _, c := range demangleCases {
		f.Add(c.name)
	}
	f.Fuzz(func(t *testing.T, s string) {
		demangledStartsDunder(s)
	})
}
