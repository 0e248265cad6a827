package linkwrap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
)

// TestCUDARegistrationWithH100Fatbins links the CUDA e2e programs (saxpy,
// and the RDC pair with a device global) with our linker-wrapper, without
// a GPU or the CUDA toolkit: the device link tools found through
// --cuda-path are stand-ins that hand back the fatbins NVIDIA's own tools
// made on the H100 machine (testdata/cuda, commands in its README).
// The programs run against a recording stub libcudart; their registration
// log must equal that of the same programs linked with LLVM's CUDA wrapper
// object (llvm-offload-wrapper --kind=cuda + llc) around the same fatbin.
func TestCUDARegistrationWithH100Fatbins(t *testing.T) {
	clangxx := findTool(t, "clang++-22", "clang++")
	ow := findTool(t, "llvm-offload-wrapper")
	llc := findTool(t, "llc")
	bin := buildWrapper(t)
	dir := t.TempDir()
	src, err := filepath.Abs("../../../e2e/cuda")
	require.NoError(t, err)
	stub, err := filepath.Abs("testdata/cuda/stub_cudart.c")
	require.NoError(t, err)
	fix, err := filepath.Abs(cudaFixtures)
	require.NoError(t, err)
	sh(t, dir, nil, "gcc", "-c", "-fPIC", stubInclude(t), stub, "-o", "stub.o")
	cf := []string{"-x", "cuda", "--offload-new-driver", "-fgpu-rdc", "-nocudainc", "-nocudalib", "--offload-arch=sm_90",
		"-Xclang", "-target-sdk-version=12.8", "-O2", "--cuda-host-only", "-c"}

	for _, prog := range []struct {
		name    string
		sources []string
		fatbin  string
		want    []string
	}{
		{"saxpy", []string{"saxpy"}, "saxpy.fatbin", []string{"RegisterFunction ok=1 addr=_Z20__device_stub__saxpyifPKfPf name=_Z5saxpyifPKfPf same=1 limit=-1", "LaunchKernel _Z20__device_stub__saxpyifPKfPf"}},
		{"rdc", []string{"rdc_main", "rdc_lib"}, "rdc.fatbin", []string{"name=_Z4evaliPKfPf", "RegisterVar ok=1 addr=hits name=hits extern=0 size=4"}},
	} {
		t.Run(prog.name, func(t *testing.T) {
			fatbin := filepath.Join(fix, prog.fatbin)
			// Fat objects: host objects carrying the PTX package (what the
			// device link starts from).
			var objs []string
			for _, s := range prog.sources {
				ptx, err := os.ReadFile(filepath.Join(fix, s+".ptx"))
				require.NoError(t, err)
				pkg := offload.AppendBinary(nil, &offload.Image{ImageKind: format.ImgPTX, OffloadKind: format.OfkCuda,
					Strings: []offload.KV{{Key: "triple", Value: "nvptx64-nvidia-cuda"}, {Key: "arch", Value: "sm_90"}}, Image: ptx})
				require.NoError(t, os.WriteFile(filepath.Join(dir, s+".pkg"), pkg, 0o644))
				sh(t, dir, nil, append(append([]string{clangxx}, cf...), filepath.Join(src, s+".cu"), "-I", src,
					"-Xclang", "-fembed-offload-object="+s+".pkg", "-o", s+".fat.o")...)
				objs = append(objs, s+".fat.o")
			}
			// Stand-in CUDA tools: ptxas and nvlink write placeholders,
			// fatbinary hands back the H100-made fatbin.
			cuda := filepath.Join(dir, "cuda-"+prog.name)
			require.NoError(t, os.MkdirAll(filepath.Join(cuda, "bin"), 0o755))
			script := map[string]string{
				"ptxas":     `for a; do case "$p" in --output-file) : > "$a";; esac; p=$a; done`,
				"nvlink":    `for a; do case "$p" in -o) : > "$a";; esac; p=$a; done`,
				"fatbinary": `for a; do case "$p" in --create) cp "` + fatbin + `" "$a";; esac; case "$a" in --create=*) cp "` + fatbin + `" "${a#--create=}";; esac; p=$a; done`,
			}
			for tool, body := range script {
				require.NoError(t, os.WriteFile(filepath.Join(cuda, "bin", tool), []byte("#!/bin/sh\np=\n"+body+"\n"), 0o755))
			}
			link := filepath.Join(dir, "gcc-link")
			require.NoError(t, os.WriteFile(link, []byte("#!/bin/sh\nexec g++ \"$@\" stub.o -rdynamic -ldl\n"), 0o755))

			ours := filepath.Join(dir, prog.name+"-ours")
			sh(t, dir, nil, append([]string{filepath.Join(bin, "linker-wrapper"), "--host-triple=x86_64-unknown-linux-gnu",
				"--linker-path=" + link, "--cuda-path=" + cuda, "-o", ours}, objs...)...)

			// The reference: LLVM's CUDA wrapper object around the same fatbin.
			sh(t, dir, nil, ow, "--kind=cuda", "--triple=x86_64-unknown-linux-gnu", "-o", prog.name+".wrap.bc", fatbin)
			sh(t, dir, nil, llc, "-filetype=obj", "-relocation-model=pic", prog.name+".wrap.bc", "-o", prog.name+".wrap.o")
			ref := filepath.Join(dir, prog.name+"-ref")
			sh(t, dir, nil, append(append([]string{"g++", "-o", ref, prog.name + ".wrap.o"}, objs...), "stub.o", "-rdynamic", "-ldl")...)

			want, got := runLog(t, ref), runLog(t, ours)
			assert.Contains(t, want, "RegisterFatBinary wrapper=0x466243b1 version=1 third=null fatbin=0xba55ed50")
			for _, w := range prog.want {
				assert.Contains(t, want, w)
			}
			assert.Equal(t, want, got, "registration log")
		})
	}
}

// runLog runs a stub-linked program and returns the stub runtime's lines
// (the program's own output and exit status are irrelevant: the stub
// computes nothing, so its results are uninitialised memory).
func runLog(t *testing.T, exe string) string {
	out, _ := exec.Command(exe).Output()
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Register") || strings.HasPrefix(l, "Unregister") || strings.HasPrefix(l, "LaunchKernel") {
			keep = append(keep, l)
		}
	}
	require.NotEmpty(t, keep, exe)
	return strings.Join(keep, "\n")
}
