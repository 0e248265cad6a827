package cache

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// memoDir holds Memo's entries: Dir/v1/memo/<kind>/<xx>/<sha256 of key>.
const memoDir = "memo"

// maxMemo bounds a memoised value.
const maxMemo = 4 << 20

const memoMagic = "offload-kit memo v1\n"

// Memo returns the value SetMemo stored for kind and key, if every path it
// depends on still has the status (device, inode, size, modification and
// status-change times, type; or absence) it had then. It is for values a
// program derives from its arguments, environment (both in key) and files
// (the deps), such as the commands `clang -###` prints: they are kept
// across processes, as FileHash keeps content hashes, and are as
// trustworthy as the cache directory (docs/cache.md). Anything unexpected
// is a miss.
func (c *Cache) Memo(kind, key string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	data, err := os.ReadFile(c.memoPath(kind, key))
	if err != nil || len(data) > maxMemo+1<<20 {
		return nil, false
	}
	rest, ok := bytes.CutPrefix(data, []byte(memoMagic))
	if !ok {
		return nil, false
	}
	head, value, ok := bytes.Cut(rest, []byte("\n\n"))
	if !ok {
		return nil, false
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		q, stamp, ok := strings.Cut(sc.Text(), "\t")
		p, err := strconv.Unquote(q)
		if !ok || err != nil || stamp == "" || pathStamp(p) != stamp {
			return nil, false
		}
	}
	if sc.Err() != nil {
		return nil, false
	}
	return value, true
}

// SetMemo stores value for kind and key, depending on the paths in deps
// (files or directories, present or not). since is when the program that
// produced value started: if any dep changed after since, or within the
// file system's timestamp granularity before it (racyWindow), nothing is
// stored, as value may predate the change. Failures are silent: the memo
// is an optimisation.
func (c *Cache) SetMemo(kind, key string, deps []string, since time.Time, value []byte) {
	if c == nil || len(value) > maxMemo {
		return
	}
	var b bytes.Buffer
	b.WriteString(memoMagic)
	seen := map[string]bool{}
	for _, p := range deps {
		if seen[p] || strings.ContainsAny(p, "\x00") {
			continue
		}
		seen[p] = true
		st, err := os.Stat(p)
		if err == nil && (!st.ModTime().Before(since.Add(-racyWindow)) || !ctimeOf(st).Before(since.Add(-racyWindow))) {
			return
		}
		if err == nil {
			if lst, err := os.Lstat(p); err == nil && (!lst.ModTime().Before(since.Add(-racyWindow)) || !ctimeOf(lst).Before(since.Add(-racyWindow))) {
				return
			}
		}
		stamp := pathStamp(p)
		if stamp == "" {
			return
		}
		fmt.Fprintf(&b, "%s\t%s\n", strconv.Quote(p), stamp)
	}
	b.WriteString("\n")
	b.Write(value)
	path := c.memoPath(kind, key)
	_ = c.mkdirAll(filepath.Dir(path))
	_ = c.writeFile(context.Background(), path, b.Bytes())
}

func (c *Cache) memoPath(kind, key string) string {
	s := sha256.Sum256([]byte(key))
	h := hex.EncodeToString(s[:])
	return filepath.Join(c.root, memoDir, kind, h[:2], h)
}

// pathStamp identifies the status of a path and of what it points to:
// "absent", or the stamps of lstat and stat (type, device, inode, size,
// times); "" when it cannot be told (never stored, never matched).
func pathStamp(p string) string {
	lst, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "absent"
	}
	if err != nil {
		return ""
	}
	s, ok := anyStamp(lst)
	if !ok {
		return ""
	}
	if lst.Mode()&fs.ModeSymlink != 0 {
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return s + " -> absent"
		case err != nil:
			return ""
		}
		t, ok := anyStamp(st)
		if !ok {
			return ""
		}
		s += " -> " + t
	}
	return s
}

// Now is the cache's clock (for SetMemo's since).
func (c *Cache) Now() time.Time { return c.opt.Now() }
