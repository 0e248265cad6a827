package split

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
)

// Attr returns the value of string attribute key on g, looking at the
// attributes written in its header first and then its attribute groups.
func (m *Module) Attr(g *Global, key string) (string, bool) {
	if v, ok := g.Inline[key]; ok {
		return v, true
	}
	for _, a := range g.AttrIDs {
		if v, ok := m.AttrGroups[a].Attrs[key]; ok {
			return v, true
		}
	}
	return "", false
}

// conversion-like instructions for the fp64 rule (spec §5.1, FP64ConvEmu).
var fp64ConvOps = map[string]bool{
	"alloca": true, "getelementptr": true, "load": true, "store": true, "fpext": true,
	"fptrunc": true, "sitofp": true, "uitofp": true, "fptosi": true, "fptoui": true,
	"fcmp": true, "phi": true, "extractvalue": true, "insertvalue": true, "ret": true,
}

// cutComment drops a trailing "; …" comment outside quoted strings.
func cutComment(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			e := strings.IndexByte(s[i+1:], '"')
			if e < 0 {
				return s
			}
			i += e + 1
		case ';':
			return s[:i]
		}
	}
	return s
}

// analyseBody finds indirect-call signatures, the fp64 class and direct
// calls of __devicelib_assert_fail in the body of function gi.
func (p *parser) analyseBody(gi int) error {
	m := p.m
	g := &m.Globals[gi]
	body := m.Src[g.Header.End:g.Span.End]
	// The header is the define line without its newline, so the first
	// segment of body is that line's end: it counts as line g.Line.
	line := g.Line - 1
	for len(body) > 0 {
		e := bytes.IndexByte(body, '\n')
		var l []byte
		if e < 0 {
			l, body = body, nil
		} else {
			l, body = body[:e], body[e+1:]
		}
		line++
		t := strings.TrimSpace(cutComment(string(l)))
		if t == "" || t == "}" || t == "{" || strings.HasPrefix(t, "#dbg_") || strings.HasSuffix(t, ":") {
			continue
		}
		rest := t
		if rest[0] == '%' {
			if k := strings.Index(rest, " = "); k > 0 {
				rest = rest[k+3:]
			}
		}
		op := rest
		if k := strings.IndexByte(op, ' '); k > 0 {
			op = op[:k]
		}
		switch op {
		case "tail", "musttail", "notail":
			rest = strings.TrimSpace(rest[len(op):])
			if !strings.HasPrefix(rest, "call") {
				return p.errf(line, "malformed %s call in @%s", op, g.Tok)
			}
			op = "call"
		}
		conv := fp64ConvOps[op]
		if op == "call" || op == "invoke" || op == "callbr" {
			callee, sig, ok := parseCall(rest[len(op):])
			if !ok {
				return p.errf(line, "malformed %s in @%s", op, g.Tok)
			}
			switch {
			case strings.HasPrefix(callee, "%"):
				g.indirect = append(g.indirect, sig)
			case strings.HasPrefix(callee, "@"):
				name := callee[1:]
				if name == "__devicelib_assert_fail" {
					g.assert = true
				}
				if k, ok := m.byName[name]; ok {
					g.calls = append(g.calls, k)
					if !m.Globals[k].Decl {
						conv = true
					}
				}
				if strings.HasPrefix(name, "llvm.memcpy") || strings.HasPrefix(name, "llvm.memmove") ||
					strings.HasPrefix(name, "llvm.memset") {
					conv = true
				}
			}
		}
		if g.fp64 < 2 && hasWord(rest, "double") {
			if conv {
				g.fp64 = max(g.fp64, 1)
			} else {
				g.fp64 = 2
			}
		}
	}
	return nil
}

// parseCall reads the part of a call after the "call" keyword and returns
// the callee token (with its sigil; "asm" for inline asm) and the callee's
// function signature in Global.Sig form.
func parseCall(s string) (callee, sig string, ok bool) {
	i := skipToType(s, 0)
	if !startsType(s, i) {
		return "", "", false
	}
	ret, j, ok := parseBaseType(s, i)
	if !ok {
		return "", "", false
	}
	var explicit []string
	hasExplicit := false
	k := skipSpace(s, j)
	if k < len(s) && s[k] == '(' && isFuncTypeParams(s, k) {
		e := matchClose(s, k)
		explicit, _ = paramTypes(s[k+1 : e-1])
		hasExplicit = true
		k = skipSpace(s, e)
	}
	if k >= len(s) {
		return "", "", false
	}
	switch s[k] {
	case '%', '@':
		tok, n, ok := readNameStr(s, k+1)
		if !ok {
			return "", "", false
		}
		callee = s[k:k+1] + tok
		k = n
	default:
		// inline asm, constant expressions and the like
		return "asm", "", true
	}
	if hasExplicit {
		return callee, ret + "(" + strings.Join(explicit, ",") + ")", true
	}
	k = skipSpace(s, k)
	if k >= len(s) || s[k] != '(' {
		return "", "", false
	}
	e := matchClose(s, k)
	if e < 0 {
		return "", "", false
	}
	args, ok := paramTypes(s[k+1 : e-1])
	if !ok {
		return "", "", false
	}
	return callee, ret + "(" + strings.Join(args, ",") + ")", true
}

// mdInts returns the integer operands of metadata node i, looking through
// one level of !{!"name", i32 n} pairs (the integer is used).
func (m *Module) mdInts(i int32) []int64 { return m.mdIntsDepth(i, 0) }

func (m *Module) mdIntsDepth(i int32, depth int) []int64 {
	e := &m.MD[i]
	txt := string(m.Src[e.Span.Start:e.Span.End])
	body := txt[strings.IndexByte(txt, '=')+1:]
	b := strings.IndexByte(body, '{')
	c := strings.LastIndexByte(body, '}')
	if b < 0 || c < b {
		return nil
	}
	var out []int64
	for _, op := range splitTop(body[b+1 : c]) {
		op = strings.TrimSpace(op)
		switch {
		case strings.HasPrefix(op, "!") && len(op) > 1 && isDigit(op[1]):
			if k, ok := m.mdIDs[op[1:]]; ok && depth == 0 {
				sub := m.mdIntsDepth(k, 1)
				if len(sub) > 0 {
					out = append(out, sub[len(sub)-1])
				}
			}
		default:
			f := strings.Fields(op)
			if len(f) == 2 && strings.HasPrefix(f[0], "i") {
				if v, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// mdStrings returns the string operands of metadata node i.
func (m *Module) mdStrings(i int32) []string {
	e := &m.MD[i]
	txt := string(m.Src[e.Span.Start:e.Span.End])
	body := txt[strings.IndexByte(txt, '=')+1:]
	var out []string
	for k := 0; k+1 < len(body); k++ {
		if body[k] == '!' && body[k+1] == '"' {
			e := strings.IndexByte(body[k+2:], '"')
			if e < 0 {
				break
			}
			out = append(out, unquote(body[k+1:k+2+e+1]))
			k += e + 2
		}
	}
	return out
}

// Features are the optional features and requirements of an entry point
// (or of a whole part), as used to keep kernels apart and to write the
// "SYCL/device requirements" property set.
type Features struct {
	Aspects          []int   // sorted, unique; negative values are internal
	ReqdWorkGroup    []int64 // !reqd_work_group_size
	WorkGroupNumDim  []int64 // !work_group_num_dim
	ReqdSubGroupSize []int64 // !intel_reqd_sub_group_size
	JointMatrix      []string
	JointMatrixMad   []string
	FP64             bool // fp64 arithmetic reached (aspect 6 is in Aspects too)
	FP64ConvOnly     bool // double reached, only in conversion-like uses
	AssertUsed       bool
}

// AspectFP64 is the fp64 aspect number; AspectFP64Conv is the internal
// (negative, split-only) aspect for conversion-only uses of double.
const (
	AspectFP64     = 6
	AspectFP64Conv = -1
)

func (m *Module) attachInts(g *Global, kind string) []int64 {
	if id, ok := g.Attach[kind]; ok {
		return m.mdInts(id)
	}
	return nil
}

// entryFeatures computes the features of entry point e from its closure
// (aspects, fp64, assert) and its own attachments (sizes).
func (m *Module) entryFeatures(e int32, cl *Closure) Features {
	var f Features
	g := &m.Globals[e]
	asp := map[int]bool{}
	for _, gi := range cl.Globals {
		h := &m.Globals[gi]
		if cl.DropsBody(gi) {
			continue // a body the part does not keep (spec §2.6)
		}
		if h.Kind == Function {
			for _, v := range m.attachInts(h, "sycl_used_aspects") {
				asp[int(v)] = true
			}
			f.AssertUsed = f.AssertUsed || h.assert
		}
		switch h.fp64 {
		case 2:
			f.FP64 = true
		case 1:
			f.FP64ConvOnly = true
		}
	}
	if f.FP64 {
		asp[AspectFP64] = true
		f.FP64ConvOnly = false
	} else if asp[AspectFP64] {
		f.FP64 = true
		f.FP64ConvOnly = false
	} else if f.FP64ConvOnly {
		asp[AspectFP64Conv] = true
	}
	for v := range asp {
		f.Aspects = append(f.Aspects, v)
	}
	sort.Ints(f.Aspects)
	f.ReqdWorkGroup = m.attachInts(g, "reqd_work_group_size")
	f.WorkGroupNumDim = m.attachInts(g, "work_group_num_dim")
	f.ReqdSubGroupSize = m.attachInts(g, "intel_reqd_sub_group_size")
	if id, ok := g.Attach["sycl_joint_matrix"]; ok {
		f.JointMatrix = m.mdStrings(id)
	}
	if id, ok := g.Attach["sycl_joint_matrix_mad"]; ok {
		f.JointMatrixMad = m.mdStrings(id)
	}
	return f
}
