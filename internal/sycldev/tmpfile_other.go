//go:build !(linux && (amd64 || arm64))

package sycldev

import (
	"os"
	"syscall"
)

// writeTmpfile: O_TMPFILE is not used here; the caller falls back.
func writeTmpfile(dir, final string, data []byte, perm os.FileMode) (bool, error) {
	return true, syscall.EOPNOTSUPP
}
