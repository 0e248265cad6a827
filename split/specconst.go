package split

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SpecDesc is one SpecConstantDescriptor: {ID, Offset, Size} (spec §6.4).
type SpecDesc struct{ ID, Offset, Size uint32 }

// SpecConst is one specialization constant of a module, by symbolic ID.
type SpecConst struct {
	SymID string
	Descs []SpecDesc
}

// SpecConstInfo is what spec-constant lowering reports for one module.
type SpecConstInfo struct {
	Changed       bool // the pass found spec constants (SpecConstsMet)
	DefaultValues bool // default-values mode (specConstsReplacedWithDefault)
	Consts        []SpecConst
	Defaults      []byte // serialised defaults, concatenated
}

// SpecMode selects how spec constants are lowered (spec §6.2); it is also
// sycl-linker's --spec-const value.
type SpecMode int

const (
	SpecNone      SpecMode = iota // not lowered: the calls are left alone
	SpecNative                    // __spirv_SpecConstant calls
	SpecEmulation                 // loads from the runtime buffer
	SpecDefault                   // the default values
)

const (
	scalarPrefix    = "@_Z37__sycl_getScalar2020SpecConstantValue"
	compositePrefix = "@_Z40__sycl_getComposite2020SpecConstantValue"
)

type scalarInfo struct {
	code  string // mini-mangling code
	size  uint32
	align uint32
}

var scalarTypes = map[string]scalarInfo{
	"i1": {"b", 1, 1}, "i8": {"a", 1, 1}, "i16": {"s", 2, 2}, "i32": {"i", 4, 4}, "i64": {"x", 8, 8},
	"half": {"Dh", 2, 2}, "float": {"f", 4, 4}, "double": {"d", 8, 8},
}

// LowerSpecConsts rewrites the SYCL 2020 spec-constant intrinsics of a
// part's IR (as written by AppendIR) and appends the metadata of spec
// §6.3. IDs and offsets restart at 0 in every part.
//
// Scalars and composites (structs, arrays, vectors; returned directly or
// through sret) are supported. In native mode (spec §6.2) a scalar
// becomes T _Z20__spirv_SpecConstant<codes>(i32 ID, T Default), a bool
// with an i8 default an i8 call followed by trunc. A composite becomes one
// __spirv_SpecConstantComposite<codes>_R<type> call whose operands are its
// members' calls, built recursively for nested structs, arrays and
// vectors; a member whose default is undef (padding) uses up its IDs but
// is passed as undef. The result replaces the original call, or is stored
// through its sret pointer. The SPIR-V backend turns these into
// SpecId-decorated OpSpecConstant and OpSpecConstantComposite (see
// specconst_native.go for what it accepts). A call whose symbolic ID or
// default is not a constant global is an error naming the line.
func (m *Module) LowerSpecConsts(ir []byte, mode SpecMode) ([]byte, *SpecConstInfo, error) {
	info := &SpecConstInfo{DefaultValues: mode == SpecDefault}
	type sc struct {
		ids    []uint32 // per leaf (native) or one (emulation)
		ct     *ctype
		lit    string
		leaves []leaf
		offset uint32
		descs  []SpecDesc
		bytes  []byte
	}
	byID := map[string]*sc{}
	var order []string
	var nextID, nextOff uint32
	decls := map[string]string{}
	used := map[string]*Global{} // globals the calls named (IDs, defaults)
	var out bytes.Buffer
	out.Grow(len(ir) + 256)
	line, seq := 0, 0
	for rest := ir; len(rest) > 0; {
		line++
		var l []byte
		if e := bytes.IndexByte(rest, '\n'); e >= 0 {
			l, rest = rest[:e+1], rest[e+1:]
		} else {
			l, rest = rest, nil
		}
		composite := bytes.Contains(l, []byte(compositePrefix))
		if !composite && !bytes.Contains(l, []byte(scalarPrefix)) || bytes.HasPrefix(l, []byte("declare")) {
			out.Write(l)
			continue
		}
		errf := func(format string, args ...any) error {
			return fmt.Errorf("line %d: "+format, append([]any{line}, args...)...)
		}
		s := strings.TrimSpace(string(l))
		res, call := "", s
		if strings.HasPrefix(s, "%") {
			r, c, ok := strings.Cut(s, " = ")
			if !ok {
				return nil, nil, errf("malformed spec constant call")
			}
			res, call = r, c
		}
		k := strings.Index(call, "call ")
		if k < 0 {
			return nil, nil, errf("malformed spec constant call")
		}
		callee, sig, ok := parseCall(call[k+len("call"):])
		if !ok || !strings.HasPrefix(callee, scalarPrefix) && !strings.HasPrefix(callee, compositePrefix) {
			return nil, nil, errf("malformed spec constant call")
		}
		open := strings.Index(call, callee+"(")
		if open < 0 {
			return nil, nil, errf("malformed spec constant call")
		}
		open += len(callee)
		e := matchClose(call, open)
		if e < open+2 {
			return nil, nil, errf("malformed spec constant call")
		}
		args := splitTop(call[open+1 : e-1])
		var sret string // "ptr %p.i" when the value is returned through memory
		if len(args) == 4 {
			a := strings.TrimSpace(args[0])
			if !strings.Contains(a, "sret(") {
				return nil, nil, errf("spec constant call with 4 arguments but no sret")
			}
			sret = ptrArg(a)
			args = args[1:]
		}
		if len(args) != 3 {
			return nil, nil, errf("spec constant call with %d arguments, want 3", len(args))
		}
		if sret == "" && res == "" {
			return nil, nil, errf("spec constant call without a result")
		}
		symID, err := m.specSymID(args[0])
		if err != nil {
			return nil, nil, errf("%v", err)
		}
		for _, a := range args[:2] {
			if g, err := m.globalOf(a); err == nil {
				used[g.Tok] = g
			}
		}
		defType, def, err := m.specDefault(args[1])
		if err != nil {
			return nil, nil, errf("%v", err)
		}
		if rt := sig[:strings.IndexByte(sig, '(')]; sret == "" && rt != defType && !(rt == "i1" && defType == "i8") {
			return nil, nil, errf("spec constant returns %s but its default is a %s", rt, defType)
		}
		c := byID[symID]
		if c == nil {
			ct, err := m.resolveType(defType, 0)
			if err != nil {
				return nil, nil, errf("%v", err)
			}
			lv, err := m.leaves(ct, def, 0, nil, 0)
			if err != nil {
				return nil, nil, errf("default of %s: %v", symID, err)
			}
			c = &sc{ct: ct, lit: def, leaves: lv, bytes: make([]byte, ct.size)}
			for _, x := range lv {
				if x.undef {
					continue
				}
				b, err := serialiseScalar(x.typ, x.lit)
				if err != nil {
					return nil, nil, errf("%v", err)
				}
				copy(c.bytes[x.off:], b)
			}
			switch mode {
			case SpecEmulation:
				if pad := (ct.align - nextOff%max(ct.align, 1)) % max(ct.align, 1); pad > 0 && len(order) > 0 {
					prev := byID[order[len(order)-1]]
					prev.descs = append(prev.descs, SpecDesc{math.MaxUint32, prev.ct.size, pad})
					prev.bytes = append(prev.bytes, make([]byte, pad)...)
					nextOff += pad
				}
				c.offset = nextOff
				nextOff += ct.size
				c.ids = []uint32{nextID}
				c.descs = []SpecDesc{{nextID, 0, ct.size}}
				nextID++
			default:
				end := uint32(0)
				for _, x := range lv {
					c.ids = append(c.ids, nextID)
					if !x.undef {
						c.descs = append(c.descs, SpecDesc{nextID, x.off, scalarTypes[x.typ].size})
						end = x.off + scalarTypes[x.typ].size
					}
					nextID++
				}
				if ct.scalar == "" && end < ct.size {
					c.descs = append(c.descs, SpecDesc{math.MaxUint32, end, ct.size - end})
				}
			}
			byID[symID] = c
			order = append(order, symID)
		}
		seq++
		indent := string(l[:len(l)-len(bytes.TrimLeft(l, " \t"))])
		tmp := fmt.Sprintf("%%sc%d", seq)
		val := res // the SSA value holding the constant
		if sret != "" {
			val = tmp + ".v"
		}
		rtyp := defType
		if sret == "" {
			rtyp = sig[:strings.IndexByte(sig, '(')]
		}
		switch mode {
		case SpecNative:
			if c.ct.scalar == "" {
				if len(c.leaves) == 0 { // an empty struct or array: nothing to specialise
					if sret != "" {
						val = "zeroinitializer"
					} else {
						fmt.Fprintf(&out, "%s%s = select i1 true, %s zeroinitializer, %s zeroinitializer\n", indent, val, c.ct.ir(), c.ct.ir())
					}
					break
				}
				e := nativeEmitter{out: &out, decls: decls, indent: indent, tmp: tmp, leaves: c.leaves, ids: c.ids}
				if err := e.top(c.ct, val); err != nil {
					return nil, nil, errf("%s: %v", symID, err)
				}
				break
			}
			// A scalar. A bool whose default is an i8 is an i8 call
			// followed by trunc (spec §6.2).
			x := c.leaves[0]
			ty, lit := x.typ, x.lit
			if x.undef {
				lit = "undef"
			}
			fn := spirvSpecConstant + "i" + scalarTypes[ty].code
			decls[fn] = fmt.Sprintf("declare spir_func %s @%s(i32, %s)\n", ty, fn, ty)
			if rtyp == ty {
				fmt.Fprintf(&out, "%s%s = call spir_func %s @%s(i32 %d, %s %s)\n", indent, val, ty, fn, c.ids[0], ty, lit)
			} else {
				fmt.Fprintf(&out, "%s%s = call spir_func %s @%s(i32 %d, %s %s)\n%s%s = trunc %s %s to %s\n",
					indent, tmp, ty, fn, c.ids[0], ty, lit, indent, val, ty, tmp, rtyp)
			}
		case SpecEmulation:
			buf := strings.TrimSpace(args[2])
			bv := buf[strings.LastIndexByte(buf, ' ')+1:]
			bt, _, _ := parseType(buf, 0)
			btText := typeText(buf)
			_ = bt
			lt := c.ct.ir()
			if rtyp == "i1" {
				lt = "i8"
			}
			fmt.Fprintf(&out, "%s%s.p = getelementptr i8, %s %s, i32 %d\n", indent, tmp, btText, bv, c.offset)
			if rtyp == "i1" && sret == "" {
				fmt.Fprintf(&out, "%s%s.l = load i8, %s %s.p, align 1\n%s%s = trunc i8 %s.l to i1\n", indent, tmp, btText, tmp, indent, val, tmp)
			} else {
				fmt.Fprintf(&out, "%s%s = load %s, %s %s.p, align %d\n", indent, val, lt, btText, tmp, max(c.ct.align, 1))
			}
		case SpecDefault:
			if c.ct.scalar == "" {
				if sret != "" {
					val = c.lit // a constant aggregate, stored as is
					break
				}
				if len(c.leaves) == 0 { // an empty struct or array
					fmt.Fprintf(&out, "%s%s = select i1 true, %s %s, %s %s\n", indent, res, c.ct.ir(), c.lit, c.ct.ir(), c.lit)
					break
				}
				// an instruction is needed to name the value: re-insert leaf 0
				x := c.leaves[0]
				lit := x.lit
				if x.undef {
					lit = "undef"
				}
				if c.ct.vector {
					fmt.Fprintf(&out, "%s%s = insertelement %s %s, %s %s, i32 0\n", indent, res, c.ct.ir(), c.lit, x.typ, lit)
					break
				}
				fmt.Fprintf(&out, "%s%s = insertvalue %s %s, %s %s, %s\n", indent, res, c.ct.ir(), c.lit, x.typ, lit, leafPath(c.ct, x.off))
				break
			}
			lit := c.lit
			if rtyp == "i1" && sret == "" {
				lit = map[string]string{"0": "false", "1": "true"}[c.lit]
				if lit == "" {
					lit = c.lit
				}
			}
			fmt.Fprintf(&out, "%s%s = select i1 true, %s %s, %s %s\n", indent, val, rtyp, lit, rtyp, lit)
		}
		if sret != "" {
			fmt.Fprintf(&out, "%sstore %s %s, %s, align %d\n", indent, c.ct.ir(), val, sret, max(c.ct.align, 1))
		}
	}
	info.Changed = len(order) > 0
	names := make([]string, 0, len(decls))
	for n := range decls {
		names = append(names, n)
	}
	sortStrings(names)
	for _, n := range names {
		out.WriteString("\n" + decls[n])
	}
	// metadata (§6.3), always created
	next := m.nextMD
	var scOps, dvOps []string
	var nodes bytes.Buffer
	for _, id := range order {
		c := byID[id]
		fmt.Fprintf(&nodes, "!%d = !{!%s", next, strconv.Quote(id))
		for _, d := range c.descs {
			fmt.Fprintf(&nodes, ", i32 %d, i32 %d, i32 %d", int32(d.ID), d.Offset, d.Size)
		}
		nodes.WriteString("}\n")
		scOps = append(scOps, "!"+strconv.Itoa(next))
		fmt.Fprintf(&nodes, "!%d = !{%s %s}\n", next+1, c.ct.ir(), c.lit)
		dvOps = append(dvOps, "!"+strconv.Itoa(next+1))
		next += 2
		info.Consts = append(info.Consts, SpecConst{SymID: id, Descs: c.descs})
		info.Defaults = append(info.Defaults, c.bytes...)
	}
	out.WriteString("\n!sycl.specialization-constants = !{" + strings.Join(scOps, ", ") + "}\n")
	out.WriteString("!sycl.specialization-constants-default-values = !{" + strings.Join(dvOps, ", ") + "}\n")
	if mode == SpecDefault {
		out.WriteString("!sycl.specialization-constants-default-values-module = !{}\n")
	}
	out.Write(nodes.Bytes())
	return dropUnused(out.Bytes(), used), info, nil
}

// dropUnused deletes the definitions of the given globals that nothing
// references any more and whose linkage lets them go: once the calls are
// lowered, the specialization_id variables and symbolic-ID strings are
// dead. (Left in, a specialization_id whose initializer has an undef
// aggregate member, as clang emits for alignas padding, makes LLVM 22's
// SPIR-V backend abort.)
func dropUnused(ir []byte, gs map[string]*Global) []byte {
	for tok, g := range gs {
		switch g.Linkage {
		case "internal", "private", "linkonce", "linkonce_odr", "available_externally":
		default:
			continue
		}
		ref := []byte("@" + tok)
		def := -1
		refs := 0
		for i := 0; ; {
			k := bytes.Index(ir[i:], ref)
			if k < 0 {
				break
			}
			k += i
			i = k + len(ref)
			if i < len(ir) && isNameByte(ir[i]) {
				continue // a longer name
			}
			refs++
			if (k == 0 || ir[k-1] == '\n') && bytes.HasPrefix(ir[i:], []byte(" = ")) {
				def = k
			}
		}
		if def < 0 || refs != 1 {
			continue
		}
		end := bytes.IndexByte(ir[def:], '\n')
		if end < 0 {
			end = len(ir) - def
		} else {
			end++
		}
		ir = append(ir[:def], ir[def+end:]...)
	}
	return ir
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$' || c == '-'
}

// ptrArg turns an sret argument ("ptr dead_on_unwind … align 4 %p") into
// "ptr %p" (keeping an addrspace).
func ptrArg(a string) string {
	return typeText(a) + " " + a[strings.LastIndexByte(a, ' ')+1:]
}

// typeText is the type at the start of an argument, as written.
func typeText(a string) string {
	_, j, ok := parseType(a, 0)
	if !ok {
		return "ptr"
	}
	return strings.TrimSpace(a[:j])
}

// leafPath returns the insertvalue indices of the scalar at byte offset
// off in ct.
func leafPath(ct *ctype, off uint32) string {
	var idx []string
	for ct.scalar == "" {
		if ct.elem != nil {
			stride := roundUp(ct.elem.size, ct.elem.align)
			i := off / max(stride, 1)
			idx = append(idx, strconv.Itoa(int(i)))
			off -= i * stride
			ct = ct.elem
			continue
		}
		k := len(ct.fields) - 1
		for k > 0 && ct.offsets[k] > off {
			k--
		}
		idx = append(idx, strconv.Itoa(k))
		off -= ct.offsets[k]
		ct = ct.fields[k]
	}
	return strings.Join(idx, ", ")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// globalOf returns the first @global named in an argument.
func (m *Module) globalOf(arg string) (*Global, error) {
	at := strings.IndexByte(arg, '@')
	if at < 0 {
		return nil, fmt.Errorf("spec constant argument %q is not a constant global (build with optimisation)", strings.TrimSpace(arg))
	}
	tok, _, _ := readNameStr(arg, at+1)
	i := m.Lookup(unquote(tok))
	if i < 0 {
		return nil, fmt.Errorf("spec constant argument names undefined @%s", tok)
	}
	return &m.Globals[i], nil
}

// specSymID reads the string literal a SymbolicID argument points to.
func (m *Module) specSymID(arg string) (string, error) {
	g, err := m.globalOf(arg)
	if err != nil {
		return "", err
	}
	txt := string(m.Src[g.Span.Start:g.Span.End])
	k := strings.Index(txt, `c"`)
	if k < 0 {
		return "", fmt.Errorf("symbolic ID @%s is not a string literal", g.Tok)
	}
	e := strings.IndexByte(txt[k+2:], '"')
	if e < 0 {
		return "", fmt.Errorf("symbolic ID @%s is not a string literal", g.Tok)
	}
	s := unquote(txt[k+1 : k+2+e+1])
	return strings.TrimSuffix(s, "\x00"), nil
}

// specDefault returns the type and literal of field 0 of the
// specialization_id global's initializer.
func (m *Module) specDefault(arg string) (typ, lit string, err error) {
	g, err := m.globalOf(arg)
	if err != nil {
		return "", "", err
	}
	txt := strings.TrimSpace(cutComment(string(m.Src[g.Span.Start:g.Span.End])))
	k := strings.Index(txt, " constant ")
	if k < 0 {
		k = strings.Index(txt, " global ")
	}
	if k < 0 {
		return "", "", fmt.Errorf("default value @%s is not a global variable", g.Tok)
	}
	rest := strings.TrimSpace(txt[k+1:])
	rest = strings.TrimSpace(rest[strings.IndexByte(rest, ' '):])
	st, j, ok := parseType(rest, 0)
	if !ok {
		return "", "", fmt.Errorf("default value @%s: malformed type", g.Tok)
	}
	ct, err := m.resolveType(st, 0)
	if err != nil {
		return "", "", fmt.Errorf("default value @%s: %v", g.Tok, err)
	}
	init := strings.TrimSpace(rest[j:])
	if c := strings.Index(init, ", align"); c >= 0 {
		init = init[:c]
	}
	if c := strings.Index(init, ", section"); c >= 0 {
		init = init[:c]
	}
	if len(ct.fields) == 0 {
		return "", "", fmt.Errorf("default value @%s is not a struct", g.Tok)
	}
	ft := ct.fields[0].text
	if init == "zeroinitializer" {
		return ft, "zeroinitializer", nil
	}
	if !strings.HasPrefix(init, "{") && !strings.HasPrefix(init, "<{") {
		return "", "", fmt.Errorf("default value @%s has no aggregate initializer", g.Tok)
	}
	b := strings.IndexByte(init, '{')
	e := matchClose(init, b)
	if e < 0 {
		return "", "", fmt.Errorf("default value @%s: unbalanced initializer", g.Tok)
	}
	fields := splitTop(init[b+1 : e-1])
	if len(fields) == 0 {
		return "", "", fmt.Errorf("default value @%s: empty initializer", g.Tok)
	}
	first := strings.TrimSpace(fields[0])
	_, j2, ok := parseType(first, 0)
	if !ok {
		return "", "", fmt.Errorf("default value @%s: malformed field 0", g.Tok)
	}
	return ft, strings.TrimSpace(first[j2:]), nil
}

// serialiseScalar writes a default value as its little-endian bytes.
func serialiseScalar(typ, lit string) ([]byte, error) {
	var b []byte
	switch typ {
	case "i1", "i8", "i16", "i32", "i64":
		var v int64
		switch lit {
		case "true":
			v = 1
		case "false":
			v = 0
		default:
			n, err := strconv.ParseInt(lit, 10, 64)
			if err != nil {
				u, err2 := strconv.ParseUint(lit, 10, 64)
				if err2 != nil {
					return nil, fmt.Errorf("bad integer default %q", lit)
				}
				n = int64(u)
			}
			v = n
		}
		b = binary.LittleEndian.AppendUint64(nil, uint64(v))
		return b[:scalarTypes[typ].size], nil
	case "half":
		if strings.HasPrefix(lit, "0xH") {
			u, err := strconv.ParseUint(lit[3:], 16, 16)
			if err != nil {
				return nil, fmt.Errorf("bad half default %q", lit)
			}
			return binary.LittleEndian.AppendUint16(nil, uint16(u)), nil
		}
		return nil, fmt.Errorf("unsupported half default %q", lit)
	case "float", "double":
		var f float64
		if strings.HasPrefix(lit, "0x") {
			u, err := strconv.ParseUint(lit[2:], 16, 64)
			if err != nil {
				return nil, fmt.Errorf("bad floating-point default %q", lit)
			}
			f = math.Float64frombits(u)
		} else {
			var err error
			if f, err = strconv.ParseFloat(lit, 64); err != nil {
				return nil, fmt.Errorf("bad floating-point default %q", lit)
			}
		}
		if typ == "float" {
			return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f))), nil
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)), nil
	}
	return nil, fmt.Errorf("unsupported spec constant type %s", typ)
}
