package hardening

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/stretchr/testify/require"
)

// TestKillMidway starts writing commands on a 1 GiB sparse input, waits
// until the hidden temporary output ".<name>.tmp-*" exists and is being
// written, then signals the tool, and checks that the final output name
// never exists half-written.
//
// SIGKILL cannot be handled, so the temporary file stays behind (the test
// records this; nothing else can be promised without O_TMPFILE+linkat).
// SIGINT is handled (cli.Signals): the tool must exit 130 promptly and
// remove its temporary file. TestKillInFlight does the same on real data.
func TestKillMidway(t *testing.T) {
	bin := toolPath(t, "offload-packager")
	dir := t.TempDir()
	// Sparse, and small enough that a tool ignoring SIGINT finishes (and is
	// caught by the "final output exists" check) without writing much.
	const imgSize = 1 << 30
	img := filepath.Join(dir, "img.o")
	sparse(t, img, []byte("\x7fELF"), 0, nil, imgSize)
	hv := offload.HeaderV1(&offload.Image{ImageKind: 1, OffloadKind: 1,
		Strings: []offload.KV{{Key: "triple", Value: "x86_64-unknown-linux-gnu"}, {Key: "arch", Value: "generic"}}}, imgSize)
	pkgPath := filepath.Join(dir, "big.pkg")
	sparse(t, pkgPath, hv, 0, nil, int64(len(hv))+imgSize)
	host := filepath.Join(repoRoot, "elfembed/testdata/hello-x86_64-linux-gnu.o")

	cases := []struct {
		name  string
		final string // output name inside out/
		args  func(out string) []string
	}{
		{"create", "pkg.bin", func(out string) []string {
			return []string{"create", "-o", filepath.Join(out, "pkg.bin"), "--image=file=" + img + ",triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp"}
		}},
		{"extract", "img.o", func(out string) []string {
			return []string{"extract", pkgPath, "--image=kind=openmp,file=" + filepath.Join(out, "img.o")}
		}},
		{"embed", "fat.o", func(out string) []string {
			return []string{"embed", "-o", filepath.Join(out, "fat.o"), host, pkgPath}
		}},
	}
	for _, c := range cases {
		for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT} {
			t.Run(c.name+"/"+sig.String(), func(t *testing.T) {
				out := t.TempDir()
				cmd := exec.Command(bin, c.args(out)...)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				require.NoError(t, cmd.Start())
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				tmp := waitForTemp(t, out, c.final, done)
				if tmp == "" {
					return
				}
				require.NoError(t, cmd.Process.Signal(sig))
				var exited bool
				select {
				case <-done:
					exited = true
				case <-time.After(3 * time.Second):
					cmd.Process.Kill()
					<-done
				}
				left := tree(t, out)
				var temps []string
				for _, p := range left {
					if strings.HasPrefix(p, ".") {
						temps = append(temps, p)
					}
				}
				_, finalErr := os.Lstat(filepath.Join(out, c.final))
				switch sig {
				case syscall.SIGKILL:
					if finalErr == nil {
						t.Errorf("the final output %s exists after SIGKILL", c.final)
					}
					if len(temps) > 0 {
						t.Logf("after SIGKILL the hidden temporary remains, as expected: %v", temps)
					}
				case syscall.SIGINT:
					switch {
					case !exited:
						t.Errorf("still running 3 s after SIGINT (stderr %q)", stderr.String())
					case cmd.ProcessState.ExitCode() != 130:
						t.Errorf("exit status %v after SIGINT, want 130 (final output exists: %v)", cmd.ProcessState, finalErr == nil)
					case finalErr == nil:
						t.Errorf("the final output %s exists after SIGINT", c.final)
					}
					if len(temps) > 0 {
						t.Errorf("after SIGINT the temporary output remains: %v (stderr %q)", temps, stderr.String())
					}
				}
			})
		}
	}

	// A blocked stdout (a pipe nobody reads) must not stop SIGINT.
	t.Run("create-stdout-blocked/SIGINT", func(t *testing.T) {
		cmd := exec.Command(bin, "create", "-o", "-", "--image=file="+img+",triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp")
		r, w, err := os.Pipe()
		require.NoError(t, err)
		defer r.Close()
		cmd.Stdout = w
		require.NoError(t, cmd.Start())
		w.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		time.Sleep(300 * time.Millisecond) // fills the 64 KiB pipe and blocks
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		select {
		case <-done:
			// The write cannot be woken (stdout is a blocking descriptor):
			// after the grace period the tool ends itself by the signal.
			if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !(ws.Signaled() && ws.Signal() == syscall.SIGINT) && ws.ExitStatus() != 130 {
				t.Errorf("exit status %v after SIGINT; want 130 or death by SIGINT", cmd.ProcessState)
			}
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("create writing to a blocked pipe ignores SIGINT (killed after 3 s)")
		}
	})
}

// waitForTemp polls out for the hidden temporary of final until it has
// data; "" (and the test skipped or failed) if the tool ended first.
func waitForTemp(t *testing.T, out, final string, done chan error) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("the tool finished before it could be interrupted (%v): %v", err, tree(t, out))
			return ""
		default:
		}
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "."+final+".tmp-") {
				if fi, err := e.Info(); err == nil && fi.Size() > 0 {
					return e.Name()
				}
			}
			if e.Name() == final {
				t.Errorf("the final name %s appeared before the output was complete", final)
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("no temporary output appeared in %s: %v", out, tree(t, out))
	return ""
}
