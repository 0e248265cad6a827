package llvmpool

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/offload-kit/offload-kit/internal/run"
)

// Config says where the pool's helpers come from.
type Config struct {
	// Mode is "" or "auto" (in-process when a compatible libLLVM is
	// found), "process" (never: the tools run LLVM's programs as child
	// processes), or the path of the libLLVM to use.
	Mode string
	// Tools chooses the link's LLVM installation; its llvm-config (and
	// llc) tell where that installation keeps libLLVM. May be nil.
	Tools *run.Toolchain
	// Runner runs llvm-config (nil: run.Exec{}).
	Runner run.Runner
	// Exe is the executable that serves as a helper (its main calls
	// IsHelper and Serve); "" means this executable.
	Exe string
	// Helpers bounds the helper processes per LLVM option set (0: the
	// number of CPUs).
	Helpers int
	// Major is the LLVM release required (0: run.LLVMMajor).
	Major int
	// Timeout is how long a helper may send nothing (no byte of a
	// response, no read of a request) before it is killed and its request
	// fails with a *TimeoutError. 0: $OFFLOAD_KIT_LLVM_TIMEOUT, else
	// DefaultTimeout; negative: none.
	Timeout time.Duration
	// Limiter bounds the helpers beyond a pool's first (which runs on
	// the caller's own job slot): each holds a slot while it lives. nil:
	// GNU make's jobserver when $MAKEFLAGS offers one (jobs.go), unless
	// $OFFLOAD_KIT_LLVM_JOBSERVER=0; Helpers bounds them in any case.
	Limiter run.Limiter
	// Getenv reads the caller's environment, the driver's
	// (driverenv.Env.Getenv): $OFFLOAD_KIT_LLVM_TIMEOUT, $MAKEFLAGS and
	// $OFFLOAD_KIT_LLVM_JOBSERVER above. nil: os.Getenv. The helpers'
	// own environment is this process's (helperEnv).
	Getenv func(string) string
}

// getenv reads the environment variable k through Getenv.
func (c *Config) getenv(k string) string {
	if c.Getenv == nil {
		return os.Getenv(k)
	}
	return c.Getenv(k)
}

// DefaultTimeout is Config.Timeout when neither it nor
// $OFFLOAD_KIT_LLVM_TIMEOUT says otherwise: generous, since one request
// (a large module's code generation) may compute for minutes without
// output; it only ends helpers that hang.
const DefaultTimeout = 10 * time.Minute

// ParseTimeout reads a $OFFLOAD_KIT_LLVM_TIMEOUT value: seconds ("600"),
// a Go duration ("90s", "10m"), or 0/"off" for no limit (a negative
// duration). "" is DefaultTimeout.
func ParseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "":
		return DefaultTimeout, nil
	case "0", "off", "none":
		return -1, nil
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil && n > 0 && n < 1e9 {
		return time.Duration(n * float64(time.Second)), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("OFFLOAD_KIT_LLVM_TIMEOUT=%q: want seconds or a duration (600, 90s, 10m), or 0 for no limit", s)
}

// TimeoutError is a request whose helper sent nothing for Timeout: the
// helper was killed.
type TimeoutError struct {
	Pid     int
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("LLVM helper process %d made no progress for %v and was killed (OFFLOAD_KIT_LLVM_TIMEOUT sets the limit)", e.Pid, e.Timeout)
}

// Pool runs LLVM in helper processes: a few long-lived copies of the tool
// itself, each of which loads libLLVM once and serves module requests
// over a pipe, one at a time, each in a fresh LLVMContext. A crash inside
// LLVM ends a helper, not the tool: the request fails with a *CrashError.
// Helpers start lazily, up to Helpers at once, and end with Close.
//
// A Pool is safe for concurrent use.
type Pool struct {
	cfg        Config
	timeoutErr error // a bad $OFFLOAD_KIT_LLVM_TIMEOUT, reported by each request

	once    sync.Once
	err     error  // why the pool cannot serve
	lib     string // the library the first helper loaded
	version string
	libs    []string // candidates given to the first helper

	mu      sync.Mutex
	groups  map[string]*group
	closed  bool
	limiter run.Limiter   // set by Start
	first   chan struct{} // full while a helper runs on the caller's own slot

	started  atomic.Int64 // helpers started (tests)
	requests atomic.Int64 // requests sent (tests)
}

// New returns a pool; nothing starts before Start.
func New(cfg Config) *Pool {
	if cfg.Helpers <= 0 {
		cfg.Helpers = runtime.NumCPU()
	}
	if cfg.Major <= 0 {
		cfg.Major = run.LLVMMajor
	}
	var terr error
	if cfg.Timeout == 0 {
		cfg.Timeout, terr = ParseTimeout(cfg.getenv("OFFLOAD_KIT_LLVM_TIMEOUT"))
	}
	return &Pool{cfg: cfg, timeoutErr: terr, groups: map[string]*group{}, first: make(chan struct{}, 1)}
}

// ErrDisabled is Start's error when Mode is "process".
var ErrDisabled = errors.New("in-process LLVM disabled (OFFLOAD_KIT_LLVM=process)")

// Start decides, once, whether the pool can serve: it looks for libLLVM
// and starts the first helper, which loads it and checks its release. An
// error says why not; callers then run LLVM's programs instead.
func (p *Pool) Start(ctx context.Context) error {
	if p == nil {
		return errors.New("no in-process LLVM")
	}
	p.once.Do(func() {
		if p.cfg.Mode == "process" {
			p.err = ErrDisabled
			return
		}
		p.limiter = p.cfg.Limiter
		if p.limiter == nil {
			p.limiter = jobserverFromEnv(p.cfg.getenv)
		}
		p.libs = p.candidates(ctx)
		g := p.group(nil)
		exe, _ := p.exe()
		if h := takeEarly(exe, p.cfg.Major, p.libs); h != nil {
			// the helper Prespawn started at the beginning of main
			h.timeout = p.cfg.Timeout
			g.tokens <- struct{}{}
			h.slot, _, _ = p.jobSlot(ctx, nil) // the first: free
			if err := g.adopt(h); err != nil {
				h.slot()
				<-g.tokens
				p.err = err
				return
			}
			p.lib, p.version = h.lib, h.version
			g.release(h)
			return
		}
		h, err := g.acquire(ctx)
		if err != nil {
			p.err = err
			return
		}
		p.lib, p.version = h.lib, h.version
		g.release(h)
	})
	return p.err
}

// Prestart starts helpers in the background until n (at most Helpers)
// are running, so that they are ready when parallel work comes (each
// takes tens of milliseconds to load libLLVM). It does nothing if the pool
// cannot serve.
func (p *Pool) Prestart(ctx context.Context, n int) {
	if p.Start(ctx) != nil {
		return
	}
	if p.limiter != nil {
		return // under make's jobserver, helpers beyond the first start on demand
	}
	g := p.group(nil)
	for i := 1; i < min(n, p.cfg.Helpers); i++ {
		select {
		case g.tokens <- struct{}{}:
		default:
			return // enough are running or starting
		}
		go func() {
			slot, _, _ := p.jobSlot(ctx, nil) // no limiter: does not wait
			h, err := g.start()
			if err != nil {
				slot()
				<-g.tokens
				return
			}
			h.slot = slot
			g.release(h)
		}()
	}
}

// Describe says what Start found: "libLLVM 22.1.8
// (/usr/lib/x86_64-linux-gnu/libLLVM.so.22.1), up to 2 helper processes".
func (p *Pool) Describe() string {
	return fmt.Sprintf("libLLVM %s (%s), up to %d helper process%s", p.version, p.lib, p.cfg.Helpers, plural(p.cfg.Helpers, "es"))
}

func plural(n int, s string) string {
	if n == 1 {
		return ""
	}
	return s
}

// Close ends every helper and waits for it, so that none outlives the
// tool and the tool's resource usage includes its helpers': each helper's
// input closes, all at once, and each exits by itself (one still busy with
// a request after 5 s is killed). Waiting costs nothing measurable: with
// the wait and without it, the 2-TU SYCL link took the same time within
// the noise (paired runs, ratios 0.95-1.09).
func (p *Pool) Close() error {
	if p == nil {
		return nil
	}
	discardEarly() // when no Start took it
	p.mu.Lock()
	p.closed = true
	groups := p.groups
	p.groups = map[string]*group{}
	p.mu.Unlock()
	for _, g := range groups {
		g.close()
	}
	return nil
}

// group is the helpers that share a set of LLVM command-line options.
type group struct {
	p      *Pool
	clopts []string
	idle   chan *helper
	tokens chan struct{} // one per live helper
	mu     sync.Mutex
	all    map[*helper]bool
}

func (p *Pool) group(clopts []string) *group {
	key := strings.Join(clopts, "\x00")
	p.mu.Lock()
	defer p.mu.Unlock()
	g := p.groups[key]
	if g == nil {
		g = &group{p: p, clopts: clopts, idle: make(chan *helper, p.cfg.Helpers), tokens: make(chan struct{}, p.cfg.Helpers), all: map[*helper]bool{}}
		p.groups[key] = g
	}
	return g
}

func (g *group) acquire(ctx context.Context) (*helper, error) {
	select {
	case h := <-g.idle:
		return h, nil
	default:
	}
	select {
	case h := <-g.idle:
		return h, nil
	case g.tokens <- struct{}{}:
		slot, idle, err := g.p.jobSlot(ctx, g.idle)
		if idle != nil { // an idle helper came before a job slot
			<-g.tokens
			return idle, nil
		}
		if err != nil {
			<-g.tokens
			return nil, err
		}
		h, err := g.start()
		if err != nil {
			slot()
			<-g.tokens
			return nil, err
		}
		h.slot = slot
		return h, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (g *group) release(h *helper) {
	switch {
	case h.dead:
		g.drop(h)
	case h.retired:
		g.retire(h)
	default:
		g.idle <- h
	}
}

// retire ends a helper that is idle and sound but must serve no more
// requests: its input closes and it exits by itself; its token and job
// slot are given back once it has.
func (g *group) retire(h *helper) {
	h.proc.Stdin.Close()
	go func() {
		select {
		case <-h.proc.Done():
		case <-time.After(5 * time.Second):
			h.proc.Kill()
		}
		h.proc.Wait()
		g.mu.Lock()
		mine := g.all[h] // else Close took it, and gives back its slot
		delete(g.all, h)
		g.mu.Unlock()
		if mine {
			h.freeSlot()
		}
		<-g.tokens
	}()
}

func (g *group) drop(h *helper) {
	g.mu.Lock()
	delete(g.all, h)
	g.mu.Unlock()
	h.proc.Kill()
	h.proc.Wait()
	h.freeSlot()
	<-g.tokens
}

func (g *group) close() {
	g.mu.Lock()
	all := g.all
	g.all = map[*helper]bool{}
	g.mu.Unlock()
	// a helper exits when its input closes
	for h := range all {
		h.proc.Stdin.Close()
	}
	for h := range all {
		select {
		case <-h.proc.Done():
		case <-time.After(5 * time.Second):
			h.proc.Kill()
		}
		h.proc.Wait()
		h.freeSlot()
	}
}

// exeRef is the executable a helper runs: the file executed and the name
// it gets as argv[0].
type exeRef struct{ path, argv0 string }

// exe is the helpers' executable: Config.Exe, else this very executable
// (selfExe).
func (p *Pool) exe() (exeRef, error) {
	if p.cfg.Exe != "" {
		return exeRef{p.cfg.Exe, p.cfg.Exe}, nil
	}
	path, argv0, err := selfExe()
	return exeRef{path, argv0}, err
}

// helper is one helper process.
type helper struct {
	proc    *run.Proc
	r       *bufio.Reader
	buf     []byte
	dead    bool
	retired bool // sound, but serves no more requests
	lib     string
	version string

	slot     func()        // gives back its job slot (jobs.go)
	diags    string        // LLVM's warnings with the last response
	errCtl   byte          // the control field of the last error response (a codegen's), else ctlKeep
	timeout  time.Duration // of no progress (<= 0: none)
	timer    *time.Timer   // armed during a request
	timedOut atomic.Bool
}

// freeSlot gives back the helper's job slot, once.
func (h *helper) freeSlot() {
	if f := h.slot; f != nil {
		h.slot = nil
		f()
	}
}

// progressReader reads the helper's output; each byte that comes is
// progress.
type progressReader struct{ h *helper }

func (r progressReader) Read(b []byte) (int, error) {
	n, err := r.h.proc.Stdout.Read(b)
	if n > 0 {
		r.h.touch()
	}
	return n, err
}

// arm starts the no-progress timer: when it runs out the helper is killed
// (and its request then fails with a *TimeoutError).
func (h *helper) arm() {
	if h.timeout > 0 {
		h.timer = time.AfterFunc(h.timeout, func() {
			h.timedOut.Store(true)
			h.proc.Kill()
		})
	}
}

// touch restarts the timer: the helper made progress.
func (h *helper) touch() {
	if t := h.timer; t != nil {
		t.Reset(h.timeout)
	}
}

func (h *helper) disarm() {
	if t := h.timer; t != nil {
		t.Stop()
		h.timer = nil
	}
}

func (g *group) start() (*helper, error) {
	p := g.p
	exe, err := p.exe()
	if err != nil {
		return nil, err
	}
	libs := p.libs
	if p.lib != "" {
		libs = []string{p.lib}
	}
	h, err := spawn(exe, p.cfg.Major, libs, g.clopts, nil, p.cfg.Timeout)
	if err != nil {
		return nil, err
	}
	p.started.Add(1)
	if err := g.adopt(h); err != nil {
		return nil, err
	}
	return h, nil
}

// adopt counts h among the group's helpers (Close ends it); it fails, and
// kills h, when the pool is closed.
func (g *group) adopt(h *helper) error {
	p := g.p
	g.mu.Lock()
	closed := p.closed
	if !closed {
		g.all[h] = true
	}
	g.mu.Unlock()
	if closed {
		h.proc.Kill()
		h.proc.Wait()
		return errors.New("llvmpool: closed")
	}
	return nil
}

// spawn starts a helper process of exe that loads the first of libs
// (release major) and sets clopts, and reads its greeting. started, when
// set, sees the process as soon as it runs.
func spawn(exe exeRef, major int, libs, clopts []string, started func(*run.Proc), timeout time.Duration) (*helper, error) {
	proc, err := startProc(&run.Cmd{Path: exe.path, Args: helperArgs(exe.argv0, major, libs, clopts), Env: helperEnv()})
	if err != nil {
		return nil, err
	}
	if started != nil {
		started(proc)
	}
	h := &helper{proc: proc, timeout: timeout}
	h.r = bufio.NewReaderSize(progressReader{h}, 1<<16)
	h.arm()
	hello, err := h.response()
	h.disarm()
	if h.timedOut.Load() {
		proc.Kill()
		proc.Wait()
		return nil, fmt.Errorf("helper process %s did not start: %w", exe.argv0, &TimeoutError{Pid: proc.Pid(), Timeout: timeout})
	}
	if err != nil {
		if ce, ok := err.(*CrashError); ok {
			return nil, fmt.Errorf("helper process %s did not start: %s", exe.argv0, ce.summary())
		}
		proc.Kill()
		proc.Wait()
		return nil, err
	}
	if len(hello) != 2 {
		proc.Kill()
		proc.Wait()
		return nil, errors.New("helper process: bad greeting")
	}
	h.version, h.lib = string(hello[0]), string(hello[1])
	return h, nil
}

// helperEnv is a helper's environment: this process's, with the Go
// runtime on one processor (GOMAXPROCS=1: a helper runs LLVM on one
// thread at a time and its Go code only moves bytes; one P makes its
// runtime start faster) and glibc's arena limit raised from the start
// (MALLOC_ARENA_MAX: glibc fixes the limit once a process has more than
// eight arenas, and the SPIR-V workaround needs one per module, spirv.go).
// It is the process's environment, not Config.Getenv's: a helper is this
// executable again, and the loader and glibc of its process read
// LD_PRELOAD and GLIBC_TUNABLES from it (llvm.Open, openGlibc).
func helperEnv() []string {
	return append(os.Environ(), "GOMAXPROCS=1", "MALLOC_ARENA_MAX="+strconv.Itoa(spirvArenaMax))
}

// response reads one response; a helper that dies or breaks the protocol
// gives a *CrashError and is dead.
func (h *helper) response() ([][]byte, error) {
	payload, err := readFrame(h.r, h.buf)
	if err != nil {
		return nil, h.crashed(err)
	}
	h.buf = payload
	status, f, err := fields(payload)
	if err != nil {
		return nil, h.crashed(err)
	}
	switch status {
	case statusOK:
	case statusOKDiag:
		if len(f) == 0 {
			return nil, h.crashed(errFrame)
		}
		h.diags = string(f[0])
		f = f[1:]
	case statusErr, statusErrDiag:
		if status == statusErrDiag {
			if len(f) < 2 {
				return nil, h.crashed(errFrame)
			}
			h.diags = string(f[1])
			f = append(f[:1], f[2:]...)
		}
		if len(f) == 2 && len(f[1]) == 1 {
			h.errCtl = f[1][0] // a codegen's failure
			f = f[:1]
		}
		if len(f) == 1 {
			return nil, &Error{Msg: string(f[0])}
		}
		return nil, h.crashed(errFrame)
	default:
		return nil, h.crashed(errFrame)
	}
	return f, nil
}

// crashed marks h dead and describes its end.
func (h *helper) crashed(ioErr error) error {
	h.dead = true
	select {
	case <-h.proc.Done():
	case <-time.After(2 * time.Second):
		h.proc.Kill()
		<-h.proc.Done()
	}
	st := h.proc.Wait()
	ce := &CrashError{Pid: h.proc.Pid(), Signal: h.proc.Signal(), ExitCode: -1, Stderr: h.proc.Stderr()}
	var re *run.Error
	if errors.As(st, &re) {
		ce.ExitCode = re.ExitCode
	} else if st == nil {
		ce.ExitCode = 0
	}
	if ce.ExitCode == 0 && ce.Signal == 0 {
		ce.IOErr = ioErr
	}
	return ce
}

// call sends one request and returns the response's fields (copied). A
// cancelled ctx kills the helper.
func (h *helper) call(ctx context.Context, req []byte) ([][]byte, error) {
	stop := context.AfterFunc(ctx, h.proc.Kill)
	defer stop()
	h.diags = ""
	h.errCtl = ctlKeep
	h.arm()
	f, err := h.exchange(req)
	h.disarm()
	if h.timedOut.Load() {
		h.dead = true
		return nil, &TimeoutError{Pid: h.proc.Pid(), Timeout: h.timeout}
	}
	if ctx.Err() != nil {
		h.dead = true
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(f))
	for i, x := range f {
		out[i] = bytes.Clone(x)
	}
	return out, nil
}

// exchange writes req, in chunks (each one the helper takes is
// progress), and reads the response.
func (h *helper) exchange(req []byte) ([][]byte, error) {
	const chunk = 1 << 20
	for len(req) > 0 {
		n := min(len(req), chunk)
		if _, err := h.proc.Stdin.Write(req[:n]); err != nil {
			return nil, h.crashed(err)
		}
		h.touch()
		req = req[n:]
	}
	return h.response()
}

// Error is a failure LLVM reported in a helper (a parse error, a link
// conflict, a module that does not verify), with LLVM's message.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// CrashError is a helper process that died while it served a request:
// LLVM crashed (SIGSEGV, an abort, a fatal error) or ran out of memory.
type CrashError struct {
	Pid      int
	Signal   syscall.Signal // 0 if it exited
	ExitCode int
	Stderr   []byte // the tail of its standard error
	IOErr    error  // the pipe error, when it exited with status 0
}

func (e *CrashError) Error() string {
	s := e.summary()
	if strings.HasPrefix(s, "(") {
		return "LLVM crashed " + s
	}
	return "LLVM crashed: " + s
}

func (e *CrashError) summary() string {
	var how string
	switch {
	case e.Signal != 0:
		how = fmt.Sprintf("helper process %d killed by %v", e.Pid, e.Signal)
	case e.IOErr != nil:
		how = fmt.Sprintf("helper process %d: %v", e.Pid, e.IOErr)
	default:
		how = fmt.Sprintf("helper process %d exited with status %d", e.Pid, e.ExitCode)
	}
	// LLVM's own message ("LLVM ERROR: ...", "terminate called ...") and
	// the Go runtime's signal line ("SIGSEGV: segmentation violation");
	// the rest of the runtime's report is left out
	var msg, sig string
	for _, l := range strings.Split(string(e.Stderr), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case sig == "" && strings.HasPrefix(l, "SIG") && strings.Contains(l, ": "):
			_, sig, _ = strings.Cut(l, ": ") // "segmentation violation"
		case msg == "" && llvmMessage.MatchString(l):
			msg = l
		}
	}
	var parts []string
	if msg != "" {
		parts = append(parts, msg)
	}
	if sig != "" {
		how += ": " + sig
	}
	parts = append(parts, "("+how+")")
	return strings.Join(parts, " ")
}

// llvmMessage matches what LLVM prints before it ends a process: a fatal
// error, an uncaught C++ exception, a failed assertion, an allocation
// failure.
var llvmMessage = regexp.MustCompile(`^(LLVM ERROR: |terminate called |Assertion .* failed|.*: error: |error: |fatal error: (?:error in backend|out of memory)|.*std::bad_alloc)`)

// do runs one request on a helper of the group for clopts.
func (p *Pool) do(ctx context.Context, clopts []string, req []byte, warn func(string)) ([][]byte, error) {
	return p.doThen(ctx, clopts, req, warn, nil)
}

// doThen is do; retire, when set, sees the response (its fields, or the
// error) and says whether the helper ends after it instead of serving
// another request.
//
// LLVM's warnings (a link of modules of different triples or data
// layouts, backend warnings) go to warn, one line each ("warning:
// Linking two modules of different target triples: ..."), as LLVM's
// handler would print them; nil drops them.
func (p *Pool) doThen(ctx context.Context, clopts []string, req []byte, warn func(string), retire func(h *helper, f [][]byte, err error) bool) ([][]byte, error) {
	if err := p.Start(ctx); err != nil {
		return nil, err
	}
	if p.timeoutErr != nil {
		return nil, p.timeoutErr
	}
	g := p.group(clopts)
	h, err := g.acquire(ctx)
	if err != nil {
		return nil, err
	}
	p.requests.Add(1)
	f, err := h.call(ctx, req)
	if retire != nil && !h.dead && retire(h, f, err) {
		h.retired = true
	}
	// the warnings go with this response, failed or not; read before
	// another request may reuse h
	diags := h.diags
	g.release(h)
	if warn != nil && diags != "" {
		for _, l := range strings.Split(strings.TrimRight(diags, "\n"), "\n") {
			warn(l)
		}
	}
	return f, err
}

// spirvStatic reports whether a codegen for triple may run LLVM 22's
// SPIR-V backend, whose static state a process must not reuse: a spirv*
// triple, or none (the module's own triple decides, unknown here).
func spirvStatic(triple string) bool {
	return triple == "" || strings.HasPrefix(strings.ToLower(triple), "spirv")
}

// LinkRequest is llvm-link (Link) or llvm-dis (a single input, !Link).
type LinkRequest struct {
	Link   bool
	Inputs []string
	// Ident is the ModuleID printed ("" keeps the module's identifier:
	// "llvm-link" after linking, the input's name otherwise).
	Ident string
	// LL and BC name the files written: the textual IR, the bitcode.
	LL, BC string
	// Warn receives LLVM's warnings, one line each (nil: dropped).
	Warn func(string)
}

// Link links or reads modules in a helper and writes the result.
func (p *Pool) Link(ctx context.Context, r LinkRequest) error {
	mode := "dis"
	if r.Link {
		mode = "link"
	}
	f := [][]byte{[]byte(mode), []byte(r.Ident), []byte(r.LL), []byte(r.BC)}
	for _, in := range r.Inputs {
		if err := rereadable(in); err != nil {
			return err
		}
		f = append(f, []byte(in))
	}
	_, err := p.do(ctx, nil, frame(opLink, f...), r.Warn)
	return err
}

// rereadable refuses an input a helper cannot open as this process would:
// a pipe, FIFO or device (the helper would read it a second time, or
// block), or a name that reaches this process's own descriptors
// (/dev/stdin, /dev/fd/N, /proc/self/fd/N: the helper's own, and its
// standard input is its request pipe). Callers read such inputs once
// themselves (sycldev copies them to its work directory).
func rereadable(name string) error {
	switch Stream(name) {
	case NotStream:
		return nil
	case StreamPipe:
		return fmt.Errorf("%s: not a regular file (a pipe or device): the LLVM helper cannot read it", name)
	}
	return fmt.Errorf("%s: names this process's own descriptor: the LLVM helper cannot read it", name)
}

// StreamKind says why an input cannot be opened again by another process.
type StreamKind int

const (
	NotStream           StreamKind = iota // a regular file (or a name that does not stat, or a directory)
	StreamPipe                            // a pipe, FIFO or device
	StreamOwnDescriptor                   // a regular file reached through this process's descriptors
)

// Stream reports whether name is an input that cannot be mapped or read a
// second time (by a helper, llvm-link or a later step): anything but a
// regular file after symlinks, or a name that reaches one of this
// process's descriptors (OwnDescriptor) even when it is a regular file.
// Names that do not stat and directories are not streams: opening them
// reports what is wrong.
func Stream(name string) StreamKind {
	st, err := os.Stat(name)
	switch {
	case err != nil || st.IsDir():
		return NotStream
	case !st.Mode().IsRegular():
		return StreamPipe
	case OwnDescriptor(name):
		return StreamOwnDescriptor
	}
	return NotStream
}

// OwnDescriptor reports whether name, or a symlink on the way to its file
// (at most 40, as the kernel follows), is /dev/stdin or under /dev/fd or
// /proc: a name that reaches one of this process's descriptors, which a
// helper or a child opening it would take for its own.
func OwnDescriptor(name string) bool {
	for range 40 {
		abs, err := filepath.Abs(name)
		if err != nil {
			return false
		}
		if abs == "/dev/stdin" || strings.HasPrefix(abs, "/dev/fd/") || strings.HasPrefix(abs, "/proc/") {
			return true
		}
		link, err := os.Readlink(abs)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(abs), link)
		}
		name = link
	}
	return false
}

// Assemble is llvm-as: textual IR (name is its file name) to bitcode,
// verified.
func (p *Pool) Assemble(ctx context.Context, name string, text []byte) ([]byte, error) {
	f, err := p.do(ctx, nil, frame(opAssemble, []byte(name), text), nil)
	if err != nil {
		return nil, err
	}
	return f[0], nil
}

// CodegenRequest is "llc -mtriple=Triple [-mcpu=CPU] -filetype=obj" on
// Text, with LLVM command-line Options (e.g. --spirv-ext=+all).
type CodegenRequest struct {
	Name, Triple, CPU, Features string
	Text                        []byte
	Options                     []string
	// Warn receives LLVM's warnings, one line each (nil: dropped).
	Warn func(string)
}

// Codegen generates an object file (SPIR-V for spirv* triples).
//
// LLVM 22's SPIR-V backend must not see two modules' MachineFunctions at
// one address (spirv.go says why and how a helper avoids it). The helper
// says, with each SPIR-V object, whether it may generate more: it retires
// after about 64 modules, or after one where its checks do not hold, and
// a helper whose check fails before a module answers "retry" and the
// module goes to a fresh one. Other targets reuse helpers.
func (p *Pool) Codegen(ctx context.Context, r CodegenRequest) ([]byte, error) {
	req := frame(opCodegen, []byte(r.Name), r.Text, []byte(r.Triple), []byte(r.CPU), []byte(r.Features))
	for try := 0; ; try++ {
		ctl := ctlKeep
		f, err := p.doThen(ctx, r.Options, req, r.Warn, func(h *helper, f [][]byte, err error) bool {
			ctl = h.errCtl
			if err == nil && len(f) == 2 && len(f[1]) == 1 {
				ctl = f[1][0]
			}
			return ctl != ctlKeep
		})
		if err != nil {
			return nil, err
		}
		if len(f) != 2 {
			return nil, errors.New("llvmpool: malformed codegen response")
		}
		if ctl != ctlRetry {
			return f[0], nil
		}
		// a fresh helper never answers retry to its first module
		if try > p.cfg.Helpers+1 {
			return nil, errors.New("llvmpool: no helper could generate SPIR-V safely")
		}
	}
}
