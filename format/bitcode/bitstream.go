package bitcode

import (
	"github.com/offload-kit/offload-kit/format"
)

// Fixed abbreviation IDs of the LLVM bitstream container.
const (
	abbrevEndBlock   = 0
	abbrevEnterBlock = 1
	abbrevDefine     = 2
	abbrevUnabbrev   = 3
	firstAppAbbrev   = 4
)

// Limits on values read from the stream. LLVM's BitstreamCursor accepts
// fixed and VBR abbreviation operands up to MaxChunkSize (32) bits; we
// accept fixed fields up to 64 bits, VBR chunks of 2..32 bits (a 1-bit VBR
// chunk carries no payload and never terminates), and abbreviation-ID
// widths of 1..32 bits.
const (
	maxFixedWidth  = 64
	maxVBRWidth    = 32
	maxAbbrevWidth = 32
	topLevelID     = ^uint64(0) // pseudo block ID of the outermost stream
)

type opKind uint8

const (
	opLiteral opKind = iota
	opFixed
	opVBR
	opArray
	opChar6
	opBlob
)

type abbrevOp struct {
	kind opKind
	val  uint64 // literal value or bit width
}

// abbrev is one DEFINE_ABBREV. bad is non-empty if the definition is
// structurally unusable; like LLVM we only fail when a record uses it.
type abbrev struct {
	ops []abbrevOp
	bad string
}

// blockInfo maps a block ID to the abbreviations BLOCKINFO registers for it.
// A map is never mutated after it is installed in a stream, so a block may
// keep a reference to the slice it inherited.
type blockInfo map[uint64][]abbrev

// block is the state of one open block.
type block struct {
	id        uint64
	width     uint   // width of abbreviation IDs
	end       uint64 // bit position of the declared end of the block
	inherited []abbrev
	local     []abbrev
}

func (b *block) abbrev(id uint64) (*abbrev, bool) {
	if id < firstAppAbbrev {
		return nil, false
	}
	i := id - firstAppAbbrev
	if i < uint64(len(b.inherited)) {
		return &b.inherited[i], true
	}
	i -= uint64(len(b.inherited))
	if i < uint64(len(b.local)) {
		return &b.local[i], true
	}
	return nil, false
}

// stream is a bit cursor over one bitcode buffer (after the wrapper header).
type stream struct {
	data []byte
	base int64  // offset of data[0] in the caller's buffer, for errors
	pos  uint64 // current bit position
	bi   blockInfo
	// blobAt is the bit position of the blob of the last record read.
	blobAt uint64
}

func (s *stream) errAt(bit uint64, sentinel error, msg string, args ...any) error {
	return format.Errorf(s.base+int64(bit/8), sentinel, msg, args...)
}

func (s *stream) truncated(what string) error {
	return s.errAt(s.pos, format.ErrTruncated, "bitcode: %s runs past the end of its block", what)
}

// read consumes an n-bit (n <= 64) little-endian bit field. Reads never
// cross end.
func (s *stream) read(n uint, end uint64) (uint64, error) {
	if n == 0 {
		return 0, nil
	}
	if n > 64 || s.pos > end || end-s.pos < uint64(n) {
		return 0, s.truncated("field")
	}
	var v uint64
	got := uint(0)
	for got < n {
		byteIdx := s.pos >> 3
		bit := uint(s.pos & 7)
		take := min(8-bit, n-got)
		b := uint64(s.data[byteIdx]>>bit) & (1<<take - 1)
		v |= b << got
		got += take
		s.pos += uint64(take)
	}
	return v, nil
}

// readVBR consumes a variable bit-rate value made of w-bit chunks.
func (s *stream) readVBR(w uint, end uint64) (uint64, error) {
	start := s.pos
	hi := uint64(1) << (w - 1)
	var v uint64
	shift := uint(0)
	for {
		piece, err := s.read(w, end)
		if err != nil {
			return 0, err
		}
		v |= (piece & (hi - 1)) << shift
		if piece&hi == 0 {
			return v, nil
		}
		shift += w - 1
		if shift >= 64 {
			return 0, s.errAt(start, format.ErrCorrupt, "bitcode: VBR value wider than 64 bits")
		}
	}
}

func (s *stream) align32(end uint64) error {
	p := (s.pos + 31) &^ 31
	if p > end {
		return s.truncated("alignment padding")
	}
	s.pos = p
	return nil
}

type entryKind int

const (
	entryEnd entryKind = iota
	entrySub
	entryRecord
)

// next returns the next entry of block b: its end, a sub-block (with the
// block ID already read) or a record (with its abbreviation ID). It
// processes DEFINE_ABBREV itself, adding to b's abbreviations, or to
// def (when non-nil) inside BLOCKINFO.
func (s *stream) next(b *block, def func(abbrev) error) (entryKind, uint64, error) {
	for {
		at := s.pos
		code, err := s.read(b.width, b.end)
		if err != nil {
			return 0, 0, err
		}
		switch code {
		case abbrevEndBlock:
			if b.id == topLevelID {
				return 0, 0, s.errAt(at, format.ErrCorrupt, "bitcode: END_BLOCK outside any block")
			}
			if err := s.align32(b.end); err != nil {
				return 0, 0, err
			}
			return entryEnd, 0, nil
		case abbrevEnterBlock:
			id, err := s.readVBR(8, b.end)
			if err != nil {
				return 0, 0, err
			}
			return entrySub, id, nil
		case abbrevDefine:
			a, err := s.readAbbrev(b.end)
			if err != nil {
				return 0, 0, err
			}
			if def != nil {
				if err := def(a); err != nil {
					return 0, 0, s.errAt(at, format.ErrCorrupt, "bitcode: %v", err)
				}
			} else {
				b.local = append(b.local, a)
			}
		default:
			return entryRecord, code, nil
		}
	}
}

// blockHeader reads the rest of an ENTER_SUBBLOCK (after the block ID).
func (s *stream) blockHeader(parent *block, id uint64) (width uint, start, end uint64, err error) {
	at := s.pos
	w, err := s.readVBR(4, parent.end)
	if err != nil {
		return 0, 0, 0, err
	}
	if err := s.align32(parent.end); err != nil {
		return 0, 0, 0, err
	}
	n, err := s.read(32, parent.end)
	if err != nil {
		return 0, 0, 0, err
	}
	if w < 1 || w > maxAbbrevWidth {
		return 0, 0, 0, s.errAt(at, format.ErrCorrupt, "bitcode: block %d: abbreviation width %d out of range", id, w)
	}
	start = s.pos
	if n*32 > parent.end-start {
		return 0, 0, 0, s.errAt(at, format.ErrTruncated, "bitcode: block %d: %d words run past the enclosing block", id, n)
	}
	return uint(w), start, start + n*32, nil
}

// enter opens sub-block id of parent.
func (s *stream) enter(parent *block, id uint64) (*block, error) {
	w, _, end, err := s.blockHeader(parent, id)
	if err != nil {
		return nil, err
	}
	b := &block{id: id, width: w, end: end}
	if inh := s.bi[id]; len(inh) > 0 {
		b.inherited = inh[:len(inh):len(inh)]
	}
	return b, nil
}

// skip jumps over sub-block id of parent using its length word.
func (s *stream) skip(parent *block, id uint64) error {
	_, _, end, err := s.blockHeader(parent, id)
	if err != nil {
		return err
	}
	s.pos = end
	return nil
}

func (s *stream) readAbbrev(end uint64) (abbrev, error) {
	n, err := s.readVBR(5, end)
	if err != nil {
		return abbrev{}, err
	}
	// Each operand takes at least 4 bits (literal flag + something).
	if n > (end-s.pos)/4 {
		return abbrev{}, s.truncated("abbreviation")
	}
	a := abbrev{ops: make([]abbrevOp, 0, n)}
	for i := uint64(0); i < n; i++ {
		lit, err := s.read(1, end)
		if err != nil {
			return abbrev{}, err
		}
		if lit == 1 {
			v, err := s.readVBR(8, end)
			if err != nil {
				return abbrev{}, err
			}
			a.ops = append(a.ops, abbrevOp{kind: opLiteral, val: v})
			continue
		}
		enc, err := s.read(3, end)
		if err != nil {
			return abbrev{}, err
		}
		switch enc {
		case 1, 2:
			w, err := s.readVBR(5, end)
			if err != nil {
				return abbrev{}, err
			}
			switch {
			case w == 0: // fixed(0) and vbr(0) read as literal 0
				a.ops = append(a.ops, abbrevOp{kind: opLiteral})
			case enc == 1 && w > maxFixedWidth:
				a.bad = "fixed operand wider than 64 bits"
			case enc == 2 && (w < 2 || w > maxVBRWidth):
				a.bad = "VBR chunk width out of range"
			case enc == 1:
				a.ops = append(a.ops, abbrevOp{kind: opFixed, val: w})
			default:
				a.ops = append(a.ops, abbrevOp{kind: opVBR, val: w})
			}
		case 3:
			a.ops = append(a.ops, abbrevOp{kind: opArray})
		case 4:
			a.ops = append(a.ops, abbrevOp{kind: opChar6})
		case 5:
			a.ops = append(a.ops, abbrevOp{kind: opBlob})
		default:
			return abbrev{}, s.errAt(s.pos-3, format.ErrCorrupt, "bitcode: invalid abbreviation encoding %d", enc)
		}
	}
	if n == 0 {
		return abbrev{}, s.errAt(s.pos, format.ErrCorrupt, "bitcode: abbreviation with no operands")
	}
	if a.bad == "" {
		a.bad = validate(a.ops)
	}
	return a, nil
}

func validate(ops []abbrevOp) string {
	if k := ops[0].kind; k == opArray || k == opBlob {
		return "abbreviation starts with an array or a blob"
	}
	for i, op := range ops {
		switch op.kind {
		case opArray:
			if i != len(ops)-2 {
				return "array operand not second to last"
			}
			switch ops[i+1].kind {
			case opFixed, opVBR, opChar6:
			default:
				return "array element must be a fixed, VBR or char6 encoding"
			}
			return ""
		case opBlob:
			if i != len(ops)-1 {
				return "blob operand not last"
			}
		}
	}
	return ""
}

const char6 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"

func (s *stream) scalar(op abbrevOp, end uint64) (uint64, error) {
	switch op.kind {
	case opLiteral:
		return op.val, nil
	case opFixed:
		return s.read(uint(op.val), end)
	case opVBR:
		return s.readVBR(uint(op.val), end)
	default: // opChar6
		v, err := s.read(6, end)
		return uint64(char6[v&63]), err
	}
}

func minBits(op abbrevOp) uint64 {
	if op.kind == opChar6 {
		return 6
	}
	return op.val
}

// record reads the record with abbreviation ID id in block b, appending its
// operands to ops[:0]. If wantBlob is false a blob's bytes are appended to
// the operands, as LLVM does for callers that do not ask for the blob.
// Every count is checked against the bits left in the block before it is
// used to size a loop or an allocation.
func (s *stream) record(b *block, id uint64, ops []uint64, wantBlob bool) (code uint64, _ []uint64, blob []byte, err error) {
	ops = ops[:0]
	if id == abbrevUnabbrev {
		if code, err = s.readVBR(6, b.end); err != nil {
			return 0, nil, nil, err
		}
		n, err := s.readVBR(6, b.end)
		if err != nil {
			return 0, nil, nil, err
		}
		if n > (b.end-s.pos)/6 {
			return 0, nil, nil, s.truncated("record")
		}
		for range n {
			v, err := s.readVBR(6, b.end)
			if err != nil {
				return 0, nil, nil, err
			}
			ops = append(ops, v)
		}
		return code, ops, nil, nil
	}
	at := s.pos
	a, ok := b.abbrev(id)
	if !ok {
		return 0, nil, nil, s.errAt(at, format.ErrCorrupt, "bitcode: undefined abbreviation ID %d", id)
	}
	if a.bad != "" {
		return 0, nil, nil, s.errAt(at, format.ErrCorrupt, "bitcode: abbreviation ID %d: %s", id, a.bad)
	}
	if code, err = s.scalar(a.ops[0], b.end); err != nil {
		return 0, nil, nil, err
	}
	for i := 1; i < len(a.ops); i++ {
		op := a.ops[i]
		switch op.kind {
		case opArray:
			n, err := s.readVBR(6, b.end)
			if err != nil {
				return 0, nil, nil, err
			}
			elt := a.ops[i+1]
			if n > (b.end-s.pos)/minBits(elt) {
				return 0, nil, nil, s.truncated("array")
			}
			for range n {
				v, err := s.scalar(elt, b.end)
				if err != nil {
					return 0, nil, nil, err
				}
				ops = append(ops, v)
			}
			return code, ops, blob, nil
		case opBlob:
			n, err := s.readVBR(6, b.end)
			if err != nil {
				return 0, nil, nil, err
			}
			if err := s.align32(b.end); err != nil {
				return 0, nil, nil, err
			}
			if n > (b.end-s.pos)/8 {
				return 0, nil, nil, s.truncated("blob")
			}
			start := s.pos / 8
			s.blobAt = s.pos
			blob = s.data[start : start+n : start+n]
			s.pos += n * 8
			if err := s.align32(b.end); err != nil {
				return 0, nil, nil, err
			}
			if !wantBlob {
				for _, c := range blob {
					ops = append(ops, uint64(c))
				}
				blob = nil
			}
		default:
			v, err := s.scalar(op, b.end)
			if err != nil {
				return 0, nil, nil, err
			}
			ops = append(ops, v)
		}
	}
	return code, ops, blob, nil
}

// readBlockInfo parses a BLOCKINFO block and returns the new block info.
// Like LLVM's BitcodeReader, a BLOCKINFO block replaces what an earlier one
// defined rather than adding to it.
func (s *stream) readBlockInfo(parent *block) error {
	nbi := blockInfo{}
	cur := int64(-1)
	var curID uint64
	def := func(a abbrev) error {
		if cur < 0 {
			return errNoSetBID
		}
		nbi[curID] = append(nbi[curID], a)
		return nil
	}
	err := s.walkDefs(parent, blockInfoID, def, func(code uint64, ops []uint64, _ []byte, at uint64) error {
		if code == 1 { // SETBID
			if len(ops) < 1 {
				return s.errAt(at, format.ErrCorrupt, "bitcode: BLOCKINFO: SETBID without a block ID")
			}
			cur, curID = 0, ops[0]
		}
		return nil
	}, false)
	if err != nil {
		return err
	}
	s.bi = nbi
	return nil
}

type constErr string

func (e constErr) Error() string { return string(e) }

const errNoSetBID = constErr("BLOCKINFO: DEFINE_ABBREV before SETBID")
