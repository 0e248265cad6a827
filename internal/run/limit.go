package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Limiter bounds how many jobs run at once.
type Limiter interface {
	// Acquire blocks until a job slot is free, then returns its release.
	Acquire(ctx context.Context) (release func(), err error)
}

// Semaphore is a Limiter with n slots.
type Semaphore chan struct{}

// NewSemaphore returns a Limiter with n (at least 1) slots.
func NewSemaphore(n int) Semaphore {
	if n < 1 {
		n = 1
	}
	return make(Semaphore, n)
}

// Acquire implements Limiter.
func (s Semaphore) Acquire(ctx context.Context) (func(), error) {
	select {
	case s <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-s }) }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ErrNoJobserver means MAKEFLAGS names no usable jobserver.
var ErrNoJobserver = errors.New("run: no GNU make jobserver available")

// JobserverAuth extracts the jobserver description from a MAKEFLAGS value:
// the last --jobserver-auth= (or the older --jobserver-fds=) value, e.g.
// "fifo:/tmp/GMfifo123" or "3,4".
func JobserverAuth(makeflags string) (string, bool) {
	auth, ok := "", false
	for _, f := range strings.Fields(makeflags) {
		for _, p := range []string{"--jobserver-auth=", "--jobserver-fds="} {
			if v, found := strings.CutPrefix(f, p); found {
				auth, ok = v, true
			}
		}
	}
	return auth, ok && auth != ""
}

// Jobserver is a client of GNU make's jobserver (fifo and pipe forms). The
// process owns one implicit slot; every further slot is one byte read from
// the jobserver and written back when the job ends.
type Jobserver struct {
	r, w     *os.File
	implicit chan struct{}
	owned    bool // r/w were opened by us (fifo) and must be closed
}

// OpenJobserver connects to the jobserver described in makeflags.
func OpenJobserver(makeflags string) (*Jobserver, error) {
	auth, ok := JobserverAuth(makeflags)
	if !ok {
		return nil, ErrNoJobserver
	}
	j := &Jobserver{implicit: make(chan struct{}, 1)}
	if path, isFifo := strings.CutPrefix(auth, "fifo:"); isFifo {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoJobserver, err)
		}
		j.r, j.w, j.owned = f, f, true
		return j, nil
	}
	rs, ws, found := strings.Cut(auth, ",")
	if !found {
		return nil, fmt.Errorf("%w: bad --jobserver-auth=%s", ErrNoJobserver, auth)
	}
	rfd, err1 := strconv.Atoi(rs)
	wfd, err2 := strconv.Atoi(ws)
	if err1 != nil || err2 != nil || rfd < 0 || wfd < 0 {
		return nil, fmt.Errorf("%w: bad --jobserver-auth=%s", ErrNoJobserver, auth)
	}
	j.r = os.NewFile(uintptr(rfd), "jobserver-r")
	j.w = os.NewFile(uintptr(wfd), "jobserver-w")
	if j.r == nil || j.w == nil {
		return nil, fmt.Errorf("%w: descriptors %s not open", ErrNoJobserver, auth)
	}
	// make closes the descriptors for recipes not marked '+', and the numbers
	// may then belong to unrelated files (the Go runtime's own, say): use
	// them only if both are pipes.
	for _, f := range []*os.File{j.r, j.w} {
		st, err := f.Stat()
		if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			return nil, fmt.Errorf("%w: descriptors %s are not an open pipe", ErrNoJobserver, auth)
		}
	}
	return j, nil
}

// Acquire implements Limiter.
func (j *Jobserver) Acquire(ctx context.Context) (func(), error) {
	select {
	case j.implicit <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-j.implicit }) }, nil
	default:
	}
	type res struct {
		b   byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		var b [1]byte
		_, err := j.r.Read(b[:])
		ch <- res{b[0], err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("jobserver: read token: %w", r.err)
		}
		var once sync.Once
		return func() { once.Do(func() { j.w.Write([]byte{r.b}) }) }, nil
	case <-ctx.Done():
		// Give back a token that arrives after we stopped waiting.
		go func() {
			if r := <-ch; r.err == nil {
				j.w.Write([]byte{r.b})
			}
		}()
		return nil, ctx.Err()
	}
}

// Close closes descriptors the client opened itself (the fifo form).
func (j *Jobserver) Close() error {
	if j.owned {
		return j.r.Close()
	}
	return nil
}
