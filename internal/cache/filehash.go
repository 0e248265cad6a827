package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// statDir holds FileHash's memo: one small file per hashed path.
const statDir = "stat"

// racyWindow: a file changed this recently is hashed but not memoised, as
// a later change within the same timestamp tick could keep every stamp.
const racyWindow = 2 * time.Second

// FileHash returns the SHA-256 and size of a regular file's contents. On a
// Cache it is memoised in Dir/v1/stat by path, device, inode, size,
// modification and status-change times (ctime changes on every write and
// cannot be set by users), so a file that did not change is not read
// again by later links; a nil Cache always hashes.
func (c *Cache) FileHash(path string) (sum [32]byte, size int64, err error) {
	if c == nil {
		return HashFile(path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return sum, 0, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return sum, 0, err
	}
	stamp, ok := fileStamp(st)
	ps := sha256.Sum256([]byte(abs))
	memo := filepath.Join(c.root, statDir, hex.EncodeToString(ps[:1]), hex.EncodeToString(ps[:]))
	if ok {
		if data, err := os.ReadFile(memo); err == nil {
			if s, h, found := strings.Cut(strings.TrimSpace(string(data)), " sha256:"); found && s == stamp {
				if n, err := hex.Decode(sum[:], []byte(h)); err == nil && n == len(sum) {
					return sum, st.Size(), nil
				}
			}
		}
	}
	sum, size, err = HashFile(abs)
	if err != nil {
		return sum, 0, err
	}
	after, err := os.Stat(abs)
	if err != nil {
		return sum, 0, err
	}
	now := c.opt.Now()
	if again, _ := fileStamp(after); ok && again == stamp && size == st.Size() &&
		now.Sub(st.ModTime()) > racyWindow && now.Sub(ctimeOf(st)) > racyWindow {
		_ = c.mkdirAll(filepath.Dir(memo))
		_ = c.writeFile(context.Background(), memo, fmt.Appendf(nil, "%s sha256:%x\n", stamp, sum))
	}
	return sum, size, nil
}

// formatStamp renders the identifying fields of a file's status.
func formatStamp(dev, ino uint64, size int64, mtime, ctime time.Time) string {
	return strings.Join([]string{strconv.FormatUint(dev, 10), strconv.FormatUint(ino, 10),
		strconv.FormatInt(size, 10), strconv.FormatInt(mtime.UnixNano(), 10), strconv.FormatInt(ctime.UnixNano(), 10)}, ":")
}
