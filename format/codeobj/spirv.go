package codeobj

import (
	"encoding/binary"

	"github.com/offload-kit/offload-kit/format"
)

const spirvMagic = 0x07230203

// SPIR-V opcodes this package reads.
const (
	opName          = 5
	opEntryPoint    = 15
	opDecorate      = 71
	opFunction      = 54
	opFunctionEnd   = 56
	opLabel         = 248
	decLinkageAttrs = 41
)

// parseSPIRV lists a module's function definitions (OpFunction with a
// body, up to OpFunctionEnd) with their size in bytes (4 × words);
// entry points (OpEntryPoint) are kernels. A function is named by its
// entry point, else its LinkageAttributes, else its OpName.
func parseSPIRV(data []byte) (*Object, error) {
	if len(data)%4 != 0 || len(data) < 20 {
		return nil, format.Errorf(0, format.ErrTruncated, "spirv: %d bytes is not a whole module header and words", len(data))
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if bo.Uint32(data) != spirvMagic {
		bo = binary.BigEndian
		if bo.Uint32(data) != spirvMagic {
			return nil, format.Errorf(0, format.ErrMagic, "spirv: bad magic")
		}
	}
	o := &Object{Kind: KindSPIRV}
	if v := bo.Uint32(data[4:]); v>>24 == 0 {
		o.Target = "spirv" + itoa(int(v>>16&0xff)) + "." + itoa(int(v>>8&0xff))
	}
	names, entries, linkage := map[uint32]string{}, map[uint32]string{}, map[uint32]string{}
	type fnAt struct {
		id         uint32
		start, end int
		body       bool
	}
	var fns []fnAt
	cur := -1
	for p := 20; p < len(data); {
		w := bo.Uint32(data[p:])
		n, op := int(w>>16), w&0xffff
		if n == 0 || n*4 > len(data)-p {
			return nil, format.Errorf(int64(p), format.ErrTruncated, "spirv: instruction of %d words runs past the end", n)
		}
		ins := data[p : p+n*4]
		arg := func(i int) uint32 {
			if 4*(i+1)+4 > len(ins) {
				return 0
			}
			return bo.Uint32(ins[4*(i+1):])
		}
		switch op {
		case opName:
			if n >= 3 {
				names[arg(0)] = spirvString(ins[8:], bo)
			}
		case opEntryPoint:
			if n >= 4 {
				entries[arg(1)] = spirvString(ins[12:], bo)
			}
		case opDecorate:
			if n >= 4 && arg(1) == decLinkageAttrs {
				linkage[arg(0)] = spirvString(ins[12:], bo)
			}
		case opFunction:
			if cur >= 0 {
				return nil, format.Errorf(int64(p), format.ErrCorrupt, "spirv: OpFunction inside a function")
			}
			if n < 5 {
				return nil, format.Errorf(int64(p), format.ErrCorrupt, "spirv: short OpFunction")
			}
			cur = len(fns)
			fns = append(fns, fnAt{id: arg(1), start: p})
		case opLabel:
			if cur >= 0 {
				fns[cur].body = true
			}
		case opFunctionEnd:
			if cur < 0 {
				return nil, format.Errorf(int64(p), format.ErrCorrupt, "spirv: OpFunctionEnd outside a function")
			}
			fns[cur].end = p + n*4
			cur = -1
		}
		p += n * 4
	}
	if cur >= 0 {
		return nil, format.Errorf(int64(fns[cur].start), format.ErrTruncated, "spirv: function without OpFunctionEnd")
	}
	for _, f := range fns {
		if !f.body {
			continue // an imported declaration
		}
		name, kernel := entries[f.id]
		if !kernel {
			name = linkage[f.id]
		}
		if name == "" {
			name = names[f.id]
		}
		if name == "" {
			name = "%" + itoa(int(f.id))
		}
		o.Functions = append(o.Functions, Function{Name: name, Kernel: kernel, Offset: int64(f.start), Size: int64(f.end - f.start), SizeFrom: SizeWords})
	}
	return o, nil
}

// spirvString decodes a literal string (NUL-terminated, in words of the
// module's byte order).
func spirvString(b []byte, bo binary.ByteOrder) string {
	out := make([]byte, 0, 32)
	for i := 0; i+4 <= len(b); i += 4 {
		v := bo.Uint32(b[i:])
		for k := 0; k < 4; k++ {
			c := byte(v >> (8 * k))
			if c == 0 {
				return string(out)
			}
			out = append(out, c)
		}
	}
	return string(out)
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}
