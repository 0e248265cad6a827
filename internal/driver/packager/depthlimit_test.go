package packager

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
)

// nested is an OffloadBinary whose image is an OffloadBinary, depth
// levels in all.
func nested(depth int) []byte {
	b := []byte("innermost")
	for range depth {
		b = offload.AppendBinary(nil, &offload.Image{ImageKind: format.ImageKind(2), OffloadKind: format.OffloadKind(1),
			Strings: []offload.KV{{Key: "triple", Value: "x86_64-unknown-linux-gnu"}, {Key: "arch", Value: "generic"}}, Image: b})
	}
	return b
}

// TestDumpNestingLimitVisible: dump --all and --json expand nesting
// maxDepth levels deep and say where they stop (a "not expanded" line, a
// "truncated" member), never silently; within the limit nothing is said.
func TestDumpNestingLimitVisible(t *testing.T) {
	d := t.TempDir()
	for _, c := range []struct {
		depth     int
		truncated bool
	}{{maxDepth, false}, {maxDepth + 1, true}, {40, true}} {
		name := filepath.Join(d, "nest.bin")
		require.NoError(t, os.WriteFile(name, nested(c.depth), 0o644))
		out, diags, err := runDump(d, DumpOptions{Files: []string{"nest.bin"}, All: true})
		require.NoError(t, err, diags)
		note := "not expanded    nested more than 16 levels deep"
		if got := strings.Count(out, note); c.truncated && got != 1 || !c.truncated && got != 0 {
			t.Errorf("depth %d: %d %q lines:\n%s", c.depth, got, note, out)
		}
		require.Equal(t, min(c.depth, maxDepth), strings.Count(out, "OFFLOADING IMAGE [0]:"), "depth %d", c.depth)

		out, diags, err = runDump(d, DumpOptions{Files: []string{"nest.bin"}, JSON: true})
		require.NoError(t, err, diags)
		var doc struct {
			Files []struct {
				Objects []struct {
					DumpContents
				} `json:"objects"`
			} `json:"files"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		levels, why := 0, ""
		for c := &doc.Files[0].Objects[0].DumpContents; c != nil; {
			why = c.Truncated
			if len(c.Images) == 0 {
				break
			}
			levels++
			c = c.Images[0].Contents
		}
		want := ""
		if c.truncated {
			want = "depth"
		}
		require.Equal(t, want, why, "depth %d", c.depth)
		require.Equal(t, min(c.depth, maxDepth), levels, "depth %d", c.depth)
	}
}
