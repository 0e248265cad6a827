//go:build linux

package kernels

import "syscall"

// adviseRandom turns off read-ahead on a mapping: the kernels view reads a
// few scattered pages (headers, symbol tables, notes) of each code object,
// and read-ahead would read (and map) most of the file around them.
func adviseRandom(b []byte) {
	if len(b) > 0 {
		syscall.Madvise(b, syscall.MADV_RANDOM)
	}
}
