package triple

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

const llvmBin = llvmtools.Dir

type equalCase struct {
	a, b string
	same bool
}

// equalCases reads testdata/equal.txt (see its header).
func equalCases(t testing.TB) []equalCase {
	b, err := os.ReadFile("testdata/equal.txt")
	require.NoError(t, err)
	var cases []equalCase
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		require.GreaterOrEqual(t, len(f), 3, line)
		require.Contains(t, []string{"same", "differs"}, f[2], line)
		cases = append(cases, equalCase{f[0], f[1], f[2] == "same"})
	}
	require.Greater(t, len(cases), 60)
	return cases
}

func TestEqual(t *testing.T) {
	for _, tc := range equalCases(t) {
		a, b := Parse(tc.a), Parse(tc.b)
		assert.Equal(t, tc.same, a.Equal(b), "%q vs %q: %+v vs %+v", tc.a, tc.b, a, b)
	}
	// no spelling crashes the parser
	for _, s := range []string{"arm64eb", "armeb", "aarch64eb", "thumbv", "arm-", "-", "--", "eb", "v", "\x00"} {
		Parse(s)
	}
}

func TestParseFields(t *testing.T) {
	for s, want := range map[string]Triple{
		"x86_64-pc-linux-gnu":                     {Arch: "x86_64", Vendor: "pc", OS: "linux", Environment: "gnu", ObjectFormat: "elf"},
		"i686-pc-windows-msvc":                    {Arch: "i386", Vendor: "pc", OS: "windows", Environment: "msvc", ObjectFormat: "coff"},
		"spirv1.5-unknown-vulkan":                 {Arch: "spirv", SubArch: "spirv1.5", OS: "vulkan", ObjectFormat: "spirv"},
		"spirv1.2":                                {SubArch: "spirv1.2", ObjectFormat: "elf"}, // not an architecture in 22.1.8
		"spirv64v1.2-meta":                        {Arch: "spirv64", SubArch: "spirv1.2", Vendor: "meta", ObjectFormat: "spirv"},
		"armv7a-linux-gnueabihf":                  {Arch: "arm", SubArch: "v7", OS: "", ObjectFormat: "elf"},
		"thumbv6m-none-eabi":                      {Arch: "thumb", SubArch: "v6m", ObjectFormat: "elf"},
		"amdgcn-amd-amdhsa-elf":                   {Arch: "amdgcn", Vendor: "amd", OS: "amdhsa", ObjectFormat: "elf"},
		"x86_64-apple-macos13":                    {Arch: "x86_64", Vendor: "apple", OS: "macosx", ObjectFormat: "macho"},
		"powerpc64-ibm-aix":                       {Arch: "powerpc64", Vendor: "ibm", OS: "aix", ObjectFormat: "xcoff"},
		"dxilv1.9-unknown-shadermodel6.9-compute": {Arch: "dxil", SubArch: "dxil1.9", OS: "shadermodel", Environment: "compute", ObjectFormat: "dxcontainer"},
		"mips64":                         {Arch: "mips64", Environment: "gnuabi64", ObjectFormat: "elf"},
		"spir64-unknown-unknown-sycl":    {Arch: "spir64", ObjectFormat: "elf"},
		"x86_64-unknown-linux-hipstdpar": {Arch: "x86_64", OS: "linux", ObjectFormat: "elf"},
		"x86_64-unknown-chipstar":        {Arch: "x86_64", ObjectFormat: "elf"},
	} {
		got := Parse(s)
		want.data = s
		assert.Equal(t, want, got, s)
		assert.Equal(t, s, got.String())
	}
	tr := FromParts("x86_64", "unknown", "linux", "gnu-foo")
	assert.Equal(t, "x86_64", tr.ArchName())
	assert.Equal(t, "gnu-foo", tr.EnvironmentName())
	assert.Equal(t, EnvironmentType("gnu"), tr.Environment)
}

// normalizeCases are given to clang-22 -target <s> -print-target-triple,
// which prints Triple::normalize(s) (or names it in its error about an
// invalid version); TestNormalizeLikeClang compares Normalize(s, Any).
var normalizeCases = []string{
	"x86_64", "x86_64-linux", "x86_64-linux-gnu", "linux-x86_64", "x86_64-gnu", "gnu-x86_64",
	"x86_64-pc-linux-gnu", "pc-x86_64-linux-gnu", "linux-gnu-x86_64-pc", "x86_64-unknown-linux-gnu-elf",
	"x86_64-foo-bar-baz-qux", "foo-bar-baz", "a-b-c-d-e-f", "x86_64--linux", "-x86_64", "x86_64-", "--",
	"i686-pc-mingw32", "i686-mingw32-elf", "x86_64-w64-mingw32", "x86_64-cygwin", "x86_64-pc-cygwin-macho",
	"x86_64-pc-win32", "x86_64-pc-win32-gnu", "x86_64-pc-windows-coff", "x86_64-pc-win32-macho",
	"x86_64-pc-windows-elf", "x86_64-pc-windows-gnu-elf", "x86_64-pc-windows-msvc-elf", "x86_64-windows",
	"windows-x86_64", "x86_64-uefi", "aarch64-pc-windows-msvc",
	"armv7-linux-androideabi", "armv7-linux-androideabi21", "aarch64-linux-android30", "arm-suse-linux-gnueabi",
	"arm-none-eabi", "arm-none-unknown-eabi", "armv7-none-eabihf", "thumbv7em-none-eabi", "armv8.1m.main-none-eabi",
	"armebv7-linux", "arm64-apple-ios15", "arm64e-apple-darwin", "arm64_32-apple-watchos", "aarch64_lfi-linux",
	"x86_64-apple-macosx10.15", "x86_64-apple-macos13", "x86_64-apple-visionos", "apple-x86_64-darwin",
	"dxil-unknown-shadermodel6.3-library", "dxil-unknown-shadermodel6.x-library", "dxil-unknown-shadermodel5.0-compute",
	"dxil-unknown-shadermodel6-compute", "dxil-pc-windows-msvc-elf", "dxilv1.8-unknown-shadermodel6.0-pixel",
	"spirv", "spirv1.2", "spirv1.5", "spirv1.6", "linux-spirv1.4", "linux-spirv1.5", "spirv64v1.2-unknown-unknown",
	"spirv32v1.6", "spirv-unknown-vulkan1.3-compute", "spirv64-intel", "spirv64-amd-amdhsa", "spir64-unknown-unknown-sycl",
	"spir64_gen", "spir64_x86_64-unknown-unknown",
	"amdgcn-amd-amdhsa", "amdgcn--amdhsa", "amd-amdgcn-amdhsa", "amdhsa-amdgcn", "amdgcn-amd-amdhsa-gnu",
	"nvptx64-nvidia-cuda", "cuda-nvptx64", "nvptx64-nvidia-cuda12.0", "nvptx64-nvidia-unknown-cuda",
	"x86_64-meta-linux", "x86_64-linux-meta", "meta-x86_64", "x86_64-linux-intel", "x86_64-sie-ps5", "x86_64-scei-ps4",
	"x86_64-unknown-opencl", "opencl-x86_64", "chipstar-x86_64", "firmware-x86_64", "qurt-hexagon", "hexagon-unknown-qurt",
	"x86_64-sycl", "x86_64-hipstdpar", "x86_64-unknown-linux-sycl", "x86_64-mlibc", "x86_64-mtia", "x86_64-muslwali",
	"x86_64-unknown-nacl", "managarm-x86_64", "cheriotrtos-riscv32", "wasm32-wasip1", "wasm32-wasip3", "wasm32-wasi",
	"wasm64-unknown-emscripten", "mips", "mipsel-linux-gnu", "mipsisa64r6el-linux-gnuabi64", "mips64-linux-gnuabin32",
	"powerpc64le-linux-gnu", "ppc-ibm-aix", "s390x-ibm-zos", "systemz-linux", "riscv64-linux-musl", "riscv32be-elf",
	"loongarch64-linux-gnu", "bpf", "bpf_be-linux", "bpfeb", "kalimba3", "xscale-linux", "xscaleeb", "iwmmxt",
	"sparc64-linux", "sparcv9-sun-solaris", "ve-linux", "xtensa-esp-elf", "csky-linux-gnuabiv2", "m68k-linux",
	"avr-none", "msp430-elf", "hexagon-unknown-elf", "r600-mesa-mesa3d", "lanai-elf", "x86_64-elf", "elf-x86_64",
	"x86_64-pc-linux-gnux32", "x86_64-unknown-haiku", "x86_64-unknown-hurd-gnu", "x86_64-unknown-fuchsia",
	"x86_64-scei-ps4-elf", "i386-pc-elfiamcu", "x86_64-none", "none-x86_64", "x86_64-none-elf", "arm-none-none-eabi",
	"host-x86_64-unknown-linux", "hip-amdgcn-amd-amdhsa", "openmp-x86_64-pc-linux-gnu",
	"x86_64-unknown-linux-gnu-unknown-extra", "aarch64-unknown-linux-gnu_ilp32", "SPIRV64", "X86_64-linux",
}

var versionError = regexp.MustCompile(`in target triple '([^']*)' is invalid`)

func clangTriple(t *testing.T, s string) string {
	cmd := exec.Command(filepath.Join(llvmBin, "clang-22"), "-target", s, "-print-target-triple")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if m := versionError.FindStringSubmatch(errb.String()); m != nil {
		return m[1]
	}
	require.NoError(t, err, "%s: %s", s, errb.String())
	return strings.TrimSpace(out.String())
}

// TestNormalizeLikeClang: Normalize agrees with clang-22's normalisation
// of every triple in normalizeCases.
func TestNormalizeLikeClang(t *testing.T) {
	got := make([]string, len(normalizeCases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, s := range normalizeCases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			got[i] = clangTriple(t, s)
		}()
	}
	wg.Wait()
	for i, s := range normalizeCases {
		assert.Equal(t, got[i], Normalize(s, Any), "normalize(%q)", s)
	}
}

// TestNormalizeForms: the fixed forms pad with "unknown" or cut.
func TestNormalizeForms(t *testing.T) {
	assert.Equal(t, "amdgcn-amd-amdhsa", Normalize("amdgcn-amd-amdhsa-gnu", Three))
	assert.Equal(t, "x86_64-unknown-linux-unknown", Normalize("x86_64-linux", Four))
	assert.Equal(t, "x86_64-unknown-linux-gnu-unknown", Normalize("x86_64-linux-gnu", Five))
	assert.Equal(t, "x86_64-pc-windows-gnu", Normalize("x86_64-pc-windows-gnu-elf", Four))
}

func TestTargetID(t *testing.T) {
	a, b, ok := ConflictingTargetIDs([]string{"gfx90a:xnack+", "gfx90a"})
	assert.True(t, ok)
	assert.Equal(t, "gfx90a", a)
	assert.Equal(t, "gfx90a:xnack+", b)
	_, _, ok = ConflictingTargetIDs([]string{"gfx90a:xnack+", "gfx90a:xnack-", "gfx908"})
	assert.False(t, ok)

	amd := Parse("amdgcn-amd-amdhsa")
	for _, tc := range []struct {
		code, want string
		ok         bool
	}{
		{"gfx90a", "gfx90a", true},
		{"gfx90a", "gfx90a:xnack+", true},
		{"gfx90a:xnack+", "gfx90a", false},
		{"gfx90a:xnack+", "gfx90a:xnack-", false},
		{"gfx90a:xnack+", "gfx90a:sramecc-:xnack+", true},
		{"gfx1030", "gfx1030:xnack+", false}, // gfx1030 has no xnack
		{"gfx90a", "gfx908", false},
		{"gfx90a:xnack", "gfx90a:xnack", false}, // no sign
		{"sm_70", "sm_70", false},               // not an amdgcn processor
		{"", "", false},
	} {
		assert.Equal(t, tc.ok, TargetIDCompatible(amd, tc.code, amd, tc.want), "%q on %q", tc.code, tc.want)
	}
	nv := Parse("nvptx64-nvidia-cuda")
	assert.True(t, TargetIDCompatible(nv, "sm_70", nv, "sm_70"))
	assert.False(t, TargetIDCompatible(nv, "sm_70:xnack+", nv, "sm_70:xnack+"))
	p, f, ok := SplitTargetID("gfx90a:sramecc-:xnack+")
	assert.True(t, ok)
	assert.Equal(t, "gfx90a", p)
	assert.Equal(t, map[string]bool{"sramecc": false, "xnack": true}, f)
	for _, bad := range []string{":xnack+", "gfx90a::xnack+", "gfx90a:xnack+:xnack-", "gfx90a:xnack"} {
		_, _, ok := SplitTargetID(bad)
		assert.False(t, ok, bad)
	}
	assert.True(t, IsOffloadArch("gfx1251"))
	assert.False(t, IsOffloadArch("gfx9000"))
}

// FuzzParse: no spelling panics, parsing is deterministic, the text is
// kept and an object format is always set (named or defaulted).
func FuzzParse(f *testing.F) {
	for _, tc := range equalCases(f) {
		f.Add(tc.a)
		f.Add(tc.b)
	}
	f.Add("arm64eb-apple-ios-macho")
	f.Fuzz(func(t *testing.T, s string) {
		a := Parse(s)
		if a != Parse(s) || a.String() != s {
			t.Fatalf("%q parses two ways", s)
		}
		if a.ObjectFormat == "" {
			t.Fatalf("%q: no object format", s)
		}
	})
}

// FuzzNormalize: no spelling panics, and a fixed form has exactly that
// many components.
func FuzzNormalize(f *testing.F) {
	for _, s := range normalizeCases {
		f.Add(s, 0)
	}
	f.Add("dxil-x-shadermodel6.10-pixel-extra", 4)
	f.Fuzz(func(t *testing.T, s string, form int) {
		form = form & 7
		if form != Any && (form < Three || form > Five) {
			form = Any
		}
		n := Normalize(s, form)
		if n != Normalize(s, form) {
			t.Fatalf("%q normalises two ways", s)
		}
		if form != Any && strings.Count(n, "-")+1 != form {
			t.Fatalf("Normalize(%q, %d) = %q", s, form, n)
		}
	})
}
