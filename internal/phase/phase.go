// Package phase times the phases of a tool run: the -v summary table
// every offload-kit tool prints (scan, extract, device link per group,
// wrap, host link, ...) and, where a tool has one, its Chrome trace
// (--wrapper-time-trace). One Span feeds both. The clock is injected, so
// library code never reads it itself; a nil clock records nothing.
package phase

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Row is one finished phase.
type Row struct {
	Seq          int // order in which phases began
	Name, Detail string
	Note         string // e.g. a cache outcome
	Thread       string // the trace row it ran on ("" = the main one)
	Dur          time.Duration
}

// state is what a Timer and its views (On) share.
type state struct {
	now   func() time.Time
	trace *Trace
	mu    sync.Mutex
	seq   int
	rows  []Row
}

// Timer records spans for the summary and, when Traced, for a Chrome
// trace; safe for concurrent use. The nil *Timer records nothing.
type Timer struct {
	*state
	thread string
}

// New returns a Timer using now as its clock (nil disables timing).
func New(now func() time.Time) *Timer { return &Timer{state: &state{now: now}} }

// Traced makes t's spans also events of tr (call it before the first span)
// and returns t.
func (t *Timer) Traced(tr *Trace) *Timer {
	t.trace = tr
	return t
}

// Trace is the Chrome trace t feeds, or nil.
func (t *Timer) Trace() *Trace {
	if t == nil || t.state == nil {
		return nil
	}
	return t.trace
}

// On is a view of t whose spans run on the trace row thread (its name in
// the viewer; "" is the main row): rows and trace are t's, so the spans
// of one device link, in-process SYCL steps included, stay on its row.
func (t *Timer) On(thread string) *Timer {
	if t == nil {
		return nil
	}
	return &Timer{state: t.state, thread: thread}
}

// Enabled reports whether the timer has a clock.
func (t *Timer) Enabled() bool { return t != nil && t.state != nil && t.now != nil }

// Spec names a span twice: Name and Detail are its summary row ("" Name:
// none), Event and Arg its trace event and that event's args.detail (""
// Event: none).
type Spec struct {
	Name, Detail string
	Event, Arg   string
}

// Span is one timed scope of the run, opened by Span or Open and closed by
// End, which may run more than once (defer it, and end early where the
// scope ends early): only the first End records. The nil *Span is a
// no-op. A span belongs to the goroutine that opened it.
type Span struct {
	t     *Timer
	spec  Spec
	seq   int
	begin time.Time
	note  string
	done  bool
}

// Span opens a span that is both the summary row name/detail and the trace
// event name (args.detail = detail).
func (t *Timer) Span(name, detail string) *Span {
	return t.Open(Spec{Name: name, Detail: detail, Event: name, Arg: detail})
}

// Open opens a span named by s.
func (t *Timer) Open(s Spec) *Span {
	if !t.Enabled() {
		return nil
	}
	if t.trace == nil {
		s.Event = ""
	}
	if s.Name == "" && s.Event == "" {
		return nil
	}
	sp := &Span{t: t, spec: s}
	if s.Name != "" {
		t.mu.Lock()
		sp.seq = t.seq
		t.seq++
		t.mu.Unlock()
	}
	sp.begin = t.now()
	return sp
}

// Note sets the note of the span's summary row (a cache outcome, a count).
func (s *Span) Note(note string) {
	if s != nil {
		s.note = note
	}
}

// End closes the span; later calls do nothing.
func (s *Span) End() {
	if s == nil || s.done {
		return
	}
	s.done = true
	t := s.t
	end := t.now()
	if s.spec.Event != "" {
		t.trace.add(s.spec.Event, s.spec.Arg, t.thread, s.begin, end)
	}
	if s.spec.Name != "" {
		r := Row{Seq: s.seq, Name: s.spec.Name, Detail: s.spec.Detail, Note: s.note, Thread: t.thread, Dur: end.Sub(s.begin)}
		t.mu.Lock()
		t.rows = append(t.rows, r)
		t.mu.Unlock()
	}
}

// Rows returns the finished phases in the order they began.
func (t *Timer) Rows() []Row {
	if t == nil || t.state == nil {
		return nil
	}
	t.mu.Lock()
	rows := append([]Row(nil), t.rows...)
	t.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool { return rows[i].Seq < rows[j].Seq })
	return rows
}

// Ms formats a duration in milliseconds with one decimal.
func Ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + " ms" }

// Line writes one table row.
func Line(w io.Writer, name, detail string, d time.Duration, note string) {
	label := name
	if detail != "" {
		label += " " + detail
	}
	l := fmt.Sprintf("  %-52s %12s", label, Ms(d))
	if note != "" {
		l += "  " + note
	}
	fmt.Fprintln(w, l)
}

// Print writes the table: a heading, then each phase in order.
func (t *Timer) Print(w io.Writer, prog string) {
	if !t.Enabled() {
		return
	}
	fmt.Fprintf(w, "%s: phase summary (wall time)\n", prog)
	for _, r := range t.Rows() {
		Line(w, r.Name, r.Detail, r.Dur, r.Note)
	}
}
