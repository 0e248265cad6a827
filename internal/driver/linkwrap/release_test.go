package linkwrap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/release"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// releasePackage writes a raw OffloadBinary file with an x86_64 OpenMP
// object image, an nvptx64 sm_70 OpenMP bitcode image and an amdgcn gfx90a
// image of offload kind hipKind (3: LLVM 16-19's HIP, 4: LLVM 20's), none
// of which names a release: what settles it are the options.
func releasePackage(t *testing.T, dir string, hipKind format.OffloadKind) string {
	t.Helper()
	var pkg []byte
	for _, im := range []struct {
		triple, arch string
		img          format.ImageKind
		kind         format.OffloadKind
	}{
		{"x86_64-unknown-linux-gnu", "", format.ImgObject, format.OfkOpenMP},
		{"nvptx64-nvidia-cuda", "sm_70", format.ImgBitcode, format.OfkOpenMP},
		{"amdgcn-amd-amdhsa", "gfx90a", format.ImgBitcode, hipKind},
	} {
		pkg = offload.AppendBinary(pkg, &offload.Image{ImageKind: im.img, OffloadKind: im.kind,
			Strings: []offload.KV{{Key: "triple", Value: im.triple}, {Key: "arch", Value: im.arch}}, Image: []byte("device code")})
	}
	p := filepath.Join(dir, "dev.out")
	require.NoError(t, os.WriteFile(p, pkg, 0o644))
	return p
}

// dryRun runs the driver with --dry-run and the environment vars (clang
// is /fake/clang) and returns the device clang lines by triple, the host
// link line and all of stderr.
func dryRun(t *testing.T, vars map[string]string, args ...string) (dev map[string]string, host, stderr string, err error) {
	t.Helper()
	dir := t.TempDir()
	pkg := releasePackage(t, dir, format.OffloadKind(release.Of(19, "").HIPOffloadKind()))
	full := append([]string{"--dry-run", "--linker-path=/usr/bin/ld", "-o", filepath.Join(dir, "app")}, args...)
	full = append(full, pkg)
	opts, err := ParseArgs(full)
	require.NoError(t, err)
	var errb bytes.Buffer
	err = Run(context.Background(), &Env{
		Env: driverenv.Env{Stderr: &errb, NumCPU: 1, Now: time.Now,
			LookupEnv: driverenv.FromGetenv(func(k string) string {
				if k == "OFFLOAD_KIT_CLANG" {
					return "/fake/clang"
				}
				return vars[k]
			}), Runner: &run.Fake{}},
	}, *opts)
	dev = map[string]string{}
	for _, l := range strings.Split(errb.String(), "\n") {
		switch {
		case strings.HasPrefix(l, ` "/fake/clang"`):
			for _, f := range strings.Fields(l) {
				if t, ok := strings.CutPrefix(f, "--target="); ok {
					dev[t] = l
				}
			}
		case strings.HasPrefix(l, ` "/usr/bin/ld"`):
			host = l
		}
	}
	return dev, host, errb.String(), err
}

// TestOldReleaseOptions: every option that only older releases'
// clang-linker-wrapper has is consumed (never on the host link line) and
// turned into what that release's wrapper gave the device link.
func TestOldReleaseOptions(t *testing.T) {
	const x86, nv, amd = "x86_64-unknown-linux-gnu", "nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa"
	for _, c := range []struct {
		name string
		vars map[string]string
		args []string
		// want: triple -> substrings of its device line; none: substrings
		// no device line may have.
		want map[string][]string
		none []string
	}{
		{name: "opt-level", args: []string{"--opt-level=O3"},
			want: map[string][]string{x86: {"-march=native -O3 -Wl,--no-undefined"}, nv: {"-march=sm_70 -O3 "}, amd: {"-mcpu=gfx90a -O3 -flto"}}},
		{name: "device-debug", args: []string{"--device-debug"},
			want: map[string][]string{x86: {" -g"}, nv: {" -g"}, amd: {" -g"}}},
		{name: "ptxas-arg", args: []string{"--ptxas-arg=-v", "--ptxas-arg=--maxrregcount=32"},
			want: map[string][]string{nv: {"-Xcuda-ptxas -v -Xcuda-ptxas --maxrregcount=32"}}},
		{name: "pass-remarks", args: []string{"--pass-remarks=inline", "--pass-remarks-missed=licm", "--pass-remarks-analysis=gvn"},
			want: map[string][]string{x86: {"-Rpass=inline -Rpass-missed=licm -Rpass-analysis=gvn"}, amd: {"-Rpass=inline"}}},
		{name: "bitcode-library", args: []string{"--bitcode-library=openmp-nvptx64-nvidia-cuda-sm_70=/lib/extra.bc", "--bitcode-library=hip-amdgcn-amd-amdhsa-gfx90a=/lib/hip.bc", "--bitcode-library=openmp-nvptx64-nvidia-cuda-sm_80=/lib/other.bc"},
			want: map[string][]string{nv: {".o /lib/extra.bc"}, amd: {".o /lib/hip.bc"}}, none: []string{"/lib/other.bc"}},
		{name: "builtin-bitcode", args: []string{"--builtin-bitcode=amdgcn-amd-amdhsa=/rocm/ocml.bc"},
			want: map[string][]string{amd: {"-Xclang -mlink-builtin-bitcode -Xclang /rocm/ocml.bc"}}},
		{name: "offload-opt and mllvm", args: []string{"--offload-opt=-pass-remarks=x", "-mllvm", "-unroll-count=2"},
			want: map[string][]string{x86: {"-Xlinker --plugin-opt=-pass-remarks=x", "-shared -mllvm -unroll-count=2"}}},
		{name: "mllvm as 22", vars: map[string]string{driverenv.ReleaseEnv: "22"}, args: []string{"-mllvm", "-unroll-count=2"},
			want: map[string][]string{x86: {"-Xlinker --plugin-opt=-unroll-count=2", "-Xlinker -mllvm=-unroll-count=2"}}},
		{name: "save-temps and embed-bitcode", args: []string{"--save-temps", "--embed-bitcode"},
			want: map[string][]string{x86: {"-save-temps"}, amd: {"-save-temps -Wl,--save-temps", "-Wl,--lto-emit-llvm"}}},
		{name: "clang-backend and builtin-bitcode", args: []string{"--clang-backend", "--builtin-bitcode=nvptx64-nvidia-cuda=/b.bc"},
			want: map[string][]string{x86: {"-mllvm -openmp-opt-disable"}, nv: {"-Xclang -mlink-builtin-bitcode -Xclang /b.bc -mllvm -openmp-opt-disable"}}},
		{name: "LLVM 16 line", vars: map[string]string{driverenv.ReleaseEnv: "16"}, args: []string{"--device-debug"},
			want: map[string][]string{x86: {`"/fake/clang" -o `, "-Wl,--no-undefined -Bsymbolic -shared -g /tmp/"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vars := c.vars
			if vars == nil {
				vars = map[string]string{driverenv.ReleaseEnv: "19"}
			}
			dev, host, stderr, err := dryRun(t, vars, c.args...)
			require.NoError(t, err, stderr)
			require.NotEmpty(t, host, stderr)
			for _, a := range c.args {
				if strings.HasPrefix(a, "--") {
					assert.NotContains(t, host, a, "forwarded to the host linker")
				}
			}
			for triple, subs := range c.want {
				for _, s := range subs {
					assert.Contains(t, dev[triple], s, "%s device link", triple)
				}
			}
			for _, l := range dev {
				for _, s := range c.none {
					assert.NotContains(t, l, s)
				}
			}
		})
	}
}

// TestDeviceLinkPerRelease: -dumpdir only from LLVM 20 (clang 16 rejects
// it, 19's wrapper passes none), the default -O2 up to 20, -march=native
// for CPU links up to 19.
func TestDeviceLinkPerRelease(t *testing.T) {
	for _, c := range []struct {
		major               int
		dumpdir, o2, native bool
	}{{16, false, true, true}, {17, false, true, true}, {19, false, true, true}, {20, true, true, false}, {21, true, false, false}, {22, true, false, false}} {
		dev, _, stderr, err := dryRun(t, map[string]string{driverenv.ReleaseEnv: strconv.Itoa(c.major)}, "--wrapper-verbose")
		require.NoError(t, err, stderr)
		assert.Contains(t, stderr, "note: release: using LLVM "+strconv.Itoa(c.major)+" ($OFFLOAD_KIT_LLVM_RELEASE)")
		for triple, l := range dev {
			assert.Equal(t, c.dumpdir, strings.Contains(l, " -dumpdir "), "LLVM %d %s: %s", c.major, triple, l)
			assert.Equal(t, c.o2, strings.Contains(l, " -O2 "), "LLVM %d %s: %s", c.major, triple, l)
			if !(groupKey{triple: triple}).target().IsGPU() {
				assert.Equal(t, c.native, strings.Contains(l, " -march=native "), "LLVM %d %s: %s", c.major, triple, l)
			}
		}
	}
}

// TestSeparator: LLVM 16-18's clang passes "--" between the wrapper's
// options and the linker's. Alone it settles the release (16: the oldest
// of 16-18, which agree on everything the wrapper does) and is dropped from
// the host link; the arguments after it still reach the linker (and are
// read as host-link arguments). A link that behaves as LLVM 22 forwards
// it, as LLVM 22 does.
func TestSeparator(t *testing.T) {
	dev, host, stderr, err := dryRun(t, nil, "--wrapper-verbose", "--", "-z", "now", "-L/opt/lib")
	require.NoError(t, err, stderr)
	assert.Contains(t, stderr, "note: release: using LLVM 16 (option '--' (LLVM 16 to 18): LLVM 16 to 18, which agree on entries and defaults)")
	assert.NotContains(t, host, " -- ")
	assert.Contains(t, host, " -z now -L /opt/lib ")
	assert.NotContains(t, dev["x86_64-unknown-linux-gnu"], "-dumpdir")
	assert.Contains(t, dev["x86_64-unknown-linux-gnu"], "-L /opt/lib")

	_, host, stderr, err = dryRun(t, map[string]string{driverenv.ReleaseEnv: "22"}, "--", "-z", "now")
	require.NoError(t, err, stderr)
	assert.Contains(t, host, " -- -z now ")
}

// TestSettleFromOptions: the options narrow the release; a range whose
// releases differ in their entries is not settled (LLVM 22, said in one
// note under --dry-run), options that exclude each other give a warning.
func TestSettleFromOptions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--opt-level=O2"}, "note: release: using LLVM 22 (unsettled: option --opt-level= (LLVM 16 to 20) leaves releases that differ in their offload entries or defaults)\n"},
		{[]string{"--builtin-bitcode=x86_64-unknown-linux-gnu=/b.bc", "--compress"}, "note: release: using LLVM 18 (option --builtin-bitcode= (LLVM 17 to 19), option --compress (LLVM 18 to 22); behaving"},
		{[]string{"--", "--device-compiler=-O2"}, "warning: the inputs and options name no one LLVM release (option '--' (LLVM 16 to 18) and option --device-compiler= (LLVM 21 to 22)); behaving as LLVM 22\n"},
		{nil, "note: release: using LLVM 22 (unsettled: no release named by $OFFLOAD_KIT_LLVM_RELEASE, the invoking clang, the inputs or the options)\n"},
	} {
		_, _, stderr, err := dryRun(t, nil, append([]string{"--wrapper-verbose"}, c.args...)...)
		require.NoError(t, err, stderr)
		want := c.want
		if i := strings.Index(want, "; behaving"); i >= 0 {
			want = want[:i]
		}
		assert.Contains(t, stderr, want, "%v", c.args)
		assert.Equal(t, 1, strings.Count(stderr, "release: using")+strings.Count(stderr, "warning:"), "one line: %s", stderr)
	}
}

// TestHIPOffloadKind3: LLVM 16-19 number HIP 3, LLVM 20 and later 4
// (offload.Binary.Kind reads both); a kind-3 image links and registers as
// HIP.
func TestHIPOffloadKind3(t *testing.T) {
	_, host, stderr, err := dryRun(t, map[string]string{driverenv.ReleaseEnv: "19"})
	require.NoError(t, err, stderr)
	assert.Contains(t, host, "app.hip.image.wrapper")
	assert.Contains(t, host, "app.openmp.image.wrapper")
}

func TestParseBitcodeLibrary(t *testing.T) {
	l, err := parseBitcodeLibrary("openmp-amdgcn-amd-amdhsa-gfx90a:xnack+=/p/x.bc")
	require.NoError(t, err)
	assert.Equal(t, bitcodeLibrary{kind: "openmp", triple: "amdgcn-amd-amdhsa", arch: "gfx90a:xnack+", path: "/p/x.bc"}, l)
	for _, bad := range []string{"openmp", "openmp-x=", "openmp=/p", "openmp-nvptx64-=/p"} {
		_, err := ParseArgs([]string{"--bitcode-library=" + bad})
		assert.Error(t, err, bad)
	}
}

// TestEveryReleaseOption: for each release, each option in
// release.WrapperOptions that the release's wrapper has is accepted and
// consumed (absent from the host link line), without a warning.
func TestEveryReleaseOption(t *testing.T) {
	sample := map[string]string{
		"--opt-level=": "O1", "--ptxas-arg=": "-v", "--pass-remarks=": "x", "--pass-remarks-missed=": "x",
		"--pass-remarks-analysis=": "x", "--bitcode-library=": "openmp-nvptx64-nvidia-cuda-sm_70=/x.bc",
		"--builtin-bitcode=": "nvptx64-nvidia-cuda=/x.bc", "--compression-level=": "3", "--device-compiler=": "-O1",
	}
	for _, o := range release.WrapperOptions {
		switch o.Spelling {
		case "--override-image=", "--relocatable":
			continue // change what is linked (TestDryRunParity, TestReleaseOpenMPMatrix)
		}
		for m := o.Releases.Lo; m <= o.Releases.Hi; m++ {
			arg := o.Spelling + sample[o.Spelling]
			_, host, stderr, err := dryRun(t, map[string]string{driverenv.ReleaseEnv: strconv.Itoa(m)}, arg, "-z", "now")
			require.NoError(t, err, "LLVM %d %s: %s", m, arg, stderr)
			assert.NotContains(t, stderr, "warning:", "LLVM %d %s", m, arg)
			assert.NotContains(t, host, " "+arg+" ", "LLVM %d %s reached the host linker", m, arg)
			assert.Contains(t, host, " -z now ", "LLVM %d %s", m, arg)
		}
	}
}
