package bitcode

import (
	"encoding/binary"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
)

type mdNodeInfo struct {
	n        int
	op0, op1 uint64 // operand metadata IDs + 1 (0 = null)
}

// resolve picks the globals (by metadata, else by section), names them and
// materializes their initializers.
func (m *module) resolve(s *stream, strtab []byte, inLen int) ([]Object, error) {
	for i := range m.globals {
		g := &m.globals[i]
		if g.useStrt && binio.InRange(g.strOff, g.strSize, uint64(len(strtab))) {
			g.name = string(strtab[g.strOff : g.strOff+g.strSize])
		}
	}
	var picks []int
	followed := false
	if m.haveNamed && !m.mdUnusable {
		var err error
		if picks, followed, err = m.followMetadata(s); err != nil {
			return nil, err
		}
	}
	if !followed {
		picks = picks[:0]
		for i, g := range m.globals {
			if g.section == OffloadingSection {
				picks = append(picks, i)
			}
		}
	}
	if len(picks) == 0 {
		return nil, nil
	}

	wanted := map[uint64][]byte{}
	for _, i := range picks {
		if id := m.globals[i].initID; id != 0 {
			wanted[id-1] = nil
		}
	}
	budget := uint64(maxOutputFactor)*uint64(inLen) + minOutputBudget
	if err := m.loadConstants(s, wanted, budget); err != nil {
		return nil, err
	}

	var objs []Object
	var total uint64
	for _, i := range picks {
		g := m.globals[i]
		if g.initID == 0 {
			continue
		}
		data := wanted[g.initID-1]
		if data == nil {
			continue // no initializer, or not ConstantDataSequential: LLVM skips it
		}
		total += uint64(len(data))
		if total > budget {
			return nil, s.errAt(g.recOff, format.ErrLimit, "bitcode: embedded objects exceed %d bytes", budget)
		}
		objs = append(objs, Object{Global: g.name, Section: g.section, Data: append([]byte(nil), data...)})
	}
	return objs, nil
}

// followMetadata resolves !llvm.embedded.objects: each operand is a node
// !{ptr @g, !".llvm.offloading"}. It rereads the metadata blocks twice,
// once for the nodes and once for the value references, so that memory
// stays proportional to the named node, not to all metadata. ok is false
// if an operand does not name a metadata ID at all.
func (m *module) followMetadata(s *stream) (picks []int, ok bool, err error) {
	wantNode := map[uint64]bool{}
	for _, id := range m.named {
		if id >= m.numMD {
			return nil, false, nil
		}
		wantNode[id] = true
	}
	nodes := map[uint64]mdNodeInfo{}
	err = m.rescanMetadata(s, func(_ *stream, id, code uint64, ops []uint64, _ []byte, _ uint64) error {
		if (code == mdNode || code == mdDistinctNode) && wantNode[id] {
			n := mdNodeInfo{n: len(ops)}
			if len(ops) >= 2 {
				n.op0, n.op1 = ops[0], ops[1]
			}
			nodes[id] = n
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	wantVal := map[uint64]bool{}
	for _, id := range m.named {
		if n, ok := nodes[id]; ok && n.n >= 2 && n.op1 != 0 && m.offStr[n.op1-1] && n.op0 != 0 {
			wantVal[n.op0-1] = true
		}
	}
	vals := map[uint64]uint64{}
	if len(wantVal) > 0 {
		err = m.rescanMetadata(s, func(_ *stream, id, code uint64, ops []uint64, _ []byte, _ uint64) error {
			if code == mdValue && len(ops) == 2 && wantVal[id] {
				vals[id] = ops[1]
			}
			return nil
		})
		if err != nil {
			return nil, false, err
		}
	}
	for _, id := range m.named {
		n, ok := nodes[id]
		if !ok || n.n < 2 || n.op1 == 0 || !m.offStr[n.op1-1] || n.op0 == 0 {
			continue
		}
		v, ok := vals[n.op0-1]
		if !ok {
			continue
		}
		if gi, ok := m.gvIndex[v]; ok {
			picks = append(picks, gi)
		}
	}
	return picks, true, nil
}

func (m *module) rescanMetadata(s *stream, visit mdVisitor) error {
	for _, ref := range m.mdBlocks {
		s.pos, s.bi = ref.pos, ref.bi
		parent := &block{id: topLevelID, end: ref.parentEnd}
		if _, err := s.scanMetadata(parent, ref.firstID, visit); err != nil {
			return err
		}
	}
	return nil
}

// loadConstants rereads the module-level constants blocks and fills in the
// bytes of each wanted value that is a ConstantDataSequential (a STRING,
// CSTRING or DATA record that is not all zeros; LLVM turns all-zero data
// into a ConstantAggregateZero).
func (m *module) loadConstants(s *stream, wanted map[uint64][]byte, budget uint64) error {
	var used uint64
	for _, ref := range m.cstBlocks {
		id := ref.firstID
		curTy := int64(-1)
		err := s.rewalk(ref, constantsID, func(code uint64, ops []uint64, _ []byte, at uint64) error {
			if code == cstSetType {
				curTy = -1
				if len(ops) > 0 && ops[0] < uint64(len(m.types)) {
					curTy = int64(ops[0])
				}
				return nil
			}
			cur := id
			id++
			if _, ok := wanted[cur]; !ok {
				return nil
			}
			size, ok := m.dataSize(code, ops, curTy)
			if !ok {
				return nil
			}
			if used += size; used > budget {
				return s.errAt(at, format.ErrLimit, "bitcode: constant data exceeds %d bytes", budget)
			}
			if data := m.materialize(code, ops, curTy, size); data != nil {
				wanted[cur] = data
			}
			return nil
		}, false)
		if err != nil {
			return err
		}
	}
	return nil
}

// elemSize returns the byte size of a ConstantDataSequential element type.
func (m *module) elemSize(curTy int64) (uint64, bool) {
	if curTy < 0 {
		return 0, false
	}
	t := m.types[curTy]
	if t.kind != tArray && t.kind != tVector {
		return 0, false
	}
	if t.elem >= uint64(len(m.types)) {
		return 0, false
	}
	switch e := m.types[t.elem]; e.kind {
	case tInt:
		switch e.width {
		case 8, 16, 32, 64:
			return e.width / 8, true
		}
	case tHalf, tBFloat:
		return 2, true
	case tFloat:
		return 4, true
	case tDouble:
		return 8, true
	}
	return 0, false
}

func (m *module) dataSize(code uint64, ops []uint64, curTy int64) (uint64, bool) {
	if len(ops) == 0 {
		return 0, false
	}
	switch code {
	case cstString:
		return uint64(len(ops)), true
	case cstCString:
		return uint64(len(ops)) + 1, true
	case cstData:
		es, ok := m.elemSize(curTy)
		return es * uint64(len(ops)), ok
	}
	return 0, false
}

// materialize returns the bytes of the data, in little-endian order for
// wider elements (LLVM's getAsString returns host order), or nil if it is
// all zeros.
func (m *module) materialize(code uint64, ops []uint64, curTy int64, size uint64) []byte {
	out := make([]byte, 0, size)
	if code == cstData {
		es, _ := m.elemSize(curTy)
		var tmp [8]byte
		for _, v := range ops {
			binary.LittleEndian.PutUint64(tmp[:], v)
			out = append(out, tmp[:es]...)
		}
	} else {
		for _, v := range ops {
			out = append(out, byte(v))
		}
		if code == cstCString {
			out = append(out, 0)
		}
	}
	for _, c := range out {
		if c != 0 {
			return out
		}
	}
	return nil
}
