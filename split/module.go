package split

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/internal/enumname"
)

// Kind is the kind of a global value.
type Kind uint8

const (
	Function Kind = iota
	Variable
	Alias
	IFunc
)

var kindNames = []string{Function: "function", Variable: "variable", Alias: "alias", IFunc: "ifunc"}

func (k Kind) String() string { return enumname.Name(kindNames, k, "Kind") }

// Span is a byte range [Start, End) of Module.Src.
type Span struct{ Start, End int }

// Refs are the top-level entities a piece of text refers to, as indexes
// into the Module's slices. Each list is sorted and free of duplicates.
type Refs struct {
	Globals []int32
	MD      []int32
	Types   []int32
	Comdats []int32
	Attrs   []int32
}

// Global is a function, global variable, alias or ifunc.
type Global struct {
	Tok     string // the name token after '@', as written (may be quoted)
	Kind    Kind
	Decl    bool   // a declaration (no body, no initializer)
	Linkage string // "" for the default external linkage
	CC      string // calling convention keyword, functions only
	Span    Span   // the whole entity, through its final newline
	Header  Span   // functions: the "define …{" or "declare …" line
	Line    int    // 1-based line of the entity's first line
	Sig     string // functions: "ret(param,…)" with blanks removed
	Inline  map[string]string
	AttrIDs []int32 // attribute groups named in the header
	Attach  map[string]int32
	Refs    Refs

	indirect []string // signatures of indirect calls in the body
	calls    []int32  // direct callees (by call/invoke/callbr), with repeats
	fp64     uint8    // 0 no double, 1 conversion-only, 2 fp64 arithmetic
	assert   bool     // calls __devicelib_assert_fail directly
}

// Name is the symbol name (unquoted, escapes decoded).
func (g *Global) Name() string { return unquote(g.Tok) }

// IsKernel reports a kernel calling convention on a definition or declaration.
func (g *Global) IsKernel() bool {
	return g.Kind == Function && (g.CC == "spir_kernel" || g.CC == "amdgpu_kernel" || g.CC == "ptx_kernel")
}

// Entity is a type definition, comdat, attribute group or numbered
// metadata node.
type Entity struct {
	Tok  string
	Span Span
	Line int
	Refs Refs
}

// AttrGroup is an "attributes #N = { … }" line with its string attributes.
type AttrGroup struct {
	Entity
	Attrs map[string]string // string attributes; value "" when it has none
	Words []string          // other attributes (keywords)
}

// NamedMD is a named metadata list "!name = !{!1, !2}".
type NamedMD struct {
	Name string
	Span Span
	Line int
	Ops  []int32 // numbered metadata indexes
}

// Module is the top-level structure of one textual IR module. Src holds
// the text; every entity refers to its verbatim bytes.
type Module struct {
	File       string // for error messages
	Src        []byte
	Header     []Span // source_filename, target datalayout/triple, module asm
	Triple     string
	Types      []Entity
	Comdats    []Entity
	Globals    []Global
	AttrGroups []AttrGroup
	Named      []NamedMD
	MD         []Entity

	byName  map[string]int32
	types   map[string]int32
	comdats map[string]int32
	attrs   map[string]int32
	mdIDs   map[string]int32
	cache   modCache
	nextMD  int // one more than the largest numbered metadata ID
}

// Lookup returns the index of the global named name (unquoted), or -1.
func (m *Module) Lookup(name string) int {
	if i, ok := m.byName[name]; ok {
		return int(i)
	}
	if i, ok := m.byName[`"`+name+`"`]; ok {
		return int(i)
	}
	return -1
}

// ParseError is a malformed-IR error naming the file and the line.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

var linkages = map[string]bool{
	"private": true, "internal": true, "available_externally": true, "linkonce": true,
	"weak": true, "common": true, "appending": true, "extern_weak": true,
	"linkonce_odr": true, "weak_odr": true, "external": true,
}

var headerSkip = map[string]bool{
	"dso_local": true, "dso_preemptable": true, "default": true, "hidden": true,
	"protected": true, "dllimport": true, "dllexport": true,
}

// Parse builds the model of a textual IR module. name is used in errors.
// src is retained (not copied) by the returned Module.
func Parse(name string, src []byte) (*Module, error) {
	p := &parser{m: &Module{
		File: name, Src: src,
		byName: map[string]int32{}, types: map[string]int32{}, comdats: map[string]int32{},
		attrs: map[string]int32{}, mdIDs: map[string]int32{},
	}}
	// size the big slices up front: growing them by doubling would leave
	// garbage comparable to the module itself
	nl := func(prefix string) int { return bytes.Count(src, []byte("\n"+prefix)) + 1 }
	p.m.Globals = make([]Global, 0, nl("define ")+nl("declare ")+nl("@"))
	p.m.MD = make([]Entity, 0, nl("!"))
	if err := p.split(); err != nil {
		return nil, err
	}
	if err := p.resolve(); err != nil {
		return nil, err
	}
	return p.m, nil
}

type parser struct {
	m *Module
	// pending entity whose span continuation lines extend
	last          *Span
	pendingAttach []pendingMD
	headerAttrs   map[int][]string // global index → "#N" ids in its header
}

func (p *parser) errf(line int, format string, args ...any) error {
	return &ParseError{File: p.m.File, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// lineAt returns where the line starting at off ends (its '\n', or the
// end of src) and where the next line starts.
func lineAt(src []byte, off int) (end, next int) {
	e := bytes.IndexByte(src[off:], '\n')
	if e < 0 {
		return len(src), len(src)
	}
	return off + e, off + e + 1
}

// split cuts the text into top-level entities (first pass).
func (p *parser) split() error {
	src := p.m.Src
	line := 0
	for off := 0; off < len(src); {
		line++
		end, next := lineAt(src, off)
		l := src[off:end]
		start := off
		off = next
		if len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		if len(bytes.TrimSpace(l)) == 0 || l[0] == ';' {
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			if p.last == nil {
				return p.errf(line, "unexpected indented line at top level")
			}
			p.last.End = next
			continue
		}
		sp := Span{start, next}
		var err error
		switch {
		case l[0] == '@':
			err = p.global(sp, line, l)
		case bytes.HasPrefix(l, []byte("define ")):
			// the body runs to a line that is exactly "}"
			for {
				if off >= len(src) {
					return p.errf(line, "function body is not terminated by '}'")
				}
				e, n := lineAt(src, off)
				bl := bytes.TrimRight(src[off:e], "\r")
				off = n
				sp.End = n
				if len(bl) == 1 && bl[0] == '}' {
					break
				}
			}
			nl := bytes.Count(src[sp.Start:sp.End], []byte{'\n'})
			err = p.function(sp, line, l, false)
			line += nl - 1
			if sp.End == len(src) && src[len(src)-1] != '\n' {
				line++
			}
			p.last = nil
			if err != nil {
				return err
			}
			continue
		case bytes.HasPrefix(l, []byte("declare ")):
			err = p.function(sp, line, l, true)
		case l[0] == '%':
			err = p.named(sp, line, l, &p.m.Types, p.m.types, "type")
		case l[0] == '$':
			err = p.named(sp, line, l, &p.m.Comdats, p.m.comdats, "comdat")
		case bytes.HasPrefix(l, []byte("attributes #")):
			err = p.attrGroup(sp, line, l)
		case l[0] == '!':
			err = p.metadata(sp, line, l)
		case bytes.HasPrefix(l, []byte("source_filename")), bytes.HasPrefix(l, []byte("target ")),
			bytes.HasPrefix(l, []byte("module asm")):
			p.m.Header = append(p.m.Header, sp)
			p.last = &p.m.Header[len(p.m.Header)-1]
			if bytes.HasPrefix(l, []byte("target triple")) {
				if q := bytes.IndexByte(l, '"'); q > 0 {
					p.m.Triple = strings.Trim(string(l[q:]), `"`)
				}
			}
		case bytes.HasPrefix(l, []byte("uselistorder")):
			p.last = nil // dropped: it names specific uses
		default:
			w := l
			if i := bytes.IndexAny(w, " \t"); i > 0 {
				w = w[:i]
			}
			return p.errf(line, "unexpected %q at top level", w)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) named(sp Span, line int, l []byte, list *[]Entity, index map[string]int32, what string) error {
	tok, j, ok := readName(l, 1)
	if !ok || len(tok) == 0 {
		return p.errf(line, "malformed %s name", what)
	}
	if !bytes.HasPrefix(bytes.TrimLeft(l[j:], " "), []byte("=")) {
		return p.errf(line, "expected '=' after %s name", what)
	}
	if _, dup := index[string(tok)]; dup {
		return p.errf(line, "redefinition of %s %s", what, tok)
	}
	index[string(tok)] = int32(len(*list))
	*list = append(*list, Entity{Tok: string(tok), Span: sp, Line: line})
	p.last = &(*list)[len(*list)-1].Span
	return nil
}

func (p *parser) addGlobal(g Global, line int) error {
	if _, dup := p.m.byName[g.Tok]; dup {
		return p.errf(line, "redefinition of global @%s", g.Tok)
	}
	p.m.byName[g.Tok] = int32(len(p.m.Globals))
	p.m.Globals = append(p.m.Globals, g)
	p.last = &p.m.Globals[len(p.m.Globals)-1].Span
	return nil
}

// global parses "@name = … global|constant|alias|ifunc …".
func (p *parser) global(sp Span, line int, l []byte) error {
	tok, j, ok := readName(l, 1)
	if !ok || len(tok) == 0 {
		return p.errf(line, "malformed global name")
	}
	s := string(l)
	j = skipSpace(s, j)
	if j >= len(s) || s[j] != '=' {
		return p.errf(line, "expected '=' after @%s", tok)
	}
	g := Global{Tok: string(tok), Span: sp, Header: sp, Line: line}
	i := j + 1
	for {
		i = skipSpace(s, i)
		k := i
		for k < len(s) && isIdentChar(s[k]) {
			k++
		}
		if k == i {
			return p.errf(line, "malformed definition of @%s", tok)
		}
		w := s[i:k]
		i = k
		if i < len(s) && s[i] == '(' { // thread_local(…), addrspace(…)
			if e := matchClose(s, i); e > 0 {
				i = e
			}
			continue
		}
		if linkages[w] {
			g.Linkage = w
			continue
		}
		switch w {
		case "global", "constant":
			g.Kind = Variable
			i = skipSpace(s, i)
			if !startsType(s, i) {
				return p.errf(line, "expected a type for @%s", tok)
			}
			_, e, ok := parseType(s, i)
			if !ok {
				return p.errf(line, "malformed type for @%s", tok)
			}
			rest := strings.TrimSpace(s[e:])
			g.Decl = (rest == "" || rest[0] == ',') && (g.Linkage == "" || g.Linkage == "external" || g.Linkage == "extern_weak")
			if g.Decl && g.Linkage == "" {
				return p.errf(line, "global variable @%s has no initializer", tok)
			}
			return p.addGlobal(g, line)
		case "alias":
			g.Kind = Alias
			return p.addGlobal(g, line)
		case "ifunc":
			g.Kind = IFunc
			return p.addGlobal(g, line)
		}
	}
}

// function parses a define/declare header; the body is analysed later.
func (p *parser) function(sp Span, line int, l []byte, decl bool) error {
	s := string(l)
	g := Global{Kind: Function, Decl: decl, Span: sp, Line: line}
	g.Header = Span{sp.Start, sp.Start + len(l)}
	at := -1
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			e := strings.IndexByte(s[i+1:], '"')
			if e < 0 {
				break
			}
			i += e + 1
			continue
		}
		if s[i] == '@' {
			at = i
			break
		}
	}
	if at < 0 {
		return p.errf(line, "function header without a name")
	}
	tok, j, ok := readNameStr(s, at+1)
	if !ok || tok == "" {
		return p.errf(line, "malformed function name")
	}
	g.Tok = tok
	// prefix: define [linkage] [preemption] [visibility] [dll] [cc] [ret attrs] type
	pre := s[strings.IndexByte(s, ' ')+1 : at]
	for _, w := range strings.Fields(pre) {
		if linkages[w] {
			g.Linkage = w
			continue
		}
		if headerSkip[w] {
			continue
		}
		if strings.HasSuffix(w, "cc") || strings.HasSuffix(w, "_kernel") || strings.HasPrefix(w, "spir_") ||
			strings.HasPrefix(w, "amdgpu_") || strings.HasPrefix(w, "ptx_") || strings.HasPrefix(w, "x86_") ||
			strings.HasPrefix(w, "aarch64_") || strings.HasPrefix(w, "riscv_") || w == "cc" {
			if !startsType(w, 0) {
				g.CC = w
			}
		}
		break
	}
	ti := skipToType(pre, 0)
	if g.CC != "" {
		ti = skipToType(pre, strings.Index(pre, g.CC)+len(g.CC))
	}
	ret := "void"
	if ti < len(pre) {
		t, _, ok := parseType(pre, ti)
		if !ok {
			return p.errf(line, "malformed return type of @%s", tok)
		}
		ret = t
	}
	if j >= len(s) || s[j] != '(' {
		return p.errf(line, "expected '(' after @%s", tok)
	}
	e := matchClose(s, j)
	if e < 0 {
		return p.errf(line, "unbalanced parameter list of @%s", tok)
	}
	params, ok := paramTypes(s[j+1 : e-1])
	if !ok {
		return p.errf(line, "malformed parameter list of @%s", tok)
	}
	g.Sig = ret + "(" + strings.Join(params, ",") + ")"
	// tail: attributes, comdat, metadata attachments
	tail := s[e:]
	if !decl {
		tail = strings.TrimRight(tail, " \r")
		if !strings.HasSuffix(tail, "{") {
			return p.errf(line, "expected '{' at the end of the header of @%s", tok)
		}
		tail = tail[:len(tail)-1]
	}
	for i := 0; i < len(tail); {
		c := tail[i]
		switch {
		case c == '"':
			k, v, n, ok := readStringAttr(tail, i)
			if !ok {
				return p.errf(line, "malformed attribute in the header of @%s", tok)
			}
			if g.Inline == nil {
				g.Inline = map[string]string{}
			}
			g.Inline[k] = v
			i = n
		case c == '!' && i+1 < len(tail) && !isDigit(tail[i+1]) && tail[i+1] != '{' && tail[i+1] != '"':
			kind, n, _ := readNameStr(tail, i+1)
			n = skipSpace(tail, n)
			if n < len(tail) && tail[n] == '!' {
				id, n2, _ := readNameStr(tail, n+1)
				if g.Attach == nil {
					g.Attach = map[string]int32{}
				}
				g.Attach[kind] = -1 - int32(len(p.pendingAttach))
				p.pendingAttach = append(p.pendingAttach, pendingMD{glob: len(p.m.Globals), kind: kind, id: id, line: line})
				i = n2
			} else {
				i = n
			}
		case c == '#':
			n := i + 1
			for n < len(tail) && isDigit(tail[n]) {
				n++
			}
			if n > i+1 {
				if p.headerAttrs == nil {
					p.headerAttrs = map[int][]string{}
				}
				idx := len(p.m.Globals)
				p.headerAttrs[idx] = append(p.headerAttrs[idx], tail[i+1:n])
			}
			i = n
		case c == '(' || c == '[' || c == '{' || c == '<':
			n := matchClose(tail, i)
			if n < 0 {
				return p.errf(line, "unbalanced brackets in the header of @%s", tok)
			}
			i = n
		default:
			i++
		}
	}
	return p.addGlobal(g, line)
}

type pendingMD struct {
	glob int
	kind string
	id   string
	line int
}

// readStringAttr reads "key" or "key"="value" at s[i].
func readStringAttr(s string, i int) (k, v string, next int, ok bool) {
	e := strings.IndexByte(s[i+1:], '"')
	if e < 0 {
		return "", "", len(s), false
	}
	k = s[i+1 : i+1+e]
	next = i + e + 2
	if next < len(s) && s[next] == '=' && next+1 < len(s) && s[next+1] == '"' {
		e2 := strings.IndexByte(s[next+2:], '"')
		if e2 < 0 {
			return "", "", len(s), false
		}
		v = s[next+2 : next+2+e2]
		next = next + 2 + e2 + 1
	}
	return unquote(`"` + k + `"`), unquote(`"` + v + `"`), next, true
}

func (p *parser) attrGroup(sp Span, line int, l []byte) error {
	s := string(l)
	j := len("attributes ")
	k := j + 1
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	id := s[j+1 : k]
	b := strings.IndexByte(s, '{')
	if b < 0 || k == j+1 {
		return p.errf(line, "malformed attribute group")
	}
	if _, dup := p.m.attrs[id]; dup {
		return p.errf(line, "redefinition of attribute group %s", id)
	}
	ag := AttrGroup{Entity: Entity{Tok: id, Span: sp, Line: line}, Attrs: map[string]string{}}
	body := s[b+1:]
	if e := strings.LastIndexByte(body, '}'); e >= 0 {
		body = body[:e]
	} else {
		return p.errf(line, "attribute group %s is not closed", id)
	}
	for i := 0; i < len(body); {
		switch c := body[i]; {
		case c == '"':
			k, v, n, ok := readStringAttr(body, i)
			if !ok {
				return p.errf(line, "malformed string attribute in group %s", id)
			}
			ag.Attrs[k] = v
			i = n
		case isIdentChar(c):
			n := i
			for n < len(body) && isIdentChar(body[n]) {
				n++
			}
			ag.Words = append(ag.Words, body[i:n])
			if n < len(body) && body[n] == '(' {
				if e := matchClose(body, n); e > 0 {
					n = e
				}
			}
			i = n
		default:
			i++
		}
	}
	p.m.attrs[id] = int32(len(p.m.AttrGroups))
	p.m.AttrGroups = append(p.m.AttrGroups, ag)
	p.last = &p.m.AttrGroups[len(p.m.AttrGroups)-1].Span
	return nil
}

func (p *parser) metadata(sp Span, line int, l []byte) error {
	s := string(l)
	if len(s) > 1 && isDigit(s[1]) {
		tok, j, _ := readNameStr(s, 1)
		if !strings.HasPrefix(strings.TrimLeft(s[j:], " "), "=") {
			return p.errf(line, "expected '=' after !%s", tok)
		}
		if _, dup := p.m.mdIDs[tok]; dup {
			return p.errf(line, "redefinition of metadata !%s", tok)
		}
		if n, err := strconv.Atoi(tok); err == nil && n >= p.m.nextMD {
			p.m.nextMD = n + 1
		}
		p.m.mdIDs[tok] = int32(len(p.m.MD))
		p.m.MD = append(p.m.MD, Entity{Tok: tok, Span: sp, Line: line})
		p.last = &p.m.MD[len(p.m.MD)-1].Span
		return nil
	}
	name, j, ok := readNameStr(s, 1)
	if !ok || name == "" {
		return p.errf(line, "malformed metadata name")
	}
	rest := strings.TrimSpace(s[j:])
	if !strings.HasPrefix(rest, "=") {
		return p.errf(line, "expected '=' after !%s", name)
	}
	p.m.Named = append(p.m.Named, NamedMD{Name: name, Span: sp, Line: line})
	p.last = &p.m.Named[len(p.m.Named)-1].Span
	return nil
}

// scanner collects references from entity text.
type scanner struct {
	m   *Module
	ref Refs
	bad string // first unresolved reference
}

func (sc *scanner) reset() { sc.ref = Refs{}; sc.bad = "" }

// scan records every @global, !N, %type, $comdat and #N reference in b.
// self is the comdat implied by a bare "comdat" keyword ("" for none).
func (sc *scanner) scan(b []byte, self string) {
	m := sc.m
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case ';':
			e := bytes.IndexByte(b[i:], '\n')
			if e < 0 {
				return
			}
			i += e
		case '"':
			e := bytes.IndexByte(b[i+1:], '"')
			if e < 0 {
				return
			}
			i += e + 1
		case '@':
			tok, n, ok := readName(b, i+1)
			if !ok {
				return
			}
			if len(tok) > 0 {
				if g, ok := m.byName[string(tok)]; ok {
					sc.ref.Globals = append(sc.ref.Globals, g)
				} else if sc.bad == "" {
					sc.bad = "@" + string(tok)
				}
			}
			i = n - 1
		case '%':
			tok, n, ok := readName(b, i+1)
			if !ok {
				return
			}
			if len(tok) > 0 && len(m.types) > 0 {
				if t, ok := m.types[string(tok)]; ok {
					sc.ref.Types = append(sc.ref.Types, t)
				}
			}
			i = n - 1
		case '$':
			if i > 0 && isIdentChar(b[i-1]) {
				continue
			}
			tok, n, ok := readName(b, i+1)
			if !ok {
				return
			}
			if t, ok := m.comdats[string(tok)]; ok {
				sc.ref.Comdats = append(sc.ref.Comdats, t)
			}
			i = n - 1
		case '!':
			if i+1 < len(b) && isDigit(b[i+1]) {
				n := i + 1
				for n < len(b) && isDigit(b[n]) {
					n++
				}
				if t, ok := m.mdIDs[string(b[i+1:n])]; ok {
					sc.ref.MD = append(sc.ref.MD, t)
				} else if sc.bad == "" {
					sc.bad = "!" + string(b[i+1:n])
				}
				i = n - 1
			} else if i+1 < len(b) && b[i+1] == '"' {
				e := bytes.IndexByte(b[i+2:], '"')
				if e < 0 {
					return
				}
				i += e + 2
			} else {
				n := i + 1
				for n < len(b) && isIdentChar(b[n]) {
					n++
				}
				i = n - 1
			}
		case '#':
			n := i + 1
			for n < len(b) && isDigit(b[n]) {
				n++
			}
			if n > i+1 {
				if t, ok := m.attrs[string(b[i+1:n])]; ok {
					sc.ref.Attrs = append(sc.ref.Attrs, t)
				} else if sc.bad == "" {
					sc.bad = "#" + string(b[i+1:n])
				}
			}
			i = n - 1
		case 'c':
			if self != "" && (i == 0 || !isIdentChar(b[i-1])) && bytes.HasPrefix(b[i:], []byte("comdat")) &&
				(i+6 == len(b) || !isIdentChar(b[i+6])) {
				k := i + 6
				for k < len(b) && b[k] == ' ' {
					k++
				}
				if k >= len(b) || b[k] != '(' {
					if t, ok := m.comdats[self]; ok {
						sc.ref.Comdats = append(sc.ref.Comdats, t)
					}
				}
				i += 5
			}
		default:
			if isIdentChar(c) {
				for i+1 < len(b) && isIdentChar(b[i+1]) {
					i++
				}
			}
		}
	}
}

func uniq(s []int32) []int32 {
	if len(s) < 2 {
		return s
	}
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out[:len(out):len(out)]
}

func (sc *scanner) take() Refs {
	r := sc.ref
	r.Globals = uniq(append([]int32(nil), r.Globals...))
	r.MD = uniq(append([]int32(nil), r.MD...))
	r.Types = uniq(append([]int32(nil), r.Types...))
	r.Comdats = uniq(append([]int32(nil), r.Comdats...))
	r.Attrs = uniq(append([]int32(nil), r.Attrs...))
	sc.ref = Refs{Globals: sc.ref.Globals[:0], MD: sc.ref.MD[:0], Types: sc.ref.Types[:0],
		Comdats: sc.ref.Comdats[:0], Attrs: sc.ref.Attrs[:0]}
	sc.bad = ""
	return r
}

// resolve is the second pass: references, attribute groups, attachments,
// named metadata operands and function body analysis.
func (p *parser) resolve() error {
	m := p.m
	sc := &scanner{m: m}
	for _, ents := range [][]Entity{m.Types, m.MD} { // named types, then metadata nodes
		for i := range ents {
			e := &ents[i]
			sc.scan(m.Src[e.Span.Start+len(e.Tok)+1:e.Span.End], "")
			if sc.bad != "" {
				return p.errf(e.Line, "reference to undefined %s", sc.bad)
			}
			e.Refs = sc.take()
		}
	}
	for i := range m.AttrGroups {
		e := &m.AttrGroups[i]
		sc.scan(m.Src[e.Span.Start:e.Span.End], "")
		e.Refs = sc.take()
		e.Refs.Attrs = nil
	}
	for i := range m.Named {
		n := &m.Named[i]
		txt := m.Src[n.Span.Start:n.Span.End]
		eq := bytes.IndexByte(txt, '=')
		sc.scan(txt[eq+1:], "")
		if sc.bad != "" {
			return p.errf(n.Line, "reference to undefined %s", sc.bad)
		}
		r := sc.take()
		// keep operand order as written
		var ops []int32
		body := txt[eq+1:]
		for k := 0; k < len(body); k++ {
			if body[k] == '!' && k+1 < len(body) && isDigit(body[k+1]) {
				e := k + 1
				for e < len(body) && isDigit(body[e]) {
					e++
				}
				id, ok := m.mdIDs[string(body[k+1:e])]
				if !ok {
					return p.errf(n.Line, "reference to undefined !%s", body[k+1:e])
				}
				ops = append(ops, id)
				k = e - 1
			}
		}
		_ = r
		n.Ops = ops
	}
	for _, pa := range p.pendingAttach {
		id, ok := m.mdIDs[pa.id]
		if !ok {
			return p.errf(pa.line, "reference to undefined metadata !%s", pa.id)
		}
		m.Globals[pa.glob].Attach[pa.kind] = id
	}
	for i := range m.Globals {
		g := &m.Globals[i]
		start := g.Span.Start
		if g.Kind != Function {
			start += 1 + len(g.Tok) // skip the defining "@name"
		} else {
			// skip the name in the header
			h := m.Src[g.Header.Start:g.Header.End]
			at := bytes.Index(h, []byte("@"+g.Tok))
			sc.scan(h[:at], g.Tok)
			sc.scan(m.Src[g.Header.Start+at+1+len(g.Tok):g.Span.End], g.Tok)
			start = -1
		}
		if start >= 0 {
			sc.scan(m.Src[start:g.Span.End], g.Tok)
		}
		if sc.bad != "" {
			return p.errf(g.Line, "reference to undefined %s", sc.bad)
		}
		g.Refs = sc.take()
		if g.Kind == Variable {
			// "@v = … global T init, align 4 #0": a variable names only
			// its own attribute group
			g.AttrIDs = g.Refs.Attrs
		}
		for _, id := range p.headerAttrs[i] {
			a, ok := m.attrs[id]
			if !ok {
				return p.errf(g.Line, "reference to undefined attribute group #%s", id)
			}
			g.AttrIDs = append(g.AttrIDs, a)
		}
		if g.Kind == Function && !g.Decl {
			if err := p.analyseBody(i); err != nil {
				return err
			}
		} else if g.Kind == Variable && hasWord(string(m.Src[g.Span.Start:g.Span.End]), "double") {
			g.fp64 = 1
		}
		if g.Kind == Function && (strings.Contains(g.Sig, "double")) && g.fp64 == 0 {
			g.fp64 = 1
		}
	}
	return nil
}
