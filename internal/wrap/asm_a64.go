package wrap

import (
	"encoding/binary"

	"github.com/offload-kit/offload-kit/internal/objw"
)

// AArch64 instruction encoders for the templates. Registers are numbers
// 0-30; 31 is sp or xzr/wzr depending on the instruction.
const (
	xzr = 31
	sp  = 31
)

// AArch64 condition codes for B.cond.
const (
	condEQ = 0x0
	condNE = 0x1
	condHS = 0x2
)

// ins emits one instruction word.
func (c *code) ins(w uint32) { c.buf = binary.LittleEndian.AppendUint32(c.buf, w) }

// insReloc emits an instruction word with a relocation against sym+addend.
func (c *code) insReloc(w uint32, typ uint32, sym *objw.Symbol, addend int64) {
	c.relocs = append(c.relocs, pendingReloc{off: len(c.buf), typ: typ, sym: sym, addend: addend})
	c.ins(w)
}

// insFix emits an instruction word whose offset field is filled in from a
// label when the code is finished.
func (c *code) insFix(w uint32, kind int, label string) {
	c.fixups = append(c.fixups, fixup{at: len(c.buf), label: label, kind: kind})
	c.ins(w)
}

// a64AdrpAdd: adrp xd, sym ; add xd, xd, :lo12:sym.
func (c *code) a64AdrpAdd(rd uint32, sym *objw.Symbol, addend int64) {
	c.insReloc(0x90000000|rd, objw.R_AARCH64_ADR_PREL_PG_HI21, sym, addend)
	c.insReloc(a64AddImm(rd, rd, 0), objw.R_AARCH64_ADD_ABS_LO12_NC, sym, addend)
}

// a64Bl: bl sym (R_AARCH64_CALL26; the linker adds a PLT stub if needed).
func (c *code) a64Bl(sym *objw.Symbol) { c.insReloc(0x94000000, objw.R_AARCH64_CALL26, sym, 0) }

// a64BlLocal: bl label.
func (c *code) a64BlLocal(label string) { c.insFix(0x94000000, fixImm26, label) }

// a64B: b label.
func (c *code) a64B(label string) { c.insFix(0x14000000, fixImm26, label) }

// a64BCond: b.<cond> label.
func (c *code) a64BCond(cond uint32, label string) { c.insFix(0x54000000|cond, fixImm19, label) }

// a64Adr: adr xd, label.
func (c *code) a64Adr(rd uint32, label string) { c.insFix(0x10000000|rd, fixAdr, label) }

// add xd, xn, #imm12.
func a64AddImm(rd, rn, imm uint32) uint32 { return 0x91000000 | imm<<10 | rn<<5 | rd }

// sub xd, xn, #imm12.
func a64SubImm(rd, rn, imm uint32) uint32 { return 0xd1000000 | imm<<10 | rn<<5 | rd }

// mov xd, xm (orr xd, xzr, xm).
func a64MovX(rd, rm uint32) uint32 { return 0xaa0003e0 | rm<<16 | rd }

// mov wd, wm (orr wd, wzr, wm).
func a64MovW(rd, rm uint32) uint32 { return 0x2a0003e0 | rm<<16 | rd }

// ldr xt, [xn, #imm] (imm a multiple of 8).
func a64LdrX(rt, rn, imm uint32) uint32 { return 0xf9400000 | (imm/8)<<10 | rn<<5 | rt }

// ldr wt, [xn, #imm] (imm a multiple of 4).
func a64LdrW(rt, rn, imm uint32) uint32 { return 0xb9400000 | (imm/4)<<10 | rn<<5 | rt }

// ldrh wt, [xn, #imm] (imm a multiple of 2).
func a64LdrH(rt, rn, imm uint32) uint32 { return 0x79400000 | (imm/2)<<10 | rn<<5 | rt }

// str xt, [xn, #imm] (imm a multiple of 8).
func a64StrX(rt, rn, imm uint32) uint32 { return 0xf9000000 | (imm/8)<<10 | rn<<5 | rt }

// cmp xn, xm.
func a64CmpX(rn, rm uint32) uint32 { return 0xeb00001f | rm<<16 | rn<<5 }

// cmp xn, #imm12.
func a64CmpXImm(rn, imm uint32) uint32 { return 0xf100001f | imm<<10 | rn<<5 }

// cmp wn, #imm12.
func a64CmpWImm(rn, imm uint32) uint32 { return 0x7100001f | imm<<10 | rn<<5 }

// ubfx wd, wn, #lsb, #width.
func a64Ubfx(rd, rn, lsb, width uint32) uint32 {
	return 0x53000000 | lsb<<16 | (lsb+width-1)<<10 | rn<<5 | rd
}

// stp xt1, xt2, [xn, #imm] (signed offset, imm a multiple of 8).
func a64Stp(rt1, rt2, rn uint32, imm int32) uint32 {
	return 0xa9000000 | (uint32(imm/8)&0x7f)<<15 | rt2<<10 | rn<<5 | rt1
}

// ldp xt1, xt2, [xn, #imm] (signed offset).
func a64Ldp(rt1, rt2, rn uint32, imm int32) uint32 {
	return 0xa9400000 | (uint32(imm/8)&0x7f)<<15 | rt2<<10 | rn<<5 | rt1
}

const (
	a64Ret        = 0xd65f03c0 // ret
	a64PushLR     = 0xf81f0ffe // str x30, [sp, #-16]!
	a64PopLR      = 0xf84107fe // ldr x30, [sp], #16
	a64PushLRX19  = 0xa9bf4ffe // stp x30, x19, [sp, #-16]!
	a64PopLRX19   = 0xa8c14ffe // ldp x30, x19, [sp], #16
	a64MovW4Minus = 0x12800004 // mov w4, #-1 (movn w4, #0)
)
