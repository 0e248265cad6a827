package wrap

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/offload-kit/offload-kit/internal/objw"
)

// Sizes of intel's runtime property structures (spec sycl.md §9.1).
const (
	syclPropSize    = 32 // {char *Name, void *ValAddr, u32 Type, pad, u64 ValSize}
	syclPropSetSize = 24 // {char *Name, prop *Begin, prop *End}
)

// syclProps emits property sets in intel's runtime layout. Names follow
// intel's wrapper (spec sycl.md §9.1): property names are "prop" strings,
// values "prop_val", set names "SYCL_PropSetName" strings, and both the
// property arrays and the set arrays "__sycl_offload_prop_sets_arr"; each
// repeated name gets a ".<n>" suffix (n counting from 1 per base name).
//
// Strings go into the string section, values into a read-only value
// section created on first use (.rodata on ELF, .rdata$prop on COFF,
// 8-aligned), and the arrays, which hold pointers, into the relocated
// constant section. Nothing is added for an image without property sets,
// so such objects stay byte-identical to LLVM 22's layout.
type syclProps struct {
	m              *module
	rel            *objw.Section // the relocated constant section
	strSym, relSym *objw.Symbol  // section symbols of the strings and of rel
	vals           *objw.Section // value section, nil until first used
	valSym         *objw.Symbol
	uses           map[string]int // symbol base name → times used
	cstr           func(sym, s string) uint64
	local          func(name string, sec *objw.Section, off, size uint64)
}

// unique returns base, then base.1, base.2, ...
func (p *syclProps) unique(base string) string {
	n := p.uses[base]
	p.uses[base]++
	if n == 0 {
		return base
	}
	return fmt.Sprintf("%s.%d", base, n)
}

// value appends b to the value section and returns its offset.
func (p *syclProps) value(b []byte) uint64 {
	if p.vals == nil {
		if p.m.coff {
			p.vals = p.m.o.AddSection(".rdata$prop", format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
		} else {
			p.vals = p.m.o.AddSection(".rodata", format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
		}
		p.valSym = p.m.secSym(p.vals)
	}
	p.vals.Pad(8)
	off := p.vals.Append(b)
	p.local(p.unique("prop_val"), p.vals, off, uint64(len(b)))
	return off
}

// emit writes image img's property sets and returns the offsets of its set
// array in rel ([begin, end)); ok is false when the image has none, and
// PropertiesBegin/End stay null.
func (p *syclProps) emit(img int, sets syclprop.Sets) (begin, end uint64, ok bool, err error) {
	if len(sets) == 0 {
		return 0, 0, false, nil
	}
	type setRef struct {
		name        uint64
		first, last uint64 // property array [first, last) in rel
		nonEmpty    bool
	}
	refs := make([]setRef, len(sets))
	for si, s := range sets {
		if strings.IndexByte(s.Name, 0) >= 0 {
			return 0, 0, false, fmt.Errorf("wrap: sycl image %d: property set %q: name contains NUL", img, s.Name)
		}
		type propRef struct {
			name, val uint64
			hasVal    bool
			typ       syclprop.Type
			size      uint64
		}
		prs := make([]propRef, len(s.Props))
		for pi, pr := range s.Props {
			if strings.IndexByte(pr.Name, 0) >= 0 {
				return 0, 0, false, fmt.Errorf("wrap: sycl image %d: property set %q: property %q: name contains NUL", img, s.Name, pr.Name)
			}
			r := propRef{typ: pr.Type, name: p.cstr(p.unique("prop"), pr.Name)}
			switch pr.Type {
			case syclprop.Uint32:
				r.size = uint64(pr.U32)
			case syclprop.ByteArray:
				r.size = uint64(len(pr.Bytes))
				if len(pr.Bytes) > 0 {
					r.val, r.hasVal = p.value(pr.Bytes), true
				}
			case syclprop.String:
				if strings.IndexByte(string(pr.Bytes), 0) >= 0 {
					return 0, 0, false, fmt.Errorf("wrap: sycl image %d: property set %q: string property %q contains NUL", img, s.Name, pr.Name)
				}
				r.size = uint64(len(pr.Bytes)) + 1
				r.val, r.hasVal = p.value(append(append(make([]byte, 0, len(pr.Bytes)+1), pr.Bytes...), 0)), true
			default:
				return 0, 0, false, fmt.Errorf("wrap: sycl image %d: property set %q: property %q: unsupported type %d", img, s.Name, pr.Name, pr.Type)
			}
			prs[pi] = r
		}
		ref := &refs[si]
		if len(prs) > 0 {
			p.rel.Pad(8)
			ref.first, ref.nonEmpty = p.rel.Size(), true
			for _, r := range prs {
				p.m.ptr(p.rel, p.strSym, int64(r.name))
				if r.hasVal {
					p.m.ptr(p.rel, p.valSym, int64(r.val))
				} else {
					p.m.ptr(p.rel, nil, 0)
				}
				var b [16]byte
				binary.LittleEndian.PutUint32(b[0:], uint32(r.typ))
				binary.LittleEndian.PutUint64(b[8:], r.size)
				p.rel.Append(b[:])
			}
			ref.last = p.rel.Size()
			p.local(p.unique("__sycl_offload_prop_sets_arr"), p.rel, ref.first, ref.last-ref.first)
		}
		ref.name = p.cstr(p.unique("SYCL_PropSetName"), s.Name)
	}
	p.rel.Pad(8)
	begin = p.rel.Size()
	for _, r := range refs {
		p.m.ptr(p.rel, p.strSym, int64(r.name))
		if r.nonEmpty {
			p.m.ptr(p.rel, p.relSym, int64(r.first))
			p.m.ptr(p.rel, p.relSym, int64(r.last))
		} else { // an empty set: null, null (as intel's wrapper)
			p.m.ptr(p.rel, nil, 0)
			p.m.ptr(p.rel, nil, 0)
		}
	}
	end = p.rel.Size()
	p.local(p.unique("__sycl_offload_prop_sets_arr"), p.rel, begin, end-begin)
	return begin, end, true, nil
}
