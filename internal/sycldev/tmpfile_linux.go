//go:build linux && (amd64 || arm64)

package sycldev

import (
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// oTmpfile is O_TMPFILE (__O_TMPFILE|O_DIRECTORY) on linux/amd64 and arm64.
const oTmpfile = 0o20000000 | syscall.O_DIRECTORY

const atSymlinkFollow = 0x400

// openDir opens dir for writeTmpfile: a descriptor the parts of that
// directory are created and linked relative to, so that neither walks the
// directory's path again (two path walks a part, 6000 parts in the
// 2000-kernel split).
func openDir(dir string) (int, error) {
	return syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
}

func closeDir(fd int) { syscall.Close(fd) }

// writeTmpfile writes data to an unnamed file (O_TMPFILE) in the directory
// dirfd (openDir), mode perm less the umask (the kernel applies it as for
// O_CREAT), and links it at base in that directory with linkat, which
// never replaces nor follows anything already there (EEXIST). unsupported
// is true when the file system refuses O_TMPFILE; nothing then exists and
// the caller falls back. On any error nothing is left behind: the unnamed
// file dies with its descriptor.
func writeTmpfile(dirfd int, base string, data []byte, perm os.FileMode) (unsupported bool, err error) {
	dot := [2]byte{'.', 0}
	r, _, e := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&dot[0])),
		uintptr(oTmpfile|syscall.O_WRONLY|syscall.O_CLOEXEC), uintptr(perm.Perm()), 0, 0)
	if e != 0 {
		switch e {
		case syscall.EOPNOTSUPP, syscall.EISDIR, syscall.EINVAL:
			return true, e
		}
		return false, e
	}
	fd := int(r)
	// Raw writes: the descriptor never enters Go's poller (os.NewFile would
	// cost an fcntl per part for nothing; a regular file never blocks).
	defer syscall.Close(fd)
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false, err
		}
		if n == 0 {
			return false, syscall.EIO
		}
		data = data[n:]
	}
	return false, linkProcFd(fd, dirfd, base)
}

// emptyPathLink is cleared once linkat(fd, "", AT_EMPTY_PATH) is refused
// (before Linux 6.10 it needs CAP_DAC_READ_SEARCH); /proc/self/fd/N with
// AT_SYMLINK_FOLLOW, which any process may use, is the fallback.
var emptyPathLink atomic.Bool

func init() { emptyPathLink.Store(true) }

// fdcwd is AT_FDCWD as a variable (a negative constant does not convert to uintptr).
var fdcwd = atFdcwd

const (
	atFdcwd     = -100
	atEmptyPath = 0x1000
)

func linkProcFd(fd, dirfd int, base string) error {
	nw, err := syscall.BytePtrFromString(base)
	if err != nil {
		return err
	}
	if emptyPathLink.Load() {
		var empty byte
		_, _, e := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(fd), uintptr(unsafe.Pointer(&empty)),
			uintptr(dirfd), uintptr(unsafe.Pointer(nw)), atEmptyPath, 0)
		switch e {
		case 0:
			return nil
		case syscall.ENOENT, syscall.EPERM, syscall.EINVAL:
			emptyPathLink.Store(false)
		default:
			return e
		}
	}
	old, err := syscall.BytePtrFromString("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return err
	}
	_, _, e := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(fdcwd), uintptr(unsafe.Pointer(old)),
		uintptr(dirfd), uintptr(unsafe.Pointer(nw)), atSymlinkFollow, 0)
	if e != 0 {
		return e
	}
	return nil
}
