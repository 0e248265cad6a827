package wrap

import (
	"fmt"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/release"
)

// regABI is what differs between the registration objects of the LLVM
// releases (docs/wrapper-objects.md, "Releases 16 to 19"). LLVM 16 and 19
// were checked against their own clang-linker-wrapper
// (--print-wrapped-module and the objects it writes); 17 is taken to
// behave as 16 and 18 as 19, the nearest checked release.
type regABI struct {
	major  int  // the release (16..22)
	legacy bool // 32-byte __tgt_offload_entry in per-kind sections (LLVM 16-19)

	// Entry layout: record size and field offsets.
	entSize, entAddr, entName, entSize8, entFlags, entData, entAux byte
	kindCheck                                                      bool // entries carry a Kind; register only the flavor's

	// How globals_reg decodes a variable entry (size != 0).
	typeMask   bool // type = flags & 7, extern/constant/normalized bits (LLVM 18+); else the whole flags value is the type (16)
	managed    bool // register managed variables (LLVM 20+)
	surfTexHIP bool // HIP surfaces and textures are registered (LLVM 18+)

	ctorPrio   int  // constructor priority: 1 (LLVM 16-17) or 101
	ompAtexit  bool // OpenMP unregisters through atexit (else a .fini_array.<ctorPrio> destructor)
	ompPayload bool // OpenMP registers an OffloadBinary's payload (else the whole buffer, LLVM 16-17)
	relocOK    bool // Relocatable (-r) places images in .llvm.offloading.relocatable (LLVM 19+, whose wrapper has --relocatable; 16 ignores -r)

	dummyGlobal bool // the entry section's dummy is GLOBAL HIDDEN __dummy.<kind>_offloading.entry (16-17)
	entriesLate bool // CUDA/HIP: the entry section comes after the fatbin sections (16-17; OpenMP has it first)
}

// abiOf returns the registration ABI of opts.Release (Major 0: LLVM 22).
func abiOf(opts Options) regABI {
	p := opts.Release
	if p.Major == 0 {
		p = release.Default()
	}
	a := regABI{major: p.Major, entSize: entrySize, entAddr: entryAddr, entName: entryName, entSize8: entrySizeField,
		entFlags: entryFlags, entData: entryData, entAux: entryAux, kindCheck: true,
		typeMask: true, managed: true, surfTexHIP: true, ctorPrio: 101, ompAtexit: true, ompPayload: true, relocOK: true}
	if !p.LegacyEntries() {
		return a
	}
	// __tgt_offload_entry {addr 0, name 8, size 16, i32 flags 24, i32 reserved 28}.
	a.legacy = true
	a.entSize, a.entAddr, a.entName, a.entSize8, a.entFlags, a.entData = uint8(p.EntrySize()), 0, 8, 16, 24, 28
	a.kindCheck, a.managed = false, false
	a.relocOK = p.Major >= 19
	if p.Major <= 17 {
		a.typeMask, a.surfTexHIP = false, false
		a.ctorPrio, a.ompAtexit, a.ompPayload = 1, false, false
		a.dummyGlobal, a.entriesLate = true, true
	}
	return a
}

// entrySection is the section the flavor's entries are in for this ABI.
func (a regABI) entrySection(kind string) string {
	return release.Of(a.major, "").EntrySection(kind)
}

// dummyName is the name of the empty object the wrapper defines in the
// entry section sec, so that the section and its bounds always exist.
func (a regABI) dummyName(sec string) string {
	if a.dummyGlobal {
		return "__dummy." + strings.TrimSuffix(sec, "_entries") + ".entry"
	}
	return "__dummy." + sec
}

// check refuses what a legacy release cannot be emitted for.
func (a regABI) check(opts Options, coff bool) error {
	if !a.legacy {
		return nil
	}
	if coff || opts.winABI {
		return fmt.Errorf("wrap: LLVM %d registration objects (32-byte __tgt_offload_entry in per-kind sections) for Windows host %q: %w (implemented for LLVM 20 and later only)",
			a.major, opts.Triple, format.ErrUnsupported)
	}
	return nil
}
