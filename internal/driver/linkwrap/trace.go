package linkwrap

import (
	"encoding/json"
	"io"
	"sort"
	"sync"
	"time"
)

// tracer records --wrapper-time-trace scopes as Chrome trace "X" events.
type tracer struct {
	now         func() time.Time
	granularity time.Duration
	start       time.Time
	mu          sync.Mutex
	events      []traceEvent
	tids        map[string]int
}

type traceEvent struct {
	PID  int               `json:"pid"`
	TID  int               `json:"tid"`
	Ph   string            `json:"ph"`
	TS   int64             `json:"ts"`
	Dur  int64             `json:"dur"`
	Name string            `json:"name"`
	Args map[string]string `json:"args,omitempty"`
}

// newTracer returns a tracer; with a nil clock every scope is a no-op.
func newTracer(now func() time.Time, granularityUS int) *tracer {
	t := &tracer{now: now, granularity: time.Duration(granularityUS) * time.Microsecond, tids: map[string]int{}}
	if now != nil {
		t.start = now()
	}
	return t
}

// begin opens a scope; the returned func closes it. Scopes shorter than
// the granularity are dropped, as LLVM's time profiler does. "Link device
// input" scopes get one thread per group (their detail).
func (t *tracer) begin(name, detail string) func() {
	thread := ""
	if name == "Link device input" {
		thread = detail
	}
	return t.beginOn(name, detail, thread)
}

// beginOn opens a scope on the thread of a device link (thread is the
// group's "Link device input" detail; "" is the main thread), so the
// scopes nested in one device link stay on its row of the viewer.
func (t *tracer) beginOn(name, detail, thread string) func() {
	if t.now == nil {
		return func() {}
	}
	b := t.now()
	return func() {
		e := t.now()
		if e.Sub(b) < t.granularity && name != "Execute linker wrapper" {
			return
		}
		// Both ends are truncated to whole µs from the start, so a nested
		// scope never ends after its parent.
		ts := b.Sub(t.start).Microseconds()
		ev := traceEvent{PID: 1, Ph: "X", TS: ts, Dur: e.Sub(t.start).Microseconds() - ts, Name: name}
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
}

func (t *tracer) write(w io.Writer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Complete ("X") events, then metadata ("M") naming the process and
	// each device link's thread, as LLVM's time profiler writes them.
	evs := append([]traceEvent{}, t.events...)
	evs = append(evs, traceEvent{PID: 1, TID: 0, Ph: "M", Name: "process_name", Args: map[string]string{"name": "linker-wrapper"}})
	evs = append(evs, traceEvent{PID: 1, TID: 0, Ph: "M", Name: "thread_name", Args: map[string]string{"name": "linker-wrapper"}})
	for detail, id := range t.tids {
		evs = append(evs, traceEvent{PID: 1, TID: id, Ph: "M", Name: "thread_name", Args: map[string]string{"name": "device link " + detail}})
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
