package offload

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata golden files and fuzz seeds")

// goldenImages are written by our v2/v3 writers into testdata/ (-update) and
// compared byte for byte afterwards.
func goldenImages() []*Image {
	return []*Image{
		annotatedImage(),
		{ImageKind: format.ImgSPIRV, OffloadKind: format.OfkSYCL, Flags: 1,
			Strings: []KV{{"triple", "spirv64-unknown-unknown"}, {"arch", ""}, {"symbols", "k1\x00k2"}},
			Image:   []byte("\x03\x02\x23\x07spirv")},
	}
}

func TestGoldenWriters(t *testing.T) {
	v2, err := AppendBinaryV2(nil, goldenImages())
	require.NoError(t, err)
	v3, err := AppendBinaryV3(nil, goldenImages(), "", 0)
	require.NoError(t, err)
	for name, got := range map[string][]byte{"multi-v2-ours.bin": v2, "multi-v3-plain-ours.bin": v3} {
		path := filepath.Join("testdata", name)
		if *update {
			require.NoError(t, os.WriteFile(path, got, 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "%s differs; run with -update if intended", name)
	}
}

// TestGoldenDumps renders every testdata/*.bin as llvm-objdump --offloading
// would (plus all strings and image sizes) and compares with *.golden.
func TestGoldenDumps(t *testing.T) {
	files, err := filepath.Glob("testdata/*.bin")
	require.NoError(t, err)
	require.True(t, len(files) >= 4, "too few fixtures: %v", files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			bins, err := ParseAll(data, ReadOptions{Align8: true})
			require.NoError(t, err)
			var s strings.Builder
			s.WriteString(dumpText(bins))
			for i, b := range bins {
				fmt.Fprintf(&s, "\n[%d] version=%d offset=%d size=%d flags=%d image=%d@%d\n", i, b.Version, b.Offset, b.Size, b.Flags, len(b.Image), b.ImageOffset)
				for _, kv := range b.Strings {
					fmt.Fprintf(&s, "  %q=%q\n", kv.Key, kv.Value)
				}
			}
			golden := strings.TrimSuffix(f, ".bin") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(s.String()), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), s.String())
		})
	}
	if *update {
		dir := filepath.Join("testdata", "fuzz", "FuzzParse")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for i, seed := range fuzzSeeds(t) {
			body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(seed)) + ")\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(body), 0o644))
		}
	}
}
