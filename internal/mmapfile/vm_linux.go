package mmapfile

import (
	"syscall"
	"unsafe"
)

// PageSize is the granularity of Anon, Release and Move.
const PageSize = 4096

// Anon reserves size bytes of private anonymous memory without committing
// it: pages become resident only when written, and Release gives them
// back. Unlike a Go allocation, the memory is never zeroed eagerly nor
// seen by the garbage collector. Transparent huge pages are asked for
// (fewer faults and TLB misses for a large buffer), so residency may run
// up to 2 MiB ahead of what has been written. Free it with Unmap.
func Anon(size int) ([]byte, error) {
	size = (size + PageSize - 1) &^ (PageSize - 1)
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, err
	}
	const madvHugepage = 14
	syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), madvHugepage)
	return b, nil
}

// Unmap frees a mapping made by Anon.
func Unmap(b []byte) error { return syscall.Munmap(b) }

// Release drops the whole pages inside b from this process
// (MADV_DONTNEED). For anonymous memory the contents are gone (they read
// back as zeros); for a read-only file mapping they fault back in from
// the file. Either way resident memory shrinks at once.
func Release(b []byte) {
	start := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + PageSize - 1) &^ (PageSize - 1)
	end := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(len(b))) &^ (PageSize - 1)
	if len(b) == 0 || end <= start {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_DONTNEED)
}

// Mapped reports whether Data is a file mapping (Release may then be
// used on it: dropped pages fault back in from the file).
func (m *File) Mapped() bool { return m != nil && m.mapped }

// HugePage is the size of a transparent huge page, the unit Move works
// best with (whole aligned huge pages move as one page-table entry).
const HugePage = 2 << 20

// Move moves the pages of from onto to (equal lengths, page-aligned,
// both inside one mapping made by Anon), without copying or zeroing them:
// to gets from's contents and from is left mapped but empty, as if never
// touched (MREMAP_DONTUNMAP, Linux 5.7; an error before that). Whatever
// was at to is discarded. The source stays mapped on purpose: a hole in
// the mapping could be taken by someone else's mmap, which the final
// Unmap would then destroy.
func Move(from, to []byte) error {
	if len(from) != len(to) || len(from) == 0 {
		return syscall.EINVAL
	}
	const mremapMaymove, mremapFixed, mremapDontunmap = 1, 2, 4
	f := uintptr(unsafe.Pointer(unsafe.SliceData(from)))
	t := uintptr(unsafe.Pointer(unsafe.SliceData(to)))
	r, _, e := syscall.Syscall6(syscall.SYS_MREMAP, f, uintptr(len(from)), uintptr(len(to)), mremapMaymove|mremapFixed|mremapDontunmap, t, 0)
	if e != 0 {
		return e
	}
	if r != t {
		return syscall.EINVAL
	}
	return nil
}
