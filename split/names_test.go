package split

import "testing"

// The names of Kind, Mode and DeviceLibExt values, and of values that
// have none; ParseMode's spellings and its error.
func TestEnumNames(t *testing.T) {
	for _, tt := range []struct {
		got, want string
	}{
		{Function.String(), "function"}, {Variable.String(), "variable"},
		{Alias.String(), "alias"}, {IFunc.String(), "ifunc"}, {Kind(4).String(), "Kind(4)"},
		{Kind(255).String(), "Kind(255)"},
		{ModeNone.String(), "none"}, {ModeKernel.String(), "kernel"}, {ModeSource.String(), "source"},
		{ModeAuto.String(), "auto"}, {Mode(4).String(), "Mode(4)"}, {Mode(-1).String(), "Mode(-1)"},
		{DevicelibAssert.String(), "cl_intel_devicelib_assert"},
		{DevicelibMathFP64.String(), "cl_intel_devicelib_math_fp64"},
		{DevicelibBFloat16.String(), "cl_intel_devicelib_bfloat16"},
		{DeviceLibExt(10).String(), "DeviceLibExt(10)"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	for s, want := range map[string]Mode{
		"none": ModeNone, "off": ModeNone, "kernel": ModeKernel, "per_kernel": ModeKernel,
		"source": ModeSource, "per_source": ModeSource, "auto": ModeAuto,
	} {
		if got, err := ParseMode(s); got != want || err != nil {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "Kernel", "per_auto", "Mode(1)"} {
		_, err := ParseMode(s)
		want := `unknown split mode "` + s + `" (want none, kernel, source or auto)`
		if err == nil || err.Error() != want {
			t.Errorf("ParseMode(%q) error = %v, want %s", s, err, want)
		}
	}
}
