package cache

import (
	"os"
	"strconv"
	"syscall"
)

// anyStamp is fileStamp for any type of file (directories, links,
// devices), with the type in it.
func anyStamp(st os.FileInfo) (string, bool) {
	if _, ok := st.Sys().(*syscall.Stat_t); !ok {
		return "", false
	}
	sys := st.Sys().(*syscall.Stat_t)
	return strconv.FormatUint(uint64(st.Mode().Type()), 16) + ":" +
		formatStamp(uint64(sys.Dev), uint64(sys.Ino), st.Size(), st.ModTime(), ctimeOf(st)), true
}
