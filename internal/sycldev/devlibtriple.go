package sycldev

import "strings"

// llvmTriple is a target triple reduced to what LLVM 22.1.8 compares when
// clang-sycl-linker tests a device library's module triple against
// --triple: the parsed architecture, sub-architecture, vendor, OS,
// environment and object format of llvm::Triple (its operator==). The
// spelling itself is not compared, and nothing is normalised: components
// are read by position, so "spirv64" equals "spirv64-unknown-unknown" and
// "spirv64-foo-bar" (unknown names parse as unknown) but not
// "spirv64-intel" (a known vendor), and "x86_64-linux-gnu" (vendor
// "linux", OS "gnu": both unknown) differs from "x86_64-unknown-linux-gnu".
//
// Fields hold canonical names, "" for unknown. The tables follow LLVM
// 22.1.8 and were checked against clang-sycl-linker 22.1.8 (see
// devlib_test.go); the big-endian choice for a bare "bpf" assumes a
// little-endian host, as LLVM decides it from the host.
type llvmTriple struct {
	arch, subArch, vendor, os, env, objFmt string
}

// parseLLVMTriple parses s as llvm::Triple's constructor does: at most
// four '-'-separated components (the fourth keeps any further dashes),
// each parsed on its own, and the object format taken from the end of the
// fourth or else defaulted from the architecture and OS.
func parseLLVMTriple(s string) llvmTriple {
	c := strings.SplitN(s, "-", 4)
	t := llvmTriple{arch: tripleArch(c[0]), subArch: tripleSubArch(c[0])}
	if len(c) == 1 {
		t.env = mipsDefaultEnv(c[0])
	}
	if len(c) > 1 {
		t.vendor = tripleVendor(c[1])
	}
	if len(c) > 2 {
		t.os = hasPrefixIn(c[2], tripleOSes)
	}
	if len(c) > 3 {
		t.env = hasPrefixIn(c[3], tripleEnvs)
		t.objFmt = hasSuffixIn(c[3], tripleObjFmts)
	}
	if t.objFmt == "" {
		t.objFmt = t.defaultObjFmt()
	}
	return t
}

// hasPrefixIn returns the canonical name of the first table entry that
// is a prefix of s ("" if none). Entries are "prefix" or "prefix=name".
func hasPrefixIn(s string, table []string) string {
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

func hasSuffixIn(s string, table []string) string {
	for _, f := range table {
		if strings.HasSuffix(s, f) {
			return f
		}
	}
	return ""
}

// tripleArches maps exact architecture spellings to their architecture.
var tripleArches = func() map[string]string {
	m := map[string]string{}
	for _, group := range []string{
		"x86: i386 i486 i586 i686 i786 i886 i986",
		"x86_64: amd64 x86_64 x86_64h",
		"ppc: powerpc powerpcspe ppc ppc32",
		"ppcle: powerpcle ppcle ppc32le",
		"ppc64: powerpc64 ppu ppc64",
		"ppc64le: powerpc64le ppc64le",
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
		"systemz: s390x systemz",
		"sparcv9: sparcv9 sparc64",
		"spirv: spirv spirv1.5 spirv1.6",
		"spirv32: spirv32 spirv32v1.0 spirv32v1.1 spirv32v1.2 spirv32v1.3 spirv32v1.4 spirv32v1.5 spirv32v1.6",
		"spirv64: spirv64 spirv64v1.0 spirv64v1.1 spirv64v1.2 spirv64v1.3 spirv64v1.4 spirv64v1.5 spirv64v1.6",
		"dxil: dxil dxilv1.0 dxilv1.1 dxilv1.2 dxilv1.3 dxilv1.4 dxilv1.5 dxilv1.6 dxilv1.7 dxilv1.8 dxilv1.9",
	} {
		arch, names, _ := strings.Cut(group, ": ")
		for _, n := range strings.Fields(names) {
			m[n] = arch
		}
	}
	for _, a := range strings.Fields("arc avr m68k msp430 r600 amdgcn riscv32 riscv64 riscv32be riscv64be " +
		"hexagon sparc sparcel tce tcele xcore nvptx nvptx64 amdil amdil64 hsail hsail64 spir spir64 " +
		"lanai renderscript32 renderscript64 shave ve wasm32 wasm64 csky loongarch32 loongarch64 xtensa") {
		m[a] = a
	}
	return m
}()

func tripleArch(s string) string {
	if a, ok := tripleArches[s]; ok {
		return a
	}
	switch {
	case strings.HasPrefix(s, "kalimba"):
		return "kalimba"
	case strings.HasPrefix(s, "arm"), strings.HasPrefix(s, "thumb"), strings.HasPrefix(s, "aarch64"):
		return armFamilyArch(s)
	case s == "bpf", s == "bpf_le", s == "bpfel":
		return "bpfel"
	case s == "bpf_be", s == "bpfeb":
		return "bpfeb"
	}
	return ""
}

func tripleSubArch(s string) string {
	switch {
	case strings.HasPrefix(s, "mips") && (strings.HasSuffix(s, "r6") || strings.HasSuffix(s, "r6el")):
		return "mips-r6"
	case s == "powerpcspe", s == "arm64e", s == "arm64ec":
		return s
	case s == "aarch64_lfi":
		return "lfi"
	case strings.HasPrefix(s, "spirv"):
		for _, v := range []string{"v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6"} {
			if strings.HasSuffix(s, v) {
				return "spirv" + v
			}
		}
		return ""
	case strings.HasPrefix(s, "dxil"):
		for _, v := range []string{"v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8", "v1.9"} {
			if strings.HasSuffix(s, v) {
				return "dxil" + v
			}
		}
		return ""
	}
	c := armCanonical(s)
	if c == "" {
		// LLVM then looks for a kalimba3/4/5 suffix, which can only be
		// reached by names that are not kalimba ones.
		return ""
	}
	return armSubArches[armArchKind(c)]
}

// mipsDefaultEnv is the environment LLVM gives a one-component MIPS triple.
func mipsDefaultEnv(s string) string {
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

func tripleVendor(s string) string {
	switch s {
	case "apple", "pc", "fsl", "ibm", "img", "mti", "nvidia", "csr", "amd", "mesa", "suse", "oe", "intel", "meta":
		return s
	case "scei", "sie":
		return "scei"
	}
	return ""
}

// tripleOSes are matched as prefixes, in this order (so "wasip1" is not
// "wasi").
var tripleOSes = strings.Fields("darwin dragonfly freebsd fuchsia ios kfreebsd linux lv2 macos=macosx managarm " +
	"netbsd openbsd solaris uefi win32 windows=win32 zos haiku rtems aix cuda nvcl amdhsa ps4 ps5 elfiamcu " +
	"tvos watchos bridgeos driverkit xros visionos=xros mesa3d amdpal hermit hurd wasip1 wasip2 wasip3 wasi " +
	"emscripten shadermodel liteos serenity vulkan cheriotrtos")

// tripleEnvs are matched as prefixes, in this order.
var tripleEnvs = strings.Fields("eabihf eabi gnuabin32 gnuabi64 gnueabihft64 gnueabihf gnueabit64 gnueabi " +
	"gnuf32 gnuf64 gnusf gnux32 gnu_ilp32 code16 gnut64 gnu android muslabin32 muslabi64 musleabihf " +
	"musleabi muslf32 muslsf muslx32 muslwali musl msvc itanium cygnus coreclr simulator macabi pixel " +
	"vertex geometry hull domain compute library raygeneration intersection anyhit closesthit miss " +
	"callable mesh amplification rootsignature opencl ohos pauthtest llvm mlibc mtia")

// tripleObjFmts are matched as suffixes of the fourth component, in this
// order ("xcoff" before "coff").
var tripleObjFmts = []string{"xcoff", "coff", "elf", "goff", "macho", "wasm", "spirv"}

func (t llvmTriple) defaultObjFmt() string {
	darwin := false
	switch t.os {
	case "darwin", "macosx", "ios", "tvos", "watchos", "driverkit", "xros", "bridgeos":
		darwin = true
	}
	switch t.arch {
	case "", "aarch64", "aarch64_32", "arm", "thumb", "x86", "x86_64":
		switch {
		case t.os == "win32", t.os == "uefi":
			return "coff"
		case darwin:
			return "macho"
		}
		return "elf"
	case "mipsel":
		if t.os == "win32" {
			return "coff"
		}
	case "ppc", "ppc64":
		switch {
		case t.os == "aix":
			return "xcoff"
		case darwin:
			return "macho"
		}
	case "systemz":
		if t.os == "zos" {
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

// ARM-family names (arm*, thumb*, aarch64* beyond the exact spellings)
// go through LLVM's ARM target parser: the ISA and endianness come from
// the name, and the name must reduce to a known "vN..." architecture.
func armFamilyArch(s string) string {
	var isa string
	switch {
	case strings.HasPrefix(s, "aarch64"), strings.HasPrefix(s, "arm64"):
		isa = "aarch64"
	case strings.HasPrefix(s, "thumb"):
		isa = "thumb"
	case strings.HasPrefix(s, "arm"):
		isa = "arm"
	}
	big := false
	switch {
	case strings.HasPrefix(s, "armeb"), strings.HasPrefix(s, "thumbeb"), strings.HasPrefix(s, "aarch64_be"):
		big = true
	case strings.HasPrefix(s, "arm"), strings.HasPrefix(s, "thumb"):
		big = strings.HasSuffix(s, "eb")
	case !strings.HasPrefix(s, "aarch64"):
		isa = "" // no endianness: no architecture
	}
	arch := ""
	switch isa {
	case "arm", "thumb":
		arch = isa
		if big {
			arch += "eb"
		}
	case "aarch64":
		arch = "aarch64"
		if big {
			arch = "aarch64_be"
		}
	}
	c := armCanonical(s)
	if c == "" {
		return ""
	}
	if isa == "thumb" && (strings.HasPrefix(c, "v2") || strings.HasPrefix(c, "v3")) {
		return ""
	}
	if k := armArchKind(c); armMProfile[k] && armVersion(k) == 6 {
		if big {
			return "thumbeb"
		}
		return "thumb"
	}
	return arch
}

// armCanonical strips the ISA prefix and the endianness from an ARM
// architecture name, leaving "v7a", or returns a marketing name ("xscale")
// as it is; "" means the name is not valid.
func armCanonical(s string) string {
	a := s
	off := -1
	for _, p := range []string{"arm64_32", "arm64e", "arm64", "aarch64_32", "arm", "thumb"} {
		if strings.HasPrefix(a, p) {
			off = len(p)
			break
		}
	}
	if off < 0 && strings.HasPrefix(a, "aarch64") {
		off = len("aarch64")
		if strings.Contains(a, "eb") {
			return ""
		}
		if strings.HasPrefix(a[off:], "_be") {
			off += 3
		}
	}
	if off >= 0 && strings.HasPrefix(a[off:], "eb") {
		off += 2
	} else {
		a = strings.TrimSuffix(a, "eb")
	}
	if off >= 0 {
		a = a[min(off, len(a)):] // "arm64eb" loses its "eb" before the cut
	}
	if a == "" {
		return s
	}
	if off >= 0 {
		if len(a) >= 2 && (a[0] != 'v' || a[1] < '0' || a[1] > '9') {
			return ""
		}
		if strings.Contains(a, "eb") {
			return ""
		}
	}
	return a
}

// armArchNames are LLVM 22's ARM architecture names in table order
// (ARMTargetParser.def); a canonical name selects the first entry that
// ends with its synonym.
var armArchNames = strings.Fields("invalid armv4 armv4t armv5t armv5te armv5tej armv6 armv6k armv6t2 armv6kz " +
	"armv6-m armv7-a armv7ve armv7-r armv7-m armv7e-m armv8-a armv8.1-a armv8.2-a armv8.3-a armv8.4-a " +
	"armv8.5-a armv8.6-a armv8.7-a armv8.8-a armv8.9-a armv9-a armv9.1-a armv9.2-a armv9.3-a armv9.4-a " +
	"armv9.5-a armv9.6-a armv9.7-a armv8-r armv8-m.base armv8-m.main armv8.1-m.main iwmmxt iwmmxt2 xscale " +
	"armv7s armv7k")

// armSynonyms are the short spellings LLVM accepts for ARM architectures.
var armSynonyms = func() map[string]string {
	m := map[string]string{}
	for _, group := range []string{
		"v5t: v5", "v5te: v5e", "v6: v6j", "v6k: v6hl", "v6-m: v6m v6sm v6s-m", "v6kz: v6z v6zk",
		"v7-a: v7 v7a v7hl v7l", "v7-r: v7r", "v7-m: v7m", "v7e-m: v7em", "v8-a: v8 v8a v8l aarch64 arm64",
		"v8.1-a: v8.1a", "v8.2-a: v8.2a", "v8.3-a: v8.3a", "v8.4-a: v8.4a", "v8.5-a: v8.5a", "v8.6-a: v8.6a",
		"v8.7-a: v8.7a", "v8.8-a: v8.8a", "v8.9-a: v8.9a", "v8-r: v8r", "v9-a: v9 v9a", "v9.1-a: v9.1a",
		"v9.2-a: v9.2a", "v9.3-a: v9.3a", "v9.4-a: v9.4a", "v9.5-a: v9.5a", "v9.6-a: v9.6a", "v9.7-a: v9.7a",
		"v8-m.base: v8m.base", "v8-m.main: v8m.main", "v8.1-m.main: v8.1m.main",
	} {
		to, from, _ := strings.Cut(group, ": ")
		for _, f := range strings.Fields(from) {
			m[f] = to
		}
	}
	return m
}()

// armArchKind returns the armArchNames entry a name selects ("invalid"
// for none).
func armArchKind(s string) string {
	c := armCanonical(s)
	syn := c
	if v, ok := armSynonyms[c]; ok {
		syn = v
	}
	for _, n := range armArchNames {
		if strings.HasSuffix(n, syn) {
			return n
		}
	}
	return "invalid"
}

var armMProfile = map[string]bool{"armv6-m": true, "armv7-m": true, "armv7e-m": true,
	"armv8-m.base": true, "armv8-m.main": true, "armv8.1-m.main": true}

func armVersion(kind string) int {
	switch {
	case kind == "iwmmxt", kind == "iwmmxt2", kind == "xscale":
		return 5
	case strings.HasPrefix(kind, "armv"):
		return int(kind[4] - '0')
	}
	return 0
}

// armSubArches maps an ARM architecture to the llvm::Triple sub-arch it
// gives; armv4 and invalid give none.
var armSubArches = map[string]string{
	"armv4t": "v4t", "armv5t": "v5", "armv5te": "v5te", "iwmmxt": "v5te", "iwmmxt2": "v5te",
	"xscale": "v5te", "armv5tej": "v5te", "armv6": "v6", "armv6k": "v6k", "armv6kz": "v6k",
	"armv6t2": "v6t2", "armv6-m": "v6m", "armv7-a": "v7", "armv7-r": "v7", "armv7ve": "v7ve",
	"armv7k": "v7k", "armv7-m": "v7m", "armv7s": "v7s", "armv7e-m": "v7em", "armv8-a": "v8",
	"armv8.1-a": "v8.1a", "armv8.2-a": "v8.2a", "armv8.3-a": "v8.3a", "armv8.4-a": "v8.4a",
	"armv8.5-a": "v8.5a", "armv8.6-a": "v8.6a", "armv8.7-a": "v8.7a", "armv8.8-a": "v8.8a",
	"armv8.9-a": "v8.9a", "armv9-a": "v9", "armv9.1-a": "v9.1a", "armv9.2-a": "v9.2a",
	"armv9.3-a": "v9.3a", "armv9.4-a": "v9.4a", "armv9.5-a": "v9.5a", "armv9.6-a": "v9.6a",
	"armv9.7-a": "v9.7a", "armv8-r": "v8r", "armv8-m.base": "v8m.base", "armv8-m.main": "v8m.main",
	"armv8.1-m.main": "v8.1m.main",
}
