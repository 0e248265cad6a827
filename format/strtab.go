package format

import (
	"slices"
	"strings"
)

// StringTable lays out names as LLVM's StringTableBuilder does for ELF
// after finalize(): the layout of the OffloadBinary string table
// (OffloadBinary::write) and of every string table llvm-objcopy writes. A
// leading NUL, then the distinct names sorted by their reversed bytes,
// descending (a name that ends another sorts before it), each name that is
// a suffix of the last one written sharing its bytes (tail merging);
// alignment 1. off maps every name, and "", to its offset; "" is 0.
func StringTable(names []string) (table []byte, off map[string]uint64) {
	off = make(map[string]uint64, len(names)+1)
	off[""] = 0
	uniq := make([]string, 0, len(names))
	for _, n := range names {
		if _, ok := off[n]; !ok {
			off[n] = 0
			uniq = append(uniq, n)
		}
	}
	slices.SortFunc(uniq, func(a, b string) int { return -compareReversed(a, b) })
	table = []byte{0}
	prev := ""
	for _, s := range uniq {
		if strings.HasSuffix(prev, s) {
			off[s] = uint64(len(table) - len(s) - 1)
			continue
		}
		off[s] = uint64(len(table))
		table = append(append(table, s...), 0)
		prev = s
	}
	return table, off
}

// compareReversed compares a and b from their last bytes backwards; a
// string that runs out first is the smaller.
func compareReversed(a, b string) int {
	for i := 1; ; i++ {
		switch {
		case i > len(a) && i > len(b):
			return 0
		case i > len(a):
			return -1
		case i > len(b):
			return 1
		}
		ca, cb := a[len(a)-i], b[len(b)-i]
		if ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
	}
}
