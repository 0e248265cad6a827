package phase

import (
	"encoding/json"
	"io"
	"sort"
	"sync"
	"time"
)

// Trace records spans as Chrome trace "X" (complete) events, the JSON
// LLVM's time profiler writes (-ftime-trace, --wrapper-time-trace), for
// chrome://tracing and Perfetto. A Timer feeds it (Traced).
type Trace struct {
	process     string // the process and main thread's name
	root        string // the event kept whatever its length
	granularity time.Duration
	start       time.Time
	mu          sync.Mutex
	events      []Event
	tids        map[string]int
}

// Event is one trace event as written.
type Event struct {
	PID  int               `json:"pid"`
	TID  int               `json:"tid"`
	Ph   string            `json:"ph"`
	TS   int64             `json:"ts"`
	Dur  int64             `json:"dur"`
	Name string            `json:"name"`
	Args map[string]string `json:"args,omitempty"`
}

// NewTrace returns a trace starting now: events shorter than granularity
// are dropped, as LLVM's time profiler does, except those named root (the
// whole run); process names the process and its main thread.
func NewTrace(start time.Time, granularity time.Duration, process, root string) *Trace {
	return &Trace{process: process, root: root, granularity: granularity, start: start, tids: map[string]int{}}
}

// add records the event name (args.detail = detail) from b to e on
// thread ("" = the main thread; others get ids in the order they appear).
func (t *Trace) add(name, detail, thread string, b, e time.Time) {
	if e.Sub(b) < t.granularity && name != t.root {
		return
	}
	// Both ends are truncated to whole µs from the start, so a nested
	// scope never ends after its parent.
	ts := b.Sub(t.start).Microseconds()
	ev := Event{PID: 1, Ph: "X", TS: ts, Dur: e.Sub(t.start).Microseconds() - ts, Name: name}
	if detail != "" {
		ev.Args = map[string]string{"detail": detail}
	}
	t.mu.Lock()
	if thread != "" {
		id, ok := t.tids[thread]
		if !ok {
			id = len(t.tids) + 1
			t.tids[thread] = id
		}
		ev.TID = id
	}
	t.events = append(t.events, ev)
	t.mu.Unlock()
}

// Write writes the trace as JSON: the complete events, then metadata
// ("M") naming the process and each thread, as LLVM's time profiler
// writes them.
func (t *Trace) Write(w io.Writer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	evs := append([]Event{}, t.events...)
	evs = append(evs, Event{PID: 1, TID: 0, Ph: "M", Name: "process_name", Args: map[string]string{"name": t.process}})
	evs = append(evs, Event{PID: 1, TID: 0, Ph: "M", Name: "thread_name", Args: map[string]string{"name": t.process}})
	for name, id := range t.tids {
		evs = append(evs, Event{PID: 1, TID: id, Ph: "M", Name: "thread_name", Args: map[string]string{"name": name}})
	}
	sort.SliceStable(evs[len(t.events):], func(i, j int) bool {
		a, b := evs[len(t.events)+i], evs[len(t.events)+j]
		return a.TID < b.TID || a.TID == b.TID && a.Name < b.Name
	})
	return json.NewEncoder(w).Encode(map[string]any{
		"traceEvents":     evs,
		"beginningOfTime": t.start.UnixMicro(),
		"displayTimeUnit": "ms",
	})
}
