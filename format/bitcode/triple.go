package bitcode

import (
	"github.com/offload-kit/offload-kit/format"
)

// ModuleTriple returns the target triple of an LLVM bitcode module, raw or
// behind the 0x0B17C0DE wrapper header: the text of the MODULE_BLOCK's
// TRIPLE record (the last one, if there are several, as LLVM's reader
// keeps the last), unchanged. A module without a TRIPLE record returns
// ("", nil), which is what `target triple` absent from the IR means.
//
// Only the module block's own records and its BLOCKINFO are decoded;
// every other block is skipped by its length word, so function bodies and
// metadata are not checked. Like LLVM, a file whose top level holds no
// MODULE_BLOCK, or more than one, is an error (format.ErrCorrupt,
// format.ErrUnsupported). Errors are *format.FormatError with a byte
// offset into buf.
func ModuleTriple(buf []byte) (string, error) {
	data, base, err := unwrap(buf)
	if err != nil {
		return "", err
	}
	s := &stream{data: data, base: base}
	top := &block{id: topLevelID, width: 2, end: uint64(len(data)) * 8}
	s.pos = 32
	var (
		triple string
		seen   bool
		ops    []uint64
	)
	// Like LLVM, ignore trailing bytes too short to hold another block.
	for uint64(len(s.data))-s.pos/8 > 8 {
		at := s.pos
		kind, id, err := s.next(top, nil)
		if err != nil {
			return "", err
		}
		switch {
		case kind == entryRecord:
			if _, ops, _, err = s.record(top, id, ops, false); err != nil {
				return "", err
			}
		case id == moduleID && seen:
			return "", s.errAt(at, format.ErrUnsupported, "bitcode: more than one module (LLVM expects a single module)")
		case id == moduleID:
			seen = true
			if triple, err = s.moduleTriple(top); err != nil {
				return "", err
			}
		default:
			if err := s.skip(top, id); err != nil {
				return "", err
			}
		}
	}
	if !seen {
		return "", s.errAt(0, format.ErrCorrupt, "bitcode: no module block")
	}
	return triple, nil
}

// moduleTriple reads the MODULE_BLOCK that starts at s.pos and returns
// the text of its last TRIPLE record.
func (s *stream) moduleTriple(parent *block) (string, error) {
	b, err := s.enter(parent, moduleID)
	if err != nil {
		return "", err
	}
	s.bi = nil // block info is per module, as in BitcodeReader
	var triple string
	var ops []uint64
	for {
		kind, id, err := s.next(b, nil)
		if err != nil {
			return "", err
		}
		switch kind {
		case entryEnd:
			return triple, nil
		case entrySub:
			if id == blockInfoID {
				err = s.readBlockInfo(b)
			} else {
				err = s.skip(b, id)
			}
			if err != nil {
				return "", err
			}
		case entryRecord:
			var code uint64
			if code, ops, _, err = s.record(b, id, ops, false); err != nil {
				return "", err
			}
			if code == modTriple {
				triple = opString(ops)
			}
		}
	}
}
