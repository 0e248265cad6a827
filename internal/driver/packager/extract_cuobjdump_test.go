package packager

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/fatbin"
	"github.com/offload-kit/offload-kit/internal/testutil/cudatools"
)

// cuobjdumpExtract runs cuobjdump -xelf/-xptx NAME (or all) on input in
// dir and returns the files it wrote, by name.
func cuobjdumpExtract(t *testing.T, dir, input, flag, which string) map[string][]byte {
	t.Helper()
	before := map[string]bool{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		before[e.Name()] = true
	}
	cmd := exec.Command(cudatools.Tool(t, "cuobjdump"), flag, which, input)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "cuobjdump %s %s: %s", flag, which, out)
	got := map[string][]byte{}
	ents, _ = os.ReadDir(dir)
	for _, e := range ents {
		if !before[e.Name()] {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			got[e.Name()] = b
		}
	}
	return got
}

// byKind splits extracted files (name -> bytes) into cubins and PTX in
// the order of the entry number in their names (cuobjdump's
// "<stem>.<n>.<arch>.cubin", our "<file>.fatbin<f>.<e>.<arch>.cubin").
func byKind(t *testing.T, files map[string][]byte, num *regexp.Regexp) (cubins, ptx [][]byte) {
	t.Helper()
	type f struct {
		n    string
		data []byte
	}
	var all []f
	for name, data := range files {
		m := num.FindStringSubmatch(name)
		require.NotNil(t, m, name)
		all = append(all, f{m[1], data})
		if strings.HasSuffix(name, ".ptx") {
			all[len(all)-1].n = "p" + m[1]
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i].n, all[j].n
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	for _, x := range all {
		if strings.HasPrefix(x.n, "p") {
			ptx = append(ptx, x.data)
		} else {
			cubins = append(cubins, x.data)
		}
	}
	return cubins, ptx
}

// TestExtractMatchesCuobjdump: fat binaries made at test time by CUDA
// 13.5's ptxas and fatbinary, with every compression mode, extract to the
// files cuobjdump -xelf all / -xptx all writes, byte for byte.
func TestExtractMatchesCuobjdump(t *testing.T) {
	dir := t.TempDir()
	ptx, err := filepath.Abs(filepath.Join(fatbinTestdata, "saxpy.ptx"))
	require.NoError(t, err)
	cubin := filepath.Join(dir, "saxpy.cubin")
	out, err := exec.Command(cudatools.Tool(t, "ptxas"), "-arch=sm_90", ptx, "-o", cubin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for name, flags := range map[string][]string{
		"default": nil, // PTX zstd-compressed, ELF stored
		"zstd":    {"--compress-all"},
		"lz4":     {"--compress-all", "--compress-mode=speed"},
		"none":    {"--compress-mode=none"},
	} {
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			fb := filepath.Join(work, name+".fatbin")
			args := append([]string{"--create=" + fb, "--image3=kind=elf,sm=90,file=" + cubin, "--image3=kind=ptx,sm=90,file=" + ptx, "--image3=kind=ptx,sm=80,file=" + ptx}, flags...)
			out, err := exec.Command(cudatools.Tool(t, "fatbinary"), args...).CombinedOutput()
			require.NoError(t, err, "%s", out)
			data, err := os.ReadFile(fb)
			require.NoError(t, err)
			files, err := fatbin.Parse(data)
			require.NoError(t, err)
			var comp []string
			for _, e := range files[0].Entries {
				comp = append(comp, e.Kind.String()+":"+e.Compression.String())
			}
			assert.Equal(t, map[string][]string{
				"default": {"elf:none", "ptx:zstd", "ptx:zstd"}, "zstd": {"elf:zstd", "ptx:zstd", "ptx:zstd"},
				"lz4": {"elf:lz4", "ptx:lz4", "ptx:lz4"}, "none": {"elf:none", "ptx:none", "ptx:none"},
			}[name], comp)
			theirs := cuobjdumpExtract(t, work, fb, "-xelf", "all")
			for k, v := range cuobjdumpExtract(t, work, fb, "-xptx", "all") {
				theirs[k] = v
			}
			require.Len(t, theirs, 3)
			wantC, wantP := byKind(t, theirs, regexp.MustCompile(`\.(\d+)\.sm_\d+[af]?\.(cubin|ptx)$`))

			ourDir, stdout := fatbinExtract(t, fb, ExtractOptions{})
			ours := map[string][]byte{}
			ents, _ := os.ReadDir(ourDir)
			for _, e := range ents {
				b, err := os.ReadFile(filepath.Join(ourDir, e.Name()))
				require.NoError(t, err)
				ours[e.Name()] = b
			}
			require.Len(t, ours, 3, stdout)
			gotC, gotP := byKind(t, ours, regexp.MustCompile(`\.fatbin\d+\.(\d+)\.sm_\d+[af]?\.(cubin|ptx)$`))
			require.Equal(t, len(wantC), len(gotC))
			require.Equal(t, len(wantP), len(gotP))
			for i := range wantC {
				sameBytes(t, wantC[i], gotC[i], "cubin")
			}
			for i := range wantP {
				sameBytes(t, wantP[i], gotP[i], "ptx")
			}
		})
	}
}

// TestExtractMatchesCuobjdumpGGML: on a third-party build (ggml's CUDA
// backend, 1001 zstd-compressed entries), the first and last cubin and
// PTX file that cuobjdump -xelf / -xptx writes are the bytes extract
// writes for those entries, and the entries are named by the same arch
// (sm_120a, not sm_120).
func TestExtractMatchesCuobjdumpGGML(t *testing.T) {
	lib := cudatools.ThirdParty(t, cudatools.GGML)
	in, err := openInput(&Env{}, lib)
	require.NoError(t, err)
	defer in.Close()
	l := newLister(&Env{}, in, false)
	l.full = true
	defer l.close()
	entries, err := containerEntries(&Env{}, l, lib)
	require.NoError(t, err)
	require.Greater(t, len(entries), 1000)
	var elfs, ptxs []extractEntry
	for _, e := range entries {
		if e.ImageKind == "ptx" {
			ptxs = append(ptxs, e)
		} else {
			elfs = append(elfs, e)
		}
	}
	list := func(flag string) []string {
		out, err := exec.Command(cudatools.Tool(t, "cuobjdump"), flag, lib).Output()
		require.NoError(t, err)
		var names []string
		for _, m := range regexp.MustCompile(`(?m)^(?:ELF|PTX) file +\d+: (\S+)$`).FindAllStringSubmatch(string(out), -1) {
			names = append(names, m[1])
		}
		return names
	}
	dir := t.TempDir()
	for _, k := range []struct {
		flag, xflag string
		ours        []extractEntry
	}{{"-lelf", "-xelf", elfs}, {"-lptx", "-xptx", ptxs}} {
		names := list(k.flag)
		require.Equal(t, len(k.ours), len(names), "%s entries", k.flag)
		for _, i := range []int{0, len(names) - 1} { // cuobjdump reads the whole library each time
			theirs := cuobjdumpExtract(t, dir, lib, k.xflag, names[i])
			require.Len(t, theirs, 1, names[i])
			e := k.ours[i]
			assert.Equal(t, "zstd", e.Compression, names[i])
			assert.True(t, strings.HasSuffix(names[i], "."+e.Arch+"."+map[bool]string{true: "ptx", false: "cubin"}[e.ImageKind == "ptx"]), "%s is %s", names[i], e.Arch)
			ours, err := entryImage(e.DumpEntry, false)
			require.NoError(t, err)
			sameBytes(t, theirs[names[i]], ours, names[i])
			require.NoError(t, os.Remove(filepath.Join(dir, names[i])))
		}
	}
}
