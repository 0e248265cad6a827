package wrap

import (
	"encoding/binary"
	"fmt"
	"github.com/offload-kit/offload-kit/format"

	"github.com/offload-kit/offload-kit/internal/objw"
)

// code assembles one code section (.text.startup) from hand-encoded
// instruction bytes. Branches and calls between functions of the same
// section use labels and are resolved here (no relocation, as the LLVM
// assembler does); references to other sections or to external symbols
// become relocations.
type code struct {
	buf    []byte
	labels map[string]int
	fixups []fixup
	relocs []pendingReloc
	funcs  []funcRange
	align  int  // function alignment
	pad    byte // padding byte between functions
	coff   bool // x86-64 COFF: REL32 relocations with in-place addends
}

// fixup kinds: how a label's PC-relative offset is encoded.
const (
	fixRel32 = iota // x86-64: 32-bit displacement from the end of the field
	fixImm26        // AArch64 B/BL: imm26 words from the instruction
	fixImm19        // AArch64 B.cond: imm19 words, bits 5-23
	fixAdr          // AArch64 ADR: 21-bit byte offset (immlo 29-30, immhi 5-23)
)

type fixup struct {
	at    int    // offset of the field (x86) or instruction (AArch64)
	label string // target label
	kind  int
}

type pendingReloc struct {
	off    int
	typ    uint32
	sym    *objw.Symbol
	addend int64
}

type funcRange struct {
	name       string
	start, end int
	unwind     []byte  // Windows x64 UNWIND_INFO (COFF only)
	cfi        []cfiOp // DWARF call frame information (ELF .eh_frame)
}

// cfiOp is one call-frame instruction, effective from code offset pc.
type cfiOp struct {
	pc   int
	kind int // cfiCFAOffset, cfiSaved or cfiRestore
	reg  uint8
	val  int // CFA offset, or how far below the CFA reg is saved
}

const (
	cfiCFAOffset = iota
	cfiSaved
	cfiRestore
)

// cfaOffset records that from here the CFA is the stack pointer plus n.
func (c *code) cfaOffset(n int) { c.addCFI(cfiOp{kind: cfiCFAOffset, val: n}) }

// saved records that DWARF register reg is saved at CFA-n from here.
func (c *code) saved(reg uint8, n int) { c.addCFI(cfiOp{kind: cfiSaved, reg: reg, val: n}) }

// restored records that register reg holds its caller's value again.
func (c *code) restored(reg uint8) { c.addCFI(cfiOp{kind: cfiRestore, reg: reg}) }

func (c *code) addCFI(op cfiOp) {
	f := &c.funcs[len(c.funcs)-1]
	op.pc = len(c.buf)
	f.cfi = append(f.cfi, op)
}

// newCode returns a builder whose functions start at align-byte
// boundaries, padded with pad.
func newCode(align int, pad byte) *code {
	return &code{labels: map[string]int{}, align: align, pad: pad}
}

// fn starts a new function.
func (c *code) fn(name string) {
	for len(c.buf)%c.align != 0 {
		c.buf = append(c.buf, c.pad)
	}
	c.label(name)
	c.funcs = append(c.funcs, funcRange{name: name, start: len(c.buf)})
}

// endFn closes the function started last.
func (c *code) endFn() { c.funcs[len(c.funcs)-1].end = len(c.buf) }

func (c *code) label(name string) { c.labels[name] = len(c.buf) }

// op emits raw instruction bytes.
func (c *code) op(b ...byte) { c.buf = append(c.buf, b...) }

// rel32 emits a 32-bit displacement to a label, relative to the end of the
// displacement (valid when nothing follows it in the instruction).
func (c *code) rel32(label string) {
	c.fixups = append(c.fixups, fixup{at: len(c.buf), label: label, kind: fixRel32})
	c.buf = append(c.buf, 0, 0, 0, 0)
}

// reloc emits a 32-bit PC-relative field relocated against sym+off, where
// off is relative to the end of the field (the next instruction, as long
// as no immediate follows). ELF stores off-4 as the RELA addend; COFF's
// REL32 already measures from the end of the field.
func (c *code) reloc(typ uint32, sym *objw.Symbol, off int64) {
	if c.coff {
		typ = objw.IMAGE_REL_AMD64_REL32
	} else {
		off -= 4
	}
	c.relocs = append(c.relocs, pendingReloc{off: len(c.buf), typ: typ, sym: sym, addend: off})
	c.buf = append(c.buf, 0, 0, 0, 0)
}

// pcrel emits a RIP-relative displacement to sym+off (R_X86_64_PC32 or
// IMAGE_REL_AMD64_REL32).
func (c *code) pcrel(sym *objw.Symbol, off int64) { c.reloc(objw.R_X86_64_PC32, sym, off) }

// callExt: call sym (through the PLT on ELF).
func (c *code) callExt(sym *objw.Symbol) {
	c.op(0xe8)
	c.reloc(objw.R_X86_64_PLT32, sym, 0)
}

// Windows x64 unwind operations.
const (
	uwopPushNonvol = 0
	uwopAllocSmall = 2
)

// winUnwind records the UNWIND_INFO of the function being emitted: the
// prolog size and its unwind codes, each {offset of the end of the
// instruction, op, info}, given in prolog order (they are stored
// reversed, as the format requires).
func (c *code) winUnwind(prolog byte, ops ...[3]byte) {
	u := []byte{1, prolog, byte(len(ops)), 0}
	for i := len(ops) - 1; i >= 0; i-- {
		u = append(u, ops[i][0], ops[i][1]|ops[i][2]<<4)
	}
	if len(ops)%2 == 1 {
		u = append(u, 0, 0)
	}
	c.funcs[len(c.funcs)-1].unwind = u
}

// call: call a label in this section.
func (c *code) call(label string) {
	c.op(0xe8)
	c.rel32(label)
}

// jmp: jmp rel32 to a label.
func (c *code) jmp(label string) {
	c.op(0xe9)
	c.rel32(label)
}

// jcc: conditional jump rel32 (cc is the second opcode byte, e.g. 0x84 je).
func (c *code) jcc(cc byte, label string) {
	c.op(0x0f, cc)
	c.rel32(label)
}

// Condition codes (second byte of 0F 8x).
const (
	ccAE = 0x83 // jae
	ccE  = 0x84 // je
	ccNE = 0x85 // jne
)

// finish resolves label fixups, appends the code to sec (which must be
// empty) and adds relocations and function symbols (local, STT_FUNC).
func (c *code) finish(o *objw.Object, sec *objw.Section) (map[string]*objw.Symbol, error) {
	for _, f := range c.fixups {
		t, ok := c.labels[f.label]
		if !ok {
			return nil, fmt.Errorf("wrap: internal error: undefined label %q", f.label)
		}
		if err := f.apply(c.buf, t); err != nil {
			return nil, err
		}
	}
	base := sec.Append(c.buf)
	for _, r := range c.relocs {
		o.AddReloc(sec, base+uint64(r.off), r.typ, r.sym, r.addend)
	}
	syms := make(map[string]*objw.Symbol, len(c.funcs))
	for _, f := range c.funcs {
		syms[f.name] = o.AddSymbol(f.name, sec, base+uint64(f.start), uint64(f.end-f.start),
			format.STB_LOCAL, format.STT_FUNC, format.STV_DEFAULT)
	}
	return syms, nil
}

func (f fixup) apply(buf []byte, target int) error {
	le := binary.LittleEndian
	d := target - f.at
	switch f.kind {
	case fixRel32:
		le.PutUint32(buf[f.at:], uint32(int32(target-(f.at+4))))
		return nil
	case fixAdr:
		if d < -(1<<20) || d >= 1<<20 {
			break
		}
		w := le.Uint32(buf[f.at:])
		w |= uint32(d&3)<<29 | uint32((d>>2)&0x7ffff)<<5
		le.PutUint32(buf[f.at:], w)
		return nil
	case fixImm26:
		if d%4 != 0 || d < -(1<<27) || d >= 1<<27 {
			break
		}
		w := le.Uint32(buf[f.at:])
		le.PutUint32(buf[f.at:], w|uint32(d/4)&0x3ffffff)
		return nil
	case fixImm19:
		if d%4 != 0 || d < -(1<<20) || d >= 1<<20 {
			break
		}
		w := le.Uint32(buf[f.at:])
		le.PutUint32(buf[f.at:], w|(uint32(d/4)&0x7ffff)<<5)
		return nil
	}
	return fmt.Errorf("wrap: internal error: label %q out of range for fixup kind %d", f.label, f.kind)
}
