package run

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// TimeoutError is a child that made no progress for Timeout (see
// Cmd.Timeout) and was killed with its process group.
type TimeoutError struct {
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("made no progress (no output, no CPU time) for %v and was killed (OFFLOAD_KIT_LLVM_TIMEOUT sets the limit)", e.Timeout)
}

// Timed is a Runner that gives every command without a Timeout of its own
// the limit Timeout (<= 0: none).
type Timed struct {
	Runner  Runner
	Timeout time.Duration
}

// Run implements Runner.
func (t Timed) Run(ctx context.Context, c *Cmd) error {
	if c.Timeout == 0 && t.Timeout > 0 {
		cc := *c
		cc.Timeout = t.Timeout
		c = &cc
	}
	return t.Runner.Run(ctx, c)
}

// watchdog kills the process group pgid once it has made no progress for
// limit: no process of the group wrote or read a byte or used CPU time,
// and none started or ended (groupProgress). It polls a tenth of the limit
// apart (between 10 ms and 30 s: the default 10-minute limit is checked
// every 30 s, and kills between 10 and 10.5 minutes of silence).
type watchdog struct {
	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	expired bool
}

func watch(pgid int, limit time.Duration) *watchdog {
	w := &watchdog{stop: make(chan struct{})}
	tick := min(max(limit/10, 10*time.Millisecond), 30*time.Second)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(tick)
		defer t.Stop()
		last, ok := groupProgress(pgid)
		if !ok {
			return // no way to tell progress here: no limit
		}
		since := time.Now()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			now, _ := groupProgress(pgid)
			if now != last {
				last, since = now, time.Now()
				continue
			}
			if time.Since(since) >= limit {
				w.mu.Lock()
				w.expired = true
				w.mu.Unlock()
				killGroup(pgid, true)
				return
			}
		}
	}()
	return w
}

// done stops the watchdog and reports whether it killed the group.
func (w *watchdog) done() bool {
	close(w.stop)
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.expired
}
