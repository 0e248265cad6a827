package linkwrap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cudaFixtures are the CUDA 13 outputs made on the H100 machine
// (testdata/cuda/README.md has the commands).
const cudaFixtures = "testdata/cuda"

func cudaPackage(t *testing.T, dir string, files map[string]format.ImageKind) string {
	t.Helper()
	var pkg []byte
	for _, name := range []string{"rdc_main.ptx", "rdc_lib.ptx", "saxpy.cubin"} {
		kind, ok := files[name]
		if !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(cudaFixtures, name))
		if err != nil {
			t.Skipf("CUDA fixtures: %v", err)
		}
		pkg = offload.AppendBinary(pkg, &offload.Image{ImageKind: kind, OffloadKind: format.OfkCuda,
			Strings: []offload.KV{{Key: "triple", Value: "nvptx64-nvidia-cuda"}, {Key: "arch", Value: "sm_90"}}, Image: data})
	}
	p := filepath.Join(dir, "cuda.out")
	require.NoError(t, os.WriteFile(p, pkg, 0o644))
	return p
}

// TestCUDANativeLink links PTX and relocatable cubins with ptxas, nvlink and
// fatbinary (stubs found through --cuda-path), without clang, and wraps the
// fatbin for __cudaRegisterFatBinary.
func TestCUDANativeLink(t *testing.T) {
	dir := t.TempDir()
	cuda := filepath.Join(dir, "cuda")
	require.NoError(t, os.MkdirAll(filepath.Join(cuda, "bin"), 0o755))
	for _, tool := range []string{"ptxas", "nvlink", "fatbinary"} {
		require.NoError(t, os.WriteFile(filepath.Join(cuda, "bin", tool), []byte("#!/bin/sh\nexit 1\n"), 0o755))
	}
	cudaPackage(t, dir, map[string]format.ImageKind{"rdc_main.ptx": format.ImgPTX, "rdc_lib.ptx": format.ImgPTX, "saxpy.cubin": format.ImgObject})
	outArg := func(c *run.Cmd, flag string) string {
		for i, a := range c.Args {
			if a == flag && i+1 < len(c.Args) {
				return c.Args[i+1]
			}
		}
		return ""
	}
	var host []string
	inv := invoke(t, dir, func(c *run.Cmd) error {
		switch filepath.Base(c.Args[0]) {
		case "ptxas":
			return os.WriteFile(outArg(c, "--output-file"), []byte("cubin"), 0o644)
		case "nvlink":
			return os.WriteFile(outArg(c, "-o"), []byte("linked cubin"), 0o644)
		case "fatbinary":
			return os.WriteFile(outArg(c, "--create"), []byte("FATBIN"), 0o644)
		case "ld":
			host = c.Args
		}
		return nil
	}, "--cuda-path="+cuda, "--linker-path=/usr/bin/ld", "--device-linker=nvptx64-nvidia-cuda=-v", "-o", "$D/app", "$D/cuda.out")
	require.NoError(t, inv.err, inv.stderr.String())
	cmds := inv.fake.Commands()
	require.Equal(t, 5, len(cmds))
	for i, tool := range []string{"ptxas", "ptxas", "nvlink", "fatbinary", "ld"} {
		assert.Equal(t, tool, filepath.Base(cmds[i][0]))
	}
	assert.Equal(t, []string{"-m64", "-O3", "--gpu-name", "sm_90", "--output-file"}, cmds[0][1:6])
	assert.Equal(t, "-c", cmds[0][len(cmds[0])-1])
	nv := strings.Join(cmds[2], " ")
	assert.Contains(t, nv, " -m64 -o ")
	assert.Contains(t, nv, " -arch sm_90 ")
	assert.True(t, strings.HasSuffix(nv, " -v"), "--device-linker values for the triple go last: "+nv)
	assert.Contains(t, nv, "cuda-nvptx64-nvidia-cuda-sm_90-") // extracted names
	assert.Contains(t, nv, ".cubin")
	assert.True(t, strings.HasSuffix(cmds[3][3], ".fatbin"), cmds[3][3])
	assert.Contains(t, cmds[3][4], "--image3=kind=elf,sm=90,file=")
	require.True(t, len(host) > 3)
	assert.Contains(t, host[3], "app.cuda.image.wrapper")
}

func TestCUDABitcodeUsesClang(t *testing.T) {
	dir := t.TempDir()
	cudaPackage(t, dir, map[string]format.ImageKind{"rdc_main.ptx": format.ImgBitcode})
	inv := invoke(t, dir, nil, "--dry-run", "--linker-path=/usr/bin/ld", "-o", "$D/app", "$D/cuda.out")
	require.NoError(t, inv.err)
	assert.Contains(t, inv.stderr.String(), "linker-wrapper: note: clang: using /fake/clang ($OFFLOAD_KIT_CLANG)\n")
	lines := strings.Split(dropToolNotes(inv.stderr.String()), "\n")
	assert.True(t, strings.HasPrefix(lines[0], ` "/fake/clang" --no-default-config`), lines[0])
	assert.Contains(t, lines[0], "--target=nvptx64-nvidia-cuda -march=sm_90")
	assert.True(t, strings.HasPrefix(lines[1], ` "fatbinary" -64 --create`), lines[1])
}
