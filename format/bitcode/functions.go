package bitcode

import (
	"strings"

	"github.com/offload-kit/offload-kit/format"
)

// functionBlockID is FUNCTION_BLOCK_ID: one per function body.
const functionBlockID = 12

// Calling conventions of GPU kernels (llvm/IR/CallingConv.h).
const (
	CallingConvPTXKernel    = 71
	CallingConvSPIRKernel   = 76
	CallingConvAMDGPUKernel = 91
)

// FunctionBody is one function a module defines (a MODULE_CODE_FUNCTION
// record that is not a prototype) with the size of its body: the bytes of
// its FUNCTION_BLOCK (4 × the block's length in words, which is what
// llvm-bcanalyzer -dump prints as NumWords).
type FunctionBody struct {
	Name        string
	CallingConv uint64
	Size        int64
}

// Kernel reports whether the calling convention is a GPU kernel's.
func (f *FunctionBody) Kernel() bool {
	switch f.CallingConv {
	case CallingConvPTXKernel, CallingConvSPIRKernel, CallingConvAMDGPUKernel:
		return true
	}
	return false
}

// FunctionBodies lists the functions each module of buf (raw or wrapped
// bitcode) defines, in order, with their body sizes. Function bodies
// follow the module's function records in the same order (the writer
// emits both in module order), so the n-th body is the n-th definition.
// Only string-table bitcode (version 2, LLVM 5 and later) is read.
func FunctionBodies(buf []byte) ([]FunctionBody, error) {
	s, mods, err := topModules(buf)
	if err != nil {
		return nil, err
	}
	var out []FunctionBody
	for _, m := range mods {
		fns, err := s.moduleBodies(m.ref, m.at, m.strtab)
		if err != nil {
			return nil, err
		}
		out = append(out, fns...)
	}
	return out, nil
}

// modRef is a module block of a bitcode file and the string table that
// serves it.
type modRef struct {
	ref       blockRef
	at        uint64
	strtab    string
	hasStrtab bool
}

// topModules reads the top level of buf (raw or wrapped bitcode): its
// module blocks, each with the string table that follows it.
func topModules(buf []byte) (*stream, []modRef, error) {
	data, base, err := unwrap(buf)
	if err != nil {
		return nil, nil, err
	}
	s := &stream{data: data, base: base}
	var mods []modRef
	err = s.walkTop(func(top *block, id, at uint64) error {
		switch id {
		case moduleID:
			mods = append(mods, modRef{ref: s.ref(top, 0), at: at})
			return s.skip(top, id)
		case strtabID:
			st, _, err := s.readBlob(top, id, strtabBlob)
			if err != nil {
				return err
			}
			// A string table serves every preceding module without one;
			// convert it once, so that memory stays bounded by the input
			// however many modules share it.
			str := string(st)
			for i := len(mods) - 1; i >= 0 && !mods[i].hasStrtab; i-- {
				mods[i].strtab, mods[i].hasStrtab = str, true
			}
			return nil
		}
		return s.skip(top, id)
	})
	if err != nil {
		return nil, nil, err
	}
	if len(mods) == 0 {
		return nil, nil, s.errAt(0, format.ErrCorrupt, "bitcode: no module block")
	}
	return s, mods, nil
}

// moduleBodies reads one module block: its function definitions and the
// sizes of its function blocks.
func (s *stream) moduleBodies(ref blockRef, at uint64, strtab string) ([]FunctionBody, error) {
	s.pos, s.bi = ref.pos, nil
	parent := &block{id: topLevelID, end: ref.parentEnd}
	b, err := s.enter(parent, moduleID)
	if err != nil {
		return nil, err
	}
	var (
		version uint64
		defs    []FunctionBody
		sizes   []int64
		ops     []uint64
	)
	for {
		kind, id, err := s.next(b, nil)
		if err != nil {
			return nil, err
		}
		if kind == entryEnd {
			break
		}
		if kind == entrySub {
			switch id {
			case blockInfoID:
				err = s.readBlockInfo(b)
			case functionBlockID:
				var start, end uint64
				if _, start, end, err = s.blockHeader(b, id); err == nil {
					sizes = append(sizes, int64(end-start)/8)
					s.pos = end
				}
			default:
				err = s.skip(b, id)
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		rec := s.pos
		var code uint64
		if code, ops, _, err = s.record(b, id, ops, false); err != nil {
			return nil, err
		}
		switch code {
		case modVersion:
			if len(ops) > 0 {
				version = ops[0]
			}
		case modFunction:
			// v2: [strtab offset, size, type, cc, isproto, linkage, ...]
			if version < 2 {
				return nil, s.errAt(rec, format.ErrUnsupported, "bitcode: version %d module records (no string table) are not read", version)
			}
			if len(ops) < 6 {
				return nil, s.errAt(rec, format.ErrCorrupt, "bitcode: function record with %d operands", len(ops))
			}
			off, n := ops[0], ops[1]
			if off > uint64(len(strtab)) || n > uint64(len(strtab))-off {
				return nil, s.errAt(rec, format.ErrCorrupt, "bitcode: function name (offset %d, size %d) past the %d-byte string table", off, n, len(strtab))
			}
			if ops[4] == 0 {
				defs = append(defs, FunctionBody{Name: strings.TrimPrefix(strtab[off:off+n], "\x01"), CallingConv: ops[3]})
			}
		}
	}
	if len(defs) != len(sizes) {
		return nil, s.errAt(at, format.ErrCorrupt, "bitcode: %d function definitions but %d function bodies", len(defs), len(sizes))
	}
	for i := range defs {
		defs[i].Size = sizes[i]
	}
	return defs, nil
}
