package bundler

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// librocrand is Debian's librocrand1 (scripts/install-deps.sh): a real
// ROCm 5 fat binary whose .hip_fatbin bundle holds seven code objects,
// among them a gfx90a xnack+/xnack- pair.
const librocrand = "/usr/lib/x86_64-linux-gnu/librocrand.so.1.1"

// rocrandObjects returns the code objects of librocrand's bundle, by ID.
// (clang-offload-bundler 22 cannot unbundle it: it refuses the ROCm 5
// host ID it meets first, so the entries are read with our parser.)
func rocrandObjects(t *testing.T) (ids []string, objs map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	fat := filepath.Join(dir, "fatbin")
	out, err := exec.Command(llvmtools.Path("llvm-objcopy"), "--dump-section=.hip_fatbin="+fat, librocrand, filepath.Join(dir, "stripped")).CombinedOutput()
	require.NoError(t, err, "%s (scripts/install-deps.sh installs librocrand1)", out)
	data, err := os.ReadFile(fat)
	require.NoError(t, err)
	b, err := bundle.Parse(data)
	require.NoError(t, err)
	objs = map[string][]byte{}
	for _, e := range b.Entries {
		if strings.HasPrefix(e.ID, "hipv4-") {
			ids = append(ids, e.ID)
			objs[e.ID] = e.Data
		}
	}
	require.Len(t, ids, 7)
	return ids, objs
}

// mutated is data with one byte changed in every 64 KiB.
func mutated(data []byte, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	out := bytes.Clone(data)
	for i := 0; i+65536 <= len(out); i += 65536 {
		out[i+r.IntN(65536)] ^= 0x5a
	}
	return out
}

// TestNearDuplicateCompression is issue 12's compression parity: bundles
// holding near-identical code objects (the real gfx90a xnack+/xnack-
// pair, all of librocrand's objects, and 64 MiB objects with one byte in
// 64 KiB changed) compress to at most 1.05x clang-offload-bundler's size,
// with clang's command line (-bundle-align=4096; -compress alone is
// clang's default level 3, --offload-compression-level=N adds
// -compression-level=N), and the reference unbundles our output to the
// original objects.
func TestNearDuplicateCompression(t *testing.T) {
	needOracle(t)
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Fatal("the zstd program is required (scripts/install-deps.sh installs it)")
	}
	ids, objs := rocrandObjects(t)
	r := rand.New(rand.NewPCG(12, 12))
	random := make([]byte, 64<<20)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	big := codeLike(64<<20, 12)
	type input struct {
		name   string
		ids    []string
		data   [][]byte
		levels []string
	}
	xp, xm := "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"
	var all [][]byte
	for _, id := range ids {
		all = append(all, objs[id])
	}
	inputs := []input{
		{"rocrand-gfx90a-pair", []string{xp, xm}, [][]byte{objs[xp], objs[xm]}, []string{"", "1", "2", "4", "5", "8", "9", "12", "16", "19"}},
		{"rocrand-all", ids, all, []string{"", "1", "5", "9", "16"}},
		{"random-64MiB-pair", []string{xp, xm}, [][]byte{random, mutated(random, 1)}, []string{""}},
		{"codelike-64MiB-pair", []string{xp, xm}, [][]byte{big, mutated(big, 2)}, []string{""}},
	}
	path := []string{"PATH=" + os.Getenv("PATH")}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"-type=o", "-bundle-align=4096", "-targets=host-x86_64-unknown-linux-gnu," + strings.Join(in.ids, ","), "-input=/dev/null"}
			var outs []string
			for i, d := range in.data {
				args = append(args, "-input="+write(t, dir, "in"+string(rune('a'+i)), d))
				outs = append(outs, "-output=out"+string(rune('a'+i)))
			}
			for _, lvl := range in.levels {
				name := "default"
				a := append(append([]string(nil), args...), "-compress")
				if lvl != "" {
					name = lvl
					a = append(a, "-compression-level="+lvl)
				}
				t.Run(name, func(t *testing.T) {
					require.Equal(t, 0, runTheirs(t, dir, nil, append(a, "-output=t.ccob")...).code)
					res := runOurs(t, dir, path, append(a, "-output=o.ccob")...)
					require.Equal(t, 0, res.code, res.stderr)
					th, err := bundle.ParseHeader(read(t, dir, "t.ccob"))
					require.NoError(t, err)
					oh, err := bundle.ParseHeader(read(t, dir, "o.ccob"))
					require.NoError(t, err)
					require.Equal(t, th.UncompressedSize, oh.UncompressedSize)
					require.Equal(t, th.Hash, oh.Hash)
					ratio := float64(oh.TotalFileSize) / float64(th.TotalFileSize)
					t.Logf("%s level %s: theirs %d, ours %d (%.3fx)", in.name, name, th.TotalFileSize, oh.TotalFileSize, ratio)
					require.LessOrEqual(t, ratio, 1.05)
					u := append([]string{"-unbundle", "-type=o", "-targets=" + strings.Join(in.ids, ","), "-input=o.ccob"}, outs...)
					res = runTheirs(t, dir, nil, u...)
					require.Equal(t, 0, res.code, res.stderr)
					for i, d := range in.data {
						require.True(t, bytes.Equal(d, read(t, dir, "out"+string(rune('a'+i)))), "entry %d", i)
					}
				})
			}
		})
	}
}
