package cache

import (
	"os"
	"syscall"
	"time"
)

// fileStamp identifies a version of a file; ok is false when the platform
// does not say enough (then nothing is memoised).
func fileStamp(st os.FileInfo) (string, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || !st.Mode().IsRegular() {
		return "", false
	}
	return formatStamp(uint64(sys.Dev), uint64(sys.Ino), st.Size(), st.ModTime(), ctimeOf(st)), true
}

func ctimeOf(st os.FileInfo) time.Time {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(sys.Ctim.Sec), int64(sys.Ctim.Nsec))
	}
	return time.Time{}
}
