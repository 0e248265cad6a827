package fatbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/cudatools"
)

// TestEntryArch: fat binaries that CUDA 13.5's fatbinary makes at test
// time for sm_100, sm_100a, sm_100f, sm_120f and sm_90a (a PTX entry and
// an ELF entry each): every entry's Arch is the name cuobjdump -lptx
// gives it, and the flags carry the suffix (the PTX payloads say it too).
func TestEntryArch(t *testing.T) {
	d := t.TempDir()
	for _, sm := range []string{"100", "100a", "100f", "120f", "90a"} {
		ptx := filepath.Join(d, sm+".ptx")
		require.NoError(t, os.WriteFile(ptx, []byte(".version 8.8\n.target sm_"+sm+"\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n"), 0o644))
		cubin := filepath.Join(d, sm+".cubin")
		out, err := exec.Command(cudatools.Tool(t, "ptxas"), "-arch=sm_"+sm, ptx, "-o", cubin).CombinedOutput()
		require.NoError(t, err, string(out))
		fb := filepath.Join(d, sm+".fatbin")
		out, err = exec.Command(cudatools.Tool(t, "fatbinary"), "--create="+fb,
			"--image3=kind=elf,sm="+sm+",file="+cubin, "--image3=kind=ptx,sm="+sm+",file="+ptx).CombinedOutput()
		require.NoError(t, err, string(out))
		out, err = exec.Command(cudatools.Tool(t, "cuobjdump"), "-lptx", fb).CombinedOutput()
		require.NoError(t, err, string(out))
		m := regexp.MustCompile(`PTX file\s+1: \S+\.(sm_\w+)\.ptx`).FindStringSubmatch(string(out))
		require.NotNil(t, m, string(out))
		require.Equal(t, "sm_"+sm, m[1])
		data, err := os.ReadFile(fb)
		require.NoError(t, err)
		f, err := ParseFile(data)
		require.NoError(t, err)
		require.Len(t, f.Entries, 2)
		for _, e := range f.Entries {
			assert.Equal(t, m[1], e.Arch(), "%s entry of %s", e.Kind, fb)
		}
		assert.Equal(t, strings.HasSuffix(sm, "f"), f.Entries[1].Flags&FlagFamilySpecific != 0)
	}
}
