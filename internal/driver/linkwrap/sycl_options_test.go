package linkwrap

import (
	"bytes"
	"testing"

	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/sycldev"
	"github.com/offload-kit/offload-kit/split"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSYCLOptions: the in-process link's options are what sycl-linker
// makes of the command line clang --sycl-link passes clang-sycl-linker
// (the inputs, --triple, --arch, -o, -v, --save-temps, then the forwarded
// values for the triple), which -v prints; a forwarded option overrides
// the wrapper's own (here --arch), and a forwarded input follows the
// group's.
func TestSYCLOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"plain", Options{}},
		{"verbose", Options{Verbose: true, SaveTemps: true,
			LinkerArgs:   []string{"--module-split-mode=kernel"},
			DeviceLinker: []string{"spirv64-unknown-unknown=--arch=intel_gpu_pvc", "extra.bc", "amdgcn-amd-amdhsa=-j3", "--spec-const=default"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			opt := tc.opt
			d := &driver{opt: &opt, env: Env{Env: driverenv.Env{Stderr: &stderr}}}
			g := &group{key: groupKey{"spirv64-unknown-unknown", "generic"}, inputs: []*devInput{{path: "/t/a.o"}, {path: "/t/b.o"}}}
			o, err := d.syclOptions(g, "/t/app.spirv64..img")
			require.NoError(t, err)

			argv := []string{"/t/a.o", "/t/b.o", "--triple=spirv64-unknown-unknown", "--arch=", "-o", "/t/app.spirv64..img"}
			if opt.Verbose {
				argv = append(argv, "-v")
			}
			if opt.SaveTemps {
				argv = append(argv, "--save-temps")
			}
			argv = append(append(argv, opt.LinkerArgs...), deviceValues(opt.DeviceLinker, "spirv64-unknown-unknown", true)...)
			want, err := sycldev.ParseArgs(argv)
			require.NoError(t, err)
			assert.Equal(t, want, o)
			if !opt.Verbose {
				assert.Empty(t, stderr.String())
				return
			}
			assert.Equal(t, run.FormatCommand(append([]string{"sycl-linker"}, argv...))+"\n", stderr.String())
			assert.Equal(t, []string{"/t/a.o", "/t/b.o", "extra.bc"}, o.Inputs)
			assert.Equal(t, "intel_gpu_pvc", o.Arch)
			assert.Equal(t, split.ModeKernel, o.SplitMode)
			assert.Equal(t, split.SpecDefault, o.SpecConst)
		})
	}

	d := &driver{opt: &Options{DeviceLinker: []string{"--bogus"}}}
	_, err := d.syclOptions(&group{key: groupKey{"spirv64-unknown-unknown", ""}}, "x.img")
	assert.EqualError(t, err, "unknown argument '--bogus'")
}
