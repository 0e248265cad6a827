package offload

import (
	"slices"
	"strings"
)

// strtab is LLVM's StringTableBuilder of kind ELF after finalize(): a
// leading NUL, tail merging, alignment 1.
type strtab struct {
	off  map[string]uint64
	data []byte
}

// revLess reports whether a sorts before b when both are read from the end:
// descending byte order, and a string sorts before its own proper suffixes.
func revCompare(a, b string) int {
	i, j := len(a)-1, len(b)-1
	for ; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if a[i] != b[j] {
			if a[i] > b[j] {
				return -1
			}
			return 1
		}
	}
	switch {
	case i >= 0: // b is a suffix of a: longer first
		return -1
	case j >= 0:
		return 1
	}
	return 0
}

func buildStrtab(strs []string) *strtab {
	t := &strtab{off: make(map[string]uint64, len(strs)+1)}
	uniq := make([]string, 0, len(strs))
	for _, s := range strs {
		if _, ok := t.off[s]; !ok {
			t.off[s] = 0
			uniq = append(uniq, s)
		}
	}
	slices.SortFunc(uniq, revCompare)
	t.data = []byte{0}
	prev := ""
	for _, s := range uniq {
		if s == "" {
			continue // the leading NUL; offset 0
		}
		if strings.HasSuffix(prev, s) {
			t.off[s] = uint64(len(t.data) - len(s) - 1)
			continue
		}
		t.off[s] = uint64(len(t.data))
		t.data = append(t.data, s...)
		t.data = append(t.data, 0)
		prev = s
	}
	t.off[""] = 0
	return t
}
