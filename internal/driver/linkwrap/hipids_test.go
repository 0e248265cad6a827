package linkwrap

import (
	"testing"

	"github.com/offload-kit/offload-kit/internal/release"
	"github.com/stretchr/testify/assert"
)

// TestHIPBundleIDsPerRelease pins the fat binary's entry IDs to what each
// release's wrapper and bundler write (16 and 19 from their --dry-run
// -targets= and the bundles their clang-offload-bundler wrote; 22 as before).
func TestHIPBundleIDsPerRelease(t *testing.T) {
	imgs := []linkedImage{{key: groupKey{triple: "amdgcn-amd-amdhsa", arch: "gfx90a"}}, {key: groupKey{triple: "amdgcn-amd-amdhsa", arch: "gfx1100"}}}
	for major, want := range map[int][]string{
		16: {"host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx1100"},
		19: {"host-x86_64-unknown-linux--", "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx1100"},
		22: {"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx1100"},
	} {
		assert.Equal(t, want, hipBundleIDs(release.Of(major, "test"), imgs), "LLVM %d", major)
	}
	assert.Equal(t, hipBundleIDs(release.Of(22, "test"), imgs), hipBundleIDs(release.Default(), imgs), "unsettled is 22")
}

// TestAMDGPULTOArgs: for clang 16 to 18, which run ld.lld's LTO without the
// processor, the device link passes it (and the target features and
// optimisation level) itself; without them LLVM 16's lld compiled the
// code objects for no processor (e_flags 0).
func TestAMDGPULTOArgs(t *testing.T) {
	assert.Equal(t, []string{"-Wl,-plugin-opt=mcpu=gfx90a", "-Wl,-plugin-opt=O2"}, amdgpuLTOArgs("gfx90a", []string{"-O2"}))
	assert.Equal(t, []string{"-Wl,-plugin-opt=mcpu=gfx90a", "-Wl,-plugin-opt=-mattr=+xnack,-sramecc"}, amdgpuLTOArgs("gfx90a:xnack+:sramecc-", nil))
	assert.True(t, release.Of(16, "t").ClangDropsAMDGPULTOCPU())
	assert.False(t, release.Of(19, "t").ClangDropsAMDGPULTOCPU())
}
