package bitcode

import (
	"bytes"
	"encoding/binary"

	"github.com/offload-kit/offload-kit/format"
)

// Object is one embedded object found in a bitcode module.
type Object struct {
	Global  string // name of the global variable, e.g. "llvm.embedded.object"; empty if unknown
	Section string // the global's section, normally ".llvm.offloading"
	Data    []byte // the initializer bytes (a copy)
}

// OffloadingSection is the section name (and metadata string) that marks
// embedded offload packages.
const OffloadingSection = format.OffloadingSection

// EmbeddedObjectsMetadata is the named metadata listing the embedded objects.
const EmbeddedObjectsMetadata = "llvm.embedded.objects"

// Block IDs (LLVMBitCodes.h).
const (
	blockInfoID = 0
	moduleID    = 8
	constantsID = 11
	vstID       = 14
	metadataID  = 15
	typeID      = 17
	strtabID    = 23
)

// Module record codes.
const (
	modVersion     = 1
	modSectionName = 5
	modGlobalVar   = 7
	modFunction    = 8
	modAliasOld    = 9
	modAlias       = 14
	modIFunc       = 18
)

// Constant record codes.
const (
	cstSetType = 1
	cstString  = 8
	cstCString = 9
	cstData    = 22
)

// Metadata record codes.
const (
	mdStringOld    = 1
	mdValue        = 2
	mdNode         = 3
	mdName         = 4
	mdDistinctNode = 5
	mdNamedNode    = 10
	mdStrings      = 35
)

// mdIDs reports how many metadata IDs a record with this code allocates (0
// or 1; METADATA_STRINGS is handled apart) and whether the code is known.
// It follows MetadataLoader::parseOneMetadata in LLVM 22.
func mdIDs(code uint64) (n uint64, known bool) {
	switch {
	case code == 1, code == 2, code == 3, code == 5, code == 7, code == 8, code == 9,
		code >= 12 && code <= 34, code == 37, code == 40, code == 41, code >= 44 && code <= 49:
		return 1, true
	case code == 4, code == 6, code == 10, code == 11, code == 36, code == 38, code == 39:
		return 0, true
	}
	return 0, false
}

// Limits.
const (
	maxOutputFactor = 16      // total Data may be at most 16x the input ...
	minOutputBudget = 1 << 20 // ... plus 1 MiB
)

type typeKind uint8

const (
	tOther typeKind = iota
	tInt
	tHalf
	tBFloat
	tFloat
	tDouble
	tArray
	tVector
	tPointer
)

type typeEntry struct {
	kind  typeKind
	width uint64 // integer width
	elem  uint64 // element type of arrays, vectors, typed pointers
}

type global struct {
	valueID uint64
	name    string
	strOff  uint64
	strSize uint64
	useStrt bool
	section string
	initID  uint64 // value ID of the initializer + 1; 0 if none
	recOff  uint64 // bit position of the record, for errors
}

// blockRef remembers where a block started so it can be read again.
type blockRef struct {
	pos       uint64 // bit position just after the block ID
	parentEnd uint64
	bi        blockInfo
	firstID   uint64 // first value ID (constants) or metadata ID
}

type module struct {
	version    uint64
	sections   []string
	types      []typeEntry
	globals    []global
	gvIndex    map[uint64]int // value ID -> index in globals
	numValues  uint64
	cstBlocks  []blockRef
	mdBlocks   []blockRef
	numMD      uint64
	offStr     map[uint64]bool // metadata IDs of the MDString ".llvm.offloading"
	named      []uint64        // operands of !llvm.embedded.objects
	haveNamed  bool
	collect    bool // the next NAMED_NODE belongs to !llvm.embedded.objects
	mdUnusable bool // an unknown metadata code was seen: IDs cannot be trusted
}

// EmbeddedObjects returns the offload objects embedded in an LLVM bitcode
// module, raw or behind the 0x0B17C0DE wrapper header. See the package
// documentation for how globals are selected. A module with none returns
// (nil, nil). Errors are *format.FormatError with a byte offset into buf.
func EmbeddedObjects(buf []byte) ([]Object, error) {
	data, base, err := unwrap(buf)
	if err != nil {
		return nil, err
	}
	s := &stream{data: data, base: base}
	m, strtab, err := s.parseTop()
	if err != nil {
		return nil, err
	}
	objs, err := m.resolve(s, strtab, len(buf))
	if err != nil {
		return nil, err
	}
	return objs, nil
}

// unwrap strips the bitcode wrapper header and checks the magic.
func unwrap(buf []byte) ([]byte, int64, error) {
	var base int64
	data := buf
	if bytes.HasPrefix(buf, format.BitcodeWrapper) {
		if len(buf) < 16 {
			return nil, 0, format.Errorf(0, format.ErrTruncated, "bitcode: wrapper header is %d bytes, need 16", len(buf))
		}
		off := uint64(binary.LittleEndian.Uint32(buf[8:]))
		size := uint64(binary.LittleEndian.Uint32(buf[12:]))
		if off+size > uint64(len(buf)) {
			return nil, 0, format.Errorf(8, format.ErrTruncated, "bitcode: wrapper offset 0x%x size 0x%x past end of %d-byte buffer", off, size, len(buf))
		}
		data = buf[off : off+size : off+size]
		base = int64(off)
	}
	if !bytes.HasPrefix(data, format.BitcodeMagic) {
		return nil, 0, format.Errorf(base, format.ErrMagic, "bitcode: missing 'BC' 0xC0DE magic")
	}
	if len(data)%4 != 0 {
		return nil, 0, format.Errorf(base, format.ErrCorrupt, "bitcode: stream length %d is not a multiple of 4", len(data))
	}
	return data, base, nil
}

// walkTop walks the top level of the stream, the one loop that parseTop
// and topModules share: top-level records are read and dropped, and each
// sub-block is handed to sub with the bit position of its entry; sub
// enters it or skips it. Like LLVM, it ignores trailing bytes too short to
// hold another block.
func (s *stream) walkTop(sub func(top *block, id, at uint64) error) error {
	top := &block{id: topLevelID, width: 2, end: uint64(len(s.data)) * 8}
	s.pos = 32
	var ops []uint64
	for uint64(len(s.data))-s.pos/8 > 8 {
		at := s.pos
		kind, id, err := s.next(top, nil)
		if err != nil {
			return err
		}
		switch kind {
		case entryRecord:
			if _, ops, _, err = s.record(top, id, ops, false); err != nil {
				return err
			}
		case entrySub:
			if err := sub(top, id, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseTop walks the top-level blocks: the single MODULE_BLOCK and the
// STRTAB that follows it. Other blocks are skipped by their length.
func (s *stream) parseTop() (*module, []byte, error) {
	var m *module
	var strtab []byte
	err := s.walkTop(func(top *block, id, at uint64) error {
		var err error
		switch {
		case id == moduleID:
			if m != nil {
				return s.errAt(at, format.ErrUnsupported, "bitcode: more than one module (LLVM expects a single module)")
			}
			m, err = s.parseModule(top)
		case id == strtabID && m != nil && strtab == nil:
			strtab, err = s.parseStrtab(top)
		default:
			err = s.skip(top, id)
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		return nil, nil, s.errAt(0, format.ErrCorrupt, "bitcode: no module block")
	}
	return m, strtab, nil
}

func (s *stream) parseStrtab(parent *block) ([]byte, error) {
	var strtab []byte
	err := s.walk(parent, strtabID, func(code uint64, _ []uint64, blob []byte, _ uint64) error {
		if code == 1 && strtab == nil { // STRTAB_BLOB
			strtab = blob
		}
		return nil
	}, true)
	if err != nil {
		return nil, err
	}
	return strtab, nil
}

func (s *stream) ref(parent *block, firstID uint64) blockRef {
	return blockRef{pos: s.pos, parentEnd: parent.end, bi: s.bi, firstID: firstID}
}

func (s *stream) parseModule(parent *block) (*module, error) {
	b, err := s.enter(parent, moduleID)
	if err != nil {
		return nil, err
	}
	s.bi = nil // block info is per module, as in BitcodeReader
	m := &module{gvIndex: map[uint64]int{}, offStr: map[uint64]bool{}}
	var ops []uint64
	for {
		kind, id, err := s.next(b, nil)
		if err != nil {
			return nil, err
		}
		switch kind {
		case entryEnd:
			return m, nil
		case entrySub:
			switch id {
			case blockInfoID:
				err = s.readBlockInfo(b)
			case typeID:
				err = s.parseTypes(b, m)
			case constantsID:
				ref := s.ref(b, m.numValues)
				var n uint64
				if n, err = s.countConstants(b); err == nil {
					m.cstBlocks = append(m.cstBlocks, ref)
					m.numValues += n
				}
			case metadataID:
				ref := s.ref(b, m.numMD)
				m.mdBlocks = append(m.mdBlocks, ref)
				m.numMD, err = s.scanMetadata(b, m.numMD, m.firstPass)
			case vstID:
				if m.version < 2 {
					err = s.parseVST(b, m)
				} else {
					err = s.skip(b, id)
				}
			default:
				err = s.skip(b, id)
			}
			if err != nil {
				return nil, err
			}
		case entryRecord:
			rec := s.pos
			var code uint64
			if code, ops, _, err = s.record(b, id, ops, false); err != nil {
				return nil, err
			}
			switch code {
			case modVersion:
				if len(ops) > 0 {
					m.version = ops[0]
				}
			case modSectionName:
				m.sections = append(m.sections, opString(ops))
			case modGlobalVar:
				if err := m.addGlobal(s, rec, ops); err != nil {
					return nil, err
				}
			case modFunction, modAliasOld, modAlias, modIFunc:
				m.numValues++
			}
		}
	}
}

func opString(ops []uint64) string {
	b := make([]byte, len(ops))
	for i, v := range ops {
		b[i] = byte(v)
	}
	return string(b)
}

// addGlobal decodes a MODULE_CODE_GLOBALVAR record:
// v2: [strtab offset, strtab size, type, isconst|explicit<<1, initid,
// linkage, alignment, section, ...]; v0/v1 lack the first two fields.
func (m *module) addGlobal(s *stream, rec uint64, ops []uint64) error {
	g := global{valueID: m.numValues, recOff: rec}
	m.numValues++
	if m.version >= 2 {
		if len(ops) < 2 {
			return s.errAt(rec, format.ErrCorrupt, "bitcode: GLOBALVAR record with %d operands", len(ops))
		}
		g.useStrt, g.strOff, g.strSize = true, ops[0], ops[1]
		ops = ops[2:]
	}
	if len(ops) < 6 {
		return s.errAt(rec, format.ErrCorrupt, "bitcode: GLOBALVAR record with %d operands", len(ops))
	}
	g.initID = ops[2]
	if sec := ops[5]; sec != 0 {
		if sec-1 >= uint64(len(m.sections)) {
			return s.errAt(rec, format.ErrCorrupt, "bitcode: GLOBALVAR section index %d out of range (%d sections)", sec, len(m.sections))
		}
		g.section = m.sections[sec-1]
	}
	if _, dup := m.gvIndex[g.valueID]; !dup {
		m.gvIndex[g.valueID] = len(m.globals)
	}
	m.globals = append(m.globals, g)
	return nil
}

// parseTypes reads TYPE_BLOCK_ID_NEW; each record but NUMENTRY and
// STRUCT_NAME defines the next type ID.
func (s *stream) parseTypes(parent *block, m *module) error {
	return s.walk(parent, typeID, func(code uint64, ops []uint64, _ []byte, _ uint64) error {
		t := typeEntry{}
		switch code {
		case 1, 19: // NUMENTRY, STRUCT_NAME
			return nil
		case 3:
			t.kind = tFloat
		case 4:
			t.kind = tDouble
		case 10:
			t.kind = tHalf
		case 23:
			t.kind = tBFloat
		case 7:
			if len(ops) > 0 {
				t.kind, t.width = tInt, ops[0]
			}
		case 8: // typed POINTER: [pointee, address space]
			if len(ops) > 0 {
				t.kind, t.elem = tPointer, ops[0]
			}
		case 11, 12: // ARRAY, VECTOR: [numelts, eltty]
			if len(ops) >= 2 {
				t.kind, t.elem = tArray, ops[1]
				if code == 12 {
					t.kind = tVector
				}
			}
		}
		m.types = append(m.types, t)
		return nil
	}, false)
}

// countConstants counts the values a module-level CONSTANTS_BLOCK defines:
// one per record except SETTYPE.
func (s *stream) countConstants(parent *block) (uint64, error) {
	var n uint64
	err := s.walk(parent, constantsID, func(code uint64, _ []uint64, _ []byte, _ uint64) error {
		if code != cstSetType {
			n++
		}
		return nil
	}, false)
	return n, err
}

// walk enters sub-block id of parent and calls fn for each record, skipping
// nested blocks.
func (s *stream) walk(parent *block, id uint64, fn func(code uint64, ops []uint64, blob []byte, at uint64) error, wantBlob bool) error {
	return s.walkDefs(parent, id, nil, fn, wantBlob)
}

// walkDefs is walk for a block whose DEFINE_ABBREV records go to def
// (BLOCKINFO) rather than to the block itself (def nil).
func (s *stream) walkDefs(parent *block, id uint64, def func(abbrev) error, fn func(code uint64, ops []uint64, blob []byte, at uint64) error, wantBlob bool) error {
	b, err := s.enter(parent, id)
	if err != nil {
		return err
	}
	var ops []uint64
	for {
		kind, sub, err := s.next(b, def)
		if err != nil {
			return err
		}
		switch kind {
		case entryEnd:
			return nil
		case entrySub:
			if err := s.skip(b, sub); err != nil {
				return err
			}
		case entryRecord:
			at := s.pos
			var code uint64
			var blob []byte
			if code, ops, blob, err = s.record(b, sub, ops, wantBlob); err != nil {
				return err
			}
			if err := fn(code, ops, blob, at); err != nil {
				return err
			}
		}
	}
}

// rewalk reads a block recorded by ref again.
func (s *stream) rewalk(ref blockRef, id uint64, fn func(code uint64, ops []uint64, blob []byte, at uint64) error, wantBlob bool) error {
	s.pos, s.bi = ref.pos, ref.bi
	parent := &block{id: topLevelID, end: ref.parentEnd}
	return s.walk(parent, id, fn, wantBlob)
}

// parseVST reads names from a module-level VALUE_SYMTAB (bitcode before
// version 2, which has no string table): VST_ENTRY [valueid, namechar...].
func (s *stream) parseVST(parent *block, m *module) error {
	return s.walk(parent, vstID, func(code uint64, ops []uint64, _ []byte, _ uint64) error {
		if code == 1 && len(ops) >= 1 {
			if i, ok := m.gvIndex[ops[0]]; ok {
				m.globals[i].name = opString(ops[1:])
			}
		}
		return nil
	}, false)
}

// mdVisitor sees each metadata record with the ID it defines (if any).
type mdVisitor func(s *stream, id, code uint64, ops []uint64, blob []byte, at uint64) error

// scanMetadata walks a module-level METADATA_BLOCK assigning metadata IDs
// from first, and returns the next free ID.
func (s *stream) scanMetadata(parent *block, first uint64, visit mdVisitor) (uint64, error) {
	next := first
	pendingName := false
	err := s.walk(parent, metadataID, func(code uint64, ops []uint64, blob []byte, at uint64) error {
		if pendingName && code != mdNamedNode {
			return s.errAt(at, format.ErrCorrupt, "bitcode: METADATA_NAME not followed by METADATA_NAMED_NODE")
		}
		pendingName = code == mdName
		id := next
		if code == mdStrings {
			if len(ops) != 2 {
				return s.errAt(at, format.ErrCorrupt, "bitcode: METADATA_STRINGS with %d operands", len(ops))
			}
			next += ops[0]
		} else {
			n, _ := mdIDs(code)
			next += n
		}
		return visit(s, id, code, ops, blob, at)
	}, true)
	if err == nil && pendingName {
		err = s.errAt(s.pos, format.ErrCorrupt, "bitcode: METADATA_NAME at end of block")
	}
	return next, err
}

// firstPass records named metadata, the IDs of ".llvm.offloading" strings
// and whether any metadata code is unknown.
func (m *module) firstPass(s *stream, id, code uint64, ops []uint64, blob []byte, at uint64) error {
	if _, known := mdIDs(code); !known && code != mdStrings {
		m.mdUnusable = true
	}
	switch code {
	case mdName:
		m.collect = opString(ops) == EmbeddedObjectsMetadata
		m.haveNamed = m.haveNamed || m.collect
	case mdNamedNode:
		if m.collect {
			m.named = append(m.named, ops...)
			m.collect = false
		}
	case mdStringOld:
		if opString(ops) == OffloadingSection {
			m.offStr[id] = true
		}
	case mdStrings:
		return s.eachMDString(ops, blob, at, func(i uint64, str []byte) {
			if string(str) == OffloadingSection {
				m.offStr[id+i] = true
			}
		})
	}
	return nil
}

// eachMDString decodes METADATA_STRINGS: [count, offset] with a blob of
// VBR6 lengths (a bitstream) followed, at offset, by the characters. It
// must be called right after the record was read (it uses s.blobAt).
func (s *stream) eachMDString(ops []uint64, blob []byte, at uint64, fn func(i uint64, str []byte)) error {
	count, off := ops[0], ops[1]
	if count == 0 {
		return s.errAt(at, format.ErrCorrupt, "bitcode: METADATA_STRINGS with no strings")
	}
	if off > uint64(len(blob)) {
		return s.errAt(at, format.ErrCorrupt, "bitcode: METADATA_STRINGS offset %d past %d-byte blob", off, len(blob))
	}
	lens := &stream{data: blob[:off], base: s.base + int64(s.blobAt/8)}
	end := off * 8
	chars := blob[off:]
	for i := uint64(0); i < count; i++ {
		if lens.pos >= end {
			return s.errAt(at, format.ErrCorrupt, "bitcode: METADATA_STRINGS: %d lengths for %d strings", i, count)
		}
		n, err := lens.readVBR(6, end)
		if err != nil {
			return err
		}
		if n > uint64(len(chars)) {
			return s.errAt(at, format.ErrCorrupt, "bitcode: METADATA_STRINGS: string %d truncated", i)
		}
		fn(i, chars[:n])
		chars = chars[n:]
	}
	return nil
}
