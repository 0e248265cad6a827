//go:build !(linux && (amd64 || arm64))

package sycldev

import (
	"os"
	"syscall"
)

// O_TMPFILE is not used here: openDir fails, and the caller falls back.
func openDir(dir string) (int, error) { return -1, syscall.EOPNOTSUPP }

func closeDir(fd int) {}

func writeTmpfile(dirfd int, base string, data []byte, perm os.FileMode) (bool, error) {
	return true, syscall.EOPNOTSUPP
}
