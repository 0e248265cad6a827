package split

import "strings"

// AppendIR appends the textual IR of the closure c to dst. Entities are
// copied verbatim in module order; a kept function definition for which
// internal(index) is true gets internal linkage (and loses its comdat).
// Named metadata lists keep only the operands in c.NamedOps.
func (m *Module) AppendIR(dst []byte, c *Closure, internal func(int32) bool) []byte {
	src := m.Src
	for _, h := range m.Header {
		dst = appendLine(dst, src[h.Start:h.End])
	}
	if len(c.Types) > 0 {
		dst = append(dst, '\n')
		for _, i := range c.Types {
			dst = appendLine(dst, src[m.Types[i].Span.Start:m.Types[i].Span.End])
		}
	}
	if len(c.Comdats) > 0 {
		// a comdat named only by functions being internalised is dropped
		used := map[int32]bool{}
		for _, i := range c.Globals {
			g := &m.Globals[i]
			if len(g.Refs.Comdats) == 0 || g.Kind == Function && !g.Decl && internal != nil && internal(i) {
				continue
			}
			for _, k := range g.Refs.Comdats {
				used[k] = true
			}
		}
		dst = append(dst, '\n')
		for _, i := range c.Comdats {
			if used[i] {
				dst = appendLine(dst, src[m.Comdats[i].Span.Start:m.Comdats[i].Span.End])
			}
		}
	}
	for _, i := range c.Globals {
		g := &m.Globals[i]
		if g.Kind == Function {
			dst = append(dst, '\n')
		}
		if g.Kind == Function && !g.Decl && internal != nil && internal(i) {
			dst = appendInternal(dst, g, src[g.Header.Start:g.Header.End])
			dst = append(dst, src[g.Header.End:g.Span.End]...)
			dst = fixEOL(dst, src[g.Span.Start:g.Span.End])
			continue
		}
		dst = appendLine(dst, src[g.Span.Start:g.Span.End])
	}
	if len(c.Attrs) > 0 {
		dst = append(dst, '\n')
		for _, i := range c.Attrs {
			dst = appendLine(dst, src[m.AttrGroups[i].Span.Start:m.AttrGroups[i].Span.End])
		}
	}
	if len(m.Named) > 0 {
		dst = append(dst, '\n')
	}
	for ni := range m.Named {
		n := &m.Named[ni]
		dst = append(dst, '!')
		dst = append(dst, n.Name...)
		dst = append(dst, " = !{"...)
		for k, op := range c.NamedOps[ni] {
			if k > 0 {
				dst = append(dst, ", "...)
			}
			dst = append(dst, '!')
			dst = append(dst, m.MD[op].Tok...)
		}
		dst = append(dst, "}\n"...)
	}
	if len(c.MD) > 0 {
		dst = append(dst, '\n')
		for _, i := range c.MD {
			dst = appendLine(dst, src[m.MD[i].Span.Start:m.MD[i].Span.End])
		}
	}
	return dst
}

func appendLine(dst, b []byte) []byte {
	dst = append(dst, b...)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		dst = append(dst, '\n')
	}
	return dst
}

func fixEOL(dst, orig []byte) []byte {
	if len(orig) > 0 && orig[len(orig)-1] != '\n' {
		dst = append(dst, '\n')
	}
	return dst
}

// appendInternal writes a "define" header with internal linkage: the old
// linkage, preemption, visibility and DLL storage words are dropped, and
// so is the comdat (a local symbol must not keep a shared comdat alive).
func appendInternal(dst []byte, g *Global, h []byte) []byte {
	s := string(h)
	i := len("define ")
	for {
		j := i
		for j < len(s) && isIdentChar(s[j]) {
			j++
		}
		w := s[i:j]
		if !linkages[w] && !headerSkip[w] {
			break
		}
		i = skipSpace(s, j)
	}
	rest := s[i:]
	// strip the comdat after the parameter list
	at := strings.Index(rest, "@"+g.Tok+"(")
	if at >= 0 {
		p := at + 1 + len(g.Tok)
		if e := matchClose(rest, p); e > 0 {
			rest = rest[:e] + stripComdat(rest[e:])
		}
	}
	dst = append(dst, "define internal "...)
	return append(dst, rest...)
}

func stripComdat(tail string) string {
	for off := 0; ; {
		k := strings.Index(tail[off:], " comdat")
		if k < 0 {
			return tail
		}
		k += off
		e := k + len(" comdat")
		if e < len(tail) && isIdentChar(tail[e]) {
			off = e
			continue
		}
		if quotesBefore(tail, k)%2 == 1 {
			off = e
			continue
		}
		if e < len(tail) && tail[e] == '(' {
			if c := matchClose(tail, e); c > 0 {
				e = c
			}
		}
		return tail[:k] + tail[e:]
	}
}

func quotesBefore(s string, k int) int { return strings.Count(s[:k], `"`) }
