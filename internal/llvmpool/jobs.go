package llvmpool

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/offload-kit/offload-kit/internal/run"
)

// Helpers and the GNU make jobserver. A tool run by make -jN is one job:
// it owns one slot, which its first helper uses (the tool itself waits for
// it). Every further live helper holds one more slot, a token read from
// make's jobserver (run.Jobserver) for as long as it lives, given back
// when it ends; so one make -jN runs at most N helpers over all its tools,
// not N per tool. Without a jobserver, Config.Helpers (the CPU count)
// bounds them alone.

// makeJobserver returns the process's client of the jobserver named by
// makeflags ($MAKEFLAGS), nil when there is none. One client per process,
// never closed (a client of a descriptor pair must not be finalised while
// another part of the tool uses the same numbers: it uses duplicates).
// The client's own implicit slot is taken once, for good: each pool's
// first helper runs on its caller's slot instead.
func makeJobserver(makeflags string) run.Limiter {
	auth, ok := run.JobserverAuth(makeflags)
	if !ok {
		return nil
	}
	jsMu.Lock()
	defer jsMu.Unlock()
	if js, ok := jsClients[auth]; ok {
		return js
	}
	flags := "--jobserver-auth=" + auth
	if rs, ws, ok := strings.Cut(auth, ","); ok && !strings.HasPrefix(auth, "fifo:") {
		r, err1 := dupCloexec(rs)
		w, err2 := dupCloexec(ws)
		if err1 != nil || err2 != nil {
			jsClients[auth] = nil
			return nil
		}
		flags = fmt.Sprintf("--jobserver-auth=%d,%d", r, w)
	}
	js, err := run.OpenJobserver(flags)
	if err != nil {
		jsClients[auth] = nil
		return nil
	}
	js.Acquire(context.Background()) // the implicit slot: never given back
	jsClients[auth] = js
	return js
}

var (
	jsMu      sync.Mutex
	jsClients = map[string]run.Limiter{}
)

func dupCloexec(s string) (int, error) {
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 0 {
		return -1, fmt.Errorf("bad descriptor %q", s)
	}
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// jobSlot gets the slot a new helper runs on: the pool's first (free, the
// caller's own) when no helper of the pool holds it, else one from the
// limiter. It gives up, returning an idle helper instead, when one comes
// from idle first (nil: wait for a slot only). A wait for the limiter
// also ends when the first slot is given back (a SPIR-V helper retires
// after each module: without this, a waiter could wait for a token while
// the pool has no helper at all).
func (p *Pool) jobSlot(ctx context.Context, idle chan *helper) (release func(), h *helper, err error) {
	first := func() { <-p.first }
	select {
	case p.first <- struct{}{}:
		return first, nil, nil
	default:
	}
	lim := p.limiter
	if lim == nil {
		return func() {}, nil, nil
	}
	type res struct {
		rel func()
		err error
	}
	sub, cancel := context.WithCancel(ctx)
	ch := make(chan res, 1)
	go func() {
		rel, err := lim.Acquire(sub)
		ch <- res{rel, err}
	}()
	abandon := func() {
		cancel()
		go func() {
			if r := <-ch; r.err == nil {
				r.rel()
			}
		}()
	}
	select {
	case r := <-ch:
		cancel()
		if r.err != nil {
			return nil, nil, r.err
		}
		return r.rel, nil, nil
	case p.first <- struct{}{}:
		abandon()
		return first, nil, nil
	case h := <-idle:
		abandon()
		return nil, h, nil
	case <-ctx.Done():
		abandon()
		return nil, nil, ctx.Err()
	}
}

// jobserverFromEnv is Config.Limiter's default: make's jobserver from
// $MAKEFLAGS, unless $OFFLOAD_KIT_LLVM_JOBSERVER=0, both read through
// getenv (Config.Getenv).
func jobserverFromEnv(getenv func(string) string) run.Limiter {
	if getenv("OFFLOAD_KIT_LLVM_JOBSERVER") == "0" {
		return nil
	}
	return makeJobserver(getenv("MAKEFLAGS"))
}
