package cache

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// staleTemp is the age after which a leftover temporary file (from a
// crashed process) is removed by Trim.
const staleTemp = time.Hour

// TrimResult describes one [Cache.Trim].
type TrimResult struct {
	Before, After int64 // bytes under Dir before and after
	Removed       int   // entries and unreferenced blobs removed
}

// usage is a scan of the store.
type usage struct {
	total   int64
	entries []lruItem           // manifests and unreferenced blobs
	refs    map[string]int      // blob path → referencing manifests
	sizes   map[string]int64    // blob path → size
	blobsOf map[string][]string // manifest path → blob paths
}

type lruItem struct {
	path  string
	mtime time.Time
	size  int64
	blob  bool // an unreferenced blob rather than a manifest
}

// Size returns the bytes currently stored under the cache directory.
func (c *Cache) Size(ctx context.Context) (int64, error) {
	if c == nil {
		return 0, nil
	}
	u, err := c.scan(ctx, false, false)
	return u.total, err
}

// Trim removes least-recently-used entries while the directory holds more
// than Options.MaxSize bytes, down to 90% of it, and removes temporary files
// left by crashed processes. The unit of eviction is an entry (a manifest);
// its blobs go with it unless another entry still references them, and
// blobs no manifest references are evicted by their own access time.
//
// Trim takes no lock: concurrent trims and inserts from other processes
// are safe (removals are idempotent, readers verify what they read), at
// worst evicting slightly more than needed or turning an entry being
// inserted into a later miss.
func (c *Cache) Trim(ctx context.Context) (TrimResult, error) {
	if c == nil {
		return TrimResult{}, nil
	}
	// A cheap pass (stat only) first; manifests are parsed only when
	// something must go.
	u, err := c.scan(ctx, true, false)
	res := TrimResult{Before: u.total, After: u.total}
	if err != nil || c.opt.MaxSize <= 0 || u.total <= c.opt.MaxSize {
		return res, err
	}
	if u, err = c.scan(ctx, true, true); err != nil {
		return res, err
	}
	res.After = u.total
	err = c.evictTo(ctx, u, c.opt.MaxSize-c.opt.MaxSize/10, &res)
	return res, err
}

// makeRoom evicts least-recently-used entries until the store is at least
// need bytes (plus a tenth) below its current size, for a write that failed
// on a full disk. It returns the bytes freed.
func (c *Cache) makeRoom(ctx context.Context, need int64) int64 {
	u, err := c.scan(ctx, true, true)
	if err != nil {
		return 0
	}
	res := TrimResult{Before: u.total, After: u.total}
	_ = c.evictTo(ctx, u, u.total-need-u.total/10, &res)
	return res.Before - res.After
}

// evictTo removes entries of u, oldest first, until res.After <= target.
func (c *Cache) evictTo(ctx context.Context, u usage, target int64, res *TrimResult) error {
	sort.Slice(u.entries, func(i, j int) bool {
		a, b := u.entries[i], u.entries[j]
		if !a.mtime.Equal(b.mtime) {
			return a.mtime.Before(b.mtime)
		}
		if a.blob != b.blob {
			return a.blob // unreferenced blobs before entries of the same age
		}
		return a.path < b.path
	})
	remove := func(p string, size int64) {
		err := os.Remove(p)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			res.After -= size
			c.st.evictedBytes.Add(size)
		}
	}
	for _, e := range u.entries {
		if res.After <= target {
			break
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("cache: trim: %w", err)
		}
		remove(e.path, e.size)
		res.Removed++
		c.st.evicted.Add(1)
		for _, b := range u.blobsOf[e.path] {
			if u.refs[b]--; u.refs[b] == 0 {
				remove(b, u.sizes[b])
			}
		}
	}
	return nil
}

// scan walks the store, optionally removing stale temporary files and
// parsing manifests to build the eviction list.
func (c *Cache) scan(ctx context.Context, removeStale, trim bool) (usage, error) {
	u := usage{refs: map[string]int{}, sizes: map[string]int64{}, blobsOf: map[string][]string{}}
	now := c.opt.Now()
	type file struct {
		path  string
		size  int64
		mtime time.Time
	}
	list := func(sub string) ([]file, error) {
		var out []file
		err := filepath.WalkDir(filepath.Join(c.root, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // removed concurrently
				}
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil // removed concurrently
			}
			out = append(out, file{p, fi.Size(), fi.ModTime()})
			return nil
		})
		return out, err
	}
	tmps, err := list(tmpDir)
	if err != nil {
		return u, fmt.Errorf("cache: scan: %w", err)
	}
	for _, f := range tmps {
		if removeStale && now.Sub(f.mtime) > staleTemp && os.Remove(f.path) == nil {
			continue
		}
		u.total += f.size
	}
	blobs, err := list(casDir)
	if err != nil {
		return u, fmt.Errorf("cache: scan: %w", err)
	}
	for _, f := range blobs {
		u.total += f.size
		u.sizes[f.path] = f.size
	}
	// The memos (stat/, memo/) count too and are evicted by their own
	// age, like unreferenced blobs: they are only a speed-up.
	var memos []file
	for _, sub := range []string{statDir, memoDir} {
		fs, err := list(sub)
		if err != nil {
			return u, fmt.Errorf("cache: scan: %w", err)
		}
		for _, f := range fs {
			u.total += f.size
		}
		memos = append(memos, fs...)
	}
	acs, err := list(acDir)
	if err != nil {
		return u, fmt.Errorf("cache: scan: %w", err)
	}
	for _, f := range acs {
		u.total += f.size
		if !trim {
			continue
		}
		u.entries = append(u.entries, lruItem{path: f.path, mtime: f.mtime, size: f.size})
		data, err := os.ReadFile(f.path)
		if err != nil {
			continue
		}
		m, err := unmarshalManifest(data)
		if err != nil {
			continue // evicted by its own age (and rejected by every lookup)
		}
		for _, mf := range m.Files {
			b := c.casPath(mf.Hash)
			if _, ok := u.sizes[b]; ok {
				u.refs[b]++
				u.blobsOf[f.path] = append(u.blobsOf[f.path], b)
			}
		}
	}
	if trim {
		for _, f := range memos {
			u.entries = append(u.entries, lruItem{path: f.path, mtime: f.mtime, size: f.size, blob: true})
		}
		for _, f := range blobs {
			if u.refs[f.path] == 0 {
				u.entries = append(u.entries, lruItem{path: f.path, mtime: f.mtime, size: f.size, blob: true})
			}
		}
	}
	return u, nil
}
