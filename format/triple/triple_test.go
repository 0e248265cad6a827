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

// TestArchQueries: for each architecture LLVM 22.1.8 parses (one or more
// spellings each, as llvm/lib/TargetParser/Triple.cpp's parseArch maps
// them), the architecture type, getArchPointerBitWidth, isGPU-style
// classification (isAMDGPU || isNVPTX || isSPIRV) and the default object
// format.
func TestArchQueries(t *testing.T) {
	for _, tc := range []struct {
		spell  string
		arch   ArchType
		bits   int
		gpu    bool
		objfmt ObjectFormatType
	}{
		{"x86_64", "x86_64", 64, false, "elf"}, {"amd64", "x86_64", 64, false, "elf"}, {"x86_64h", "x86_64", 64, false, "elf"},
		{"i386", "i386", 32, false, "elf"}, {"i686", "i386", 32, false, "elf"}, {"i986", "i386", 32, false, "elf"},
		{"aarch64", "aarch64", 64, false, "elf"}, {"arm64", "aarch64", 64, false, "elf"}, {"arm64e", "aarch64", 64, false, "elf"},
		{"arm64ec", "aarch64", 64, false, "elf"}, {"aarch64_lfi", "aarch64", 64, false, "elf"},
		{"aarch64_be", "aarch64_be", 64, false, "elf"}, {"aarch64_32", "aarch64_32", 32, false, "elf"}, {"arm64_32", "aarch64_32", 32, false, "elf"},
		{"arm", "arm", 32, false, "elf"}, {"armv7a", "arm", 32, false, "elf"}, {"armv8.1m.main", "arm", 32, false, "elf"}, {"thumbv6m", "thumb", 32, false, "elf"}, {"armv6m", "thumb", 32, false, "elf"},
		{"armeb", "armeb", 32, false, "elf"}, {"thumbv7em", "thumb", 32, false, "elf"}, {"thumbeb", "thumbeb", 32, false, "elf"},
		{"xscale", "arm", 32, false, "elf"},
		{"powerpc", "powerpc", 32, false, "elf"}, {"ppc", "powerpc", 32, false, "elf"}, {"powerpcle", "powerpcle", 32, false, "elf"},
		{"ppc64", "powerpc64", 64, false, "elf"}, {"ppu", "powerpc64", 64, false, "elf"}, {"ppc64le", "powerpc64le", 64, false, "elf"},
		{"s390x", "s390x", 64, false, "elf"}, {"systemz", "s390x", 64, false, "elf"},
		{"sparc", "sparc", 32, false, "elf"}, {"sparcel", "sparcel", 32, false, "elf"}, {"sparc64", "sparcv9", 64, false, "elf"},
		{"mips", "mips", 32, false, "elf"}, {"mipsel", "mipsel", 32, false, "elf"}, {"mips64", "mips64", 64, false, "elf"},
		{"mipsisa64r6el", "mips64el", 64, false, "elf"}, {"mipsn32", "mips64", 64, false, "elf"},
		{"riscv32", "riscv32", 32, false, "elf"}, {"riscv64", "riscv64", 64, false, "elf"},
		{"riscv32be", "riscv32be", 32, false, "elf"}, {"riscv64be", "riscv64be", 64, false, "elf"},
		{"loongarch32", "loongarch32", 32, false, "elf"}, {"loongarch64", "loongarch64", 64, false, "elf"},
		{"wasm32", "wasm32", 32, false, "wasm"}, {"wasm64", "wasm64", 64, false, "wasm"},
		{"bpf", "bpfel", 64, false, "elf"}, {"bpfeb", "bpfeb", 64, false, "elf"},
		{"hexagon", "hexagon", 32, false, "elf"}, {"ve", "ve", 64, false, "elf"}, {"csky", "csky", 32, false, "elf"},
		{"m68k", "m68k", 32, false, "elf"}, {"xtensa", "xtensa", 32, false, "elf"}, {"arc", "arc", 32, false, "elf"},
		{"avr", "avr", 16, false, "elf"}, {"msp430", "msp430", 16, false, "elf"}, {"lanai", "lanai", 32, false, "elf"},
		{"xcore", "xcore", 32, false, "elf"}, {"kalimba5", "kalimba", 32, false, "elf"}, {"shave", "shave", 32, false, "elf"},
		{"tce", "tce", 32, false, "elf"}, {"tcele", "tcele", 32, false, "elf"},
		{"renderscript32", "renderscript32", 32, false, "elf"}, {"renderscript64", "renderscript64", 64, false, "elf"},
		{"amdil", "amdil", 32, false, "elf"}, {"amdil64", "amdil64", 64, false, "elf"},
		{"hsail", "hsail", 32, false, "elf"}, {"hsail64", "hsail64", 64, false, "elf"},
		{"dxil", "dxil", 32, false, "dxcontainer"}, {"dxilv1.3", "dxil", 32, false, "dxcontainer"},
		// SPIR is LLVM IR for OpenCL, not SPIR-V: a CPU-style target to
		// the wrapper, however a SYCL toolchain uses it.
		{"spir", "spir", 32, false, "elf"}, {"spir64", "spir64", 64, false, "elf"},
		{"spirv", "spirv", 64, true, "spirv"}, {"spirv1.6", "spirv", 64, true, "spirv"},
		{"spirv32", "spirv32", 32, true, "spirv"}, {"spirv64", "spirv64", 64, true, "spirv"}, {"spirv64v1.2", "spirv64", 64, true, "spirv"},
		{"nvptx", "nvptx", 32, true, "elf"}, {"nvptx64", "nvptx64", 64, true, "elf"},
		{"amdgcn", "amdgcn", 64, true, "elf"}, {"r600", "r600", 32, true, "elf"},
		// not architectures in 22.1.8
		{"x86", "", 0, false, "elf"}, {"spirv1.2", "", 0, false, "elf"}, {"spir64_gen", "", 0, false, "elf"},
		{"gfx90a", "", 0, false, "elf"}, {"", "", 0, false, "elf"}, {"-x", "", 0, false, "elf"}, {"X86_64", "", 0, false, "elf"},
	} {
		tr := Parse(tc.spell + "-unknown-linux")
		if tc.objfmt != "elf" || tc.arch == "" {
			tr = Parse(tc.spell + "-unknown-unknown")
		}
		assert.Equal(t, tc.arch, tr.Arch, tc.spell)
		assert.Equal(t, tc.arch != "", tr.KnownArch(), tc.spell)
		assert.Equal(t, tc.bits, tr.PointerBitWidth(), tc.spell)
		assert.Equal(t, tc.bits == 64, tr.Is64Bit(), tc.spell)
		assert.Equal(t, tc.gpu, tr.IsGPU(), tc.spell)
		assert.Equal(t, tc.objfmt, tr.ObjectFormat, tc.spell)
	}
	// every architecture the parser can produce has a pointer width
	for _, a := range exactArches {
		assert.NotZero(t, Triple{Arch: a}.PointerBitWidth(), a)
	}
}

// TestPointerWidthLikeClang: for the architectures clang-22 has a target
// for, Is64Bit agrees with the __SIZEOF_POINTER__ clang predefines.
func TestPointerWidthLikeClang(t *testing.T) {
	clang := llvmtools.Tool(t, "clang-22")
	for _, s := range []string{"x86_64-unknown-linux-gnu", "i686-unknown-linux-gnu", "aarch64-unknown-linux-gnu",
		"armv7a-unknown-linux-gnueabihf", "powerpc64le-unknown-linux-gnu", "s390x-unknown-linux-gnu",
		"riscv32-unknown-elf", "riscv64-unknown-linux-gnu", "loongarch64-unknown-linux-gnu", "wasm32-unknown-unknown",
		"wasm64-unknown-unknown", "nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa",
		"spir-unknown-unknown", "spir64-unknown-unknown", "spirv32-unknown-unknown", "spirv64-unknown-unknown",
		"mips-unknown-linux-gnu", "mips64el-unknown-linux-gnuabi64", "sparcv9-unknown-linux-gnu", "hexagon-unknown-elf"} {
		out, err := exec.Command(clang, "-target", s, "-x", "c", "-E", "-dM", os.DevNull).Output()
		require.NoError(t, err, s)
		m := regexp.MustCompile(`#define __SIZEOF_POINTER__ (\d+)`).FindSubmatch(out)
		require.NotNil(t, m, s)
		assert.Equal(t, string(m[1]) == "8", Parse(s).Is64Bit(), s)
	}
}

// TestOSQueries: Windows and its MSVC environment, as llvm::Triple reads
// them (no normalisation: "x86_64-windows-msvc" has vendor "windows").
func TestOSQueries(t *testing.T) {
	for s, want := range map[string][2]bool{
		"x86_64-pc-windows-msvc":    {true, true},
		"x86_64-pc-windows":         {true, true},
		"x86_64-pc-win32":           {true, true},
		"x86_64-w64-windows-gnu":    {true, false},
		"x86_64-pc-windows-itanium": {true, false},
		"x86_64-pc-windows-cygnus":  {true, false},
		"x86_64-w64-mingw32":        {false, false},
		"x86_64-windows-msvc":       {false, false},
		"x86_64-unknown-linux-gnu":  {false, false},
	} {
		tr := Parse(s)
		assert.Equal(t, want[0], tr.IsOSWindows(), s)
		assert.Equal(t, want[1], tr.IsWindowsMSVC(), s)
	}
	assert.True(t, Parse(Normalize("x86_64-w64-mingw32", Any)).IsOSWindows())
}
