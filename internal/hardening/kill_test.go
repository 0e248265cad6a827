package hardening

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/stretchr/testify/require"
)

// bigData is one real (non-sparse) 1 GiB offload package per test run:
// an OpenMP v1 header, then 1 GiB of pseudo-random bytes (every block
// differs, so nothing is a hole and no file system can share blocks).
var bigData struct {
	once sync.Once
	dir  string
	pkg  string // the package; its image is the 1 GiB
	err  error
}

const bigImage = 1 << 30

func bigPackage(t *testing.T) string {
	bigData.once.Do(func() {
		d, err := os.MkdirTemp("", "hardening-kill-*")
		if err != nil {
			bigData.err = err
			return
		}
		bigData.dir = d
		bigData.pkg = filepath.Join(d, "big.pkg")
		bigData.err = writeBigPackage(bigData.pkg)
	})
	require.NoError(t, bigData.err)
	return bigData.pkg
}

func writeBigPackage(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	hv := offload.HeaderV1(&offload.Image{ImageKind: 1, OffloadKind: 1,
		Strings: []offload.KV{{Key: "triple", Value: "x86_64-unknown-linux-gnu"}, {Key: "arch", Value: "generic"}}}, bigImage)
	if _, err := f.Write(hv); err != nil {
		return err
	}
	buf := make([]byte, 4<<20)
	x := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < bigImage/len(buf); i++ {
		for j := 0; j < len(buf); j += 8 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			binary.LittleEndian.PutUint64(buf[j:], x)
		}
		if _, err := f.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// bigBundle is a 1 GiB uncompressed bundle (host entry empty, one HIP
// entry holding the package), made once by the tool under test.
var bigBundleOnce struct {
	once sync.Once
	path string
	err  error
}

func bigBundle(t *testing.T) string {
	pkg := bigPackage(t)
	bin := toolPath(t, "clang-offload-bundler")
	bigBundleOnce.once.Do(func() {
		p := filepath.Join(bigData.dir, "big.hipfb")
		out, err := exec.Command(bin, "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a",
			"-input=/dev/null", "-input="+pkg, "-output="+p).CombinedOutput()
		if err != nil {
			bigBundleOnce.err = fmt.Errorf("%v: %s", err, out)
		}
		bigBundleOnce.path = p
	})
	require.NoError(t, bigBundleOnce.err)
	return bigBundleOnce.path
}

// TestKillInFlight interrupts extract, bundle and unbundle of real 1 GiB
// data while the copy is in flight, at three points (the temporary output
// just started, half written, 90% written), with SIGINT and SIGTERM. The
// tool must exit 130 or 143 within 3 s and leave the output directory
// empty: no hidden temporary file, no final output.
func TestKillInFlight(t *testing.T) {
	pkg := bigPackage(t)
	hipfb := bigBundle(t)
	t.Cleanup(func() {
		if bigData.dir != "" {
			os.RemoveAll(bigData.dir)
		}
	})
	cases := []struct {
		name  string
		tool  string
		final string
		args  func(out string) []string
	}{
		{"extract", "offload-packager", "img.o", func(out string) []string {
			return []string{"extract", pkg, "--image=kind=openmp,file=" + filepath.Join(out, "img.o")}
		}},
		{"bundle", "clang-offload-bundler", "b.hipfb", func(out string) []string {
			return []string{"-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a",
				"-input=/dev/null", "-input=" + pkg, "-output=" + filepath.Join(out, "b.hipfb")}
		}},
		{"unbundle", "clang-offload-bundler", "dev.o", func(out string) []string {
			return []string{"-unbundle", "-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a",
				"-input=" + hipfb, "-output=" + filepath.Join(out, "dev.o")}
		}},
	}
	points := []struct {
		name string
		frac float64 // of 1 GiB written to the temporary output
	}{{"early", 0}, {"mid", 0.5}, {"late", 0.9}}
	for _, c := range cases {
		bin := toolPath(t, c.tool)
		for _, p := range points {
			for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
				t.Run(c.name+"/"+p.name+"/"+sig.String(), func(t *testing.T) {
					killAt(t, bin, c.args, c.final, int64(p.frac*bigImage), sig)
				})
			}
		}
	}
}

// killAt runs the command until its temporary output holds at least at
// bytes, signals it, and checks the exit status and the output directory.
// A run that finishes before the point is reached is retried (the copy is
// fast on some file systems); three misses fail the test.
func killAt(t *testing.T, bin string, args func(string) []string, final string, at int64, sig syscall.Signal) {
	for try := 0; try < 3; try++ {
		out := t.TempDir()
		cmd := exec.Command(bin, args(out)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		if !waitForSize(out, final, at, done) {
			<-done
			t.Logf("try %d: finished (exit %d) before %d bytes were written; retrying", try, cmd.ProcessState.ExitCode(), at)
			continue
		}
		sent := time.Now()
		require.NoError(t, cmd.Process.Signal(sig))
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("still running 3 s after %v (stderr %q)", sig, stderr.String())
		}
		if want := 128 + int(sig); cmd.ProcessState.ExitCode() != want {
			t.Errorf("exit status %v after %v; want %d (stderr %q)", cmd.ProcessState, sig, want, stderr.String())
		}
		if left := tree(t, out); len(left) > 0 {
			t.Errorf("left behind after %v: %v", sig, left)
		}
		t.Logf("exited %v after the signal", time.Since(sent).Round(time.Millisecond))
		return
	}
	t.Fatalf("the tool always finished before %d bytes were written", at)
}

// waitForSize polls out for the hidden temporary ".<final>.tmp-*" until
// it holds at least n bytes (and at least one); false if the process ended
// first.
func waitForSize(out, final string, n int64, done chan struct{}) bool {
	n = max(n, 1)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return false
		default:
		}
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "."+final+".tmp-") {
				if fi, err := e.Info(); err == nil && fi.Size() >= n {
					return true
				}
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	return false
}

// TestSignalBlockedFIFO: an output FIFO whose reader never reads blocks
// the tool's write; SIGTERM must still end it promptly with 143 (the
// output is closed from the signal path, which wakes the write), and
// nothing is created beside the FIFO.
func TestSignalBlockedFIFO(t *testing.T) {
	bin := toolPath(t, "offload-packager")
	dir := t.TempDir()
	img := filepath.Join(dir, "img.o")
	require.NoError(t, os.WriteFile(img, append([]byte("\x7fELF"), make([]byte, 1<<20)...), 0o644))
	out := t.TempDir()
	fifo := filepath.Join(out, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	cmd := exec.Command(bin, "create", "-o", fifo, "--image=file="+img+",triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp")
	require.NoError(t, cmd.Start())
	r, err := os.OpenFile(fifo, os.O_RDONLY, 0) // a reader that never reads
	require.NoError(t, err)
	defer r.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	time.Sleep(300 * time.Millisecond) // 64 KiB fill the pipe; the write blocks
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-done:
		if got := cmd.ProcessState.ExitCode(); got != 143 {
			t.Errorf("exit status %v after SIGTERM; want 143", cmd.ProcessState)
		}
	case <-time.After(3 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("a write blocked on a FIFO ignores SIGTERM")
	}
	require.Equal(t, []string{"fifo"}, tree(t, out))
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	require.True(t, fi.Mode()&os.ModeNamedPipe != 0, "the FIFO was replaced: %v", fi.Mode())
}
