package split

import (
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/offload-kit/offload-kit/internal/enumname"
)

// Device-library requirements (spec §7.6, SYCL/devicelib req mask) and the
// properties of a bfloat16 device-library image (SYCL/devicelib metadata).
//
// The function-name → group table below follows intel/llvm
// llvm/lib/SYCLLowerIR/SYCLDeviceLibReqMask.cpp@f72e501d (the SDLMap). It
// is written here in a compact form of our own: per group, the names
// without their "__devicelib_" prefix, where a name ending in "_r*"
// stands for its four rounding-mode variants _rd, _rn, _ru and _rz. The
// group-sort bit (0x400, "__devicelib_default_work_group_*" and
// "__devicelib_default_sub_group_*") that an older revision
// (@4ae26deb) had is gone at @f72e501d and is not set.

// DeviceLibExt numbers the fallback device libraries: bit n of
// DeviceLibReqMask stands for library n (intel's DeviceLibExt).
type DeviceLibExt uint8

const (
	DevicelibAssert DeviceLibExt = iota
	DevicelibMath
	DevicelibMathFP64
	DevicelibComplex
	DevicelibComplexFP64
	DevicelibCString
	DevicelibIMF
	DevicelibIMFFP64
	DevicelibIMFBF16
	DevicelibBFloat16
)

var devicelibExtNames = []string{
	"cl_intel_devicelib_assert", "cl_intel_devicelib_math", "cl_intel_devicelib_math_fp64",
	"cl_intel_devicelib_complex", "cl_intel_devicelib_complex_fp64", "cl_intel_devicelib_cstring",
	"cl_intel_devicelib_imf", "cl_intel_devicelib_imf_fp64", "cl_intel_devicelib_imf_bf16",
	"cl_intel_devicelib_bfloat16",
}

// String returns the library's extension name, e.g.
// "cl_intel_devicelib_math_fp64".
func (e DeviceLibExt) String() string { return enumname.Name(devicelibExtNames, e, "DeviceLibExt") }

const devicelibPrefix = "__devicelib_"

var devicelibGroups = [...]struct {
	ext   DeviceLibExt
	names string
}{
	{DevicelibAssert, "assert_read assert_fail"},
	{DevicelibMath, `abs acosf acoshf asinf asinhf atan2f atanf atanhf cbrtf cosf coshf div
		erfcf erff exp2f expf expm1f fdimf fmaf fmodf frexpf hypotf ilogbf labs ldiv ldexpf
		lgammaf llabs lldiv log10f log1pf log2f logbf logf modff nextafterf powf remainderf
		remquof scalbnf sinf sinhf sqrtf tanf tanhf tgammaf`},
	{DevicelibMathFP64, `acos acosh asin asinh atan atan2 atanh cbrt cos cosh erf erfc exp
		exp2 expm1 fdim fma fmod frexp hypot ilogb ldexp lgamma log log10 log1p log2 logb
		modf nextafter pow remainder remquo scalbn sin sinh sqrt tan tanh tgamma`},
	{DevicelibComplex, `__divsc3 __mulsc3 cabsf cacosf cacoshf cargf casinf casinhf catanf
		catanhf ccosf ccoshf cexpf cimagf clogf cpolarf cpowf cprojf crealf csinf csinhf
		csqrtf ctanf ctanhf`},
	{DevicelibComplexFP64, `__divdc3 __muldc3 cabs cacos cacosh carg casin casinh catan
		catanh ccos ccosh cexp cimag clog cpolar cpow cproj creal csin csinh csqrt ctan
		ctanh`},
	{DevicelibCString, "memcpy memset memcmp"},
	{DevicelibIMF, `imf_llmax imf_llmin imf_max imf_min imf_ullmax imf_ullmin imf_umax
		imf_umin imf_brev imf_brevll imf_byte_perm imf_ffs imf_ffsll imf_clz imf_clzll
		imf_popc imf_popcll imf_sad imf_usad imf_uhadd imf_urhadd imf_hadd imf_rhadd
		imf_mul24 imf_umul24 imf_mulhi imf_umulhi imf_mul64hi imf_umul64hi imf_saturatef
		imf_fmaf imf_floorf imf_ceilf imf_abs imf_llabs imf_fabsf imf_truncf imf_rintf
		imf_nearbyintf imf_invf imf_sqrtf imf_rsqrtf imf_fmaxf imf_fminf imf_copysignf
		imf_fast_exp10f imf_fast_expf imf_fast_logf imf_fast_log2f imf_fast_log10f
		imf_fast_powf imf_fast_fdividef
		imf_fadd_r* imf_fsub_r* imf_fmul_r* imf_fdiv_r* imf_fmaf_r* imf_sqrtf_r*
		imf_float2int_r* imf_float2uint_r* imf_float2ll_r* imf_float2ull_r*
		imf_float_as_int imf_int2float_r* imf_int_as_float imf_float_as_uint
		imf_ll2float_r* imf_uint2float_r* imf_uint_as_float imf_ull2float_r*
		imf_float2half_r* imf_half2float imf_half2int_r* imf_half2ll_r* imf_half2short_r*
		imf_half2uint_r* imf_half2ull_r* imf_half2ushort_r* imf_half_as_short
		imf_half_as_ushort imf_uint2half_r* imf_ull2half_r* imf_ushort2half_r*
		imf_ushort_as_half imf_int2half_r* imf_ll2half_r* imf_short2half_r* imf_short_as_half
		imf_fmaf16 imf_floorf16 imf_ceilf16 imf_fabsf16 imf_truncf16 imf_rintf16
		imf_nearbyintf16 imf_invf16 imf_sqrtf16 imf_rsqrtf16 imf_fmaxf16 imf_fminf16
		imf_copysignf16
		imf_vabs2 imf_vabs4 imf_vabsss2 imf_vabsss4 imf_vneg2 imf_vneg4 imf_vnegss2
		imf_vnegss4 imf_vabsdiffs2 imf_vabsdiffs4 imf_vabsdiffu2 imf_vabsdiffu4 imf_vadd2
		imf_vadd4 imf_vaddss2 imf_vaddss4 imf_vaddus2 imf_vaddus4 imf_vsub2 imf_vsub4
		imf_vsubss2 imf_vsubss4 imf_vsubus2 imf_vsubus4 imf_vavgs2 imf_vavgs4 imf_vavgu2
		imf_vavgu4 imf_vhaddu2 imf_vhaddu4 imf_vcmpeq2 imf_vcmpeq4 imf_vcmpne2 imf_vcmpne4
		imf_vcmpges2 imf_vcmpges4 imf_vcmpgeu2 imf_vcmpgeu4 imf_vcmpgts2 imf_vcmpgts4
		imf_vcmpgtu2 imf_vcmpgtu4 imf_vcmples2 imf_vcmples4 imf_vcmpleu2 imf_vcmpleu4
		imf_vcmplts2 imf_vcmplts4 imf_vcmpltu2 imf_vcmpltu4 imf_vmaxs2 imf_vmaxs4
		imf_vmaxu2 imf_vmaxu4 imf_vmins2 imf_vmins4 imf_vminu2 imf_vminu4 imf_vseteq2
		imf_vseteq4 imf_vsetne2 imf_vsetne4 imf_vsetges2 imf_vsetges4 imf_vsetgeu2
		imf_vsetgeu4 imf_vsetgts2 imf_vsetgts4 imf_vsetgtu2 imf_vsetgtu4 imf_vsetles2
		imf_vsetles4 imf_vsetleu2 imf_vsetleu4 imf_vsetlts2 imf_vsetlts4 imf_vsetltu2
		imf_vsetltu4 imf_vsads2 imf_vsads4 imf_vsadu2 imf_vsadu4
		imf_viaddmax_s16x2 imf_viaddmax_s16x2_relu imf_viaddmax_s32 imf_viaddmax_s32_relu
		imf_viaddmax_u16x2 imf_viaddmax_u32 imf_viaddmin_s16x2 imf_viaddmin_s16x2_relu
		imf_viaddmin_s32 imf_viaddmin_s32_relu imf_viaddmin_u16x2 imf_viaddmin_u32
		imf_vibmax_s16x2 imf_vibmax_s32 imf_vibmax_u16x2 imf_vibmax_u32 imf_vibmin_s16x2
		imf_vibmin_s32 imf_vibmin_u16x2 imf_vibmin_u32 imf_vimax3_s16x2
		imf_vimax3_s16x2_relu imf_vimin3_s16x2 imf_vimin3_s16x2_relu imf_vimax3_s32
		imf_vimax3_s32_relu imf_vimin3_s32 imf_vimin3_s32_relu imf_vimax3_u16x2
		imf_vimax3_u32 imf_vimin3_u16x2 imf_vimin3_u32 imf_vimax_s16x2_relu
		imf_vimax_s32_relu imf_vimin_s16x2_relu imf_vimin_s32_relu`},
	{DevicelibIMFFP64, `imf_double2half imf_double2bfloat16 imf_fma imf_floor imf_ceil
		imf_fabs imf_trunc imf_rint imf_rcp64h imf_nearbyint imf_inv imf_sqrt imf_rsqrt
		imf_fmax imf_fmin imf_copysign imf_dadd_r* imf_dsub_r* imf_dmul_r* imf_ddiv_r*
		imf_double2float_r* imf_double2int_r* imf_double2uint_r* imf_double2hiint
		imf_double2loint imf_double2ll_r* imf_double2ull_r* imf_double_as_longlong
		imf_hiloint2double imf_int2double_rn imf_ll2double_r* imf_ull2double_r*
		imf_uint2double_rn imf_longlong_as_double imf_fma_r* imf_sqrt_r*`},
	{DevicelibIMFBF16, `imf_bfloat162float imf_bfloat162int_r* imf_bfloat162short_r*
		imf_bfloat162ll_r* imf_bfloat162uint_r* imf_bfloat162ushort_r* imf_bfloat162ull_r*
		imf_float2bfloat16 imf_float2bfloat16_r* imf_bfloat16_as_short
		imf_bfloat16_as_ushort imf_short_as_bfloat16 imf_ushort_as_bfloat16
		imf_ushort2bfloat16_r* imf_uint2bfloat16_r* imf_ull2bfloat16_r*
		imf_short2bfloat16_r* imf_int2bfloat16_r* imf_ll2bfloat16_r* imf_fmabf16
		imf_fmaxbf16 imf_fminbf16 imf_copysignbf16 imf_sqrtbf16 imf_rsqrtbf16 imf_fabsbf16
		imf_rintbf16 imf_floorbf16 imf_ceilbf16 imf_truncbf16`},
	{DevicelibBFloat16, bf16Conversions},
}

// bf16Conversions are the bfloat16 conversion functions. They are also
// the functions intel links dynamically from the fallback or native
// bfloat16 device library (SYCLDeviceLibBF16.cpp@031015cc): their
// declarations are always importable (props_imports.go).
const bf16Conversions = `ConvertFToBF16INTEL ConvertBF16ToFINTEL
	ConvertFToBF16INTELVec1 ConvertBF16ToFINTELVec1 ConvertFToBF16INTELVec2
	ConvertBF16ToFINTELVec2 ConvertFToBF16INTELVec3 ConvertBF16ToFINTELVec3
	ConvertFToBF16INTELVec4 ConvertBF16ToFINTELVec4 ConvertFToBF16INTELVec8
	ConvertBF16ToFINTELVec8 ConvertFToBF16INTELVec16 ConvertBF16ToFINTELVec16`

var devicelibTable = sync.OnceValue(func() map[string]DeviceLibExt {
	t := make(map[string]DeviceLibExt, 640)
	for _, g := range devicelibGroups {
		for _, n := range strings.Fields(g.names) {
			if stem, ok := strings.CutSuffix(n, "_r*"); ok {
				for _, r := range [...]string{"_rd", "_rn", "_ru", "_rz"} {
					t[devicelibPrefix+stem+r] = g.ext
				}
				continue
			}
			t[devicelibPrefix+n] = g.ext
		}
	}
	return t
})

// DeviceLibGroup returns the fallback device library that defines the
// function named name, if it is one of intel's table.
func DeviceLibGroup(name string) (DeviceLibExt, bool) {
	if !strings.HasPrefix(name, devicelibPrefix) {
		return 0, false
	}
	e, ok := devicelibTable()[name]
	return e, ok
}

// isBF16DeviceLibFunc reports one of the bfloat16 conversion functions.
func isBF16DeviceLibFunc(name string) bool {
	e, ok := DeviceLibGroup(name)
	return ok && e == DevicelibBFloat16
}

// isSPIR reports a SPIR or SPIR-V target triple (spir, spir64, spirv,
// spirv32, spirv64, with or without a sub-architecture).
func (m *Module) isSPIR() bool { return strings.HasPrefix(m.Triple, "spir") }

// declaredFuncs yields, in module order, the functions that the part
// whose closure is cl writes as declarations: those the module declares,
// and the definitions whose bodies the part drops (cl.Decls).
func (m *Module) declaredFuncs(cl *Closure) iter.Seq[*Global] {
	return func(yield func(*Global) bool) {
		for _, i := range cl.Globals {
			g := &m.Globals[i]
			if g.Kind != Function {
				continue
			}
			if !g.Decl && !cl.DropsBody(i) {
				continue
			}
			if !yield(g) {
				return
			}
		}
	}
}

// DeviceLibReqMask is the part's SYCL/devicelib req mask: bit n is set when
// the part declares (and so calls, or otherwise refers to) a function of
// device library n. Only declarations count: a __devicelib_ function the
// part defines needs no library. Function bodies the part writes as
// declarations (cl.Decls) count as declarations. The mask is 0 for a
// target that is neither SPIR nor SPIR-V. intel tests for SPIR only
// (spir, spir64); SPIR-V is accepted too, since upstream's SYCL flow uses
// spirv64.
func (m *Module) DeviceLibReqMask(cl *Closure) uint32 {
	if !m.isSPIR() {
		return 0
	}
	var mask uint32
	for g := range m.declaredFuncs(cl) {
		if e, ok := DeviceLibGroup(g.Name()); ok {
			mask |= 1 << e
		}
	}
	return mask
}

// The bfloat16 device libraries that intel wraps as images of their own
// (ModuleSplitter.h, SYCLDeviceLibs): a module read from a file of one of
// these names is a device library, not user code.
var bf16DeviceLibs = [...]string{"libsycl-fallback-bfloat16.bc", "libsycl-native-bfloat16.bc"}

// IsBF16DeviceLib reports whether fileName (a base name) is one of the
// bfloat16 device libraries whose image gets DeviceLibProperties instead
// of the per-part property sets.
func IsBF16DeviceLib(fileName string) bool {
	return slices.Contains(bf16DeviceLibs[:], fileName)
}

// DeviceLibProperties are the property sets of a bfloat16 device-library
// image (intel's computeDeviceLibProperties, ComputeModuleRuntimeInfo.cpp
// @46a4a43c), in this order:
//
//   - SYCL/exported symbols: each __devicelib_ function the module defines
//     with calling convention spir_func, in module order → u32 1;
//   - SYCL/devicelib metadata: "bfloat16" → u32 1 when libName contains
//     "native" (the native library), 0 otherwise (the fallback one).
//
// There is no devicelib req mask and no device requirements set. Older
// intel versions (@004f15c4) named the metadata key "DeviceLibMeta".
func (m *Module) DeviceLibProperties(libName string) syclprop.Sets {
	var ps syclprop.Sets
	for i := range m.Globals {
		g := &m.Globals[i]
		if g.Kind == Function && !g.Decl && g.CC == "spir_func" && strings.HasPrefix(g.Name(), devicelibPrefix) {
			ps.Set("SYCL/exported symbols").AddU32(g.Name(), 1)
		}
	}
	var native uint32
	if strings.Contains(libName, "native") {
		native = 1
	}
	ps.Set("SYCL/devicelib metadata").AddU32("bfloat16", native)
	return ps
}
