// Package run executes external tools. It is the only package that imports
// os/exec. Drivers receive a Runner, so tests inject a Fake instead of
// swapping a global, and wrap it in a Printer for -v / --dry-run output.
package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Cmd is one command to run. Args[0] is the program as printed; Path is the
// file executed (Args[0] when empty).
type Cmd struct {
	Path   string
	Args   []string
	Dir    string
	Env    []string  // nil: inherit
	Stdin  io.Reader // nil: empty
	Stdout io.Writer // nil: discarded
	Stderr io.Writer // nil: discarded (still captured into *Error)
	// Timeout, when positive, is how long the child may make no progress
	// (no process it started reads or writes a byte, uses CPU time, starts
	// or ends) before Exec kills it with its whole process group; the
	// error then wraps a *TimeoutError. The child runs in a process group
	// of its own. On systems without /proc it has no effect.
	Timeout time.Duration
}

// Program is the executable's path.
func (c *Cmd) Program() string {
	if c.Path != "" {
		return c.Path
	}
	if len(c.Args) > 0 {
		return c.Args[0]
	}
	return ""
}

// Runner runs commands.
type Runner interface {
	Run(ctx context.Context, c *Cmd) error
}

// Error is a failed child process. Error() is one line; %+v adds the full
// command and the captured standard error.
type Error struct {
	Args     []string
	ExitCode int // -1 if the process did not exit normally (signal, not started)
	Stderr   []byte
	Err      error // the underlying exec error
}

// Tool is the base name of the program, as LLVM's "'%s' failed" prints it.
func (e *Error) Tool() string {
	if len(e.Args) == 0 {
		return ""
	}
	return filepath.Base(e.Args[0])
}

func (e *Error) Error() string {
	var te *TimeoutError
	if errors.As(e.Err, &te) {
		return fmt.Sprintf("'%s' %v", e.Tool(), te)
	}
	if e.ExitCode >= 0 {
		return fmt.Sprintf("'%s' failed with exit code %d", e.Tool(), e.ExitCode)
	}
	if e.Err != nil {
		return fmt.Sprintf("'%s' failed: %v", e.Tool(), e.Err)
	}
	return fmt.Sprintf("'%s' failed", e.Tool())
}

func (e *Error) Unwrap() error { return e.Err }

// Format implements %+v: the one-line message, the command, then stderr.
func (e *Error) Format(s fmt.State, verb rune) {
	if verb == 'v' && s.Flag('+') {
		io.WriteString(s, e.Error())
		io.WriteString(s, "\ncommand:"+FormatCommand(e.Args))
		if len(e.Stderr) > 0 {
			io.WriteString(s, "\nstderr:\n")
			s.Write(bytes.TrimRight(e.Stderr, "\n"))
		}
		return
	}
	io.WriteString(s, e.Error())
}

// FormatCommand renders argv as clang-linker-wrapper prints commands:
// ` "<exe>" arg arg`, with only the executable quoted, and no newline.
func FormatCommand(args []string) string {
	if len(args) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(` "`)
	b.WriteString(args[0])
	b.WriteString(`"`)
	for _, a := range args[1:] {
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return b.String()
}

// maxCapture bounds the standard error kept in an *Error.
const maxCapture = 1 << 20

// Capture keeps the first MiB written to it (a child's standard error, as
// *Error keeps it); it is safe for concurrent writes.
type Capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxCapture - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
		} else {
			c.buf.Write(p)
		}
	}
	return len(p), nil
}

// Bytes is what was kept.
func (c *Capture) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Bytes()
}

// Exec runs commands with os/exec. The child's standard error goes to
// Cmd.Stderr as it is written and is also captured for *Error.
type Exec struct{}

// Run implements Runner.
func (Exec) Run(ctx context.Context, c *Cmd) error {
	if len(c.Args) == 0 {
		return errors.New("run: empty command")
	}
	cmd := exec.CommandContext(ctx, c.Program(), c.Args[1:]...)
	cmd.Args[0] = c.Args[0]
	// On cancellation (SIGINT/SIGTERM) ask the child to stop as a terminal
	// ^C would, so that it removes its own temporary files (LLVM tools do),
	// and kill it only if it has not exited shortly after.
	cmd.Cancel = func() error {
		p := cmd.Process
		if c.Timeout > 0 { // its own process group: signal all of it
			time.AfterFunc(500*time.Millisecond, func() { killGroup(p.Pid, true) })
			return killGroup(p.Pid, false)
		}
		time.AfterFunc(500*time.Millisecond, func() { p.Kill() }) // a no-op once it has exited
		return p.Signal(syscall.SIGTERM)
	}
	if c.Timeout > 0 {
		cmd.SysProcAttr = groupAttr()
		// a grandchild holding the output pipes open must not keep Wait
		// waiting once the group is killed
		cmd.WaitDelay = 2 * time.Second
	}
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.Stdin = c.Stdin
	cmd.Stdout = c.Stdout
	var capture Capture
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(c.Stderr, &capture)
	} else {
		cmd.Stderr = &capture
	}
	var err error
	if c.Timeout > 0 {
		if err = cmd.Start(); err == nil {
			w := watch(cmd.Process.Pid, c.Timeout)
			err = cmd.Wait()
			if w.done() && err != nil {
				err = &TimeoutError{Timeout: c.Timeout}
			}
			if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState.Success() {
				// it succeeded; something it left outside its group
				// still holds the output open
				err = nil
			}
		}
	} else {
		err = cmd.Run()
	}
	if err == nil {
		return nil
	}
	e := &Error{Args: append([]string(nil), c.Args...), ExitCode: -1, Stderr: capture.Bytes(), Err: err}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		e.ExitCode = ee.ExitCode()
	}
	return e
}

// Printer prints each command to W in FormatCommand's form (one line each)
// before running it; with DryRun it runs nothing.
type Printer struct {
	Runner Runner
	W      io.Writer
	DryRun bool
	mu     sync.Mutex
}

// Run implements Runner.
func (p *Printer) Run(ctx context.Context, c *Cmd) error {
	p.mu.Lock()
	fmt.Fprintln(p.W, FormatCommand(c.Args))
	p.mu.Unlock()
	if p.DryRun {
		return nil
	}
	return p.Runner.Run(ctx, c)
}

// FindProgram looks for name in dirs (in order) and then in the directories
// of the PATH-style list pathList. A name with a slash is checked as is.
func FindProgram(name string, dirs []string, pathList string) (string, bool) {
	if strings.ContainsRune(name, '/') {
		return name, isExecutable(name)
	}
	for _, d := range append(append([]string(nil), dirs...), filepath.SplitList(pathList)...) {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}
