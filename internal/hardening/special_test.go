package hardening

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSpecialFileInputs gives non-regular files as inputs: an endless
// character device, a directory. Each must fail with one error line,
// in bounded time and memory (an input that is not a regular file is read
// into memory, so its size must be capped).
func TestSpecialFileInputs(t *testing.T) {
	bin := toolPath(t, "offload-packager")
	for _, in := range []string{"/dev/zero", "/tmp"} {
		for _, sub := range [][]string{{"dump"}, {"extract"}, {"dump", "--json"}} {
			t.Run(strings.Join(sub, "-")+filepath.Clean(in), func(t *testing.T) {
				if _, err := os.Stat(in); err != nil {
					t.Skip(err)
				}
				dir := t.TempDir()
				args := append(append([]string{bin}, sub...), in)
				res := runGuarded(guard{Dir: dir, Timeout: 10 * time.Second}, args...)
				stderr := strings.TrimSuffix(string(res.Stderr), "\n")
				switch {
				case res.TimedOut:
					t.Errorf("%v: still running after 10 s", args)
				case crashed(res.Stderr):
					t.Errorf("%v: crashed: %s", args, head(res.Stderr, 2))
				case res.Code != 1 || strings.Count(stderr, "\n") != 0 || !strings.HasPrefix(stderr, "offload-packager: error: ") || !strings.Contains(stderr, in):
					t.Errorf("%v: exit %d, stderr %q; want 1 and one error line naming the input", args, res.Code, stderr)
				}
				if res.MaxRSS > cliRSSMiB<<20 {
					t.Errorf("%v: max RSS %d MiB", args, res.MaxRSS>>20)
				}
				if got := tree(t, dir); len(got) > 0 {
					t.Errorf("left %v", got)
				}
			})
		}
	}
}

// TestSignalWhileBlocked: a tool blocked opening a FIFO that has no writer
// (as any Unix tool would be) must still die on SIGTERM and SIGINT; the
// signal.NotifyContext in internal/cli must not turn them into no-ops.
func TestSignalWhileBlocked(t *testing.T) {
	bin := toolPath(t, "offload-packager")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o644))
			cmd := exec.Command(bin, "dump", fifo)
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			time.Sleep(300 * time.Millisecond)
			require.NoError(t, cmd.Process.Signal(sig))
			select {
			case <-done:
				if cmd.ProcessState.ExitCode() == 0 {
					t.Errorf("exit 0 after %v", sig)
				}
			case <-time.After(3 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Errorf("dump blocked on a FIFO ignores %v (killed after 3 s)", sig)
			}
		})
	}
}
