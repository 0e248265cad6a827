// Package mmapfile maps input files read-only so parsers can work on a
// []byte with zero copies and memory that scales with what is touched,
// not with the file size. Non-regular files (pipes, stdin) are read fully.
package mmapfile

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxDevice bounds what is read from a character or block device.
const maxDevice = 16 << 20

// File is a read-only view of a whole file.
type File struct {
	Data   []byte
	Name   string
	mapped bool
}

// Open maps name. The empty file maps to an empty slice.
func Open(name string) (*File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return FromFile(f, name)
}

// FromFile maps an already open file (its offset is ignored), or reads it
// whole when it is not a regular file.
func FromFile(f *os.File, name string) (*File, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("is a directory")
	}
	if st.Mode()&(os.ModeDevice|os.ModeCharDevice) != 0 {
		// /dev/null is a common empty input (the bundler's host entry);
		// /dev/zero and friends never end, so a device is read only up to
		// a small bound.
		b, err := io.ReadAll(io.LimitReader(f, maxDevice+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxDevice {
			return nil, fmt.Errorf("not a regular file (a device yielding more than %d MiB)", maxDevice>>20)
		}
		return &File{Data: b, Name: name}, nil
	}
	if !st.Mode().IsRegular() {
		// Pipes and sockets end when their writer does.
		b, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		return &File{Data: b, Name: name}, nil
	}
	size := st.Size()
	if size == 0 {
		return &File{Data: []byte{}, Name: name}, nil
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("file too large to map")
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		// Fall back to reading (e.g. filesystems without mmap).
		b, rerr := io.ReadAll(io.NewSectionReader(f, 0, size))
		if rerr != nil {
			return nil, rerr
		}
		return &File{Data: b, Name: name}, nil
	}
	return &File{Data: b, Name: name, mapped: true}, nil
}

// Close unmaps the data. Data must not be used afterwards.
func (m *File) Close() error {
	if m == nil || !m.mapped {
		return nil
	}
	m.mapped = false
	d := m.Data
	m.Data = nil
	return syscall.Munmap(d)
}
