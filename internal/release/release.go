// Package release is the one model of the LLVM release whose tools a run of
// offload-kit stands in for. Users run the clang their system ships (16 to
// 22); each release's clang writes its own entry sections, offload kind
// numbers, bundle spellings and command lines, and expects its own tools to
// read them. A Profile names the release and why it was chosen; the facts
// that differ between releases are methods here, so that every package
// asks the same question the same way (docs/compatibility.md has the table).
//
// The profile is settled by internal/driverenv (Env.Release): the clang that
// invoked the tool (its installation directory, else its --version), then
// what the inputs say (.comment producer strings, entry sections, options
// only one release passes). When nothing settles it, the tools behave as
// Newest and say so in one line.
package release

import (
	"fmt"
)

// The releases offload-kit behaves as.
const (
	Oldest = 16
	Newest = 22
)

// Profile is the LLVM release a run behaves as.
type Profile struct {
	// Major is the LLVM major release, Oldest..Newest.
	Major int
	// Why says how it was settled ("the invoking clang
	// /usr/lib/llvm-19/bin/clang", ".comment of main.o: clang version
	// 19.1.7", ...); empty for the default.
	Why string
	// Settled is false when nothing named a release and Newest is assumed.
	Settled bool
}

// Default is the profile of a run that nothing settles: LLVM Newest.
func Default() Profile { return Profile{Major: Newest} }

// Of is release major (clamped into Oldest..Newest: a newer clang gets the
// newest behaviour offload-kit has, an older one the oldest), settled by why.
func Of(major int, why string) Profile {
	p := Profile{Major: major, Why: why, Settled: true}
	if p.Major > Newest {
		p.Major = Newest
		p.Why = fmt.Sprintf("%s (LLVM %d; behaving as %d, the newest release offload-kit knows)", why, major, Newest)
	}
	if p.Major < Oldest {
		p.Major = Oldest
		p.Why = fmt.Sprintf("%s (LLVM %d; behaving as %d, the oldest release offload-kit knows)", why, major, Oldest)
	}
	return p
}

func (p Profile) String() string {
	if !p.Settled {
		return fmt.Sprintf("LLVM %d (no release named by the invoking clang or the inputs)", p.Major)
	}
	return fmt.Sprintf("LLVM %d (%s)", p.Major, p.Why)
}

// LegacyEntries: the release's clang writes offload entries in the older
// 32-byte __tgt_offload_entry layout {addr, name, size, int32 flags, int32
// reserved}, in per-kind sections (omp_offloading_entries,
// cuda_offloading_entries, hip_offloading_entries); LLVM 20 introduced the
// 56-byte llvm::offloading::EntryTy in llvm_offload_entries.
func (p Profile) LegacyEntries() bool { return p.Major <= 19 }

// HIPOffloadKind is the OffloadBinary kind number of HIP images: 3 up to
// LLVM 19, 4 since LLVM 20 made the kinds a bit mask.
func (p Profile) HIPOffloadKind() uint16 {
	if p.Major <= 19 {
		return 3
	}
	return 4
}

// Dumpdir: the release's clang driver accepts -dumpdir (LLVM 17 and later).
func (p Profile) Dumpdir() bool { return p.Major >= 17 }
