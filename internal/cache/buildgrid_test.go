package cache

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/offload-kit/offload-kit/internal/testutil/buildgrid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

// startBuildGrid runs BuildGrid (instances "main" and "other") and waits
// until it answers GetCapabilities: its port may accept connections
// before its services do.
func startBuildGrid(t *testing.T) *buildgrid.Server {
	t.Helper()
	bg := buildgrid.Start(t)
	r, err := newRemote(Options{Remote: "grpc://" + bg.Addr + "/main", Timeout: time.Second})
	require.NoError(t, err)
	defer r.close()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, err := r.(*grpcRemote).batchLimit(context.Background())
		if err == nil {
			return bg
		}
		select {
		case <-bg.Done():
			t.Fatalf("BuildGrid ended: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("BuildGrid does not answer GetCapabilities: %v", err)
		}
	}
}

// streamed returns how many blobs c moved through ByteStream.
func streamed(c *Cache) int64 { return c.remote.(*grpcRemote).streamed.Load() }

// checkout writes a project's link outputs under dir/build, as a build in
// one checkout would leave them.
func checkout(t *testing.T, dir string, i, size int) map[string]string {
	return map[string]string{
		"image":     writeTestFile(t, filepath.Join(dir, "build", "out.img"), payload(i, "image", size)),
		"image.map": writeTestFile(t, filepath.Join(dir, "build", "out.map"), payload(i, "map", 64)),
	}
}

func TestBuildGrid(t *testing.T) {
	bg := startBuildGrid(t)
	url := "grpc://" + bg.Addr + "/main"
	const size = 256 << 10
	ctx := context.Background()

	t.Run("two checkouts share entries through the server", func(t *testing.T) {
		root := t.TempDir()
		coA, coB := filepath.Join(root, "checkout-a"), filepath.Join(root, "checkout-b")
		var wa, wb warnings
		a := openCache(t, Options{Dir: filepath.Join(root, "cache-a"), Remote: url, Warn: wa.warn})
		b := openCache(t, Options{Dir: filepath.Join(root, "cache-b"), Remote: url, Warn: wb.warn})

		assert.False(t, getEntry(t, a, 1, size).OK)
		require.NoError(t, a.Put(ctx, testKey(1), Entry{Files: checkout(t, coA, 1, size), Stderr: []byte("warning 1\n")}))
		sa := a.Stats()
		assert.Equal(t, int64(1), sa.Uploads, wa.all())
		assert.Zero(t, sa.RemoteErrors, wa.all())
		assert.Greater(t, sa.Uploaded, int64(size))

		outB := map[string]string{"image": filepath.Join(coB, "build", "out.img"), "image.map": filepath.Join(coB, "build", "out.map")}
		require.NoError(t, os.MkdirAll(filepath.Join(coB, "build"), 0o755))
		hit, err := b.Get(ctx, testKey(1), outB)
		require.NoError(t, err)
		assert.True(t, hit.OK, wb.all())
		assert.True(t, hit.Remote, "a remote hit")
		assert.Equal(t, "warning 1\n", string(hit.Stderr))
		for name, p := range outB {
			want, err := os.ReadFile(filepath.Join(coA, "build", filepath.Base(p)))
			require.NoError(t, err)
			got, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, got), "%s differs between the checkouts", name)
		}
		hit = getEntry(t, b, 1, size)
		assert.True(t, hit.OK)
		assert.False(t, hit.Remote, "populated locally")
		sb := b.Stats()
		assert.Equal(t, Stats{Lookups: 2, LocalHits: 1, RemoteHits: 1, Downloaded: sb.Downloaded}, sb, wb.all())
		assert.Greater(t, sb.Downloaded, int64(size))
		require.Len(t, wb.all(), 1)
		assert.Contains(t, wb.all()[0], "plaintext gRPC")
	})

	t.Run("misses", func(t *testing.T) {
		var w warnings
		c := openCache(t, Options{Dir: t.TempDir(), Remote: url, Warn: w.warn})
		assert.False(t, getEntry(t, c, 99, size).OK, "NOT_FOUND is a miss")
		// The instance name is part of the address: "other" has its own
		// action cache.
		o := openCache(t, Options{Dir: t.TempDir(), Remote: "grpc://" + bg.Addr + "/other", Warn: w.warn})
		assert.False(t, getEntry(t, o, 1, size).OK, "another instance's entry")
		for _, s := range []Stats{c.Stats(), o.Stats()} {
			assert.Equal(t, int64(1), s.Misses)
			assert.Zero(t, s.RemoteErrors, w.all())
			assert.False(t, s.RemoteDown)
		}
	})

	t.Run("read-only", func(t *testing.T) {
		ro := openCache(t, Options{Dir: t.TempDir(), Remote: url, RemoteReadOnly: true})
		assert.True(t, getEntry(t, ro, 1, size).OK, "reads the server")
		putEntry(t, ro, 3, size)
		assert.Zero(t, ro.Stats().Uploads)
		assert.Zero(t, ro.Stats().Uploaded)
		c := openCache(t, Options{Dir: t.TempDir(), Remote: url})
		assert.False(t, getEntry(t, c, 3, size).OK, "never uploaded")
	})

	t.Run("large blobs go through ByteStream", func(t *testing.T) {
		const big = 6<<20 + 5 // over BuildGrid's 4 MiB batch limit
		a := openCache(t, Options{Dir: t.TempDir(), Remote: url})
		putEntry(t, a, 4, big)
		assert.Equal(t, int64(1), a.Stats().Uploads)
		assert.Equal(t, int64(1), streamed(a), "the 6 MiB image is written, the map batched")
		b := openCache(t, Options{Dir: t.TempDir(), Remote: url})
		hit := getEntry(t, b, 4, big)
		assert.True(t, hit.OK)
		assert.True(t, hit.Remote)
		assert.Equal(t, int64(1), streamed(b))
		assert.Greater(t, b.Stats().Downloaded, int64(big))
		// Uploading again finds the blobs present (FindMissingBlobs).
		putEntry(t, b, 4, big)
		assert.Equal(t, int64(1), streamed(b))
	})

	t.Run("forged and corrupt entries are rejected", func(t *testing.T) {
		g := openCache(t, Options{Dir: t.TempDir(), Remote: url}).remote.(*grpcRemote)
		// Entry 1's manifest stored under key 5: bound to another key.
		var buf bytes.Buffer
		found, _, err := g.getAC(ctx, testKey(1), &buf, maxManifestSize)
		require.NoError(t, err)
		require.True(t, found)
		require.NoError(t, g.putAC(ctx, testKey(5), buf.Bytes()))
		// Entry 1's manifest with its tool output altered and its binding
		// rewritten to key 6, which the MAC does not follow.
		var ar repb.ActionResult
		require.NoError(t, proto.Unmarshal(buf.Bytes(), &ar))
		ar.StderrRaw = []byte("clang: error: forged\n")
		ar.ExecutionMetadata.Worker = strings.Replace(ar.ExecutionMetadata.Worker, testKey(1).String(), testKey(6).String(), 1)
		forged, err := proto.Marshal(&ar)
		require.NoError(t, err)
		require.NoError(t, g.putAC(ctx, testKey(6), forged))

		var w warnings
		c := openCache(t, Options{Dir: t.TempDir(), Remote: url, Warn: w.warn})
		assert.False(t, getEntry(t, c, 5, size).OK)
		assert.False(t, getEntry(t, c, 6, size).OK)
		s := c.Stats()
		assert.Equal(t, int64(2), s.Corrupt)
		assert.Zero(t, s.RemoteErrors)
		assert.False(t, s.RemoteDown, "a lying server is not a failing one")
		all := strings.Join(w.all(), "\n")
		assert.Contains(t, all, "belongs to key "+testKey(1).String())
		assert.Contains(t, all, "MAC")

		// With a secret, only its holders' entries are accepted.
		team := []byte("team secret")
		putEntry(t, openCache(t, Options{Dir: t.TempDir(), Remote: url, Secret: team}), 7, size)
		assert.False(t, getEntry(t, openCache(t, Options{Dir: t.TempDir(), Remote: url}), 7, size).OK, "no secret")
		assert.True(t, getEntry(t, openCache(t, Options{Dir: t.TempDir(), Remote: url, Secret: team}), 7, size).OK, "same secret")
	})

	t.Run("a server that goes away is marked down", func(t *testing.T) {
		putEntry(t, openCache(t, Options{Dir: t.TempDir(), Remote: url}), 8, size)
		bg.Stop()
		dir := t.TempDir()
		var w warnings
		c := openCache(t, Options{Dir: dir, Remote: url, Warn: w.warn})
		start := time.Now()
		assert.False(t, getEntry(t, c, 8, size).OK)
		assert.Less(t, time.Since(start), 4*DefaultTimeout)
		s := c.Stats()
		assert.Equal(t, int64(1), s.RemoteErrors)
		assert.True(t, s.RemoteDown)
		assert.Contains(t, strings.Join(w.all(), "\n"), "GetActionResult")
		rec, err := os.ReadFile(filepath.Join(dir, layoutVersion, remoteDownFile))
		require.NoError(t, err)
		assert.Equal(t, url+"\n", string(rec))
		putEntry(t, c, 9, size)
		assert.Equal(t, int64(1), c.Stats().RemoteErrors, "not contacted again")

		// Another process sharing the directory skips the remote.
		d := openCache(t, Options{Dir: dir, Remote: url})
		assert.True(t, d.Stats().RemoteDown)
		assert.True(t, getEntry(t, d, 9, size).OK, "the local cache still works")
		assert.Zero(t, d.Stats().RemoteErrors)
	})
}
