package phase

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func fakeClock() func() time.Time {
	var mu sync.Mutex
	t := time.Unix(0, 0)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(1500 * time.Microsecond)
		return t
	}
}

func TestTimerOrderAndTable(t *testing.T) {
	tm := New(fakeClock())
	scan := tm.Span("scan", "")
	link := tm.Span("device link", "amdgcn gfx90a")
	link.Note("cache hit")
	link.End()
	scan.End()
	var b bytes.Buffer
	tm.Print(&b, "tool")
	assert.Equal(t, "tool: phase summary (wall time)\n"+
		"  scan                                                       4.5 ms\n"+
		"  device link amdgcn gfx90a                                  1.5 ms  cache hit\n", b.String())
	rows := tm.Rows()
	assert.Equal(t, "scan", rows[0].Name)
}

func TestNilClockRecordsNothing(t *testing.T) {
	tm := New(nil)
	tm.Span("x", "").End()
	assert.Empty(t, tm.Rows())
	var b bytes.Buffer
	tm.Print(&b, "tool")
	assert.Empty(t, b.String())
	var nilTimer *Timer
	assert.False(t, nilTimer.Enabled())
}

func TestConcurrent(t *testing.T) {
	tm := New(fakeClock())
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); tm.Span("p", "").End() }()
	}
	wg.Wait()
	assert.Len(t, tm.Rows(), 50)
}

// TestSpanFeedsSummaryAndTrace: one span is a summary row and a trace
// event; Open names each side apart or leaves one out; End runs once
// however often it is called (a deferred End after an early one records
// nothing more); spans of an On view run on their thread's trace row and
// carry it in their rows; short events are dropped except the root.
func TestSpanFeedsSummaryAndTrace(t *testing.T) {
	clock := fakeClock()
	start := clock()
	tm := New(clock).Traced(NewTrace(start, 2*time.Millisecond, "tool", "Run"))
	root := tm.Open(Spec{Name: "total", Event: "Run"})
	func() {
		sp := tm.Span("scan", "in.o")
		defer sp.End()
		sp.Note("3 files")
		sp.End() // early end: the deferred End adds nothing
	}()
	dl := tm.On("device link gfx90a")
	outer := dl.Open(Spec{Name: "device link", Detail: "amdgcn gfx90a", Event: "Link device input", Arg: "amdgcn gfx90a"})
	dl.Open(Spec{Event: "Clang"}).End() // trace only, 1.5 ms < 2 ms: dropped
	inner := dl.Span("split", "")
	clock()
	inner.End()
	outer.End()
	tm.Open(Spec{Name: "extract"}).End() // summary only
	root.End()
	root.End()

	rows := tm.Rows()
	var got []string
	for _, r := range rows {
		got = append(got, r.Name+"|"+r.Detail+"|"+r.Note+"|"+r.Thread+"|"+Ms(r.Dur))
	}
	assert.Equal(t, []string{
		"total||||18.0 ms",
		"scan|in.o|3 files||1.5 ms",
		"device link|amdgcn gfx90a||device link gfx90a|9.0 ms",
		"split|||device link gfx90a|3.0 ms",
		"extract||||1.5 ms",
	}, got)

	var b bytes.Buffer
	assert.NoError(t, tm.Trace().Write(&b))
	var tr struct {
		TraceEvents []Event `json:"traceEvents"`
	}
	assert.NoError(t, json.Unmarshal(b.Bytes(), &tr))
	var evs []string
	for _, e := range tr.TraceEvents {
		evs = append(evs, fmt.Sprintf("%s %s %d %d+%d %v", e.Ph, e.Name, e.TID, e.TS, e.Dur, e.Args))
	}
	assert.Equal(t, []string{
		"X split 1 10500+3000 map[]",
		"X Link device input 1 6000+9000 map[detail:amdgcn gfx90a]",
		"X Run 0 1500+18000 map[]",
		"M process_name 0 0+0 map[name:tool]",
		"M thread_name 0 0+0 map[name:tool]",
		"M thread_name 1 0+0 map[name:device link gfx90a]",
	}, evs)
}

func TestNilSpans(t *testing.T) {
	var tm *Timer
	sp := tm.Span("x", "")
	sp.Note("n")
	sp.End()
	assert.Nil(t, tm.On("t").Trace())
	New(fakeClock()).Open(Spec{Event: "untraced"}).End()
	assert.Empty(t, New(nil).Traced(NewTrace(time.Time{}, 0, "p", "r")).Rows())
}
