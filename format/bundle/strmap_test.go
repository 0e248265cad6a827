package bundle

import "testing"

func TestLLVMOrderMatchesReference(t *testing.T) {
	// Order printed by clang-offload-bundler 22.1.8 -list for a bundle
	// written with these targets in this order.
	in := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx90a", "openmp-nvptx64-nvidia-cuda-sm_70-"}
	want := []string{"hipv4-amdgcn-amd-amdhsa--gfx90a", "openmp-nvptx64-nvidia-cuda-sm_70-", "host-x86_64-unknown-linux-gnu-"}
	got := LLVMOrder(in)
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("order = %q, want %q", got, want)
		}
	}
}
