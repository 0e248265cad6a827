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
	err = f.symbols(func(_ int, s *elfSymbol) {
		switch {
		case s.typ() == sttFunc && s.shndx != 0:
			fn := Function{Name: s.name, Offset: -1, Size: int64(s.size)}
			if off, _, ok := f.fileRange(s); ok {
				fn.Offset = int64(off)
			}
			if _, dup := index[s.name]; !dup {
				index[s.name] = len(o.Functions)
				o.Functions = append(o.Functions, fn)
			}
		case s.typ() == sttObject && strings.HasSuffix(s.name, ".kd") && s.shndx != 0:
			r := &Resources{}
			if off, size, ok := f.fileRange(s); ok && size >= kdSize {
				kd := data[off : off+kdSize]
				r.LDS = int64(binary.LittleEndian.Uint32(kd[0:]))
				r.Scratch = int64(binary.LittleEndian.Uint32(kd[4:]))
				r.Kernarg = int64(binary.LittleEndian.Uint32(kd[8:]))
			}
			kds[strings.TrimSuffix(s.name, ".kd")] = r
		}
	})
	if err != nil {
		return nil, err
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
	return o, nil
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
			res.SGPRs = iv
		case key == ".vgpr_count":
			res.VGPRs = iv
		case key == ".agpr_count":
			res.AGPRs = iv
		case key == ".sgpr_spill_count":
			res.SGPRSpills = iv
		case key == ".vgpr_spill_count":
			res.VGPRSpills = iv
		case key == ".max_flat_workgroup_size":
			res.MaxThreads = iv
		case key == ".group_segment_fixed_size":
			lds = iv
		case key == ".private_segment_fixed_size":
			scratch = iv
		case key == ".kernarg_segment_size":
			res.Kernarg = iv
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
		kd = &Resources{LDS: max(lds, 0), Scratch: max(scratch, 0), Kernarg: res.Kernarg}
	}
	res.LDS, res.Scratch, res.Kernarg = kd.LDS, kd.Scratch, kd.Kernarg
	fn.Resources = &res
}
