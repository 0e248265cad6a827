package objw

// strtab is an ELF string table: offset 0 is the empty string, every added
// string is NUL-terminated, and identical strings share one offset.
type strtab struct {
	buf []byte
	off map[string]uint32
}

func newStrtab() *strtab {
	return &strtab{buf: []byte{0}, off: map[string]uint32{"": 0}}
}

// add returns the offset of s, adding it if needed.
func (t *strtab) add(s string) uint32 {
	if o, ok := t.off[s]; ok {
		return o
	}
	o := uint32(len(t.buf))
	t.buf = append(t.buf, s...)
	t.buf = append(t.buf, 0)
	t.off[s] = o
	return o
}
