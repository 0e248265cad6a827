package wrap

import (
	"encoding/binary"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/objw"
)

// DWARF register numbers used by the templates' call frame information.
const (
	dwX86RBX = 3
	dwX86RSP = 7
	dwX86R14 = 14
	dwX86R15 = 15
	dwX86RA  = 16
	dwA64X19 = 19
	dwA64X20 = 20
	dwA64X21 = 21
	dwA64LR  = 30
	dwA64SP  = 31
)

// ehFrame adds .eh_frame: one CIE in LLVM's form ("zR", pc-relative sdata4
// FDE pointers) and one FDE per function of .text.startup, built from the
// CFI the templates record, so that unwinders and debuggers can walk
// through the registration functions.
func (m *module) ehFrame() {
	typ, dataAlign, ra := format.SHT_X86_64_UNWIND, int64(-8), byte(dwX86RA)
	initial := []byte{0x0c, dwX86RSP, 8, 0x80 | dwX86RA, 1} // def_cfa rsp+8; RA at cfa-8
	pcrel := objw.R_X86_64_PC32
	if m.a64 {
		typ, dataAlign, ra = format.SHT_PROGBITS, -4, dwA64LR
		initial = []byte{0x0c, dwA64SP, 0} // def_cfa sp+0
		pcrel = objw.R_AARCH64_PREL32
	}
	sec := m.o.AddSection(".eh_frame", typ, format.SHF_ALLOC, 8, nil)
	if m.a64 {
		m.mappingSymbol("$d", sec)
	}
	le := binary.LittleEndian

	// record appends a length-prefixed CIE or FDE padded with DW_CFA_nop
	// to a multiple of 8 bytes, and returns its offset.
	record := func(body []byte) uint64 {
		for (4+len(body))%8 != 0 {
			body = append(body, 0)
		}
		return sec.Append(append(le.AppendUint32(nil, uint32(len(body))), body...))
	}
	cie := []byte{0, 0, 0, 0, 1, 'z', 'R', 0, 1}
	cie = appendSLEB(cie, dataAlign)
	cie = append(cie, ra, 1, 0x1b) // augmentation data: FDE encoding pcrel|sdata4
	cie = append(cie, initial...)
	record(cie)

	text := m.secSym(m.startup)
	for _, f := range m.c.funcs {
		at := sec.Size()
		body := le.AppendUint32(nil, uint32(at+4)) // CIE pointer: back to offset 0
		body = le.AppendUint32(body, 0)            // pc_begin, relocated
		body = le.AppendUint32(body, uint32(f.end-f.start))
		body = append(body, 0) // augmentation data length
		pc := f.start
		for _, op := range f.cfi {
			body = appendAdvance(body, op.pc-pc)
			pc = op.pc
			switch op.kind {
			case cfiCFAOffset:
				body = appendULEB(append(body, 0x0e), uint64(op.val)) // DW_CFA_def_cfa_offset
			case cfiSaved:
				body = appendULEB(append(body, 0x80|op.reg), uint64(int64(op.val)/-dataAlign)) // DW_CFA_offset
			case cfiRestore:
				body = append(body, 0xc0|op.reg) // DW_CFA_restore
			}
		}
		record(body)
		m.o.AddReloc(sec, at+8, pcrel, text, int64(f.start))
	}
}

// appendAdvance encodes DW_CFA_advance_loc* for a code delta (factor 1).
func appendAdvance(b []byte, d int) []byte {
	switch {
	case d == 0:
		return b
	case d < 0x40:
		return append(b, 0x40|byte(d))
	case d < 0x100:
		return append(b, 0x02, byte(d))
	case d < 0x10000:
		return binary.LittleEndian.AppendUint16(append(b, 0x03), uint16(d))
	}
	return binary.LittleEndian.AppendUint32(append(b, 0x04), uint32(d))
}

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
