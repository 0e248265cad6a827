package release

import "testing"

func TestEntrySection(t *testing.T) {
	for _, c := range []struct {
		major int
		kind  string
		sec   string
		size  int
	}{
		{16, KindOpenMP, "omp_offloading_entries", 32},
		{16, KindCUDA, "cuda_offloading_entries", 32},
		{19, KindHIP, "hip_offloading_entries", 32},
		{19, KindSYCL, "llvm_offload_entries", 32},
		{20, KindOpenMP, "llvm_offload_entries", 56},
		{22, KindHIP, "llvm_offload_entries", 56},
	} {
		p := Of(c.major, "test")
		if got := p.EntrySection(c.kind); got != c.sec {
			t.Errorf("LLVM %d %s: EntrySection = %q, want %q", c.major, c.kind, got, c.sec)
		}
		if got := p.EntrySize(); got != c.size {
			t.Errorf("LLVM %d: EntrySize = %d, want %d", c.major, got, c.size)
		}
	}
}
