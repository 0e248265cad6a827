// Package progress draws a one-line progress report for long operations
// (compressing, unbundling or extracting gigabytes): "label: 42% (1.1 GiB
// of 2.6 GiB)", redrawn in place with '\r' at most a few times a second,
// only once the operation has run for a second, and erased when it ends.
//
// Whether to report at all is decided by the command (cmd/ and
// internal/cli): a Sink exists only when stderr is a terminal and the
// user did not ask for quiet. Everything here is given its writer and its
// clock; a nil *Sink or *Reporter does nothing, so callers need no checks.
package progress

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Sink is where reports go.
type Sink struct {
	W   io.Writer
	Now func() time.Time
	// Delay is how long an operation runs before its first report
	// (0 = one second); Every is the least time between redraws
	// (0 = 200 ms).
	Delay, Every time.Duration
}

// Reporter follows one operation of a known total size.
type Reporter struct {
	s       *Sink
	label   string
	total   int64
	done    atomic.Int64
	start   time.Time
	mu      sync.Mutex
	next    time.Time // no redraw before
	drawn   bool
	lastLen int
}

// Start begins reporting an operation of total bytes.
func (s *Sink) Start(label string, total int64) *Reporter {
	if s == nil || s.W == nil || s.Now == nil {
		return nil
	}
	delay := s.Delay
	if delay == 0 {
		delay = time.Second
	}
	now := s.Now()
	return &Reporter{s: s, label: label, total: total, start: now, next: now.Add(delay)}
}

// Add records n more bytes done and redraws when due. It is safe for
// concurrent use; a caller that finds another drawing does not wait.
func (r *Reporter) Add(n int64) {
	if r == nil {
		return
	}
	d := r.done.Add(n)
	if !r.mu.TryLock() {
		return
	}
	defer r.mu.Unlock()
	now := r.s.Now()
	if now.Before(r.next) {
		return
	}
	every := r.s.Every
	if every == 0 {
		every = 200 * time.Millisecond
	}
	r.next = now.Add(every)
	line := r.label + ": " + human(d)
	if r.total > 0 {
		line = fmt.Sprintf("%s: %d%% (%s of %s)", r.label, min(100, d*100/r.total), human(d), human(r.total))
	}
	if el := now.Sub(r.start).Seconds(); el > 0 {
		line += fmt.Sprintf(", %s/s", human(int64(float64(d)/el)))
	}
	pad := max(0, r.lastLen-len(line))
	fmt.Fprintf(r.s.W, "\r%s%*s", line, pad, "")
	r.drawn, r.lastLen = true, len(line)
}

// Done erases the line, if one was drawn.
func (r *Reporter) Done() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.drawn {
		fmt.Fprintf(r.s.W, "\r%*s\r", r.lastLen, "")
		r.drawn = false
	}
}

// Reader counts what is read through it.
func (r *Reporter) Reader(rd io.Reader) io.Reader {
	if r == nil {
		return rd
	}
	return &reader{rd, r}
}

// Writer counts what is written through it.
func (r *Reporter) Writer(w io.Writer) io.Writer {
	if r == nil {
		return w
	}
	return &writer{w, r}
}

type reader struct {
	r   io.Reader
	rep *Reporter
}

func (c *reader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.rep.Add(int64(n))
	return n, err
}

type writer struct {
	w   io.Writer
	rep *Reporter
}

func (c *writer) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.rep.Add(int64(n))
	return n, err
}

type ctxKey struct{}

// NewContext returns ctx carrying s, for code that reaches long copies
// only through a context.
func NewContext(ctx context.Context, s *Sink) context.Context {
	if s == nil {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, s)
}

// FromContext returns the Sink NewContext stored, or nil.
func FromContext(ctx context.Context) *Sink {
	s, _ := ctx.Value(ctxKey{}).(*Sink)
	return s
}

func human(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}
