package linkwrap

import (
	"encoding/json"
	"io"
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
// the granularity are dropped, as LLVM's time profiler does.
func (t *tracer) begin(name, detail string) func() {
	if t.now == nil {
		return func() {}
	}
	b := t.now()
	return func() {
		e := t.now()
		dur := e.Sub(b)
		if dur < t.granularity && name != "Execute linker wrapper" {
			return
		}
		ev := traceEvent{PID: 1, Ph: "X", TS: b.Sub(t.start).Microseconds(), Dur: dur.Microseconds(), Name: name}
		if detail != "" {
			ev.Args = map[string]string{"detail": detail}
		}
		t.mu.Lock()
		ev.TID = 0
		if detail != "" && name == "Link device input" {
			id, ok := t.tids[detail]
			if !ok {
				id = len(t.tids) + 1
				t.tids[detail] = id
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
	evs := t.events
	if evs == nil {
		evs = []traceEvent{}
	}
	return json.NewEncoder(w).Encode(map[string]any{
		"traceEvents":     evs,
		"beginningOfTime": t.start.UnixMicro(),
		"displayTimeUnit": "ms",
	})
}
