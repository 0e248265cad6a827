package run

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Proc is a long-lived child process spoken to over its standard input and
// output (a helper serving requests). Its standard error is kept, the last
// 16 KiB of it, for the error that reports its death.
type Proc struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	cmd    *exec.Cmd
	stderr tailBuffer
	done   chan struct{}
	err    error
}

// Start starts c (Stdin, Stdout and Stderr of c are ignored: the pipes are
// Proc's). The process is expected to end when its standard input is
// closed (a helper's contract), which also happens when this process
// exits, however it exits; Kill ends it at once. On Linux the process
// also gets SIGKILL when the thread that called Start exits (Pdeathsig):
// a helper busy with a request ends with a SIGKILLed parent too. Call
// Start from a thread that lives as long as this process (a goroutine
// that locked its thread and never returns).
func Start(c *Cmd) (*Proc, error) {
	if len(c.Args) == 0 {
		return nil, errors.New("run: empty command")
	}
	cmd := exec.Command(c.Program(), c.Args[1:]...)
	cmd.Args[0] = c.Args[0]
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.SysProcAttr = helperAttr()
	// A grandchild that outlives the process (a shell's child after Kill)
	// may hold the standard-error pipe open forever: Wait then gives up on
	// the copy after this delay instead of hanging (TestProcKilled hung CI
	// with /bin/sh -c).
	cmd.WaitDelay = 2 * time.Second
	p := &Proc{cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &p.stderr
	// plain pipes, not exec's: Wait must not close the reading end of the
	// output while the last response is still unread
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, &Error{Args: append([]string(nil), c.Args...), ExitCode: -1, Err: err}
	}
	p.Stdin, p.Stdout = inW, outR
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Pid is the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Kill ends the process (SIGKILL); Wait still reports how it ended.
func (p *Proc) Kill() { p.cmd.Process.Kill() }

// Done is closed once the process has ended and its output is drained.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Wait closes standard input, waits for the process to end and returns
// its status: nil for exit 0, else an *Error whose Stderr is the tail of
// its standard error and whose ExitCode is -1 after a signal. It closes
// the output too: read what is needed first.
func (p *Proc) Wait() error {
	p.Stdin.Close()
	<-p.done
	p.Stdout.Close()
	return p.status()
}

// Status is Wait's result once Done is closed.
func (p *Proc) status() error {
	if p.err == nil {
		return nil
	}
	e := &Error{Args: append([]string(nil), p.cmd.Args...), ExitCode: -1, Stderr: p.stderr.Bytes(), Err: p.err}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) && ee.Exited() {
		e.ExitCode = ee.ExitCode()
	}
	return e
}

// Signal is the signal that ended the process (0 if it exited, or has not
// ended yet).
func (p *Proc) Signal() syscall.Signal {
	select {
	case <-p.done:
	default:
		return 0
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

// Stderr is the tail of what the process wrote to its standard error.
func (p *Proc) Stderr() []byte { return p.stderr.Bytes() }

const tailMax = 16 << 10

// tailBuffer keeps the last tailMax bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}
