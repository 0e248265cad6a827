package split

import (
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The table holds intel's SDLMap (SYCLDeviceLibReqMask.cpp@f72e501d):
// 597 names in ten libraries.
func TestDeviceLibTable(t *testing.T) {
	count := map[DeviceLibExt]int{}
	for _, e := range devicelibTable() {
		count[e]++
	}
	assert.Equal(t, map[DeviceLibExt]int{
		DevicelibAssert: 2, DevicelibMath: 46, DevicelibMathFP64: 40, DevicelibComplex: 24,
		DevicelibComplexFP64: 24, DevicelibCString: 3, DevicelibIMF: 300, DevicelibIMFFP64: 75,
		DevicelibIMFBF16: 69, DevicelibBFloat16: 14,
	}, count)
	assert.Len(t, devicelibTable(), 597)
	assert.Equal(t, "cl_intel_devicelib_math_fp64", DevicelibMathFP64.String())
	assert.Equal(t, "cl_intel_devicelib_bfloat16", DevicelibBFloat16.String())
	assert.Equal(t, "DeviceLibExt(10)", DeviceLibExt(10).String())
	for name, want := range map[string]DeviceLibExt{
		"__devicelib_assert_fail":              DevicelibAssert,
		"__devicelib_abs":                      DevicelibMath,
		"__devicelib_tgammaf":                  DevicelibMath,
		"__devicelib_tgamma":                   DevicelibMathFP64,
		"__devicelib___mulsc3":                 DevicelibComplex,
		"__devicelib___divdc3":                 DevicelibComplexFP64,
		"__devicelib_memcmp":                   DevicelibCString,
		"__devicelib_imf_fadd_rz":              DevicelibIMF,
		"__devicelib_imf_vimin_s32_relu":       DevicelibIMF,
		"__devicelib_imf_double2bfloat16":      DevicelibIMFFP64,
		"__devicelib_imf_sqrt_rd":              DevicelibIMFFP64,
		"__devicelib_imf_ll2bfloat16_ru":       DevicelibIMFBF16,
		"__devicelib_ConvertBF16ToFINTELVec16": DevicelibBFloat16,
	} {
		got, ok := DeviceLibGroup(name)
		if assert.True(t, ok, name) {
			assert.Equal(t, want, got, name)
		}
	}
	for _, name := range []string{
		"__devicelib_imf_fadd_r*", "__devicelib_imf_fadd", "sinf", "__devicelib_",
		"__devicelib_default_work_group_private_sort_close_ascending_p1i32_u32_p1i8",
		"__devicelib_imf_int2double_rd", // only _rn exists
	} {
		_, ok := DeviceLibGroup(name)
		assert.False(t, ok, name)
	}
}

// Bit n per library whose functions the part declares, directly or
// anywhere in its closure; group-sort, unknown and defined __devicelib_
// functions set nothing; targets other than SPIR and SPIR-V get 0.
func TestDeviceLibReqMask(t *testing.T) {
	m := parseFixture(t, "features/devicelib.ll")
	got := emitParts(t, m, m.Split(Options{Mode: ModeKernel}), PropOptions{})
	byName := map[string]string{}
	for _, e := range got {
		byName[e.names] = e.props.Text()
	}
	const reqNone = "[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n"
	assert.Equal(t, map[string]string{
		"k_none": "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n" + reqNone,
		"k_math": "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|34\n" + reqNone,
		"k_all":  "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|1023\n[SYCL/device requirements]\naspects=2|gAAAAAAAAAgBAAAA\n",
	}, byName)
	all := got[2]
	require.Equal(t, "k_all", all.names)
	js, err := all.props.MarshalJSONSets()
	require.NoError(t, err)
	assert.Equal(t, `{"SYCL/device requirements":{"aspects":"BgAAAA=="},"SYCL/devicelib req mask":{"DeviceLibReqMask":1023}}`, string(js))
	// the declaration the mask comes from is in the part
	assert.Contains(t, got[1].ir, "declare spir_func ptr addrspace(4) @__devicelib_memcpy(")

	src := string(canonical(t, "testdata/features/devicelib.ll"))
	for triple, want := range map[string]uint32{
		"spirv64": 1023, "spir64_gen-unknown-unknown": 1023, "nvptx64-nvidia-cuda": 0, "x86_64-unknown-linux-gnu": 0,
	} {
		v, err := Parse("devicelib.ll", []byte(strings.Replace(src, `"spir64-unknown-unknown"`, `"`+triple+`"`, 1)))
		require.NoError(t, err)
		x := v.NewExtractor(ClosureOptions{})
		assert.Equal(t, want, v.DeviceLibReqMask(x.Closure([]int32{int32(v.Lookup("k_all"))})), triple)
	}
}

// A bfloat16 device library's image: its __devicelib_ spir_func definitions
// are exported, and SYCL/devicelib metadata tells native from fallback.
func TestDeviceLibProperties(t *testing.T) {
	assert.True(t, IsBF16DeviceLib("libsycl-native-bfloat16.bc"))
	assert.True(t, IsBF16DeviceLib("libsycl-fallback-bfloat16.bc"))
	assert.False(t, IsBF16DeviceLib("libsycl-fallback-cmath.bc"))
	assert.False(t, IsBF16DeviceLib("/lib/libsycl-native-bfloat16.bc"), "a base name")

	m := parseFixture(t, "features/bf16lib.ll")
	const exported = "[SYCL/exported symbols]\n__devicelib_ConvertBF16ToFINTEL=1|1\n__devicelib_ConvertFToBF16INTEL=1|1\n"
	native := m.DeviceLibProperties("libsycl-native-bfloat16.bc")
	assert.Equal(t, exported+"[SYCL/devicelib metadata]\nbfloat16=1|1\n", native.Text())
	assert.Equal(t, exported+"[SYCL/devicelib metadata]\nbfloat16=1|0\n", m.DeviceLibProperties("libsycl-fallback-bfloat16.bc").Text())
	js, err := native.MarshalJSONSets()
	require.NoError(t, err)
	assert.Equal(t, `{"SYCL/devicelib metadata":{"bfloat16":1},`+
		`"SYCL/exported symbols":{"__devicelib_ConvertBF16ToFINTEL":1,"__devicelib_ConvertFToBF16INTEL":1}}`, string(js))
	back, err := syclprop.ParseText(strings.NewReader(native.Text()))
	require.NoError(t, err)
	assert.Equal(t, native, back)
}
