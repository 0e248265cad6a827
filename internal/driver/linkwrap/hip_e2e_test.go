package linkwrap

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHIPRegistrationMatchesReference links the same HIP relocatable-device-
// code objects (gfx90a + gfx1100, compiled by clang 22 with -nogpuinc
// -nogpulib) twice through clang's --hip-link: once with LLVM's
// clang-linker-wrapper and once with ours via -B. Both programs run against a
// recording stub runtime that logs the fat binary wrapper, each bundle entry
// ID with a size and checksum per code object, and every kernel and variable
// registered. The logs must be identical, with and without --offload-compress.
func TestHIPRegistrationMatchesReference(t *testing.T) {
	clang := findTool(t, "clang-22", "clang")
	wrapDir := buildWrapper(t)
	dir := t.TempDir()
	for _, f := range []string{"a.hip", "b.hip", "mini_hip.h", "stub.c", "main.c"} {
		b, err := os.ReadFile(filepath.Join("testdata", "hip", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	compile := []string{"-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-nogpuinc", "-nogpulib", "--offload-arch=gfx90a", "--offload-arch=gfx1100", "-c"}
	sh(t, dir, nil, append(append([]string{clang}, compile...), "a.hip", "-o", "a.o")...)
	sh(t, dir, nil, append(append([]string{clang}, compile...), "b.hip", "-o", "b.o")...)
	sh(t, dir, nil, "gcc", "-c", "-fPIC", stubInclude(t), "stub.c", "-o", "stub.o")
	sh(t, dir, nil, "gcc", "-c", "main.c", "-o", "main.o")
	link := []string{"--offload-new-driver", "-fgpu-rdc", "--hip-link", "--offload-arch=gfx90a", "--offload-arch=gfx1100", "-nogpulib", "-no-hip-rt", "-rdynamic"}
	objs := []string{"a.o", "b.o", "main.o", "stub.o", "-ldl", "-lzstd"}
	for _, compress := range []bool{false, true} {
		name := "plain"
		extra := []string{}
		if compress {
			name, extra = "compressed", []string{"--offload-compress"}
		}
		t.Run(name, func(t *testing.T) {
			ref := filepath.Join(dir, "ref-"+name)
			ours := filepath.Join(dir, "ours-"+name)
			args := append(append(append([]string{clang}, link...), extra...), objs...)
			sh(t, dir, nil, append(args, "-o", ref)...)
			sh(t, dir, nil, append(append([]string{args[0], "-B" + wrapDir}, args[1:]...), "-o", ours)...)
			want := sh(t, dir, nil, ref)
			got := sh(t, dir, nil, ours)
			assert.Contains(t, want, "entry hip-amdgcn-amd-amdhsa--gfx90a ")
			assert.Contains(t, want, "entry hip-amdgcn-amd-amdhsa--gfx1100 ")
			assert.Contains(t, want, "RegisterManagedVar ok=1 ptr=managed_v")
			if compress {
				assert.Contains(t, want, "compressed bundle version=3 method=1")
			}
			assert.Equal(t, want, got, "registration log")
		})
	}
}
