package bitcode

import (
	"encoding/binary"
)

// StripSymtab returns a copy of a bitcode file without its top-level
// SYMTAB_BLOCKs, as a file written without an irsymtab would be (used to
// test the IR fallback against llvm-ar). It panics on malformed input.
func StripSymtab(buf []byte) []byte {
	data, base, err := unwrap(buf)
	if err != nil {
		panic(err)
	}
	s := &stream{data: data}
	top := &block{id: topLevelID, width: 2, end: uint64(len(data)) * 8}
	s.pos = 32
	out := append([]byte{}, data[:4]...)
	for uint64(len(data))-s.pos/8 > 8 {
		at := s.pos / 8
		kind, id, err := s.next(top, nil)
		if err != nil || kind != entrySub {
			panic("StripSymtab: unexpected top-level entry")
		}
		if err := s.skip(top, id); err != nil {
			panic(err)
		}
		if id != symtabID {
			out = append(out, data[at:s.pos/8]...)
		}
	}
	out = append(out, data[s.pos/8:]...)
	if base == 0 {
		return out
	}
	w := append([]byte{}, buf[:base]...)
	binary.LittleEndian.PutUint32(w[12:], uint32(len(out)))
	return append(w, out...)
}
