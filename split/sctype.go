package split

import (
	"fmt"
	"strconv"
	"strings"
)

// ctype is a first-class IR type with its layout, as the spec-constant
// lowering needs it: natural alignment (the SPIR datalayout), structs laid
// out field by field, arrays by stride, vectors aligned to a power of two.
type ctype struct {
	text    string // squeezed type text
	scalar  string // "i32", "float" … for scalars
	fields  []*ctype
	offsets []uint32
	elem    *ctype
	n       int
	vector  bool
	packed  bool
	size    uint32
	align   uint32
}

const maxTypeNest = 16

// ir spells the type as LLVM IR does. text is squeezed, which the IR
// parser accepts for named types and literal structs but not for arrays
// and vectors ("[2xfloat]").
func (c *ctype) ir() string {
	switch {
	case c.scalar != "" || strings.HasPrefix(c.text, "%"):
		return c.text
	case c.elem != nil && c.vector:
		return fmt.Sprintf("<%d x %s>", c.n, c.elem.ir())
	case c.elem != nil:
		return fmt.Sprintf("[%d x %s]", c.n, c.elem.ir())
	}
	f := make([]string, len(c.fields))
	for i, ft := range c.fields {
		f[i] = ft.ir()
	}
	body := "{}"
	if len(f) > 0 {
		body = "{ " + strings.Join(f, ", ") + " }"
	}
	if c.packed {
		return "<" + body + ">"
	}
	return body
}

// resolveType parses a squeezed type and computes its layout.
func (m *Module) resolveType(t string, depth int) (*ctype, error) {
	if depth > maxTypeNest {
		return nil, fmt.Errorf("type %s nests too deeply", t)
	}
	if si, ok := scalarTypes[t]; ok {
		return &ctype{text: t, scalar: t, size: si.size, align: si.align}, nil
	}
	switch {
	case strings.HasPrefix(t, "%"):
		i, ok := m.types[t[1:]]
		if !ok {
			return nil, fmt.Errorf("unknown type %s", t)
		}
		def := string(m.Src[m.Types[i].Span.Start:m.Types[i].Span.End])
		k := strings.Index(def, "= type ")
		if k < 0 {
			return nil, fmt.Errorf("type %s is opaque", t)
		}
		ct, err := m.resolveType(squeeze(strings.TrimSpace(def[k+len("= type "):])), depth+1)
		if err != nil {
			return nil, err
		}
		c := *ct
		c.text = t
		return &c, nil
	case strings.HasPrefix(t, "<{") && strings.HasSuffix(t, "}>"):
		return m.structType(t, t[2:len(t)-2], true, depth)
	case strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}"):
		return m.structType(t, t[1:len(t)-1], false, depth)
	case strings.HasPrefix(t, "[") || strings.HasPrefix(t, "<"):
		inner := t[1 : len(t)-1]
		x := strings.IndexByte(inner, 'x')
		if x < 0 {
			return nil, fmt.Errorf("malformed type %s", t)
		}
		n, err := strconv.Atoi(inner[:x])
		if err != nil || n < 0 || n > 1<<20 {
			return nil, fmt.Errorf("malformed type %s", t)
		}
		el, err := m.resolveType(inner[x+1:], depth+1)
		if err != nil {
			return nil, err
		}
		stride := roundUp(el.size, el.align)
		c := &ctype{text: t, elem: el, n: n, size: stride * uint32(n), align: el.align, vector: t[0] == '<'}
		if c.vector {
			c.size = el.size * uint32(n)
			c.align = 1
			for c.align < c.size {
				c.align <<= 1
			}
		}
		return c, nil
	}
	return nil, fmt.Errorf("unsupported spec constant type %s", t)
}

func (m *Module) structType(t, body string, packed bool, depth int) (*ctype, error) {
	c := &ctype{text: t, packed: packed, align: 1}
	if body == "" {
		return c, nil
	}
	var off uint32
	for _, f := range splitTop(body) {
		ft, err := m.resolveType(f, depth+1)
		if err != nil {
			return nil, err
		}
		if !packed {
			off = roundUp(off, ft.align)
			c.align = max(c.align, ft.align)
		}
		c.fields = append(c.fields, ft)
		c.offsets = append(c.offsets, off)
		off += ft.size
	}
	c.size = roundUp(off, c.align)
	return c, nil
}

func roundUp(v, a uint32) uint32 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) / a * a
}

// leaf is one scalar of a constant: its type, literal and byte offset;
// undef leaves are padding.
type leaf struct {
	typ   string
	lit   string
	off   uint32
	undef bool
}

// leaves flattens the constant lit of type ct.
func (m *Module) leaves(ct *ctype, lit string, base uint32, out []leaf, depth int) ([]leaf, error) {
	if depth > maxTypeNest {
		return nil, fmt.Errorf("constant nests too deeply")
	}
	lit = strings.TrimSpace(lit)
	if ct.scalar != "" {
		switch lit {
		case "undef", "poison":
			return append(out, leaf{typ: ct.scalar, off: base, undef: true}), nil
		case "zeroinitializer":
			lit = zeroLit(ct.scalar)
		}
		return append(out, leaf{typ: ct.scalar, lit: lit, off: base}), nil
	}
	whole := func(l string) ([]leaf, error) {
		var err error
		for i, f := range ct.fields {
			if out, err = m.leaves(f, l, base+ct.offsets[i], out, depth+1); err != nil {
				return nil, err
			}
		}
		for i := 0; i < ct.n; i++ {
			if out, err = m.leaves(ct.elem, l, base+uint32(i)*roundUp(ct.elem.size, ct.elem.align), out, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if lit == "zeroinitializer" || lit == "undef" || lit == "poison" {
		return whole(lit)
	}
	if ct.elem != nil && ct.elem.scalar == "i8" && strings.HasPrefix(lit, `c"`) {
		s := unquote(lit[1:])
		for i := 0; i < ct.n && i < len(s); i++ {
			out = append(out, leaf{typ: "i8", lit: strconv.Itoa(int(s[i])), off: base + uint32(i)})
		}
		return out, nil
	}
	open, close := 1, 1
	if strings.HasPrefix(lit, "<{") {
		open, close = 2, 2
	}
	if len(lit) < open+close {
		return nil, fmt.Errorf("malformed constant %q", lit)
	}
	elems := splitTop(lit[open : len(lit)-close])
	want := len(ct.fields)
	if ct.elem != nil {
		want = ct.n
	}
	if len(elems) != want {
		return nil, fmt.Errorf("constant %q has %d elements, type %s has %d", lit, len(elems), ct.text, want)
	}
	for i, e := range elems {
		e = strings.TrimSpace(e)
		if !startsType(e, 0) {
			return nil, fmt.Errorf("malformed constant element %q", e)
		}
		_, j, ok := parseType(e, 0)
		if !ok {
			return nil, fmt.Errorf("malformed constant element %q", e)
		}
		var err error
		if ct.elem != nil {
			out, err = m.leaves(ct.elem, e[j:], base+uint32(i)*roundUp(ct.elem.size, ct.elem.align), out, depth+1)
		} else {
			out, err = m.leaves(ct.fields[i], e[j:], base+ct.offsets[i], out, depth+1)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func zeroLit(t string) string {
	switch t {
	case "half", "float", "double":
		return "0.0"
	case "i1":
		return "false"
	}
	return "0"
}
