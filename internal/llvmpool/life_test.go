package llvmpool

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helperTestHooks: a helper of a test with LLVMPOOL_TEST_SLOW set takes an
// hour over each request; with LLVMPOOL_TEST_SPIRV_REUSE set it generates
// SPIR-V without the LLVM 22 workaround (spirv.go), with
// LLVMPOOL_TEST_SPIRV_NO_ARENA its arena checks all fail.
func helperTestHooks() {
	if os.Getenv("LLVMPOOL_TEST_SLOW") != "" {
		requestHook = func() { time.Sleep(time.Hour) }
	}
	if os.Getenv("LLVMPOOL_TEST_SPIRV_REUSE") != "" {
		spirvPlainReuse = true
	}
	if os.Getenv("LLVMPOOL_TEST_SPIRV_NO_ARENA") != "" {
		spirvNoArena = true
	}
	if d, err := time.ParseDuration(os.Getenv("LLVMPOOL_TEST_SLEEP")); err == nil {
		requestHook = func() { time.Sleep(d) }
	}
}

// helperPids lists the pool's live helper processes.
func (p *Pool) helperPids() []int {
	var pids []int
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, g := range p.groups {
		g.mu.Lock()
		for h := range g.all {
			pids = append(pids, h.proc.Pid())
		}
		g.mu.Unlock()
	}
	return pids
}

// testParent is the main of this test binary run as a tool that uses a
// pool (LLVMPOOL_TEST_PARENT names what it does); it reports whether it
// ran.
//
//	busy a.bc b.bc: start 2 helpers, give each a request (slow under
//	  LLVMPOOL_TEST_SLOW), print "pids N M", wait forever;
//	replaced a.bc b.bc out: start a pool, print "ready", wait for a line on
//	  stdin (the test replaces this binary's file meanwhile), then link
//	  the inputs in a new pool's fresh helper; print "ok" or the error.
func testParent() bool {
	mode := os.Getenv("LLVMPOOL_TEST_PARENT")
	if mode == "" {
		return false
	}
	ctx := context.Background()
	args := os.Args[1:]
	switch mode {
	case "busy":
		p := New(Config{Helpers: 2})
		if err := p.Start(ctx); err != nil {
			fmt.Println("error:", err)
			return true
		}
		for i := 0; i < 2; i++ {
			go p.Link(ctx, LinkRequest{Link: true, Inputs: args[:2]})
		}
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if p.requests.Load() == 2 && len(p.helperPids()) == 2 {
				break
			}
		}
		time.Sleep(100 * time.Millisecond) // the requests reach the helpers
		fmt.Println("pids", strings.Trim(fmt.Sprint(p.helperPids()), "[]"))
		select {}
	case "replaced":
		p := New(Config{Helpers: 1})
		if err := p.Start(ctx); err != nil {
			fmt.Println("error:", err)
			return true
		}
		fmt.Println("ready")
		bufio.NewReader(os.Stdin).ReadString('\n')
		p.Close()
		q := New(Config{Helpers: 1})
		defer q.Close()
		if err := q.Link(ctx, LinkRequest{Link: true, Inputs: args[:2], LL: args[2]}); err != nil {
			fmt.Println("error:", err)
			return true
		}
		fmt.Println("ok")
	}
	return true
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// TestHelpersDieWithParent: SIGKILL a tool whose two helpers are busy with
// requests that would take an hour; the helpers are gone within a second
// (the parent-death signal; their input pipes close too, but a busy helper
// does not read them).
func TestHelpersDieWithParent(t *testing.T) {
	_, a, b := files(t)
	cmd := exec.Command(os.Args[0], a, b)
	cmd.Env = append(os.Environ(), "LLVMPOOL_TEST_PARENT=busy", "LLVMPOOL_TEST_SLOW=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	f := strings.Fields(line)
	require.Len(t, f, 3, "%q", line)
	var pids []int
	for _, s := range f[1:] {
		pid, err := strconv.Atoi(s)
		require.NoError(t, err)
		require.True(t, alive(pid))
		pids = append(pids, pid)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	killed := time.Now()
	for _, pid := range pids {
		for alive(pid) && time.Since(killed) < 5*time.Second {
			time.Sleep(10 * time.Millisecond)
		}
		assert.False(t, alive(pid), "helper %d outlived its SIGKILLed parent", pid)
	}
	assert.Less(t, time.Since(killed), time.Second, "helpers gone within a second")
}

// TestHelperRunsOriginalBinary: the tool's file is replaced (renamed
// over, as an upgrade does) while it runs; a helper started afterwards
// still runs the original build (it execs /proc/self/exe), and serves.
func TestHelperRunsOriginalBinary(t *testing.T) {
	dir, a, b := files(t)
	bin := filepath.Join(dir, "tool")
	src, err := os.Open(os.Args[0])
	require.NoError(t, err)
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	src.Close()
	require.NoError(t, err)
	require.NoError(t, dst.Close())

	outLL := filepath.Join(dir, "out.ll")
	cmd := exec.Command(bin, a, b, outLL)
	cmd.Env = append(os.Environ(), "LLVMPOOL_TEST_PARENT=replaced")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)

	// the upgrade: another program renamed over the tool's path
	next := filepath.Join(dir, "tool.new")
	require.NoError(t, os.WriteFile(next, []byte("#!/bin/sh\necho upgraded >&2\nexit 7\n"), 0o755))
	require.NoError(t, os.Rename(next, bin))

	_, err = in.Write([]byte("go\n"))
	require.NoError(t, err)
	line, err = r.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "ok\n", line)
	text, err := os.ReadFile(outLL)
	require.NoError(t, err)
	assert.Contains(t, string(text), "define spir_func i32 @helper")
}

// TestRequestTimeout: a helper that sends nothing for the timeout is
// killed, and its request fails with a *TimeoutError (sycldev names the
// input); the pool still serves afterwards with a fresh helper.
func TestRequestTimeout(t *testing.T) {
	_, a, b := files(t)
	t.Setenv("LLVMPOOL_TEST_SLOW", "1") // the helpers this test starts
	p := newPool(t, Config{Helpers: 1, Timeout: 300 * time.Millisecond})
	require.NoError(t, p.Start(context.Background()))
	pids := p.helperPids()
	start := time.Now()
	err := p.Link(context.Background(), LinkRequest{Link: true, Inputs: []string{a, b}})
	var te *TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.Equal(t, 300*time.Millisecond, te.Timeout)
	assert.Contains(t, err.Error(), "made no progress for 300ms and was killed (OFFLOAD_KIT_LLVM_TIMEOUT")
	require.Len(t, pids, 1)
	assert.Equal(t, pids[0], te.Pid)
	assert.False(t, alive(te.Pid))
	assert.Empty(t, p.helperPids(), "the killed helper left the pool")
}

func TestParseTimeout(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": DefaultTimeout, "600": 10 * time.Minute, "1.5": 1500 * time.Millisecond,
		"90s": 90 * time.Second, "10m": 10 * time.Minute, "0": -1, "off": -1,
	} {
		got, err := ParseTimeout(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"x", "-5", "-1s", "10 min"} {
		_, err := ParseTimeout(in)
		assert.ErrorContains(t, err, "OFFLOAD_KIT_LLVM_TIMEOUT=", in)
	}
	// a bad value fails each request with that message
	t.Setenv("OFFLOAD_KIT_LLVM_TIMEOUT", "soon")
	p := newPool(t, Config{Helpers: 1})
	_, err := p.Assemble(context.Background(), "x.ll", []byte(""))
	assert.ErrorContains(t, err, `OFFLOAD_KIT_LLVM_TIMEOUT="soon"`)
}

// TestConfigGetenv: the pool reads $OFFLOAD_KIT_LLVM_TIMEOUT, $MAKEFLAGS
// and $OFFLOAD_KIT_LLVM_JOBSERVER through Config.Getenv, the driver's
// environment, and not the process's.
func TestConfigGetenv(t *testing.T) {
	t.Setenv("OFFLOAD_KIT_LLVM_TIMEOUT", "")
	vars := map[string]string{"OFFLOAD_KIT_LLVM_TIMEOUT": "soon"}
	getenv := func(k string) string { return vars[k] }
	none := func(string) string { return "" }
	p := newPool(t, Config{Helpers: 1, Getenv: getenv})
	_, err := p.Assemble(context.Background(), "x.ll", []byte(""))
	assert.ErrorContains(t, err, `OFFLOAD_KIT_LLVM_TIMEOUT="soon"`)
	t.Setenv("OFFLOAD_KIT_LLVM_TIMEOUT", "soon")
	q := New(Config{Helpers: 1, Getenv: none})
	assert.NoError(t, q.timeoutErr, "the process's $OFFLOAD_KIT_LLVM_TIMEOUT")
	assert.Equal(t, DefaultTimeout, q.cfg.Timeout)

	makeflags, _ := fakeJobserver(t, 1)
	t.Setenv("MAKEFLAGS", makeflags)
	assert.Nil(t, jobserverFromEnv(none), "the process's $MAKEFLAGS")
	t.Setenv("MAKEFLAGS", "")
	vars["MAKEFLAGS"] = makeflags
	assert.NotNil(t, jobserverFromEnv(getenv))
	vars["OFFLOAD_KIT_LLVM_JOBSERVER"] = "0"
	assert.Nil(t, jobserverFromEnv(getenv))
}

// TestLinkRefusesStreams: a pipe, FIFO or /dev/stdin given to Link is
// refused at once with its name (a helper would block on it, or read its
// own request pipe); callers read such inputs themselves.
func TestLinkRefusesStreams(t *testing.T) {
	_, a, _ := files(t)
	fifo := filepath.Join(t.TempDir(), "f")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	p := newPool(t, Config{Helpers: 1})
	for _, in := range []string{"/dev/stdin", fifo, "/dev/fd/0"} {
		err := p.Link(context.Background(), LinkRequest{Link: true, Inputs: []string{a, in}})
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), in+": ", in)
	}
	assert.Zero(t, p.requests.Load(), "nothing reached a helper")
}

// fakeJobserver makes a jobserver FIFO holding tokens tokens and returns
// its MAKEFLAGS and a function counting the tokens in it now.
func fakeJobserver(t *testing.T, tokens int) (makeflags string, count func() int) {
	fifo := filepath.Join(t.TempDir(), "js")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	_, err = f.Write([]byte(strings.Repeat("+", tokens)))
	require.NoError(t, err)
	count = func() int {
		fd := int(f.Fd())
		n, err := unixFIONREAD(fd)
		require.NoError(t, err)
		return n
	}
	return "-j" + strconv.Itoa(tokens+1) + " --jobserver-auth=fifo:" + fifo, count
}

func unixFIONREAD(fd int) (int, error) {
	var n int32
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// TestJobserverBoundsHelpers: under make's jobserver with one token (make
// -j2), eight concurrent requests of a pool allowed four helpers run on at
// most two helpers: the first on the tool's own slot, one on the token.
// The token is back in the jobserver after Close. Without a jobserver the
// same pool runs four.
func TestJobserverBoundsHelpers(t *testing.T) {
	_, a, b := files(t)
	t.Setenv("LLVMPOOL_TEST_SLEEP", "150ms")
	peak := func(p *Pool) int {
		require.NoError(t, p.Start(context.Background()))
		stop := make(chan struct{})
		most := make(chan int)
		go func() {
			m := 0
			for {
				m = max(m, len(p.helperPids()))
				select {
				case <-stop:
					most <- m
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		}()
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				assert.NoError(t, p.Link(context.Background(), LinkRequest{Link: true, Inputs: []string{a, b}}))
			}()
		}
		wg.Wait()
		close(stop)
		return <-most
	}
	makeflags, tokens := fakeJobserver(t, 1)
	t.Setenv("MAKEFLAGS", makeflags)
	p := New(Config{Helpers: 4})
	assert.Equal(t, 2, peak(p), "one helper on the tool's slot, one on the token")
	require.NoError(t, p.Close())
	// a read that lost the race to an idle helper gives its token back
	// when it comes: soon, not necessarily before Close returns
	for end := time.Now().Add(2 * time.Second); tokens() != 1 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, 1, tokens(), "the token went back")

	t.Setenv("MAKEFLAGS", "")
	q := New(Config{Helpers: 4})
	defer q.Close()
	assert.Equal(t, 4, peak(q), "without a jobserver: Helpers")
}

// TestLinkWarnings: LLVM's warnings while linking a module of another
// triple come back to Warn, one line each, as LLVM prints them.
func TestLinkWarnings(t *testing.T) {
	dir, a, _ := files(t)
	xll := filepath.Join(dir, "x.ll")
	require.NoError(t, os.WriteFile(xll, []byte("target triple = \"x86_64-unknown-linux-gnu\"\ndefine i32 @f() {\n  ret i32 0\n}\n"), 0o644))
	p := newPool(t, Config{Helpers: 1})
	var got []string
	require.NoError(t, p.Link(context.Background(), LinkRequest{Link: true, Inputs: []string{a, xll}, Warn: func(l string) { got = append(got, l) }}))
	require.Len(t, got, 2)
	assert.Equal(t, "warning: Linking two modules of different data layouts: '"+xll+"' is '' whereas 'llvm-link' is '"+strings.Split(strings.Split(modA, "\"")[1], "\"")[0]+"'", got[0])
	assert.Equal(t, "warning: Linking two modules of different target triples: '"+xll+"' is 'x86_64-unknown-linux-gnu' whereas 'llvm-link' is 'spirv64-unknown-unknown'", got[1])
	got = nil
	require.NoError(t, p.Link(context.Background(), LinkRequest{Link: true, Inputs: []string{a}, Warn: func(l string) { got = append(got, l) }}))
	assert.Empty(t, got, "no stale warnings")
}

// TestJobserverRetiringHelpers: SPIR-V helpers end after each module, so
// helpers come and go; under a jobserver with no token left (the tool's
// own slot only) six concurrent SPIR-V codegens all finish, one helper at
// a time. A waiter for a token used to miss the first slot coming free and
// wait forever (two sycl-linkers under make -j2 hung).
func TestJobserverRetiringHelpers(t *testing.T) {
	makeflags, _ := fakeJobserver(t, 0)
	t.Setenv("MAKEFLAGS", makeflags)
	p := newPool(t, Config{Helpers: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	require.NoError(t, p.Start(ctx))
	var most atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			most.Store(max(most.Load(), int64(len(p.helperPids()))))
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obj, err := p.Codegen(ctx, CodegenRequest{Name: "a.ll", Text: []byte(modB), Triple: "spirv64"})
			assert.NoError(t, err)
			assert.NotEmpty(t, obj)
		}()
	}
	wg.Wait()
	close(stop)
	require.NoError(t, ctx.Err(), "the codegens hung")
	assert.Equal(t, int64(1), most.Load(), "one helper at a time")
}

// TestCloseWaitsForHelpers: Close returns once the helpers have exited
// (their input closed) and are reaped.
func TestCloseWaitsForHelpers(t *testing.T) {
	p := New(Config{Helpers: 2})
	p.Prestart(context.Background(), 2)
	for end := time.Now().Add(20 * time.Second); len(p.helperPids()) < 2 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	pids := p.helperPids()
	require.Len(t, pids, 2)
	require.NoError(t, p.Close())
	for _, pid := range pids {
		_, err := os.Stat("/proc/" + strconv.Itoa(pid))
		assert.True(t, os.IsNotExist(err), "helper %d not reaped after Close", pid)
	}
}
