package split

import (
	"bytes"
	"strings"
)

// Lexical helpers for LLVM textual IR. They work on the canonical form
// llvm-dis prints, and tolerate hand-written IR where it is cheap to do so.

func isIdentChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '$' || c == '.' || c == '_'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// readName reads a name after a sigil (@, %, $): either a quoted string
// (returned with its quotes) or a run of identifier characters. It returns
// the name and the index after it; ok is false for an unterminated quote.
func readName(s []byte, i int) (name []byte, next int, ok bool) {
	if i < len(s) && s[i] == '"' {
		j := bytes.IndexByte(s[i+1:], '"')
		if j < 0 {
			return nil, len(s), false
		}
		return s[i : i+j+2], i + j + 2, true
	}
	j := i
	for j < len(s) && isIdentChar(s[j]) {
		j++
	}
	return s[i:j], j, true
}

// unquote turns a raw name token into the symbol name: quotes removed and
// \XX hex escapes decoded.
func unquote(tok string) string {
	if len(tok) < 2 || tok[0] != '"' {
		return tok
	}
	s := tok[1 : len(tok)-1]
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '\\' {
			b.WriteByte('\\')
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// skipSpace skips blanks (not newlines).
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// matchClose returns the index just after the bracket matching s[i]
// (one of ( [ { <), honouring quoted strings; -1 if unbalanced.
func matchClose(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return -1
			}
			i += j + 1
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// splitTop splits s at commas that are not nested in brackets or quotes.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				i = len(s)
				continue
			}
			i += j + 1
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(s[start:]) != "" || len(out) > 0 {
		out = append(out, s[start:])
	}
	return out
}

var primTypes = map[string]bool{
	"void": true, "half": true, "bfloat": true, "float": true, "double": true,
	"fp128": true, "x86_fp80": true, "ppc_fp128": true, "ptr": true, "label": true,
	"metadata": true, "token": true, "x86_amx": true, "x86_mmx": true,
}

// startsType reports whether the word at s[i:] can begin a type.
func startsType(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	switch s[i] {
	case '{', '[', '<', '%':
		return true
	case 'i':
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > i+1 && (j == len(s) || !isIdentChar(s[j])) {
			return true
		}
	}
	if strings.HasPrefix(s[i:], "target(") {
		return true
	}
	j := i
	for j < len(s) && isIdentChar(s[j]) {
		j++
	}
	return primTypes[s[i:j]]
}

// parseType reads one type at s[i:] (i must satisfy startsType) and returns
// the type with blanks removed and the index after it. A trailing
// "addrspace(N)" on ptr, and a trailing function parameter list, are
// included; pointer stars of typed-pointer IR are included too.
func parseType(s string, i int) (string, int, bool) { return parseTypeDepth(s, i, 0) }

// maxTypeDepth bounds the nesting of function types, so hostile input
// cannot make the parameter-list check exponential.
const maxTypeDepth = 4

func parseTypeDepth(s string, i, depth int) (string, int, bool) {
	t, e, ok := parseBaseType(s, i)
	if !ok {
		return t, e, ok
	}
	// A function type: "<ret> (<params>)".
	k := skipSpace(s, e)
	if k < len(s) && s[k] == '(' && depth < maxTypeDepth && isFuncTypeParamsDepth(s, k, depth+1) {
		if e2 := matchClose(s, k); e2 > 0 {
			e = e2
			for e < len(s) && s[e] == '*' {
				e++
			}
			return squeeze(s[i:e]), e, true
		}
	}
	return t, e, true
}

// parseBaseType is parseType without a trailing parameter list.
func parseBaseType(s string, i int) (string, int, bool) {
	start := i
	switch {
	case i >= len(s):
		return "", i, false
	case s[i] == '{' || s[i] == '[' || s[i] == '<':
		j := matchClose(s, i)
		if j < 0 {
			return "", i, false
		}
		i = j
	case s[i] == '%':
		_, j, ok := readNameStr(s, i+1)
		if !ok {
			return "", i, false
		}
		i = j
	case strings.HasPrefix(s[i:], "target("):
		j := matchClose(s, i+len("target"))
		if j < 0 {
			return "", i, false
		}
		i = j
	default:
		j := i
		for j < len(s) && isIdentChar(s[j]) {
			j++
		}
		if j == i {
			return "", i, false
		}
		i = j
		if s[start:i] == "ptr" {
			k := skipSpace(s, i)
			if strings.HasPrefix(s[k:], "addrspace(") {
				if e := matchClose(s, k+len("addrspace")); e > 0 {
					i = e
				}
			}
		}
	}
	for i < len(s) && s[i] == '*' {
		i++
	}
	return squeeze(s[start:i]), i, true
}

// readNameStr is readName for strings.
func readNameStr(s string, i int) (string, int, bool) {
	if i < len(s) && s[i] == '"' {
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			return "", len(s), false
		}
		return s[i : i+j+2], i + j + 2, true
	}
	j := i
	for j < len(s) && isIdentChar(s[j]) {
		j++
	}
	return s[i:j], j, true
}

// isFuncTypeParams tells "(i32, ptr)" (a parameter type list) apart from a
// call's argument list "(i32 1, ptr %x)": every element must be a bare type.
func isFuncTypeParams(s string, k int) bool { return isFuncTypeParamsDepth(s, k, 0) }

func isFuncTypeParamsDepth(s string, k, depth int) bool {
	e := matchClose(s, k)
	if e < 0 {
		return false
	}
	inner := strings.TrimSpace(s[k+1 : e-1])
	if inner == "" {
		return true
	}
	for _, p := range splitTop(inner) {
		p = strings.TrimSpace(p)
		if p == "..." {
			continue
		}
		if !startsType(p, 0) {
			return false
		}
		_, j, ok := parseTypeDepth(p, 0, depth)
		if !ok || strings.TrimSpace(p[j:]) != "" {
			return false
		}
	}
	return true
}

// squeeze removes blanks so equal types compare equal.
func squeeze(s string) string {
	if !strings.ContainsAny(s, " \t") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// skipToType skips keywords (linkage, calling convention, attributes,
// fast-math flags …) until a word that starts a type. Parenthesised
// keyword arguments such as dereferenceable(8) or range(i32 0, 4) are
// skipped whole, and "align N" takes its number.
func skipToType(s string, i int) int {
	for {
		i = skipSpace(s, i)
		if i >= len(s) || startsType(s, i) {
			return i
		}
		j := i
		for j < len(s) && isIdentChar(s[j]) {
			j++
		}
		if j == i && s[i] == '!' { // a metadata attachment on a declaration
			j = i + 1
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			i = j
			continue
		}
		if j == i {
			if s[i] == '"' { // string attribute
				e := strings.IndexByte(s[i+1:], '"')
				if e < 0 {
					return len(s)
				}
				i += e + 2
				continue
			}
			return i
		}
		word := s[i:j]
		i = j
		if i < len(s) && s[i] == '(' {
			if e := matchClose(s, i); e > 0 {
				i = e
			}
			continue
		}
		if word == "align" || word == "cc" {
			i = skipSpace(s, i)
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
	}
}

// paramTypes returns the types of a parameter or argument list (the text
// between the parentheses), each squeezed; "..." stays as is.
func paramTypes(list string) ([]string, bool) {
	list = strings.TrimSpace(list)
	if list == "" {
		return nil, true
	}
	parts := splitTop(list)
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "..." {
			out = append(out, p)
			continue
		}
		if !startsType(p, 0) {
			return nil, false
		}
		t, _, ok := parseType(p, 0)
		if !ok {
			return nil, false
		}
		out = append(out, t)
	}
	return out, true
}

// hasWord reports whether w occurs in s as a whole identifier.
func hasWord(s, w string) bool {
	for off := 0; ; {
		k := strings.Index(s[off:], w)
		if k < 0 {
			return false
		}
		k += off
		e := k + len(w)
		if (k == 0 || !isIdentChar(s[k-1])) && (e == len(s) || !isIdentChar(s[e])) {
			return true
		}
		off = k + 1
	}
}
