// Package triple is the one model of LLVM 22.1.8's llvm::Triple and of
// clang's offload target IDs ("gfx90a:xnack+") that the tools share:
//
//   - Parse and FromParts build a Triple as llvm::Triple's constructors do
//     (components read by position, the architecture with its
//     sub-architecture, vendor, OS, environment, and the object format
//     taken from the environment or defaulted from the architecture and
//     OS); Equal is its operator==, IsCompatibleWith its isCompatibleWith;
//   - Normalize is Triple::normalize, which moves components to their
//     canonical positions;
//   - SplitTargetID, ParseTargetID, TargetIDCompatible, ConflictingTargetIDs
//     and IsOffloadArch are clang's TargetID.cpp and OffloadArch tables.
//
// clang-offload-bundler (format/bundle) and clang-sycl-linker's
// device-library filter (internal/sycldev) both use it. The name tables
// are LLVM 22.1.8's (llvm/lib/TargetParser/Triple.cpp at llvmorg-22.1.8)
// and are checked against the installed clang-22, clang-offload-bundler
// and clang-sycl-linker in this package's tests and in those of its users.
package triple

import "strings"

// The kinds of a triple's components. Each holds LLVM's canonical name for
// the component (Triple::getArchTypeName and friends); "" is unknown.
type (
	ArchType         string
	SubArchType      string // LLVM has no names for these; ours are "v7", "mips-r6", "spirv1.5", ...
	VendorType       string
	OSType           string
	EnvironmentType  string
	ObjectFormatType string
)

// Triple is a parsed target triple.
type Triple struct {
	data string // the text, as llvm::Triple::str()

	Arch         ArchType
	SubArch      SubArchType
	Vendor       VendorType
	OS           OSType
	Environment  EnvironmentType
	ObjectFormat ObjectFormatType
}

// Parse is llvm::Triple(s): at most four '-'-separated components (the
// fourth keeps any further dashes), each parsed on its own, nothing moved.
// A lone MIPS name implies its GNU environment. An object format not named
// at the end of the fourth component is defaulted.
func Parse(s string) Triple {
	c := strings.SplitN(s, "-", 4)
	t := Triple{data: s, Arch: parseArch(c[0]), SubArch: parseSubArch(c[0])}
	if len(c) == 1 {
		t.Environment = mipsDefaultEnv(c[0])
	}
	if len(c) > 1 {
		t.Vendor = parseVendor(c[1])
	}
	if len(c) > 2 {
		t.OS = parseOS(c[2])
	}
	if len(c) > 3 {
		t.Environment = parseEnv(c[3])
		t.ObjectFormat = parseObjFmt(c[3])
	}
	if t.ObjectFormat == "" {
		t.ObjectFormat = t.defaultObjFmt()
	}
	return t
}

// FromParts is llvm::Triple(Arch, Vendor, OS, Environment): the text is
// the four joined with '-', and each is parsed on its own, so a dash
// inside one shifts the text's components but not the parsed values.
func FromParts(arch, vendor, os, env string) Triple {
	t := Triple{data: arch + "-" + vendor + "-" + os + "-" + env,
		Arch: parseArch(arch), SubArch: parseSubArch(arch), Vendor: parseVendor(vendor),
		OS: parseOS(os), Environment: parseEnv(env), ObjectFormat: parseObjFmt(env)}
	if t.ObjectFormat == "" {
		t.ObjectFormat = t.defaultObjFmt()
	}
	return t
}

// String is the triple's text, as given (Triple::str).
func (t Triple) String() string { return t.data }

// component i of the text, as Triple::getArchName ... getOSName split it;
// component 3 is everything after the third '-' (getEnvironmentName).
func (t Triple) component(i int) string {
	c := strings.SplitN(t.data, "-", 4)
	if i < len(c) {
		return c[i]
	}
	return ""
}

// ArchName, VendorName, OSName and EnvironmentName are the text's
// components (Triple::getArchName ...); EnvironmentName keeps any further
// dashes.
func (t Triple) ArchName() string        { return t.component(0) }
func (t Triple) VendorName() string      { return t.component(1) }
func (t Triple) OSName() string          { return t.component(2) }
func (t Triple) EnvironmentName() string { return t.component(3) }

// Equal is llvm::Triple's operator==: the parsed components, not the text.
func (t Triple) Equal(o Triple) bool {
	return t.Arch == o.Arch && t.SubArch == o.SubArch && t.Vendor == o.Vendor &&
		t.OS == o.OS && t.Environment == o.Environment && t.ObjectFormat == o.ObjectFormat
}

// IsCompatibleWith is Triple::isCompatibleWith in 22.1.8: ARM and Thumb of
// one endianness are compatible when the rest matches; an Apple vendor
// ignores the environment (its version) and the object format; when t is
// a Windows GNU (MinGW) triple the vendors may differ ("w64" and "pc");
// otherwise the triples must be Equal.
func (t Triple) IsCompatibleWith(o Triple) bool {
	sameVendor := t.Vendor == o.Vendor || t.IsWindowsGNU()
	if (t.Arch == "thumb" && o.Arch == "arm") || (t.Arch == "arm" && o.Arch == "thumb") ||
		(t.Arch == "thumbeb" && o.Arch == "armeb") || (t.Arch == "armeb" && o.Arch == "thumbeb") {
		if t.Vendor == "apple" {
			return t.SubArch == o.SubArch && t.Vendor == o.Vendor && t.OS == o.OS
		}
		return t.SubArch == o.SubArch && sameVendor && t.OS == o.OS &&
			t.Environment == o.Environment && t.ObjectFormat == o.ObjectFormat
	}
	if t.Vendor == "apple" {
		return t.Arch == o.Arch && t.SubArch == o.SubArch && sameVendor && t.OS == o.OS
	}
	return t.Arch == o.Arch && t.SubArch == o.SubArch && sameVendor && t.OS == o.OS &&
		t.Environment == o.Environment && t.ObjectFormat == o.ObjectFormat
}

// IsWindowsGNU is Triple::isWindowsGNUEnvironment: OS windows,
// environment gnu.
func (t Triple) IsWindowsGNU() bool { return t.OS == "windows" && t.Environment == "gnu" }

// IsAMDGPU reports whether the architecture is amdgcn or r600.
func (t Triple) IsAMDGPU() bool { return t.Arch == "amdgcn" || t.Arch == "r600" }

// IsAMDHSA reports whether the OS is amdhsa.
func (t Triple) IsAMDHSA() bool { return t.OS == "amdhsa" }

// IsNVPTX reports whether the architecture is nvptx or nvptx64.
func (t Triple) IsNVPTX() bool { return t.Arch == "nvptx" || t.Arch == "nvptx64" }

// IsSPIRV is Triple::isSPIRV: spirv, spirv32 or spirv64 (not spir and
// spir64, which are SPIR, LLVM IR for OpenCL).
func (t Triple) IsSPIRV() bool {
	return t.Arch == "spirv" || t.Arch == "spirv32" || t.Arch == "spirv64"
}

// IsGPU reports an AMDGPU, NVPTX or SPIR-V architecture: the device
// targets clang-linker-wrapper links as GPU code, where any other known
// architecture is CPU offloading (it links a shared object against the
// host's libraries and is named by -march=native in LLVM 16 to 19).
func (t Triple) IsGPU() bool { return t.IsAMDGPU() || t.IsNVPTX() || t.IsSPIRV() }

// KnownArch reports whether the architecture is one LLVM knows
// (getArch() != UnknownArch). clang-linker-wrapper takes the text before
// the first '=' of --device-linker and --device-compiler values as a
// triple exactly when it does.
func (t Triple) KnownArch() bool { return t.Arch != "" }

// PointerBitWidth is Triple::getArchPointerBitWidth: 16, 32 or 64, and 0
// for an unknown architecture.
func (t Triple) PointerBitWidth() int { return pointerBits[t.Arch] }

// Is64Bit is Triple::isArch64Bit (false for an unknown architecture).
func (t Triple) Is64Bit() bool { return t.PointerBitWidth() == 64 }

// IsOSWindows is Triple::isOSWindows: the OS is windows (spelled "win32"
// or "windows..." in the OS position).
func (t Triple) IsOSWindows() bool { return t.OS == "windows" }

// IsWindowsMSVC is Triple::isWindowsMSVCEnvironment: a Windows OS whose
// environment is msvc or unknown.
func (t Triple) IsWindowsMSVC() bool {
	return t.OS == "windows" && (t.Environment == "" || t.Environment == "msvc")
}

// pointerBits is getArchPointerBitWidth in 22.1.8, by LLVM's architecture
// type names (i386 is Triple::x86, powerpc64 ppc64, s390x systemz).
var pointerBits = func() map[ArchType]int {
	m := map[ArchType]int{}
	for bits, names := range map[int]string{
		16: "avr msp430",
		32: "aarch64_32 amdil arc arm armeb csky dxil hexagon hsail kalimba lanai loongarch32 m68k mips mipsel " +
			"nvptx powerpc powerpcle r600 renderscript32 riscv32 riscv32be shave sparc sparcel spir spirv32 tce " +
			"tcele thumb thumbeb wasm32 i386 xcore xtensa",
		64: "aarch64 aarch64_be amdgcn amdil64 bpfeb bpfel hsail64 loongarch64 mips64 mips64el nvptx64 powerpc64 " +
			"powerpc64le renderscript64 riscv64 riscv64be sparcv9 spirv spir64 spirv64 s390x ve wasm64 x86_64",
	} {
		for _, n := range strings.Fields(names) {
			m[ArchType(n)] = bits
		}
	}
	return m
}()

// IsDarwin is Triple::isOSDarwin.
func (t Triple) IsDarwin() bool {
	switch t.OS {
	case "darwin", "macosx", "ios", "tvos", "watchos", "driverkit", "xros", "bridgeos":
		return true
	}
	return false
}

// exactArches maps exact architecture spellings to LLVM's architecture
// type names (parseArch's StringSwitch).
var exactArches = func() map[string]ArchType {
	m := map[string]ArchType{}
	for _, group := range []string{
		"i386: i386 i486 i586 i686 i786 i886 i986",
		"x86_64: amd64 x86_64 x86_64h",
		"powerpc: powerpc powerpcspe ppc ppc32",
		"powerpcle: powerpcle ppcle ppc32le",
		"powerpc64: powerpc64 ppu ppc64",
		"powerpc64le: powerpc64le ppc64le",
		"arm: xscale arm",
		"armeb: xscaleeb armeb",
		"aarch64: aarch64 aarch64_lfi arm64 arm64e arm64ec",
		"aarch64_be: aarch64_be",
		"aarch64_32: aarch64_32 arm64_32",
		"thumb: thumb",
		"thumbeb: thumbeb",
		"mips: mips mipseb mipsallegrex mipsisa32r6 mipsr6",
		"mipsel: mipsel mipsallegrexel mipsisa32r6el mipsr6el",
		"mips64: mips64 mips64eb mipsn32 mipsisa64r6 mips64r6 mipsn32r6",
		"mips64el: mips64el mipsn32el mipsisa64r6el mips64r6el mipsn32r6el",
		"s390x: s390x systemz",
		"sparcv9: sparcv9 sparc64",
		// 22.1.8 knows spirv1.5 and spirv1.6 but not spirv1.0-1.4
		// (clang-22 -target linux-spirv1.4 does not move it to the front).
		"spirv: spirv spirv1.5 spirv1.6",
		"spirv32: spirv32 spirv32v1.0 spirv32v1.1 spirv32v1.2 spirv32v1.3 spirv32v1.4 spirv32v1.5 spirv32v1.6",
		"spirv64: spirv64 spirv64v1.0 spirv64v1.1 spirv64v1.2 spirv64v1.3 spirv64v1.4 spirv64v1.5 spirv64v1.6",
		"dxil: dxil dxilv1.0 dxilv1.1 dxilv1.2 dxilv1.3 dxilv1.4 dxilv1.5 dxilv1.6 dxilv1.7 dxilv1.8 dxilv1.9",
	} {
		arch, names, _ := strings.Cut(group, ": ")
		for _, n := range strings.Fields(names) {
			m[n] = ArchType(arch)
		}
	}
	for _, a := range strings.Fields("arc avr m68k msp430 r600 amdgcn riscv32 riscv64 riscv32be riscv64be " +
		"hexagon sparc sparcel tce tcele xcore nvptx nvptx64 amdil amdil64 hsail hsail64 spir spir64 " +
		"lanai renderscript32 renderscript64 shave ve wasm32 wasm64 csky loongarch32 loongarch64 xtensa") {
		m[a] = ArchType(a)
	}
	return m
}()

func parseArch(s string) ArchType {
	if a, ok := exactArches[s]; ok {
		return a
	}
	switch {
	case strings.HasPrefix(s, "kalimba"):
		return "kalimba"
	case strings.HasPrefix(s, "arm"), strings.HasPrefix(s, "thumb"), strings.HasPrefix(s, "aarch64"):
		return armFamilyArch(s)
	case s == "bpf", s == "bpf_le", s == "bpfel":
		// a bare "bpf" takes the host's endianness; LLVM runs little-endian here
		return "bpfel"
	case s == "bpf_be", s == "bpfeb":
		return "bpfeb"
	}
	return ""
}

func parseSubArch(s string) SubArchType {
	switch {
	case strings.HasPrefix(s, "mips") && (strings.HasSuffix(s, "r6") || strings.HasSuffix(s, "r6el")):
		return "mips-r6"
	case s == "powerpcspe", s == "arm64e", s == "arm64ec":
		return SubArchType(s)
	case s == "aarch64_lfi":
		return "lfi"
	case strings.HasPrefix(s, "spirv"):
		return versionSuffix(s, "spirv", 6)
	case strings.HasPrefix(s, "dxil"):
		return versionSuffix(s, "dxil", 9)
	}
	c := armCanonical(s)
	if c == "" {
		// LLVM then looks for a kalimba3/4/5 suffix, which can only be
		// reached by names that are not kalimba ones.
		return ""
	}
	return SubArchType(armSubArches[armArchKind(c)])
}

// versionSuffix is the "<family>1.N" sub-arch of a name ending in
// "v1.0" ... "v1.<max>".
func versionSuffix(s, family string, max byte) SubArchType {
	if n := len(s); n >= 4 && s[n-4:n-1] == "v1." && s[n-1] >= '0' && s[n-1] <= '0'+max {
		return SubArchType(family + s[n-3:])
	}
	return ""
}

// mipsDefaultEnv is the environment LLVM gives a one-component MIPS triple.
func mipsDefaultEnv(s string) EnvironmentType {
	switch {
	case strings.HasPrefix(s, "mipsn32"):
		return "gnuabin32"
	case strings.HasPrefix(s, "mips64"), strings.HasPrefix(s, "mipsisa64"):
		return "gnuabi64"
	case strings.HasPrefix(s, "mipsisa32"), s == "mips", s == "mipsel", s == "mipsr6", s == "mipsr6el":
		return "gnu"
	}
	return ""
}

func parseVendor(s string) VendorType {
	switch s {
	case "apple", "pc", "fsl", "ibm", "img", "mti", "nvidia", "csr", "amd", "mesa", "suse", "oe", "intel", "meta":
		return VendorType(s)
	case "scei", "sie":
		return "scei"
	}
	return ""
}

// osPrefixes are matched as prefixes, in this order (so "wasip1" is not
// "wasi"); "prefix=name" gives the canonical name.
var osPrefixes = strings.Fields("darwin dragonfly freebsd fuchsia ios kfreebsd linux lv2 macos=macosx managarm " +
	"netbsd openbsd solaris uefi win32=windows windows zos haiku rtems aix cuda nvcl amdhsa ps4 ps5 elfiamcu " +
	"tvos watchos bridgeos driverkit xros visionos=xros mesa3d amdpal hermit hurd wasip1 wasip2 wasip3 wasi " +
	"emscripten shadermodel liteos serenity vulkan cheriotrtos")

// envPrefixes are matched as prefixes, in this order.
var envPrefixes = strings.Fields("eabihf eabi gnuabin32 gnuabi64 gnueabihft64 gnueabihf gnueabit64 gnueabi " +
	"gnuf32 gnuf64 gnusf gnux32 gnu_ilp32 code16 gnut64 gnu android muslabin32 muslabi64 musleabihf " +
	"musleabi muslf32 muslsf muslx32 muslwali musl msvc itanium cygnus coreclr simulator macabi pixel " +
	"vertex geometry hull domain compute library raygeneration intersection anyhit closesthit miss " +
	"callable mesh amplification rootsignature opencl ohos pauthtest llvm mlibc mtia")

// objFmtSuffixes are matched as suffixes of the environment, in this
// order ("xcoff" before "coff"). "dxcontainer" is a name but not parsed.
var objFmtSuffixes = []ObjectFormatType{"xcoff", "coff", "elf", "goff", "macho", "wasm", "spirv"}

func parseOS(s string) OSType { return OSType(prefixIn(s, osPrefixes)) }

func parseEnv(s string) EnvironmentType { return EnvironmentType(prefixIn(s, envPrefixes)) }

func parseObjFmt(s string) ObjectFormatType {
	for _, f := range objFmtSuffixes {
		if strings.HasSuffix(s, string(f)) {
			return f
		}
	}
	return ""
}

// prefixIn returns the canonical name of the first table entry that is a
// prefix of s ("" if none).
func prefixIn(s string, table []string) string {
	for _, e := range table {
		p, name, ok := strings.Cut(e, "=")
		if !ok {
			name = p
		}
		if strings.HasPrefix(s, p) {
			return name
		}
	}
	return ""
}

// defaultObjFmt is getDefaultFormat.
func (t Triple) defaultObjFmt() ObjectFormatType {
	switch t.Arch {
	case "", "aarch64", "aarch64_32", "arm", "thumb", "i386", "x86_64":
		switch {
		case t.OS == "windows", t.OS == "uefi":
			return "coff"
		case t.IsDarwin():
			return "macho"
		}
		return "elf"
	case "mipsel":
		if t.OS == "windows" {
			return "coff"
		}
	case "powerpc", "powerpc64":
		switch {
		case t.OS == "aix":
			return "xcoff"
		case t.IsDarwin():
			return "macho"
		}
	case "s390x":
		if t.OS == "zos" {
			return "goff"
		}
	case "wasm32", "wasm64":
		return "wasm"
	case "spirv", "spirv32", "spirv64":
		return "spirv"
	case "dxil":
		return "dxcontainer"
	}
	return "elf"
}
