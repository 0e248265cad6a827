// Package phase times the phases of a tool run for the -v summary table
// every offload-kit tool prints (scan, extract, device link per group,
// wrap, host link, ...). The clock is injected, so library code never
// reads it itself; a nil clock records nothing.
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
	Dur          time.Duration
}

// Timer records phases; safe for concurrent use.
type Timer struct {
	now  func() time.Time
	mu   sync.Mutex
	seq  int
	rows []Row
}

// New returns a Timer using now as its clock (nil disables timing).
func New(now func() time.Time) *Timer { return &Timer{now: now} }

// Enabled reports whether the timer has a clock.
func (t *Timer) Enabled() bool { return t != nil && t.now != nil }

// Begin opens a phase; the returned func closes it, with an optional note.
func (t *Timer) Begin(name, detail string) func(note ...string) {
	if !t.Enabled() {
		return func(...string) {}
	}
	t.mu.Lock()
	seq := t.seq
	t.seq++
	t.mu.Unlock()
	b := t.now()
	return func(note ...string) {
		r := Row{Seq: seq, Name: name, Detail: detail, Dur: t.now().Sub(b)}
		if len(note) > 0 {
			r.Note = note[0]
		}
		t.mu.Lock()
		t.rows = append(t.rows, r)
		t.mu.Unlock()
	}
}

// Rows returns the finished phases in the order they began.
func (t *Timer) Rows() []Row {
	if t == nil {
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
