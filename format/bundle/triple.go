package bundle

import "strings"

// Triple is the part of llvm::Triple the bundler relies on: the four
// textual components plus the parsed values used for equality.
type Triple struct {
	Arch, Vendor, OS, Env string // textual components as given

	arch   string // canonical architecture ("" = unknown)
	vendor string
	os     string
	env    string
	objfmt string
}

// newTriple builds a triple from four components, as
// llvm::Triple(Arch, Vendor, OS, Env) does.
func newTriple(arch, vendor, os, env string) Triple {
	t := Triple{Arch: arch, Vendor: vendor, OS: os, Env: env}
	t.arch = parseArch(arch)
	t.vendor = parseVendor(vendor)
	t.os = parseOS(os)
	t.env = parseEnv(env)
	t.objfmt = parseObjFmt(env)
	return t
}

// String is the triple text "arch-vendor-os-env".
func (t Triple) String() string { return t.Arch + "-" + t.Vendor + "-" + t.OS + "-" + t.Env }

// Valid reports whether the architecture is known.
func (t Triple) Valid() bool { return t.arch != "" }

// IsAMDHSA reports whether the OS component is amdhsa.
func (t Triple) IsAMDHSA() bool { return t.os == "amdhsa" }

// IsAMDGPU reports whether the architecture is amdgcn or r600.
func (t Triple) IsAMDGPU() bool { return t.arch == "amdgcn" || t.arch == "r600" }

// CompatibleWith is Triple::isCompatibleWith for the cases the bundler
// meets: equal parsed components (Apple vendors ignore the environment).
func (t Triple) CompatibleWith(o Triple) bool {
	if t.vendor == "apple" {
		return t.arch == o.arch && t.vendor == o.vendor && t.os == o.os
	}
	return t.arch == o.arch && t.vendor == o.vendor && t.os == o.os && t.env == o.env && t.objfmt == o.objfmt
}

// Normalize is Triple::normalize with a fixed number of components (3 or
// 4): components are moved to their canonical positions, empty ones
// become "unknown", and win32/mingw/cygwin are rewritten to windows.
func (t Triple) Normalize(n int) string {
	return normalizeTriple(t.String(), n)
}

func normalizeTriple(s string, form int) string {
	comps := strings.Split(s, "-")
	get := func(i int) string {
		if i < len(comps) {
			return comps[i]
		}
		return ""
	}
	arch, vendor, osv, env, objfmt := "", "", "", "", ""
	if len(comps) > 0 {
		arch = parseArch(comps[0])
	}
	if len(comps) > 1 {
		vendor = parseVendor(comps[1])
	}
	isCygwin, isMinGW := false, false
	if len(comps) > 2 {
		osv = parseOS(comps[2])
		isCygwin = strings.HasPrefix(comps[2], "cygwin")
		isMinGW = strings.HasPrefix(comps[2], "mingw")
	}
	if len(comps) > 3 {
		env = parseEnv(comps[3])
	}
	if len(comps) > 4 {
		objfmt = parseObjFmt(comps[4])
	}
	found := [4]bool{arch != "", vendor != "", osv != "", env != ""}
	for pos := 0; pos < 4; pos++ {
		if found[pos] {
			continue
		}
		for idx := 0; idx < len(comps); idx++ {
			if idx < 4 && found[idx] {
				continue
			}
			c := comps[idx]
			valid := false
			switch pos {
			case 0:
				arch = parseArch(c)
				valid = arch != ""
			case 1:
				vendor = parseVendor(c)
				valid = vendor != ""
			case 2:
				osv = parseOS(c)
				isCygwin = strings.HasPrefix(c, "cygwin")
				isMinGW = strings.HasPrefix(c, "mingw")
				valid = osv != "" || isCygwin || isMinGW
			case 3:
				env = parseEnv(c)
				valid = env != ""
				if !valid {
					objfmt = parseObjFmt(c)
					valid = objfmt != ""
				}
			}
			if !valid {
				continue
			}
			if pos < idx {
				cur := ""
				cur, comps[idx] = comps[idx], cur
				for i := pos; cur != ""; i++ {
					for i < 4 && found[i] {
						i++
					}
					for i >= len(comps) {
						comps = append(comps, "")
					}
					cur, comps[i] = comps[i], cur
				}
			} else if pos > idx {
				for {
					cur := ""
					for i := idx; i < len(comps); {
						cur, comps[i] = comps[i], cur
						if cur == "" {
							break
						}
						i++
						for i < 4 && found[i] {
							i++
						}
					}
					if cur != "" {
						comps = append(comps, cur)
					}
					idx++
					for idx < 4 && found[idx] {
						idx++
					}
					if idx >= pos {
						break
					}
				}
			}
			found[pos] = true
			break
		}
	}
	if found[0] && !found[1] && !found[2] && found[3] && get(1) == "none" && get(2) == "" {
		comps[1], comps[2] = comps[2], comps[1]
	}
	for i, c := range comps {
		if c == "" {
			comps[i] = "unknown"
		}
	}
	resize := func(n int) {
		for len(comps) < n {
			comps = append(comps, "unknown")
		}
		comps = comps[:n]
	}
	switch {
	case osv == "win32":
		resize(4)
		comps[2] = "windows"
		if env == "" {
			if objfmt == "" || objfmt == "coff" {
				comps[3] = "msvc"
			} else {
				comps[3] = objfmt
			}
		}
	case isMinGW:
		resize(4)
		comps[2], comps[3] = "windows", "gnu"
	case isCygwin:
		resize(4)
		comps[2], comps[3] = "windows", "cygnus"
	}
	if isMinGW || isCygwin || (osv == "win32" && env != "") {
		if objfmt != "" && objfmt != "coff" {
			resize(5)
			comps[4] = objfmt
		}
	}
	if form > 0 && form != len(comps) {
		resize(form)
	}
	return strings.Join(comps, "-")
}

func parseArch(s string) string {
	switch s {
	case "i386", "i486", "i586", "i686", "i786", "i886", "i986":
		return "x86"
	case "amd64", "x86_64", "x86_64h":
		return "x86_64"
	case "powerpc", "powerpcspe", "ppc", "ppc32":
		return "ppc"
	case "powerpcle", "ppcle", "ppc32le":
		return "ppcle"
	case "powerpc64", "ppu", "ppc64":
		return "ppc64"
	case "powerpc64le", "ppc64le":
		return "ppc64le"
	case "xscale", "xscaleeb":
		return "arm"
	case "aarch64", "arm64", "arm64e", "arm64ec":
		return "aarch64"
	case "aarch64_be":
		return "aarch64_be"
	case "aarch64_32", "arm64_32":
		return "aarch64_32"
	case "arc", "avr", "m68k", "msp430", "r600", "amdgcn", "hexagon", "xcore",
		"nvptx", "nvptx64", "amdil", "amdil64", "hsail", "hsail64", "spir", "spir64",
		"lanai", "renderscript32", "renderscript64", "ve", "csky", "xtensa",
		"loongarch32", "loongarch64", "dxil", "riscv32", "riscv64", "riscv32be", "riscv64be",
		"sparc", "sparcv9", "sparcel", "tce", "tcele", "le32", "le64", "kalimba", "shave",
		"wasm32", "wasm64", "mips", "mipsel", "mips64", "mips64el", "systemz", "s390x",
		"bpfel", "bpfeb", "thumb", "thumbeb", "armeb", "arm":
		switch s {
		case "s390x":
			return "systemz"
		case "sparcv9":
			return "sparcv9"
		}
		return s
	case "bpf":
		return "bpfel"
	case "sparc64":
		return "sparcv9"
	case "spirv", "spirv1.0", "spirv1.1", "spirv1.2", "spirv1.3", "spirv1.4", "spirv1.5", "spirv1.6":
		return "spirv"
	case "spirv32", "spirv32v1.0", "spirv32v1.1", "spirv32v1.2", "spirv32v1.3", "spirv32v1.4", "spirv32v1.5", "spirv32v1.6":
		return "spirv32"
	case "spirv64", "spirv64v1.0", "spirv64v1.1", "spirv64v1.2", "spirv64v1.3", "spirv64v1.4", "spirv64v1.5", "spirv64v1.6":
		return "spirv64"
	}
	switch {
	case strings.HasPrefix(s, "kalimba"):
		return "kalimba"
	case strings.HasPrefix(s, "armv"), strings.HasPrefix(s, "armebv"):
		return "arm:" + s
	case strings.HasPrefix(s, "thumbv"), strings.HasPrefix(s, "thumbebv"):
		return "thumb:" + s
	case strings.HasPrefix(s, "mips") && (strings.HasSuffix(s, "r6") || strings.HasSuffix(s, "r6el")):
		return "mips:" + s
	}
	return ""
}

func parseVendor(s string) string {
	switch s {
	case "apple", "pc", "scei", "sie", "fsl", "ibm", "img", "mti", "nvidia", "csr",
		"amd", "mesa", "suse", "oe", "intel":
		if s == "scei" {
			return "sie"
		}
		return s
	}
	return ""
}

var osPrefixes = []string{"darwin", "dragonfly", "freebsd", "fuchsia", "ios", "kfreebsd",
	"linux", "lv2", "macos", "managarm", "netbsd", "openbsd", "solaris", "uefi", "win32",
	"windows", "zos", "haiku", "rtems", "aix", "cuda", "nvcl", "amdhsa", "ps4", "ps5",
	"elfiamcu", "tvos", "watchos", "bridgeos", "driverkit", "xros", "visionos", "mesa3d",
	"amdpal", "hermit", "hurd", "wasip1", "wasip2", "wasip3", "wasi", "emscripten",
	"shadermodel", "liteos", "serenity", "vulkan", "cheriotrtos", "opencl", "chipstar", "firmware", "qurt"}

func parseOS(s string) string {
	for _, p := range osPrefixes {
		if strings.HasPrefix(s, p) {
			switch p {
			case "windows":
				return "win32"
			case "macos":
				return "macosx"
			case "visionos":
				return "xros"
			}
			return p
		}
	}
	return ""
}

var envPrefixes = []string{"eabihf", "eabi", "gnuabin32", "gnuabi64", "gnueabihft64",
	"gnueabihf", "gnueabit64", "gnueabi", "gnuf32", "gnuf64", "gnusf", "gnux32",
	"gnu_ilp32", "code16", "gnut64", "gnu", "android", "muslabin32", "muslabi64",
	"musleabihf", "musleabi", "muslf32", "muslsf", "muslx32", "muslwali", "musl", "msvc",
	"itanium", "cygnus", "coreclr", "simulator", "macabi", "pixel", "vertex", "geometry",
	"hull", "domain", "compute", "library", "raygeneration", "intersection", "anyhit",
	"closesthit", "miss", "callable", "mesh", "amplification", "rootsignature", "opencl",
	"ohos", "pauthtest", "llvm", "mlibc", "mtia", "sycl", "hipstdpar"}

func parseEnv(s string) string {
	for _, p := range envPrefixes {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	return ""
}

func parseObjFmt(s string) string {
	for _, f := range []string{"xcoff", "coff", "elf", "goff", "macho", "wasm", "spirv", "dxcontainer"} {
		if strings.HasSuffix(s, f) {
			return f
		}
	}
	return ""
}
