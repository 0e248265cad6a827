package release

import "testing"

func TestRange(t *testing.T) {
	r, ok := Range{16, 20}.Intersect(Range{18, 22})
	if !ok || r != (Range{18, 20}) || !r.Contains(19) || r.Contains(21) || r.String() != "LLVM 18 to 20" {
		t.Errorf("Intersect = %v, %v", r, ok)
	}
	if _, ok := (Range{16, 18}).Intersect(Range{21, 22}); ok {
		t.Error("disjoint ranges intersect")
	}
	if s := (Range{19, 19}).String(); s != "LLVM 19" {
		t.Errorf("String = %q", s)
	}
}

func TestEntrySectionReleases(t *testing.T) {
	for name, want := range map[string]Range{
		"omp_offloading_entries": {16, 19}, "cuda_offloading_entries": {16, 19}, "hip_offloading_entries": {16, 19},
		"llvm_offload_entries": {20, 22},
	} {
		if got, ok := EntrySectionReleases(name); !ok || got != want {
			t.Errorf("%s: %v, %v", name, got, ok)
		}
	}
	if _, ok := EntrySectionReleases(".text"); ok {
		t.Error(".text names a release")
	}
	// Every fact agrees with the entry sections' split.
	for m := Oldest; m <= Newest; m++ {
		r, _ := EntrySectionReleases("omp_offloading_entries")
		if Of(m, "").LegacyEntries() != r.Contains(m) {
			t.Errorf("LLVM %d: LegacyEntries disagrees with the entry sections", m)
		}
	}
}

func TestWrapperOptionReleases(t *testing.T) {
	for arg, want := range map[string]Range{
		"--": {16, 18}, "--opt-level=O2": {16, 20}, "--device-debug": {16, 20}, "--ptxas-arg=-v": {16, 20},
		"--bitcode-library=openmp-x-y=p": {16, 19}, "--builtin-bitcode=t=p": {17, 19}, "--clang-backend": {17, 19},
		"--relocatable": {19, 22}, "--device-compiler=-O2": {21, 22},
	} {
		o, ok := WrapperOptionReleases(arg)
		if !ok || o.Releases != want {
			t.Errorf("%s: %+v, %v; want %v", arg, o, ok, want)
		}
	}
	for _, arg := range []string{"--linker-path=/usr/bin/ld", "--device-debugx", "--opt-level", "-o"} {
		if o, ok := WrapperOptionReleases(arg); ok {
			t.Errorf("%s: %+v", arg, o)
		}
	}
}

func TestWrapperFacts(t *testing.T) {
	for _, c := range []struct {
		major     int
		opt       string
		separator bool
		native    bool
	}{{16, "O2", true, true}, {18, "O2", true, true}, {19, "O2", false, true}, {20, "O2", false, false}, {21, "", false, false}, {22, "", false, false}} {
		p := Of(c.major, "test")
		if p.WrapperDumpdir() != (c.major >= 20) {
			t.Errorf("LLVM %d: WrapperDumpdir", c.major)
		}
		if p.WrapperRelocatable() != (c.major >= 19) {
			t.Errorf("LLVM %d: WrapperRelocatable", c.major)
		}
		if p.WrapperDefaultOptLevel() != c.opt || p.WrapperSeparator() != c.separator || p.WrapperNativeCPUArch() != c.native {
			t.Errorf("LLVM %d: opt=%q separator=%v native=%v", c.major, p.WrapperDefaultOptLevel(), p.WrapperSeparator(), p.WrapperNativeCPUArch())
		}
	}
}
