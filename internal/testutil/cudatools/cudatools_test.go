package cudatools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestToolsRun: every tool install-deps unpacks runs on this host, and
// ptxas + fatbinary make a compressed fatbin that cuobjdump reads back.
func TestToolsRun(t *testing.T) {
	for _, n := range []string{"ptxas", "fatbinary", "nvlink", "cuobjdump"} {
		out, err := exec.Command(Tool(t, n), "--version").CombinedOutput()
		require.NoError(t, err, "%s --version: %s", n, out)
		require.Contains(t, string(out), "release 13.5", n)
	}
	dir := t.TempDir()
	ptx := filepath.Join(dir, "k.ptx")
	require.NoError(t, os.WriteFile(ptx, []byte(`.version 8.0
.target sm_90
.address_size 64
.visible .entry twice(.param .u64 p)
{
	.reg .b64 %rd<3>;
	.reg .f32 %f<3>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	ld.global.f32 %f1, [%rd2];
	add.f32 %f2, %f1, %f1;
	st.global.f32 [%rd2], %f2;
	ret;
}
`), 0o644))
	cubin, fatbin := filepath.Join(dir, "k.cubin"), filepath.Join(dir, "k.fatbin")
	out, err := exec.Command(Tool(t, "ptxas"), "-arch=sm_90", ptx, "-o", cubin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(Tool(t, "fatbinary"), "--create="+fatbin, "--compress-all",
		"--image3=kind=elf,sm=90,file="+cubin, "--image3=kind=ptx,sm=90,file="+ptx).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(Tool(t, "cuobjdump"), "-res-usage", fatbin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	s := string(out)
	require.Contains(t, s, "Function twice:")
	require.Equal(t, 2, strings.Count(s, "compressed"), "both entries compressed:\n%s", s)
}

// TestGGMLPresent: the third-party CUDA library is there, and cuobjdump
// reads compressed entries from it.
func TestGGMLPresent(t *testing.T) {
	out, err := exec.Command(Tool(t, "cuobjdump"), "-lelf", ThirdParty(t, GGML)).CombinedOutput()
	require.NoError(t, err, "%s", firstLine(out))
	require.Greater(t, strings.Count(string(out), "ELF file"), 100)
}

func firstLine(b []byte) string { s, _, _ := strings.Cut(string(b), "\n"); return s }
