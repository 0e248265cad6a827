package codeobj

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/offload-kit/offload-kit/format"
)

// EIATTR attribute codes of the .nv.info records this package reads.
const (
	eiattrMaxThreads   = 0x05 // SVAL: x, y, z (u32 each)
	eiattrReqNTID      = 0x10 // SVAL: x, y, z
	eiattrFrameSize    = 0x11 // SVAL: symbol index, bytes
	eiattrMinStackSize = 0x12 // SVAL: symbol index, bytes (cuobjdump -res-usage's STACK)
	eiattrRegCount     = 0x2f // SVAL: symbol index, registers
)

// EIATTR record formats: every record is a 4-byte head (format, attribute,
// u16 value or size); SVAL records are followed by size bytes.
const (
	eifmtNVAL = 1
	eifmtBVAL = 2
	eifmtHVAL = 3
	eifmtSVAL = 4
)

// stoCUDAEntry marks a cubin function symbol as a kernel entry.
const stoCUDAEntry = 0x10

type eiattr struct {
	fmt   uint8
	attr  uint8
	small uint16 // the value of a BVAL or HVAL record
	val   []byte // SVAL payload (nil otherwise)
	off   int64
}

// eiattrs reads the records of one .nv.info section.
func eiattrs(b []byte, base int64) ([]eiattr, error) {
	var out []eiattr
	for p := 0; p < len(b); {
		if len(b)-p < 4 {
			return nil, format.Errorf(base+int64(p), format.ErrTruncated, "EIATTR record head runs past the end")
		}
		f, a, v := b[p], b[p+1], int(binary.LittleEndian.Uint16(b[p+2:]))
		r := eiattr{fmt: f, attr: a, off: base + int64(p)}
		p += 4
		switch f {
		case eifmtSVAL:
			if v > len(b)-p {
				return nil, format.Errorf(r.off, format.ErrTruncated, "EIATTR 0x%02x: %d bytes run past the end", a, v)
			}
			r.val = b[p : p+v]
			p += v
		case eifmtBVAL:
			r.small = uint16(v & 0xff)
		case eifmtHVAL:
			r.small = uint16(v)
		case eifmtNVAL:
		default:
			return nil, format.Errorf(r.off, format.ErrCorrupt, "EIATTR 0x%02x: unknown record format %d", a, f)
		}
		out = append(out, r)
	}
	return out, nil
}

// parseCubin lists the functions of a cubin: the STT_FUNC symbols of its
// .text.<name> sections (kernels carry STO_CUDA_ENTRY), with the
// resources cuobjdump -res-usage reports for each:
//
//   - REG: a kernel's EIATTR_REGCOUNT record in .nv.info (keyed by symbol
//     index; the last one counts), else bits 24-31 of its text section's
//     sh_info; a device function's sh_info bits only. cuobjdump ignores
//     the EIATTR_REGCOUNT that ptxas also writes for device functions
//     (so ptxas's "Used 24 registers" for a .func shows as REG:0): a cubin
//     whose records were patched shows it (docs/kernels-json.md).
//   - STACK: a kernel's EIATTR_MIN_STACK_SIZE; 0 for device functions.
//   - SHARED: the size of .nv.shared.<name> (0 without one).
//   - CONSTANT[0]: the size of .nv.constant0.<name>, when there is one.
//
// The local frame (EIATTR_FRAME_SIZE) and the thread limit
// (EIATTR_MAX_THREADS, else EIATTR_REQNTID, of .nv.info.<name>) are
// recorded where present. The target is sm_NN from e_flags, sm_NNa when
// .nv.compat marks an arch-specific cubin (EICOMPAT attribute 0x09 = 1);
// a family-specific cubin (sm_100f) is not marked in the ELF at all, only
// in its fat binary entry header (format/fatbin's Entry.Arch).
func parseCubin(data []byte) (*Object, error) {
	f, err := parseELF(data)
	if err != nil {
		return nil, err
	}
	o := &Object{Kind: KindCubin}
	sm := f.flags & 0xff
	if f.abiVer >= 8 {
		sm = f.flags >> 8 & 0xff
	}
	if sm != 0 {
		o.Target = fmt.Sprintf("sm_%d", sm)
		if f.archSpecific() {
			o.Target += "a"
		}
	}
	var syms []elfSymbol
	var idxs []int
	err = f.symbols(func(i int, s *elfSymbol) {
		if s.typ() != sttFunc || s.shndx == 0 || int(s.shndx) >= len(f.sections) {
			return
		}
		syms = append(syms, *s)
		idxs = append(idxs, i)
	})
	if err != nil {
		return nil, err
	}
	from := f.layoutSizes(syms)
	bySym := map[int]int{} // symbol index → function index
	for k := range syms {
		s := &syms[k]
		sec := &f.sections[s.shndx]
		fn := Function{Name: s.name, Kernel: s.other&stoCUDAEntry != 0, Offset: -1, Size: int64(s.size), SizeFrom: from[k], Resources: &Resources{}}
		if off, _, ok := f.fileRange(s); ok {
			fn.Offset = int64(off)
		}
		fn.Resources.set(ResRegisters, int64(sec.info>>24))
		fn.Resources.set(ResStack, 0)
		fn.Resources.set(ResLDS, 0)
		bySym[idxs[k]] = len(o.Functions)
		o.Functions = append(o.Functions, fn)
	}
	byName := make(map[string]int, len(o.Functions))
	for i, fn := range o.Functions {
		byName[fn.Name] = i
	}
	for i := range f.sections {
		s := &f.sections[i]
		switch {
		case s.name == ".nv.info":
			recs, err := eiattrs(f.bytes(s), int64(s.off))
			if err != nil {
				return nil, err
			}
			for _, r := range recs {
				if len(r.val) < 8 {
					continue
				}
				fi, ok := bySym[int(binary.LittleEndian.Uint32(r.val))]
				if !ok {
					continue
				}
				v := int64(binary.LittleEndian.Uint32(r.val[4:]))
				fn := &o.Functions[fi]
				switch r.attr {
				case eiattrRegCount:
					if fn.Kernel {
						fn.Resources.set(ResRegisters, v)
					}
				case eiattrFrameSize:
					fn.Resources.set(ResScratch, v)
				case eiattrMinStackSize:
					if fn.Kernel {
						fn.Resources.set(ResStack, v)
					}
				}
			}
		case strings.HasPrefix(s.name, ".nv.info."):
			fi, ok := byName[strings.TrimPrefix(s.name, ".nv.info.")]
			if !ok {
				continue
			}
			recs, err := eiattrs(f.bytes(s), int64(s.off))
			if err != nil {
				return nil, err
			}
			for _, r := range recs {
				if (r.attr == eiattrMaxThreads || r.attr == eiattrReqNTID) && len(r.val) >= 12 {
					le := binary.LittleEndian
					n := int64(le.Uint32(r.val)) * int64(le.Uint32(r.val[4:])) * int64(le.Uint32(r.val[8:]))
					if res := o.Functions[fi].Resources; !res.Has(ResMaxThreads) || r.attr == eiattrMaxThreads {
						res.set(ResMaxThreads, n)
					}
				}
			}
		case strings.HasPrefix(s.name, ".nv.shared."):
			if fi, ok := byName[strings.TrimPrefix(s.name, ".nv.shared.")]; ok {
				o.Functions[fi].Resources.set(ResLDS, int64(s.size))
			}
		case strings.HasPrefix(s.name, ".nv.constant0."):
			if fi, ok := byName[strings.TrimPrefix(s.name, ".nv.constant0.")]; ok {
				o.Functions[fi].Resources.set(ResConstant, int64(s.size))
			}
		}
	}
	o.Functions = dropNested(o.Functions)
	return o, nil
}

// eicompatAcceleratorTarget is the .nv.compat attribute (a byte value)
// that is 1 in a cubin built for an arch-specific target (sm_90a).
const eicompatAcceleratorTarget = 0x09

// archSpecific reports whether .nv.compat marks the cubin arch-specific.
// Its records have the .nv.info layout (format, attribute, u16 value).
func (f *elfFile) archSpecific() bool {
	s := f.section(".nv.compat")
	if s == nil {
		return false
	}
	recs, err := eiattrs(f.bytes(s), int64(s.off))
	if err != nil {
		return false
	}
	for _, r := range recs {
		if r.attr == eicompatAcceleratorTarget && r.fmt == eifmtBVAL {
			return r.small == 1
		}
	}
	return false
}

// dropNested removes functions that lie inside another function's range:
// ptxas places a kernel's non-inlined callees in the kernel's own text
// section ("$kernel$callee" symbols), so their bytes are the kernel's.
func dropNested(fns []Function) []Function {
	out := fns[:0]
	for i, fn := range fns {
		inside := false
		for j, g := range fns {
			if i != j && fn.Offset >= 0 && g.Offset >= 0 && g.Size > fn.Size &&
				fn.Offset >= g.Offset && fn.Offset+fn.Size <= g.Offset+g.Size {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, fn)
		}
	}
	return out
}
