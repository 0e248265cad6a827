package release

import (
	"fmt"
	"strings"
)

// Range is a span of LLVM major releases, both ends included.
type Range struct{ Lo, Hi int }

// All is every release offload-kit behaves as.
var All = Range{Oldest, Newest}

// Contains reports whether major lies in r.
func (r Range) Contains(major int) bool { return r.Lo <= major && major <= r.Hi }

// Intersect is the releases in both r and o; ok is false when none is.
func (r Range) Intersect(o Range) (Range, bool) {
	x := Range{max(r.Lo, o.Lo), min(r.Hi, o.Hi)}
	return x, x.Lo <= x.Hi
}

func (r Range) String() string {
	if r.Lo == r.Hi {
		return fmt.Sprintf("LLVM %d", r.Lo)
	}
	return fmt.Sprintf("LLVM %d to %d", r.Lo, r.Hi)
}

// EntrySectionReleases are the releases whose clang puts offload entries in
// the ELF section name: the per-kind sections of the 32-byte layout up to
// LLVM 19 (omp_offloading_entries, cuda_offloading_entries,
// hip_offloading_entries), llvm_offload_entries since 20. ok is false for
// any other name.
func EntrySectionReleases(name string) (Range, bool) {
	switch name {
	case "omp_offloading_entries", "cuda_offloading_entries", "hip_offloading_entries":
		return Range{Oldest, 19}, true
	case "llvm_offload_entries":
		return Range{20, Newest}, true
	}
	return Range{}, false
}

// EntrySections are the section names EntrySectionReleases knows.
var EntrySections = []string{"omp_offloading_entries", "cuda_offloading_entries", "hip_offloading_entries", "llvm_offload_entries"}

// WrapperOption is an option of clang-linker-wrapper that not every release
// has: Releases are those whose wrapper accepts it (so whose clang may pass
// it). Spelling is the option's prefix and name as the table has it ("--"
// alone is LLVM 16-18's separator between the wrapper's options and the
// linker's).
type WrapperOption struct {
	Spelling string
	Releases Range
}

// WrapperOptions lists the clang-linker-wrapper options whose presence
// narrows the release, from each release's LinkerWrapperOpts.td (16 and 19
// also from their --help-hidden; docs/linker-wrapper.md, "Releases").
var WrapperOptions = []WrapperOption{
	{"--", Range{16, 18}},
	{"--opt-level=", Range{16, 20}},
	{"--device-debug", Range{16, 20}},
	{"--ptxas-arg=", Range{16, 20}},
	{"--pass-remarks=", Range{16, 20}},
	{"--pass-remarks-missed=", Range{16, 20}},
	{"--pass-remarks-analysis=", Range{16, 20}},
	{"--bitcode-library=", Range{16, 19}},
	{"--builtin-bitcode=", Range{17, 19}},
	{"--clang-backend", Range{17, 19}},
	{"--compress", Range{18, Newest}},
	{"--compression-level=", Range{18, Newest}},
	{"--override-image=", Range{19, Newest}},
	{"--relocatable", Range{19, Newest}},
	{"--device-compiler=", Range{21, Newest}},
}

// WrapperOptionReleases is the releases whose clang-linker-wrapper accepts
// the argument arg (an option spelling, with its value for joined ones);
// ok is false for options every release has and for unknown ones.
func WrapperOptionReleases(arg string) (WrapperOption, bool) {
	for _, o := range WrapperOptions {
		if arg == o.Spelling || strings.HasSuffix(o.Spelling, "=") && strings.HasPrefix(arg, o.Spelling) {
			return o, true
		}
	}
	return WrapperOption{}, false
}

// WrapperDefaultOptLevel is the optimisation level the release's wrapper
// gives device links when clang passes no --opt-level: "O2" up to LLVM 20
// (its default), "" since 21, where clang forwards -O through
// --device-compiler.
func (p Profile) WrapperDefaultOptLevel() string {
	if p.Major <= 20 {
		return "O2"
	}
	return ""
}

// WrapperSeparator: the release's clang passes "--" between the wrapper's
// options and the host linker's (LLVM 16 to 18; removed in 19).
func (p Profile) WrapperSeparator() bool { return p.Major <= 18 }

// WrapperNativeCPUArch: the release's wrapper gives a CPU device link
// without an arch -march=native (seen with LLVM 16's and 19's; LLVM 22's
// passes no -march; 20 and 21 are taken to be 22's).
func (p Profile) WrapperNativeCPUArch() bool { return p.Major <= 19 }

// WrapperRelocatable: the release's wrapper links relocatably (-r,
// --relocatable: images in .llvm.offloading.relocatable, entry sections
// renamed after the link), LLVM 19 and later. Older wrappers hand -r to the
// linker and wrap the images as for a program.
func (p Profile) WrapperRelocatable() bool { return p.Major >= 19 }

// WrapperDumpdir: the release's wrapper names the device link's auxiliary
// outputs with -dumpdir <output>.<arch>.<cpu>.img. (LLVM 22's does; 16's
// and 19's pass none; 20 and 21 are taken to be 22's). Only releases whose
// clang accepts -dumpdir (Dumpdir, 17 and later) can.
func (p Profile) WrapperDumpdir() bool { return p.Dumpdir() && p.Major >= 20 }

// WrapperLegacyDeviceLink: the release's wrapper builds the device clang
// line as LLVM 19's does (seen with 19's; 16's differs more, 20 and 21 are
// taken to be 22's): -mllvm values as -mllvm after the libraries (not
// -Xlinker --plugin-opt= and -Xlinker -mllvm=), -save-temps for
// --save-temps, --ptxas-arg for every target, and CPU images named
// <output>.<arch>.native.img.
func (p Profile) WrapperLegacyDeviceLink() bool { return p.Major <= 19 }

// WrapperLTOInProcess: the release's wrapper runs LTO itself on bitcode
// device inputs and gives clang the object it made (LLVM 16's and 19's,
// for every target); 20 and later hand the bitcode to clang's device link,
// and clang asks for -flto=full on CPU targets itself
// (--device-compiler=<triple>=-flto=full).
func (p Profile) WrapperLTOInProcess() bool { return p.Major <= 19 }

// WrapperClang16Line: the release's wrapper builds LLVM 16's device clang
// line (seen with 16's; 17 and 18 are taken to be 19's): no
// --no-default-config, -Bsymbolic as a clang option, and the inputs last,
// after the libraries and options.
func (p Profile) WrapperClang16Line() bool { return p.Major <= 16 }

// ClangDropsAMDGPULTOCPU: the release's clang driver, linking AMDGPU
// bitcode with -flto, runs ld.lld without -plugin-opt=mcpu= (and without
// the optimisation level), so lld's LTO compiles for a generic processor:
// code objects with e_flags 0 that no GPU loads. Checked: clang 16 drops
// them (`clang-16 -### --target=amdgcn-amd-amdhsa -mcpu=gfx90a -flto x.o`
// runs `ld.lld x.o -shared -o a.out`), clang 19 passes
// -plugin-opt=mcpu=gfx90a. 17 and 18 are taken as 16: passing the options
// again is harmless where the driver already does.
func (p Profile) ClangDropsAMDGPULTOCPU() bool { return p.Major <= 18 }

// DeviceValuesByArch: the release's wrapper scopes a --device-linker
// (and --device-compiler) value "<text>=<rest>" by whether llvm::Triple
// knows an architecture in <text>; one it does not is an arg=value option
// for every link (LLVM PR 101032, in 20). 16's and 19's split every value
// at its first '=' and apply <rest> only to the link whose triple is
// <text>: "-Wl,-defsym=a=b" and "x86=-y" reach no link (seen with 16's and
// 19's clang-linker-wrapper --dry-run).
func (p Profile) DeviceValuesByArch() bool { return p.Major >= 20 }
