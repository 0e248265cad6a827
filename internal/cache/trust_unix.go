//go:build unix

package cache

import (
	"os"
	"syscall"
)

// ownerOf returns a file's owner and group; ok is false where the system
// has none to check.
func ownerOf(fi os.FileInfo) (uid, gid uint32, ok bool) {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return sys.Uid, sys.Gid, true
}
