package cache

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nginxConf is a WebDAV PUT server rooted at data/, as in docs/cache.md.
// master_process off keeps one process (no switch to an unprivileged user
// when run as root); all paths are under the prefix (-p).
const nginxConf = `daemon off;
master_process off;
worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events { worker_connections 64; }
http {
    access_log access.log;
    client_body_temp_path client_body;
    proxy_temp_path proxy;
    fastcgi_temp_path fastcgi;
    uwsgi_temp_path uwsgi;
    scgi_temp_path scgi;
    client_max_body_size 1g;
    server {
        listen 127.0.0.1:%d;
        root data;
        location / {
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }
    }
}
`

// startNginx runs nginx on a free loopback port and returns its base URL
// and document root. It skips the test if nginx is not installed, unless
// OFFLOAD_KIT_REQUIRE_NGINX is set (CI installs the Debian package nginx).
func startNginx(t *testing.T) (base, root string) {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"} {
			if _, serr := os.Stat(p); serr == nil {
				bin, err = p, nil
				break
			}
		}
	}
	if err != nil {
		if os.Getenv("OFFLOAD_KIT_REQUIRE_NGINX") != "" {
			t.Fatal("nginx not found (Debian: apt-get install nginx)")
		}
		t.Skip("nginx not found (Debian: apt-get install nginx)")
	}
	if out, _ := exec.Command(bin, "-V").CombinedOutput(); !bytes.Contains(out, []byte("with-http_dav_module")) {
		t.Skipf("%s lacks the WebDAV module", bin)
	}
	prefix := t.TempDir()
	root = filepath.Join(prefix, "data")
	require.NoError(t, os.MkdirAll(root, 0o755))
	var lastErr string
	for range 5 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		conf := filepath.Join(prefix, "nginx.conf")
		require.NoError(t, os.WriteFile(conf, fmt.Appendf(nil, nginxConf, port), 0o644))
		var out bytes.Buffer
		cmd := exec.Command(bin, "-p", prefix+"/", "-c", conf, "-e", filepath.Join(prefix, "error.log"))
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		base = fmt.Sprintf("http://127.0.0.1:%d", port)
		if waitHTTP(base, exited) {
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-exited
			})
			return base, root
		}
		cmd.Process.Kill()
		<-exited
		elog, _ := os.ReadFile(filepath.Join(prefix, "error.log"))
		lastErr = out.String() + string(elog)
		if !strings.Contains(lastErr, "in use") {
			break
		}
	}
	t.Fatalf("nginx did not start:\n%s", lastErr)
	return "", ""
}

// waitHTTP polls until the server answers or exits.
func waitHTTP(base string, exited <-chan struct{}) bool {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		if resp, err := client.Get(base + "/ac/probe"); err == nil {
			resp.Body.Close()
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func TestNginx(t *testing.T) {
	base, root := startNginx(t)
	const size = 256 << 10
	var w warnings
	a := openCache(t, Options{Dir: t.TempDir(), Remote: base, Warn: w.warn})

	t.Run("miss insert hit locally", func(t *testing.T) {
		assert.False(t, getEntry(t, a, 1, size).OK)
		putEntry(t, a, 1, size)
		hit := getEntry(t, a, 1, size)
		assert.True(t, hit.OK)
		assert.False(t, hit.Remote)
		s := a.Stats()
		assert.Equal(t, int64(1), s.Uploads)
		assert.Zero(t, s.RemoteErrors, w.all())

		// The server holds the Bazel layout.
		ac, err := os.ReadFile(filepath.Join(root, "ac", testKey(1).String()))
		require.NoError(t, err)
		_, err = unmarshalManifest(ac)
		assert.NoError(t, err)
		blob, err := os.ReadFile(filepath.Join(root, "cas", hexSum(payload(1, "image", size))))
		require.NoError(t, err)
		assert.Equal(t, payload(1, "image", size), blob)
	})

	t.Run("second machine hits through the remote", func(t *testing.T) {
		b := openCache(t, Options{Dir: t.TempDir(), Remote: base})
		hit := getEntry(t, b, 1, size)
		assert.True(t, hit.OK)
		assert.True(t, hit.Remote)
		hit = getEntry(t, b, 1, size)
		assert.True(t, hit.OK)
		assert.False(t, hit.Remote, "populated locally")
		assert.False(t, getEntry(t, b, 99, size).OK, "404 is a miss")
		s := b.Stats()
		assert.Equal(t, Stats{Lookups: 3, LocalHits: 1, RemoteHits: 1, Misses: 1, Downloaded: s.Downloaded}, s)
		assert.Greater(t, s.Downloaded, int64(size))
	})

	t.Run("corrupt remote blob is a miss", func(t *testing.T) {
		putEntry(t, a, 2, size)
		p := filepath.Join(root, "cas", hexSum(payload(2, "image", size)))
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		data[size/2] ^= 0x55
		require.NoError(t, os.WriteFile(p, data, 0o644))

		var wc warnings
		c := openCache(t, Options{Dir: t.TempDir(), Remote: base, Warn: wc.warn})
		assert.False(t, getEntry(t, c, 2, size).OK)
		s := c.Stats()
		assert.Equal(t, int64(1), s.Corrupt)
		assert.Equal(t, int64(1), s.Misses)
		assert.Zero(t, s.RemoteErrors)
		require.Len(t, wc.all(), 2)
		assert.Contains(t, wc.all()[0], "plain http")
		assert.Contains(t, wc.all()[1], "SHA-256")

		// Machine a's upload trusts the server's copy (HEAD 200, right
		// size), but c, which saw the bad copy, replaces it when it
		// inserts its own result after running the link.
		putEntry(t, a, 2, size)
		assert.False(t, getEntry(t, openCache(t, Options{Dir: t.TempDir(), Remote: base}), 2, size).OK)
		putEntry(t, c, 2, size)
		assert.True(t, getEntry(t, openCache(t, Options{Dir: t.TempDir(), Remote: base}), 2, size).OK)

		// A truncated copy fails HEAD's size check, so any upload repairs it.
		require.NoError(t, os.WriteFile(p, data[:10], 0o644))
		putEntry(t, a, 2, size)
		assert.True(t, getEntry(t, openCache(t, Options{Dir: t.TempDir(), Remote: base}), 2, size).OK)
	})

	t.Run("empty output file", func(t *testing.T) {
		src := t.TempDir()
		empty := writeTestFile(t, filepath.Join(src, "empty"), nil)
		before := a.Stats().RemoteErrors
		require.NoError(t, a.Put(context.Background(), testKey(50), Entry{Files: map[string]string{"empty": empty}}))
		assert.Equal(t, before, a.Stats().RemoteErrors, w.all())
		b := openCache(t, Options{Dir: t.TempDir(), Remote: base})
		out := filepath.Join(t.TempDir(), "e")
		hit, err := b.Get(context.Background(), testKey(50), map[string]string{"empty": out})
		require.NoError(t, err)
		assert.True(t, hit.Remote)
		assert.FileExists(t, out)
	})

	t.Run("concurrent machines", func(t *testing.T) {
		done := make(chan struct{})
		for m := range 4 {
			go func() {
				defer func() { done <- struct{}{} }()
				c, err := Open(Options{Dir: t.TempDir(), Remote: base})
				if !assert.NoError(t, err) {
					return
				}
				defer c.Close()
				for i := range 5 {
					putEntry(t, c, 10+i, 4096)
					putEntry(t, c, 20+m, 4096)
				}
				assert.Zero(t, c.Stats().RemoteErrors)
			}()
		}
		for range 4 {
			<-done
		}
		c := openCache(t, Options{Dir: t.TempDir(), Remote: base})
		for _, i := range []int{10, 11, 12, 13, 14, 20, 21, 22, 23} {
			assert.True(t, getEntry(t, c, i, 4096).OK, "entry %d", i)
		}
		assert.Equal(t, int64(9), c.Stats().RemoteHits)
	})
}
