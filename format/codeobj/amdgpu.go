package codeobj

import (
	"encoding/binary"
	"strings"

	"github.com/offload-kit/offload-kit/format"
)

// ntAMDGPUMetadata is the note type of the code object v3+ metadata
// (owner "AMDGPU", a msgpack map).
const ntAMDGPUMetadata = 32

// kdSize is the size of an AMDHSA kernel descriptor.
const kdSize = 64

// parseAMDGPU lists the functions of an AMDGPU code object: every defined
// STT_FUNC symbol, with its size. A function whose name has a "<name>.kd"
// kernel descriptor object is a kernel; LDS, scratch and kernarg sizes
// come from the descriptor, register, spill and work-group facts from the
// kernel's entry in the metadata note.
func parseAMDGPU(data []byte) (*Object, error) {
	f, err := parseELF(data)
	if err != nil {
		return nil, err
	}
	o := &Object{Kind: KindAMDGPU}
	kds := map[string]*Resources{}
	index := map[string]int{}
	var funcs []elfSymbol
	err = f.symbols(func(_ int, s *elfSymbol) {
		switch {
		case s.typ() == sttFunc && s.shndx != 0:
			funcs = append(funcs, *s)
		case s.typ() == sttObject && strings.HasSuffix(s.name, ".kd") && s.shndx != 0:
			r := &Resources{}
			if off, size, ok := f.fileRange(s); ok && size >= kdSize {
				kd := data[off : off+kdSize]
				r.set(ResLDS, int64(binary.LittleEndian.Uint32(kd[0:])))
				r.set(ResScratch, int64(binary.LittleEndian.Uint32(kd[4:])))
				r.set(ResKernarg, int64(binary.LittleEndian.Uint32(kd[8:])))
			}
			kds[strings.TrimSuffix(s.name, ".kd")] = r
		}
	})
	if err != nil {
		return nil, err
	}
	from := f.layoutSizes(funcs)
	for i := range funcs {
		s := &funcs[i]
		fn := Function{Name: s.name, Offset: -1, Size: int64(s.size), SizeFrom: from[i]}
		if off, _, ok := f.fileRange(s); ok {
			fn.Offset = int64(off)
		}
		if _, dup := index[s.name]; !dup {
			index[s.name] = len(o.Functions)
			o.Functions = append(o.Functions, fn)
		}
	}
	for name, r := range kds {
		if i, ok := index[name]; ok {
			o.Functions[i].Kernel = true
			o.Functions[i].Resources = r
		}
	}
	err = f.notes(func(n note) error {
		if n.name != "AMDGPU" || n.typ != ntAMDGPUMetadata {
			return nil
		}
		return readMetadata(n, o, index, kds)
	})
	if err != nil {
		return nil, err
	}
	if o.Target == "" {
		// Metadata written by hand (Tensile's assembly) has no
		// amdhsa.target: the ELF header names the processor.
		if id := AMDGPUTargetID(f.flags, f.abiVer); id != "" {
			o.Target = "amdgcn-amd-amdhsa--" + id
		}
	}
	return o, nil
}

// amdgpuMach maps EF_AMDGPU_MACH values (e_flags & 0xff) to processor
// names, as LLVM's BinaryFormat/ELF.h defines them.
var amdgpuMach = map[uint32]string{
	0x020: "gfx600", 0x021: "gfx601", 0x022: "gfx700", 0x023: "gfx701", 0x024: "gfx702", 0x025: "gfx703",
	0x026: "gfx704", 0x028: "gfx801", 0x029: "gfx802", 0x02a: "gfx803", 0x02b: "gfx810", 0x02c: "gfx900",
	0x02d: "gfx902", 0x02e: "gfx904", 0x02f: "gfx906", 0x030: "gfx908", 0x031: "gfx909", 0x032: "gfx90c",
	0x033: "gfx1010", 0x034: "gfx1011", 0x035: "gfx1012", 0x036: "gfx1030", 0x037: "gfx1031",
	0x038: "gfx1032", 0x039: "gfx1033", 0x03a: "gfx602", 0x03b: "gfx705", 0x03c: "gfx805",
	0x03d: "gfx1035", 0x03e: "gfx1034", 0x03f: "gfx90a", 0x040: "gfx940", 0x041: "gfx1100",
	0x042: "gfx1013", 0x043: "gfx1150", 0x044: "gfx1103", 0x045: "gfx1036", 0x046: "gfx1101",
	0x047: "gfx1102", 0x048: "gfx1200", 0x04a: "gfx1151", 0x04b: "gfx941", 0x04c: "gfx942",
	0x04e: "gfx1201", 0x04f: "gfx950", 0x050: "gfx1152", 0x051: "gfx9-generic", 0x052: "gfx10-1-generic",
	0x053: "gfx10-3-generic", 0x054: "gfx11-generic", 0x055: "gfx1153", 0x059: "gfx12-generic",
}

// AMDGPUProcessor is the processor EF_AMDGPU_MACH (e_flags & 0xff) names,
// e.g. "gfx90a"; "" for one this table does not know.
func AMDGPUProcessor(flags uint32) string { return amdgpuMach[flags&0xff] }

// AMDGPUTargetID is the target ID an AMDGPU ELF header names: the
// processor of EF_AMDGPU_MACH, then ":sramecc±" and ":xnack±" where the
// code object (v4 and later: ELF ABI version 2 and up) sets them; "" for
// an unknown processor.
func AMDGPUTargetID(flags uint32, abiVersion uint8) string {
	id, ok := amdgpuMach[flags&0xff]
	if !ok || abiVersion < 2 {
		return id
	}
	feature := func(name string, v uint32) {
		switch v {
		case 2:
			id += ":" + name + "-"
		case 3:
			id += ":" + name + "+"
		}
	}
	feature("sramecc", flags>>10&3) // EF_AMDGPU_FEATURE_SRAMECC_V4: 0xc00
	feature("xnack", flags>>8&3)    // EF_AMDGPU_FEATURE_XNACK_V4: 0x300
	return id
}

// readMetadata reads amdhsa.target and, for each entry of amdhsa.kernels,
// the resource keys, skipping everything else (the .args lists are most
// of the note).
func readMetadata(n note, o *Object, index map[string]int, kds map[string]*Resources) error {
	r := &mpReader{b: n.desc, base: n.off}
	top := r.next()
	if r.err == nil && top.kind != mpMap {
		r.fail("metadata is not a map", format.ErrCorrupt)
	}
	for i := 0; i < top.n && r.err == nil; i++ {
		k := r.next()
		if r.err != nil {
			break
		}
		switch {
		case k.kind == mpStr && string(k.b) == "amdhsa.target":
			v := r.next()
			if v.kind == mpStr {
				o.Target = string(v.b)
			} else {
				r.skipItem(v, 1)
			}
		case k.kind == mpStr && string(k.b) == "amdhsa.kernels":
			arr := r.next()
			if arr.kind != mpArray {
				r.skipItem(arr, 1)
				continue
			}
			for j := 0; j < arr.n && r.err == nil; j++ {
				readKernel(r, o, index, kds)
			}
		default:
			r.skipItem(k, 1)
			r.skip()
		}
	}
	if r.err != nil {
		return r.err
	}
	return nil
}

func readKernel(r *mpReader, o *Object, index map[string]int, kds map[string]*Resources) {
	m := r.next()
	if m.kind != mpMap {
		r.skipItem(m, 2)
		return
	}
	var res Resources
	var name, symbol string
	var lds, scratch int64 = -1, -1
	for i := 0; i < m.n && r.err == nil; i++ {
		k := r.next()
		if k.kind != mpStr {
			r.skipItem(k, 3)
			r.skip()
			continue
		}
		v := r.next()
		if r.err != nil {
			return
		}
		iv, isInt := v.intValue()
		switch key := string(k.b); {
		case key == ".name" && v.kind == mpStr:
			name = string(v.b)
		case key == ".symbol" && v.kind == mpStr:
			symbol = string(v.b)
		case !isInt:
			r.skipItem(v, 3)
		case key == ".sgpr_count":
			res.set(ResSGPRs, iv)
		case key == ".vgpr_count":
			res.set(ResVGPRs, iv)
		case key == ".agpr_count":
			res.set(ResAGPRs, iv)
		case key == ".sgpr_spill_count":
			res.set(ResSGPRSpills, iv)
		case key == ".vgpr_spill_count":
			res.set(ResVGPRSpills, iv)
		case key == ".max_flat_workgroup_size":
			res.set(ResMaxThreads, iv)
		case key == ".group_segment_fixed_size":
			lds = iv
		case key == ".private_segment_fixed_size":
			scratch = iv
		case key == ".kernarg_segment_size":
			res.set(ResKernarg, iv)
		}
	}
	fnName := strings.TrimSuffix(symbol, ".kd")
	if fnName == "" {
		fnName = name
	}
	i, ok := index[fnName]
	if !ok {
		return
	}
	fn := &o.Functions[i]
	fn.Kernel = true
	kd := kds[fnName]
	if kd == nil {
		// No descriptor symbol: the metadata's sizes stand in.
		kd = &Resources{}
		if lds >= 0 {
			kd.set(ResLDS, lds)
		}
		if scratch >= 0 {
			kd.set(ResScratch, scratch)
		}
		if res.Has(ResKernarg) {
			kd.set(ResKernarg, res.Kernarg)
		}
	}
	res.Recorded &^= ResLDS | ResScratch | ResKernarg
	for _, b := range []ResourceSet{ResLDS, ResScratch, ResKernarg} {
		if kd.Has(b) {
			res.set(b, *fieldOf(kd, b))
		}
	}
	fn.Resources = &res
}
