// Package buildgrid runs a real BuildGrid server (bgd, an REAPI cache)
// for the remote-cache tests of internal/cache and
// internal/driver/linkwrap. scripts/install-deps.sh installs it at Bin.
// The package stays below gRPC (only internal/cache may import it): it
// waits for the server with plain TCP dials, and a test that needs a
// gRPC-level answer checks that itself after Start.
package buildgrid

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/internal/run"
)

// Bin is where scripts/install-deps.sh installs BuildGrid's bgd.
const Bin = "/opt/offload-kit/buildgrid-0.4.4/bin/bgd"

// conf serves the REAPI cache services (ActionCache, CAS, ByteStream,
// Capabilities) of two instances, "main" and "other", each with its own
// action cache over one disk CAS.
const conf = `server:
  - !channel
    address: "127.0.0.1:%d"
    insecure-mode: true
authorization:
  method: none
storages:
  - !disk-storage &cas
    path: %s
caches:
  - !lru-action-cache &main-ac
    storage: *cas
    max-cached-refs: 4096
    allow-updates: true
    cache-failed-actions: false
  - !lru-action-cache &other-ac
    storage: *cas
    max-cached-refs: 4096
    allow-updates: true
    cache-failed-actions: false
instances:
  - name: main
    services:
      - !action-cache
        cache: *main-ac
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
  - name: other
    services:
      - !action-cache
        cache: *other-ac
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
monitoring:
  enabled: false
thread-pool-size: 16
`

// Server is a running BuildGrid serving instances "main" and "other"
// (grpc://<Addr>/main, grpc://<Addr>/other).
type Server struct {
	Addr   string // 127.0.0.1:port
	cancel context.CancelFunc
	done   chan struct{}
}

// Stop kills the server with its process group and waits for it to end.
// Calling it again does nothing.
func (s *Server) Stop() {
	s.cancel()
	<-s.done
}

// Done is closed once the server has ended.
func (s *Server) Done() <-chan struct{} { return s.done }

// Start runs bgd on a free loopback port, trying another port when the
// chosen one was taken meanwhile, and returns once the port accepts
// connections; the test's cleanup stops it. A missing bgd (at Bin, else
// on $PATH) skips the test, unless OFFLOAD_KIT_REQUIRE_BUILDGRID or
// OFFLOAD_KIT_REQUIRE_NGINX (CI's flag for the remote-cache servers) is
// set: then it fails it.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Bin
	if _, err := os.Stat(bin); err != nil {
		p, ok := run.FindProgram("bgd", nil, os.Getenv("PATH"))
		if !ok {
			const msg = "BuildGrid not found at " + Bin + " or on PATH (scripts/install-deps.sh installs it)"
			if os.Getenv("OFFLOAD_KIT_REQUIRE_BUILDGRID") != "" || os.Getenv("OFFLOAD_KIT_REQUIRE_NGINX") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
		bin = p
	}
	dir := t.TempDir()
	var lastLog string
	for range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		s, log, err := start(bin, dir, port)
		if err != nil {
			t.Fatal(err)
		}
		if s != nil {
			t.Cleanup(s.Stop)
			return s
		}
		lastLog = log
		if !strings.Contains(log, "in use") && !strings.Contains(log, "Failed to bind") {
			break
		}
	}
	t.Fatalf("BuildGrid did not start:\n%s", lastLog)
	return nil
}

// freePort is a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs bgd on port and waits up to a minute for the port to accept
// connections. A server that ends or never listens is stopped, and its
// log returned with a nil Server.
func start(bin, dir string, port int) (*Server, string, error) {
	confPath := filepath.Join(dir, "buildgrid.yml")
	if err := os.WriteFile(confPath, fmt.Appendf(nil, conf, port, filepath.Join(dir, "cas")), 0o644); err != nil {
		return nil, "", err
	}
	logPath := filepath.Join(dir, "bgd.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), cancel: cancel, done: make(chan struct{})}
	go func() {
		// A Timeout puts bgd in a process group of its own, which
		// cancelling kills (SIGTERM, then SIGKILL half a second later).
		// An idle server makes no progress: the limit is far beyond any
		// test.
		run.Exec{}.Run(ctx, &run.Cmd{
			Path: bin, Args: []string{"bgd", "server", "start", confPath},
			Dir: dir, Stdout: logf, Stderr: logf, Timeout: 24 * time.Hour,
		})
		logf.Close()
		close(s.done)
	}()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case <-s.done:
			deadline = time.Time{}
			continue
		default:
		}
		if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
			c.Close()
			return s, "", nil
		}
	}
	s.Stop()
	log, _ := os.ReadFile(logPath)
	return nil, string(log), nil
}
