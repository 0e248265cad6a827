package kernels

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
)

// rocrand57 is Debian 13's librocrand1 5.7.1-6, which
// scripts/install-deps.sh unpacks under /opt/offload-kit; rocrand (the
// corpus's) is bookworm's 5.3.3. 5.3.3 builds gfx900/906/908 as
// :xnack- and gfx90a as both :xnack+ and :xnack-; 5.7.1 builds them
// without features and adds gfx1010 and gfx1100-1102.
const rocrand57 = "/opt/offload-kit/rocrand-5.7.1/usr/lib/x86_64-linux-gnu/librocrand.so.1.1"

// TestKernelsRocrandReleases: kernels diff of two rocRAND releases
// matches targets by processor (gfx900:xnack- with gfx900), so the
// archs both releases build show per-kernel changes rather than a whole
// arch removed and another added; only the processors 5.3.3 lacks are
// added. The after-values of every change are the ones kernels reports
// for 5.7.1, and a spills>0 budget flags exactly the changed or added
// functions that spill.
func TestKernelsRocrandReleases(t *testing.T) {
	if _, err := os.Stat(rocrand57); err != nil {
		t.Fatalf("rocRAND 5.7.1: %v (scripts/install-deps.sh installs it)", err)
	}
	d := t.TempDir()
	out, err := diffOut(t, d, DiffOptions{A: clitest.Rocrand, B: rocrand57, Format: "json", FailOn: "spills>0"})
	require.Error(t, err, "5.7.1 has kernels that spill")
	var rep DiffReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))

	byA := map[string]ArchDiff{}
	added := map[string]bool{}
	for _, a := range rep.Archs {
		if a.TargetA == "" {
			added[a.TargetB] = true
			continue
		}
		byA[a.TargetA] = a
	}
	for a, b := range map[string]string{"gfx803": "gfx803", "gfx900:xnack-": "gfx900", "gfx906:xnack-": "gfx906", "gfx908:xnack-": "gfx908", "gfx1030": "gfx1030"} {
		row, ok := byA[a]
		if assert.True(t, ok, "%s has a row", a) {
			assert.Equal(t, b, row.TargetB, "%s is matched by processor", a)
			assert.NotZero(t, row.Changed, "%s: kernels of both releases compared", a)
		}
	}
	assert.Equal(t, map[string]bool{"gfx1010": true, "gfx1100": true, "gfx1101": true, "gfx1102": true}, added,
		"only the processors 5.3.3 does not build are whole targets added")

	// The after-values are kernels' own for 5.7.1 (through JSON).
	doc := kernelsDoc(t, d, Options{Files: []string{rocrand57}})
	metrics := map[[2]string]Metrics{}
	for _, img := range doc.Files[0].Images {
		require.Empty(t, img.Error, img.Container)
		for i := range img.Functions {
			metrics[[2]string{img.Arch, img.Functions[i].Name}] = metricsOf(&img.Functions[i])
		}
	}
	spilling, broken := 0, 0
	for _, c := range rep.Changes {
		if c.After == nil {
			continue
		}
		m, ok := metrics[[2]string{c.TargetB, c.Mangled}]
		if !ok {
			m, ok = metrics[[2]string{c.TargetB, c.Name}]
		}
		if assert.True(t, ok, "%s %s is in the kernels report", c.TargetB, c.Name) {
			assert.Equal(t, m, *c.After, "%s %s: the metrics kernels reports", c.TargetB, c.Name)
		}
		if c.After.has(mSpills) && c.After.v[mSpills] > 0 {
			spilling++
		}
		if len(c.Breaks) > 0 {
			broken++
			assert.True(t, strings.HasPrefix(c.Breaks[0], "spills"), c.Breaks[0])
		}
	}
	require.NotZero(t, spilling)
	assert.Equal(t, spilling, broken, "spills>0 flags exactly the spilling functions")
	assert.Equal(t, broken, rep.Violations)
}
