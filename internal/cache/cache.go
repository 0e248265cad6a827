package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/offload-kit/offload-kit/internal/atomicfile"
)

// Options configures a [Cache]. The linker-wrapper driver fills it from
// --cache-dir / --cache-max-size / --cache-remote and their environment
// variables; this package reads neither.
type Options struct {
	// Dir is the local cache directory (required). It is created if
	// missing and may be shared by concurrent processes.
	Dir string
	// MaxSize bounds the bytes stored under Dir (file sizes, not disk
	// blocks). 0 means unlimited. When an insert pushes the directory over
	// MaxSize, least-recently-used entries are removed until it is at 90%
	// of MaxSize.
	MaxSize int64
	// Remote is the base URL of a Bazel HTTP remote cache, e.g.
	// "http://cache.example:8080" or "https://user:pass@host/prefix", or
	// the address of a Remote Execution API gRPC cache with an optional
	// instance name, e.g. "grpc://127.0.0.1:8980" (plaintext) or
	// "grpcs://cache.example/main" (TLS; instance "main"). Credentials in
	// the URL are sent as basic auth. Empty disables it.
	Remote string
	// RemoteHeaders are added to every remote request (as gRPC metadata,
	// names lowercased, for grpc:// and grpcs://), e.g.
	// {"Authorization": "Bearer <token>"}.
	RemoteHeaders map[string]string
	// RemoteReadOnly disables uploads (typical for developer machines
	// reading a cache that CI populates).
	RemoteReadOnly bool
	// Timeout is the longest the remote may go without progress: to
	// connect (TLS included), to answer a request, and between bytes of a
	// transfer in either direction. A transfer that keeps moving may take
	// as long as it needs. 0 means DefaultTimeout.
	Timeout time.Duration
	// RemoteRetry is how long a remote that failed (network error,
	// timeout, unexpected status) is skipped: for the rest of the process,
	// and by later processes sharing Dir, which find the failure recorded
	// in Dir/v1/remote-down. 0 means DefaultRemoteRetry.
	RemoteRetry time.Duration
	// Secret, if set, keys the MAC that binds every entry to its key, so
	// that only holders of the secret can write entries this Cache
	// accepts (a remote server without it cannot forge them). Every
	// reader and writer of a shared cache needs the same secret.
	Secret []byte
	// MaxBlobSize bounds the size an entry may claim for one output file.
	// 0 means DefaultMaxBlobSize. MaxSize, when set, bounds it too.
	MaxBlobSize int64
	// Identity selects how [Cache.ToolIdentity] identifies executables.
	Identity IdentityMode
	// Warn, if set, receives one line per remote failure or corrupt entry.
	// Such events never fail a link.
	Warn func(msg string)
	// Now, if set, replaces time.Now for access times (used by tests).
	Now func() time.Time
	// SharedGroup, if set (a group name or number), allows a cache
	// directory shared by the members of that group: it and its
	// sub-directories must be group-owned by it, setgid and mode 2770 (no
	// access for others). Without it, the directory must be owned by the
	// user and writable by no one else. Either way, every directory on
	// the path to it must be owned by root or the user and not writable
	// by others (unless sticky, as /tmp). Open refuses any other directory
	// with an [*UnsafeError] (docs/cache.md, "Trust model").
	SharedGroup string
}

// Defaults for [Options].
const (
	DefaultTimeout     = 5 * time.Second
	DefaultRemoteRetry = 5 * time.Minute
	DefaultMaxBlobSize = 4 << 30
)

// Cache is a local directory of device-link results, optionally backed by a
// remote cache. Its methods are safe for concurrent use, and several Cache
// values (in one or many processes) may share a directory. A nil *Cache is
// a disabled cache: Get always misses and Put does nothing.
type Cache struct {
	opt    Options
	root   string // Dir/v1
	group  *sharedGroup
	remote remote
	st     counters

	mu        sync.Mutex
	tools     map[string]string // ToolIdentity memo, keyed by path+size+mtime
	badRemote map[[32]byte]bool // blobs whose remote copy failed a check

	// remoteDown is set once the remote failed (or was found recorded as
	// down): it is not contacted again by this Cache.
	remoteDown atomic.Bool
	// injectWrite, if set (tests), is called before each write into the
	// store; an error it returns is treated as the write's error.
	injectWrite func(path string) error
}

// Layout under Options.Dir.
const (
	layoutVersion = "v1"
	acDir         = "ac"  // manifests, ac/<2 hex>/<64 hex key>
	casDir        = "cas" // blobs, cas/<2 hex>/<64 hex sha256>
	tmpDir        = "tmp" // partial writes, renamed into ac/ or cas/
)

// Open prepares the cache directory and the remote client.
func Open(opt Options) (*Cache, error) {
	if opt.Dir == "" {
		return nil, errors.New("cache: no directory given")
	}
	if opt.MaxSize < 0 {
		return nil, fmt.Errorf("cache: negative maximum size %d", opt.MaxSize)
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.RemoteRetry <= 0 {
		opt.RemoteRetry = DefaultRemoteRetry
	}
	if opt.MaxBlobSize <= 0 {
		opt.MaxBlobSize = DefaultMaxBlobSize
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	c := &Cache{opt: opt, root: filepath.Join(opt.Dir, layoutVersion), tools: map[string]string{}, badRemote: map[[32]byte]bool{}}
	g, err := lookupGroup(opt.SharedGroup)
	if err != nil {
		return nil, err
	}
	c.group = g
	// The directory, the directories leading to it and the store's
	// directories must be writable by no one but us (or the shared
	// group): see trust.go.
	if err := c.prepareDir(); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if opt.Remote != "" {
		// A bad remote URL must not cost the local cache: warn and go on
		// without the remote.
		r, err := newRemote(opt)
		if err != nil {
			c.warnf("%v; using the local cache only", err)
			return c, nil
		}
		c.remote = r
		if w := r.plainWarning(); w != "" {
			c.warnf("%s", w)
		}
		c.checkRemoteDown()
	}
	return c, nil
}

// Close releases idle remote connections.
func (c *Cache) Close() error {
	if c != nil && c.remote != nil {
		c.remote.close()
	}
	return nil
}

// Stats counts cache events since Open. The driver prints it under -v.
type Stats struct {
	Lookups      int64 // Get calls
	LocalHits    int64 // hits served from Dir
	RemoteHits   int64 // hits fetched from the remote (then stored in Dir)
	Misses       int64
	Puts         int64 // entries inserted into Dir
	Uploads      int64 // entries uploaded to the remote
	Corrupt      int64 // entries or blobs rejected by a format, size or hash check
	RemoteErrors int64 // failed remote requests (network errors, unexpected status)
	Evicted      int64 // entries (and unreferenced blobs) removed by Trim
	EvictedBytes int64
	Downloaded   int64 // bytes fetched from the remote
	Uploaded     int64 // bytes sent to the remote
	// RemoteDown is set when the remote failed in this process or was
	// recorded as down by another one within Options.RemoteRetry; it is
	// then not contacted.
	RemoteDown bool
}

// Hits returns LocalHits + RemoteHits.
func (s Stats) Hits() int64 { return s.LocalHits + s.RemoteHits }

// String formats the statistics on one line.
func (s Stats) String() string {
	down := ""
	if s.RemoteDown {
		down = "; remote skipped (down)"
	}
	return fmt.Sprintf("cache: %d lookups, %d hits (%d local, %d remote), %d misses; "+
		"%d inserts, %d uploads; %d corrupt, %d remote errors; %d evicted (%d bytes); "+
		"%d bytes downloaded, %d bytes uploaded%s",
		s.Lookups, s.Hits(), s.LocalHits, s.RemoteHits, s.Misses,
		s.Puts, s.Uploads, s.Corrupt, s.RemoteErrors, s.Evicted, s.EvictedBytes,
		s.Downloaded, s.Uploaded, down)
}

type counters struct {
	lookups, localHits, remoteHits, misses, puts, uploads, corrupt, remoteErrors,
	evicted, evictedBytes, downloaded, uploaded atomic.Int64
}

// Stats returns a snapshot of the counters.
func (c *Cache) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	s := &c.st
	return Stats{
		Lookups: s.lookups.Load(), LocalHits: s.localHits.Load(), RemoteHits: s.remoteHits.Load(),
		Misses: s.misses.Load(), Puts: s.puts.Load(), Uploads: s.uploads.Load(),
		Corrupt: s.corrupt.Load(), RemoteErrors: s.remoteErrors.Load(),
		Evicted: s.evicted.Load(), EvictedBytes: s.evictedBytes.Load(),
		Downloaded: s.downloaded.Load(), Uploaded: s.uploaded.Load(),
		RemoteDown: c.remote != nil && c.remoteDown.Load(),
	}
}

func (c *Cache) warnf(format string, args ...any) {
	if c.opt.Warn != nil {
		c.opt.Warn(fmt.Sprintf(format, args...))
	}
}

// ToolIdentity is [ToolIdentity] with Options.Identity, memoised per Cache
// by path, size and modification time, so a tool is hashed once per
// process.
func (c *Cache) ToolIdentity(path string) (string, error) {
	mode := IdentifyByContent
	if c != nil {
		mode = c.opt.Identity
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("cache: identify tool: %w", err)
	}
	memo := fmt.Sprintf("%s\x00%d\x00%d\x00%d", path, fi.Size(), fi.ModTime().UnixNano(), mode)
	if c != nil {
		c.mu.Lock()
		id, ok := c.tools[memo]
		c.mu.Unlock()
		if ok {
			return id, nil
		}
	}
	id, err := ToolIdentity(path, mode)
	if err == nil && c != nil {
		c.mu.Lock()
		c.tools[memo] = id
		c.mu.Unlock()
	}
	return id, err
}

func (c *Cache) acPath(k Key) string {
	s := k.String()
	return filepath.Join(c.root, acDir, s[:2], s)
}

func (c *Cache) casPath(sum [32]byte) string {
	s := hex.EncodeToString(sum[:])
	return filepath.Join(c.root, casDir, s[:2], s)
}

// commit renames a finished store file into place (atomicfile), creating
// its shard directory if an evictor removed it.
func (c *Cache) commit(f *atomicfile.File, final string) error {
	if err := c.mkdirAll(filepath.Dir(final)); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// touch records a use of path for LRU eviction. Modification time serves as
// access time (atime is unreliable under relatime/noatime).
func (c *Cache) touch(path string) {
	now := c.opt.Now()
	_ = os.Chtimes(path, now, now)
}

// Entry is what [Cache.Put] records for one job.
type Entry struct {
	// Files maps each output's logical name (see [File.Name]) to the path
	// holding its contents now.
	Files map[string]string
	// Stdout and Stderr are the tool's captured output, replayed on a hit
	// (at most 1 MiB each).
	Stdout, Stderr []byte
}

// Put inserts an entry under k: each file is copied into the content-
// addressed store, then the manifest is renamed into place, so readers never
// see a partial entry and concurrent inserts of one key are harmless. With a
// remote, the entry is then uploaded; upload failures are only counted and
// warned about. When MaxSize is set, Put ends with a [Cache.Trim].
//
// The error reports a local failure; the link itself has succeeded, so the
// driver should warn and continue.
func (c *Cache) Put(ctx context.Context, k Key, e Entry) error {
	if c == nil {
		return nil
	}
	if len(e.Stdout) > maxInlineOutput || len(e.Stderr) > maxInlineOutput {
		return fmt.Errorf("cache: put %s: tool output too large to cache", k)
	}
	names := make([]string, 0, len(e.Files))
	for name := range e.Files {
		if err := validName(name); err != nil {
			return fmt.Errorf("cache: put %s: %w", k, err)
		}
		names = append(names, name)
	}
	if len(names) > maxFiles {
		return fmt.Errorf("cache: put %s: too many files", k)
	}
	sort.Strings(names)
	m := &manifest{Stdout: e.Stdout, Stderr: e.Stderr}
	blobPaths := make([]string, 0, len(names))
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cache: put %s: %w", k, err)
		}
		mf, err := c.storeBlob(ctx, e.Files[name])
		if err != nil {
			return fmt.Errorf("cache: put %s: %s: %w", k, name, err)
		}
		mf.Name = name
		m.Files = append(m.Files, mf)
		blobPaths = append(blobPaths, c.casPath(mf.Hash))
	}
	data := m.seal(k, c.opt.Secret)
	if err := c.writeFile(ctx, c.acPath(k), data); err != nil {
		return fmt.Errorf("cache: put %s: %w", k, err)
	}
	// Blobs first, then the manifest: the manifest is never older than
	// its blobs, so Trim sees entries, not stray blobs, as the LRU unit.
	for _, p := range blobPaths {
		c.touch(p)
	}
	c.touch(c.acPath(k))
	c.st.puts.Add(1)

	if c.remote != nil && !c.opt.RemoteReadOnly && !c.remoteDown.Load() {
		if err := c.upload(ctx, k, m, data); err != nil {
			c.st.remoteErrors.Add(1)
			c.warnf("cache: upload %s: %v", k, err)
			if ctx.Err() == nil {
				c.markRemoteDown()
			}
		} else {
			c.st.uploads.Add(1)
		}
	}
	if c.opt.MaxSize > 0 {
		if _, err := c.Trim(ctx); err != nil {
			c.warnf("%v", err)
		}
	}
	return nil
}

// storeBlob hashes src and copies it into the store unless a blob with
// that hash is already there (then nothing is written).
func (c *Cache) storeBlob(ctx context.Context, src string) (manifestFile, error) {
	var mf manifestFile
	in, err := os.Open(src)
	if err != nil {
		return mf, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return mf, err
	}
	if !fi.Mode().IsRegular() {
		return mf, fmt.Errorf("%s: not a regular file", src)
	}
	mf.Executable = fi.Mode()&0o111 != 0
	h := sha256.New()
	if mf.Size, err = io.Copy(h, in); err != nil {
		return mf, fmt.Errorf("read %s: %w", src, err)
	}
	h.Sum(mf.Hash[:0])
	final := c.casPath(mf.Hash)
	if st, err := os.Stat(final); err == nil && st.Mode().IsRegular() && st.Size() == mf.Size {
		return mf, nil // already stored (checked on every restore); Put touches it
	}
	err = c.withRoom(ctx, mf.Size, func() error {
		if _, err := in.Seek(0, io.SeekStart); err != nil {
			return err
		}
		f, err := c.createStoreFile(final)
		if err != nil {
			return err
		}
		defer f.Abort()                   // no-op once committed
		n, err := io.Copy(f.Writer(), in) // file to file: copy_file_range
		if err == nil && n != mf.Size {
			err = fmt.Errorf("%s changed while it was stored", src)
		}
		if err != nil {
			return fmt.Errorf("copy %s: %w", src, err)
		}
		if err := c.commit(f, final); err != nil {
			return err
		}
		c.touch(final) // the newest blob, so a later makeRoom keeps it
		return nil
	})
	return mf, err
}

// createStoreFile starts writing the store file final through atomicfile,
// its temporary in the store's tmp directory (which the evictor sweeps),
// with mode 0666 less the umask, so the members of a shared group can read
// it (the directories keep everyone else out: trust.go).
func (c *Cache) createStoreFile(final string) (*atomicfile.File, error) {
	dir := filepath.Join(c.root, tmpDir)
	if c.injectWrite != nil {
		if err := c.injectWrite(dir); err != nil {
			return nil, &fs.PathError{Op: "write", Path: dir, Err: err}
		}
	}
	return atomicfile.CreateIn(dir, final, 0o666)
}

// writeFile atomically replaces path with data.
func (c *Cache) writeFile(ctx context.Context, path string, data []byte) error {
	return c.withRoom(ctx, int64(len(data)), func() error {
		f, err := c.createStoreFile(path)
		if err != nil {
			return err
		}
		defer f.Abort()
		if _, err := f.Writer().Write(data); err != nil {
			return err
		}
		return c.commit(f, path)
	})
}

// isNoSpace reports a full disk or an exhausted quota.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// withRoom runs write; if it fails because the disk is full, it evicts
// least-recently-used entries to free at least need bytes (plus a tenth of
// the store, so the next insert does not hit the wall at once) and runs
// write once more.
func (c *Cache) withRoom(ctx context.Context, need int64, write func() error) error {
	err := write()
	if !isNoSpace(err) {
		return err
	}
	if freed := c.makeRoom(ctx, need); freed == 0 {
		return err
	}
	return write()
}

// Hit is the result of [Cache.Get].
type Hit struct {
	OK     bool // the outputs were restored
	Remote bool // the entry came from the remote cache
	// Stdout and Stderr are the tool's recorded output, to be replayed.
	Stdout, Stderr []byte
}

// MaxReplay bounds the bytes [Hit.Replay] returns.
const MaxReplay = 1 << 20

// Replay returns the recorded stdout and stderr, as they should be shown on
// a hit: control characters other than newline and tab (ESC, CR, BEL, C1
// controls, bidirectional overrides) and invalid UTF-8 are rendered as
// visible escapes (\x1b, \r, \u202e), so replayed output cannot move the
// cursor, recolour the terminal or overwrite earlier lines; and the result
// is cut at [MaxReplay] bytes with a note saying so.
func (h Hit) Replay() []byte {
	var out []byte
	for _, b := range [][]byte{h.Stdout, h.Stderr} {
		out = appendEscaped(out, b)
		if len(out) > MaxReplay {
			break
		}
	}
	if len(out) > MaxReplay {
		cut := MaxReplay
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = append(out[:cut:cut], fmt.Sprintf("\n[cache: replayed output truncated at %d bytes]\n", MaxReplay)...)
	}
	return out
}

// appendEscaped appends b with unsafe characters escaped (see Hit.Replay).
func appendEscaped(dst, b []byte) []byte {
	for len(b) > 0 && len(dst) <= MaxReplay {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			dst = fmt.Appendf(dst, "\\x%02x", b[0])
		case r == '\n' || r == '\t':
			dst = append(dst, b[0])
		case r == '\r':
			dst = append(dst, `\r`...)
		case r < 0x20 || r == 0x7f:
			dst = fmt.Appendf(dst, "\\x%02x", r)
		case r >= 0x80 && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f:
			dst = fmt.Appendf(dst, "\\u%04x", r)
		default:
			dst = append(dst, b[:n]...)
		}
		b = b[n:]
	}
	return dst
}

// Get looks k up, locally first and then in the remote (storing a remote
// hit locally), and on a hit writes each requested output to its path:
// outputs maps logical names to destination paths. Every blob is checked
// against its SHA-256 while it is copied, and the destinations are only
// renamed into place once all of them verified, so on a miss no destination
// has been touched. Corrupt or incomplete entries and remote failures are
// misses. The error reports a failure to write a destination.
func (c *Cache) Get(ctx context.Context, k Key, outputs map[string]string) (Hit, error) {
	if c == nil {
		return Hit{}, nil
	}
	c.st.lookups.Add(1)
	hit, err := c.getLocal(k, outputs)
	if err != nil || hit.OK {
		if hit.OK {
			c.st.localHits.Add(1)
		}
		return hit, err
	}
	if c.remote != nil && !c.remoteDown.Load() && c.fetch(ctx, k, outputs) {
		hit, err = c.getLocal(k, outputs)
		if hit.OK {
			hit.Remote = true
			c.st.remoteHits.Add(1)
			return hit, nil
		}
		if err != nil {
			return hit, err
		}
	}
	c.st.misses.Add(1)
	return Hit{}, nil
}

// readManifest reads the local entry for k and checks that it is bound to
// k (a manifest copied from another key's file is corrupt).
func (c *Cache) readManifest(k Key) (*manifest, error) {
	f, err := os.Open(c.acPath(k))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestSize+1))
	if err != nil {
		return nil, err
	}
	return openManifest(data, k, c.opt.Secret)
}

// getLocal restores outputs from the local store.
func (c *Cache) getLocal(k Key, outputs map[string]string) (Hit, error) {
	m, err := c.readManifest(k)
	if errors.Is(err, ErrCorrupt) {
		c.st.corrupt.Add(1)
		c.warnf("cache: %s: %v; removed", k, err)
		_ = os.Remove(c.acPath(k))
		return Hit{}, nil
	}
	if err != nil {
		return Hit{}, nil // absent (or unreadable): a miss
	}
	type pending struct {
		f   *atomicfile.File
		dst string
	}
	var done []pending
	cleanup := func() {
		for _, p := range done {
			p.f.Abort() // no-op once committed
		}
	}
	names := make([]string, 0, len(outputs))
	for name := range outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	var used []string
	for _, name := range names {
		mf, ok := m.file(name)
		if !ok {
			cleanup()
			c.warnf("cache: %s: entry has no output %q", k, name)
			return Hit{}, nil
		}
		dst := outputs[name]
		f, ok, err := c.restoreBlob(k, mf, dst)
		if err != nil || !ok {
			cleanup()
			return Hit{}, err
		}
		done = append(done, pending{f, dst})
		used = append(used, c.casPath(mf.Hash))
	}
	for i, p := range done {
		if err := p.f.Commit(); err != nil {
			cleanup()
			for _, q := range done[:i] {
				os.Remove(q.dst)
			}
			return Hit{}, fmt.Errorf("cache: restore %s: %w", p.dst, err)
		}
	}
	for _, p := range used {
		c.touch(p)
	}
	c.touch(c.acPath(k))
	return Hit{OK: true, Stdout: m.Stdout, Stderr: m.Stderr}, nil
}

// restoreBlob copies a blob to a sealed atomicfile output at dst (its
// temporary beside dst, never written in place), verifying its size and
// hash; the caller commits it. ok is false (with a nil error) if the blob is
// missing or corrupt; a corrupt blob is deleted.
func (c *Cache) restoreBlob(k Key, mf manifestFile, dst string) (out *atomicfile.File, ok bool, err error) {
	src := c.casPath(mf.Hash)
	in, err := os.Open(src)
	if err != nil {
		return nil, false, nil // evicted or never stored
	}
	defer in.Close()
	out, err = atomicfile.CreateIn(filepath.Dir(dst), dst, 0o666)
	if err != nil {
		return nil, false, fmt.Errorf("cache: restore %s: %w", dst, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out.Writer(), h), io.LimitReader(in, mf.Size+1))
	if err == nil && mf.Executable {
		err = out.Chmod(0o777 &^ 0o022)
	}
	if err == nil {
		err = out.Seal()
	}
	if err != nil {
		out.Abort()
		return nil, false, fmt.Errorf("cache: restore %s: %w", dst, err)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	if n != mf.Size || sum != mf.Hash {
		out.Abort()
		c.st.corrupt.Add(1)
		c.warnf("cache: %s: blob %x for %q fails its hash check; removed", k, mf.Hash, mf.Name)
		_ = os.Remove(src)
		return nil, false, nil
	}
	return out, true, nil
}
