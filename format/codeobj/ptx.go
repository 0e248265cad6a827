package codeobj

import (
	"bytes"

	"github.com/offload-kit/offload-kit/format"
)

// parsePTX lists the .entry and .func definitions of PTX text. A
// function's range runs from the start of the line of its directive to
// its closing brace. Comments are skipped; declarations without a body
// (prototypes, .extern) are not functions of this module.
func parsePTX(data []byte) (*Object, error) {
	o := &Object{Kind: KindPTX}
	lineStart := 0
	for p := 0; p < len(data); {
		c := data[p]
		switch {
		case c == '\n':
			p++
			lineStart = p
			continue
		case c == '/' && p+1 < len(data) && data[p+1] == '/':
			for p < len(data) && data[p] != '\n' {
				p++
			}
			continue
		case c == '/' && p+1 < len(data) && data[p+1] == '*':
			end := bytes.Index(data[p+2:], []byte("*/"))
			if end < 0 {
				return nil, format.Errorf(int64(p), format.ErrTruncated, "ptx: unterminated comment")
			}
			p += 2 + end + 2
			continue
		case c == '.' && o.Target == "" && bytes.HasPrefix(data[p:], []byte(".target")) && p+7 < len(data) && isSpace(data[p+7]):
			q := p + 7
			for q < len(data) && isSpace(data[q]) {
				q++
			}
			e := q
			for e < len(data) && !isSpace(data[e]) && data[e] != ',' && data[e] != '/' {
				e++
			}
			o.Target = string(data[q:e])
			p = e
			continue
		case c == '.' && (word(data, p, ".entry") || word(data, p, ".func")):
			kernel := data[p+1] == 'e'
			fn, end, err := ptxFunction(data, p, lineStart, kernel)
			if err != nil {
				return nil, err
			}
			if fn != nil {
				o.Functions = append(o.Functions, *fn)
			}
			p = end
			continue
		case c == '"':
			q := bytes.IndexByte(data[p+1:], '"')
			if q < 0 {
				return nil, format.Errorf(int64(p), format.ErrTruncated, "ptx: unterminated string")
			}
			p += q + 2
			continue
		}
		p++
	}
	return o, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isIdent(c byte) bool {
	return c == '_' || c == '$' || c == '%' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// word reports whether data has the directive w at p, delimited.
func word(data []byte, p int, w string) bool {
	if !bytes.HasPrefix(data[p:], []byte(w)) {
		return false
	}
	if p > 0 && (isIdent(data[p-1]) || data[p-1] == '.') {
		return false
	}
	return p+len(w) == len(data) || !isIdent(data[p+len(w)])
}

// ptxFunction reads the definition whose directive is at p: its name (after
// an optional parenthesised return list for .func) and, if a body
// follows before any ';', the range to its matching brace.
func ptxFunction(data []byte, p, lineStart int, kernel bool) (*Function, int, error) {
	q := p + len(".func")
	if kernel {
		q = p + len(".entry")
	}
	skip := func() {
		for q < len(data) && isSpace(data[q]) {
			q++
		}
	}
	skip()
	if !kernel && q < len(data) && data[q] == '(' {
		e := bytes.IndexByte(data[q:], ')')
		if e < 0 {
			return nil, 0, format.Errorf(int64(q), format.ErrTruncated, "ptx: .func return list without ')'")
		}
		q += e + 1
		skip()
	}
	s := q
	for q < len(data) && isIdent(data[q]) {
		q++
	}
	if q == s {
		return nil, 0, format.Errorf(int64(p), format.ErrCorrupt, "ptx: directive without a name")
	}
	name := string(data[s:q])
	// The body starts at the first '{' unless a ';' ends a declaration first.
	depth, body := 0, -1
	for ; q < len(data); q++ {
		switch data[q] {
		case ';':
			if depth == 0 && body < 0 {
				return nil, q + 1, nil
			}
		case '{':
			if body < 0 {
				body = q
			}
			depth++
		case '}':
			depth--
			if depth == 0 && body >= 0 {
				return &Function{Name: name, Kernel: kernel, Offset: int64(lineStart), Size: int64(q + 1 - lineStart), SizeFrom: SizeText}, q + 1, nil
			}
			if depth < 0 {
				return nil, 0, format.Errorf(int64(q), format.ErrCorrupt, "ptx: unbalanced '}' in %s", name)
			}
		case '/':
			if q+1 < len(data) && data[q+1] == '/' {
				for q < len(data) && data[q] != '\n' {
					q++
				}
			} else if q+1 < len(data) && data[q+1] == '*' {
				e := bytes.Index(data[q+2:], []byte("*/"))
				if e < 0 {
					return nil, 0, format.Errorf(int64(q), format.ErrTruncated, "ptx: unterminated comment")
				}
				q += 2 + e + 1
			}
		}
	}
	return nil, 0, format.Errorf(int64(p), format.ErrTruncated, "ptx: %s has no closing brace", name)
}
