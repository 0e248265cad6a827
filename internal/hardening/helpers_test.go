package hardening

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// repoRoot is the module root (this package is internal/hardening).
var repoRoot = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}()

// hostileDir is the committed corpus.
var hostileDir = filepath.Join(repoRoot, "testdata", "hostile")

// big reports whether the heavy tests are enabled.
func big() bool { return os.Getenv("OFFLOAD_KIT_BIG") == "1" }

// tools are the commands under test and the argv[0] personalities that
// are symlinks to them. A command that does not build yet (linker-wrapper
// and parts of the bundler are being written) is reported by toolPath, and
// the tests that need it skip with that reason.
var tools = []struct {
	pkg     string   // ./cmd/<pkg>
	aliases []string // symlinks created next to it
}{
	{"offload-packager", []string{"llvm-offload-binary", "clang-offload-packager", "clang-offload-bundler"}},
	{"linker-wrapper", []string{"clang-linker-wrapper"}},
	{"sycl-linker", []string{"clang-sycl-linker"}},
}

var (
	buildOnce sync.Once
	binDir    string
	buildErrs = map[string]string{} // tool or alias -> why it is missing
)

// buildTools builds every command once per test binary into a shared temp
// dir (removed by TestMain).
func buildTools() {
	buildOnce.Do(func() {
		d, err := os.MkdirTemp("", "hardening-bin-*")
		if err != nil {
			panic(err)
		}
		binDir = d
		var wg sync.WaitGroup
		var mu sync.Mutex
		for _, tl := range tools {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(d, tl.pkg), "./cmd/"+tl.pkg)
				cmd.Dir = repoRoot
				cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
				out, err := cmd.CombinedOutput()
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					msg := fmt.Sprintf("%s does not build: %v: %s", tl.pkg, err, firstLine(string(out)))
					buildErrs[tl.pkg] = msg
					for _, a := range tl.aliases {
						buildErrs[a] = msg
					}
					return
				}
				for _, a := range tl.aliases {
					if err := os.Symlink(tl.pkg, filepath.Join(d, a)); err != nil {
						buildErrs[a] = err.Error()
					}
				}
			}()
		}
		wg.Wait()
	})
}

// toolPath returns the path of a built tool or personality, or skips.
func toolPath(t testing.TB, name string) string {
	t.Helper()
	buildTools()
	if why, bad := buildErrs[name]; bad {
		t.Skipf("tool %s unavailable: %s", name, why)
	}
	return filepath.Join(binDir, name)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// proc is the outcome of one guarded subprocess.
type proc struct {
	Code     int // exit status; -1 if killed by a signal
	Signal   syscall.Signal
	Stdout   []byte
	Stderr   []byte
	Wall     time.Duration
	MaxRSS   int64 // bytes
	TimedOut bool
}

// guard bounds a subprocess.
type guard struct {
	Timeout time.Duration
	// AddressSpace is the RLIMIT_AS given to the child (ulimit -v). A Go
	// program needs about 1 GiB of address space before it allocates
	// anything, and inputs are memory-mapped, so callers add the input
	// size to the default.
	AddressSpace int64
	Dir          string
	Env          []string
	Stdin        []byte
}

const defaultAS = 2 << 30

// runGuarded runs argv under the guard and measures it.
func runGuarded(g guard, argv ...string) proc {
	if g.Timeout == 0 {
		g.Timeout = 20 * time.Second
	}
	if g.AddressSpace == 0 {
		g.AddressSpace = defaultAS
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.Timeout)
	defer cancel()
	// ulimit -v takes KiB; exec keeps the limit for the tool itself.
	sh := fmt.Sprintf(`ulimit -v %d && exec "$@"`, g.AddressSpace/1024)
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", sh, "sh"}, argv...)...)
	cmd.Dir = g.Dir
	cmd.Env = append(os.Environ(), g.Env...)
	cmd.WaitDelay = 2 * time.Second
	if g.Stdin != nil {
		cmd.Stdin = bytes.NewReader(g.Stdin)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	err := cmd.Run()
	p := proc{Stdout: so.Bytes(), Stderr: se.Bytes(), Wall: time.Since(start), TimedOut: ctx.Err() != nil}
	if cmd.ProcessState != nil {
		p.Code = cmd.ProcessState.ExitCode()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			p.MaxRSS = ru.Maxrss * 1024
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.Signal = ws.Signal()
		}
	} else if err != nil {
		p.Code = -2
		p.Stderr = append(p.Stderr, []byte(err.Error())...)
	}
	return p
}

// crashed reports a Go runtime crash or panic trace in stderr.
func crashed(stderr []byte) bool {
	for _, s := range []string{"panic:", "fatal error:", "goroutine ", "runtime.", "SIGSEGV"} {
		if bytes.Contains(stderr, []byte(s)) {
			return true
		}
	}
	return false
}

// tree lists every path under dir (relative, sorted), with "@" appended to
// symlinks and "/" to directories.
func tree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			rel += "@"
		case fi.IsDir():
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(parserChild(name))
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// quick returns n, or a smaller count under -short.
func quick(n int) int {
	if testing.Short() {
		return max(1, n/10)
	}
	return n
}

var _ = runtime.GOOS
