package linkwrap

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/phase"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validateChromeTrace checks what chrome://tracing and Perfetto's JSON
// importer need: an object with a "traceEvents" array whose events have a
// non-empty name, a phase "X" (complete) or "M" (metadata), integer pid and
// tid, and for "X" integer ts and dur in µs (non-negative); "X" events on
// one thread must nest (a child inside its parent, never straddling it).
func validateChromeTrace(t *testing.T, data []byte) (complete map[string]int) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top map[string]any
	require.NoError(t, dec.Decode(&top), "trace is not a JSON object")
	raw, ok := top["traceEvents"].([]any)
	require.True(t, ok, "traceEvents is not an array")
	require.True(t, len(raw) > 0, "no events")
	integer := func(ev map[string]any, k string) int64 {
		n, ok := ev[k].(json.Number)
		require.True(t, ok, "event %v: %s is not a number", ev, k)
		v, err := n.Int64()
		require.NoError(t, err, "event %v: %s is not an integer", ev, k)
		return v
	}
	type span struct {
		name     string
		ts, end  int64
		pid, tid int64
	}
	threads := map[[2]int64][]span{}
	complete = map[string]int{}
	for _, r := range raw {
		ev, ok := r.(map[string]any)
		require.True(t, ok, "event %v is not an object", r)
		name, _ := ev["name"].(string)
		require.True(t, name != "", "event %v has no name", ev)
		pid, tid := integer(ev, "pid"), integer(ev, "tid")
		switch ev["ph"] {
		case "X":
			ts, dur := integer(ev, "ts"), integer(ev, "dur")
			require.True(t, ts >= 0 && dur >= 0, "event %v: negative ts or dur", ev)
			threads[[2]int64{pid, tid}] = append(threads[[2]int64{pid, tid}], span{name, ts, ts + dur, pid, tid})
			complete[name]++
		case "M":
			args, ok := ev["args"].(map[string]any)
			require.True(t, ok, "metadata event %v has no args", ev)
			_, ok = args["name"].(string)
			require.True(t, ok, "metadata event %v has no args.name", ev)
		default:
			t.Fatalf("event %v: unexpected phase %v", ev, ev["ph"])
		}
	}
	for k, spans := range threads {
		sort.SliceStable(spans, func(i, j int) bool {
			if spans[i].ts != spans[j].ts {
				return spans[i].ts < spans[j].ts
			}
			return spans[i].end > spans[j].end // parents first
		})
		var stack []span
		for _, s := range spans {
			for len(stack) > 0 && stack[len(stack)-1].end <= s.ts && !(stack[len(stack)-1].end == s.ts && stack[len(stack)-1].ts == s.ts) {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				assert.True(t, s.end <= p.end, "thread %v: %q [%d,%d] straddles %q [%d,%d]", k, s.name, s.ts, s.end, p.name, p.ts, p.end)
			}
			stack = append(stack, s)
		}
	}
	return complete
}

func TestTimeTraceLoadsInChrome(t *testing.T) {
	dir := t.TempDir()
	var pkg []byte
	for _, arch := range []string{"gfx90a", "gfx942", "gfx1030"} {
		pkg = offload.AppendBinary(pkg, &offload.Image{ImageKind: format.ImgBitcode, OffloadKind: format.OfkOpenMP,
			Strings: []offload.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: arch}}, Image: []byte("BC\xc0\xde")})
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gpu.out"), pkg, 0o644))
	trace := filepath.Join(dir, "trace.json")
	slow := func(c *run.Cmd) error { time.Sleep(5 * time.Millisecond); return touchOutput(c) }
	inv := invoke(t, dir, slow, "--wrapper-jobs=3", "--wrapper-time-trace="+trace, "--wrapper-time-trace-granularity=0",
		"--linker-path=/usr/bin/ld", "-o", "$D/app", "$D/gpu.out")
	require.NoError(t, inv.err, inv.stderr.String())
	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	names := validateChromeTrace(t, data)
	assert.Equal(t, 1, names["Execute linker wrapper"])
	assert.Equal(t, 3, names["Link device input"])
	assert.Equal(t, 3, names["Clang"])
	var tr struct {
		TraceEvents []phase.Event `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &tr))
	threadNames := map[int]string{}
	for _, e := range tr.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			threadNames[e.TID] = e.Args["name"]
		}
	}
	for _, e := range tr.TraceEvents {
		if e.Name == "Clang" || e.Name == "Link device input" {
			assert.True(t, e.TID != 0, "device link scopes run on their group's thread")
			assert.Contains(t, threadNames[e.TID], "device link amdgcn-amd-amdhsa gfx")
		}
	}
}

// TestSYCLLinkSpans: the in-process SYCL device link's steps (link, read
// module, split, emit + codegen) are spans of the wrapper's run: trace
// events on the device link's row, inside its "SYCL device link" event,
// and summary rows under its "device link" line.
func TestSYCLLinkSpans(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the LLVM 22 tools")
	}
	findTool(t, "llvm-link")
	findTool(t, "llc")
	bc, err := os.ReadFile(filepath.Join("..", "..", "sycldev", "testdata", "kernels-spirv64-clang22.bc"))
	require.NoError(t, err)
	dir := t.TempDir()
	pkg := offload.AppendBinary(nil, &offload.Image{ImageKind: format.ImgBitcode, OffloadKind: format.OfkSYCL,
		Strings: []offload.KV{{Key: "triple", Value: "spirv64-unknown-unknown"}, {Key: "arch", Value: ""}}, Image: bc})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gpu.out"), pkg, 0o644))
	trace := filepath.Join(dir, "trace.json")
	opts, err := ParseArgs([]string{"--host-triple=x86_64-unknown-linux-gnu", "--wrapper-verbose", "--wrapper-time-trace=" + trace,
		"--wrapper-time-trace-granularity=0", "--linker-path=/bin/true", "-o", filepath.Join(dir, "app"), filepath.Join(dir, "gpu.out")})
	require.NoError(t, err)
	var stderr bytes.Buffer
	env := map[string]string{"PATH": llvmBin + ":" + os.Getenv("PATH"), "OFFLOAD_KIT_LLVM": "process", "OFFLOAD_KIT_LLVM_DIR": llvmBin}
	err = Run(context.Background(), &Env{Env: driverenv.Env{Stderr: &stderr, NumCPU: 2, Now: time.Now, Dir: dir,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}}, *opts)
	require.NoError(t, err, stderr.String())

	steps := []string{"link", "read module", "split", "emit + codegen"}
	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	names := validateChromeTrace(t, data)
	var tr struct {
		TraceEvents []phase.Event `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &tr))
	at := map[string]phase.Event{}
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" {
			at[e.Name] = e
		}
	}
	outer := at["SYCL device link"]
	require.Equal(t, 1, names["SYCL device link"])
	assert.NotZero(t, outer.TID, "on the device link's row")
	for _, s := range steps {
		e, ok := at[s]
		if assert.True(t, ok, "no %q event", s) {
			assert.Equal(t, outer.TID, e.TID, s)
			assert.True(t, e.TS >= outer.TS && e.TS+e.Dur <= outer.TS+outer.Dur, "%q inside the SYCL device link", s)
		}
	}

	// the summary: each step indented under the device link's line
	lines := strings.Split(stderr.String(), "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], "  device link spirv64") {
		i++
	}
	require.Less(t, i, len(lines), stderr.String())
	for _, s := range steps {
		i++
		require.Less(t, i, len(lines), stderr.String())
		assert.True(t, strings.HasPrefix(lines[i], "    "+s+" "), "line %q: want step %q\n%s", lines[i], s, stderr.String())
	}
}
