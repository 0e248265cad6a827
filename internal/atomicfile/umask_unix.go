package atomicfile

import (
	"os"
	"syscall"
)

// umask reads the process umask (set it back immediately).
func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}
