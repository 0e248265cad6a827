//go:build !linux

package mmapfile

import "errors"

// PageSize is the granularity of Anon, Release and Move.
const PageSize = 4096

var errNoVM = errors.New("anonymous mappings are only used on Linux")

// Anon is only available on Linux; callers fall back to ordinary memory.
func Anon(size int) ([]byte, error) { return nil, errNoVM }

// Unmap frees a mapping made by Anon.
func Unmap(b []byte) error { return errNoVM }

// Release is a no-op outside Linux.
func Release(b []byte) {}

// HugePage is the size of a transparent huge page on Linux.
const HugePage = 2 << 20

// Move is only available on Linux.
func Move(from, to []byte) error { return errNoVM }

// Mapped reports whether Data is a file mapping.
func (m *File) Mapped() bool { return m != nil && m.mapped }
