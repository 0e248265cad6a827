package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/offload-kit/offload-kit/internal/atomicfile"
)

// Interrupt is the cause of a context cancelled by SIGINT or SIGTERM.
type Interrupt struct{ Signal syscall.Signal }

func (i *Interrupt) Error() string { return fmt.Sprintf("interrupted by %v", i.Signal) }

// ExitCode is the shell's status for a process ended by the signal:
// 128+n (130 for SIGINT, 143 for SIGTERM).
func (i *Interrupt) ExitCode() int { return 128 + int(i.Signal) }

// grace is how long the main goroutine has, after the first signal, to
// return on its own. Cleanup does not wait for it: it has already run.
const grace = time.Second

// sigState is the process's SIGINT/SIGTERM handling (signal dispositions
// are process state, so this is too): one per process, shared by nested
// Signals calls.
type sigState struct {
	ch     chan os.Signal
	ctx    context.Context
	cancel context.CancelCauseFunc
	quit   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	sig    syscall.Signal // the first signal; 0 if none
	timer  *time.Timer
	depth  int
}

var (
	sigMu  sync.Mutex
	sigCur *sigState
)

// Signals starts handling SIGINT and SIGTERM and returns a context that
// the first of them cancels (its cause is an *Interrupt). On that signal:
//
//  1. every temporary output is removed and every output streamed in
//     place is closed, at once (atomicfile.Interrupt), so nothing is left
//     behind however the process ends, and no output is committed later;
//  2. the context is cancelled: copy loops stop at their next chunk and
//     the drivers return, and the caller exits 130 or 143 (Code);
//  3. if the process has not ended after a grace period (a write blocked
//     on a pipe nobody reads, an open of a FIFO nobody opens) or a second
//     signal comes, the cleanup is run again and the process is ended by
//     the signal itself (default action), which a shell also reports as
//     130 or 143.
//
// Nested calls share the outer handling. stop ends it (the outermost
// call's stop restores the default dispositions).
func Signals() (ctx context.Context, stop func()) {
	sigMu.Lock()
	defer sigMu.Unlock()
	if s := sigCur; s != nil {
		s.depth++
		return s.ctx, func() {
			sigMu.Lock()
			s.depth--
			sigMu.Unlock()
		}
	}
	s := &sigState{ch: make(chan os.Signal, 2), quit: make(chan struct{}), depth: 1}
	s.ctx, s.cancel = context.WithCancelCause(context.Background())
	signal.Notify(s.ch, syscall.SIGINT, syscall.SIGTERM)
	s.wg.Add(1)
	go s.loop()
	sigCur = s
	return s.ctx, func() {
		sigMu.Lock()
		s.depth--
		last := s.depth == 0
		if last {
			sigCur = nil
		}
		sigMu.Unlock()
		if last {
			s.stop()
		}
	}
}

func (s *sigState) loop() {
	defer s.wg.Done()
	for {
		select {
		case v := <-s.ch:
			s.got(v.(syscall.Signal))
		case <-s.quit:
			return
		}
	}
}

func (s *sigState) got(v syscall.Signal) {
	s.mu.Lock()
	first := s.sig == 0
	if first {
		s.sig = v
	}
	s.mu.Unlock()
	if !first {
		s.die(v)
		return
	}
	// The timer first: nothing below may keep the process alive.
	s.mu.Lock()
	s.timer = time.AfterFunc(grace, func() { s.die(v) })
	s.mu.Unlock()
	atomicfile.Interrupt()
	s.cancel(&Interrupt{Signal: v})
}

// die cleans up (again: outputs created since, if any) and ends the
// process by the signal's default action.
func (s *sigState) die(v syscall.Signal) {
	atomicfile.Interrupt()
	signal.Reset(syscall.SIGINT, syscall.SIGTERM)
	syscall.Kill(os.Getpid(), v)
	// The default action of SIGINT and SIGTERM is to terminate; nothing
	// runs past this point once the signal is delivered.
	time.Sleep(time.Hour)
}

// stop stops the handling; a signal that arrived before is still
// processed (Code sees it).
func (s *sigState) stop() {
	signal.Stop(s.ch)
	close(s.quit)
	s.wg.Wait()
	for {
		select {
		case v := <-s.ch:
			s.got(v.(syscall.Signal))
			continue
		default:
		}
		break
	}
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
}

// Interrupted returns the signal that cancelled ctx (a context from
// Signals), or nil.
func Interrupted(ctx context.Context) *Interrupt {
	if ctx == nil {
		return nil
	}
	if i, ok := context.Cause(ctx).(*Interrupt); ok {
		return i
	}
	return nil
}

// WithSignals runs body under Signals and returns its exit code, or 130 or
// 143 if a signal arrived while it ran (whatever body returned: an output
// committed just before the signal is complete, but the run was
// interrupted).
func WithSignals(body func(ctx context.Context) int) int {
	ctx, stop := Signals()
	code := body(ctx)
	stop()
	if i := Interrupted(ctx); i != nil {
		return i.ExitCode()
	}
	return code
}
