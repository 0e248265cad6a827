package split

import "strings"

// SYCL/imported symbols (spec §7.5, set 6; §7.6): the functions a part
// declares and expects another device image to supply at run time.
//
// The rule follows intel/llvm's computeModuleProperties
// (llvm/lib/SYCLPostLink/ComputeModuleRuntimeInfo.cpp@46a4a43c) and
// canBeImportedFunction (llvm/lib/SYCLPostLink/ModuleSplitter.cpp@16c65834).
// With -emit-imported-symbols, every function declaration of the image
// (module order) that has no "indirectly-callable" attribute (virtual
// functions link by set) is listed, name → u32 1, when it can be imported:
//
//   - a declaration of one of the bfloat16 conversion functions
//     (__devicelib_ConvertFToBF16INTEL, …, SYCLDeviceLibBF16.cpp@031015cc)
//     always can: the runtime links it from the fallback or native
//     bfloat16 device library;
//   - anything else only with -allow-device-image-dependencies, and then
//     only when it is not an intrinsic (llvm.*), its name does not start
//     with "__", it is not a _Z<n>__spirv_, _Z<n>__sycl_ or _Z<n>__esimd_
//     builtin, and its Itanium demangling does not start with "__". A
//     declaration counts as SYCL_EXTERNAL (the attribute is not recorded
//     on declarations).
//
// The set is written only when something is listed.

// importedSymbols lists the part's importable declarations (see above) in
// module order.
func (m *Module) importedSymbols(cl *Closure, allowDeps bool) []string {
	var out []string
	for g := range m.declaredFuncs(cl) {
		if _, vf := m.Attr(g, "indirectly-callable"); vf {
			continue
		}
		if n := g.Name(); canBeImported(n, allowDeps) {
			out = append(out, n)
		}
	}
	return out
}

// canBeImported is intel's canBeImportedFunction for a declaration named
// name.
func canBeImported(name string, allowDeps bool) bool {
	if isBF16DeviceLibFunc(name) {
		return true
	}
	if !allowDeps {
		return false
	}
	if strings.HasPrefix(name, "llvm.") || strings.HasPrefix(name, "__") {
		return false
	}
	if rest, ok := cutMangledLength(name); ok {
		for _, p := range [...]string{"__spirv_", "__sycl_", "__esimd_"} {
			if strings.HasPrefix(rest, p) {
				return false
			}
		}
	}
	return !demangledStartsDunder(name)
}

// cutMangledLength strips a leading "_Z" and the digits after it (there
// may be none), as intel's builtin tests do.
func cutMangledLength(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "_Z")
	if !ok {
		return "", false
	}
	return strings.TrimLeft(rest, "0123456789"), true
}

// demangledStartsDunder reports whether the Itanium demangling of name
// (what llvm::itaniumDemangle prints) starts with "__". A name that is not
// an Itanium "_Z" name reports false. (LLVM would read some such names as
// a bare type: "5__foo" demangles to "__foo". That case is ignored.)
//
// Only the start of the demangled text is computed: a small reader of the
// mangling grammar (names, nested and local names, template arguments,
// types) finds the entity's leading name, or, for a function template
// other than a constructor, destructor or conversion, the leading name of
// the return type, which the demangler prints first. Where it meets
// something it does not read (a dependent expression in a template
// argument, decltype, a requires-clause), it reports false: such a
// declaration stays importable. Substitutions (S_, S<n>_) and template
// parameters (T_) are resolved to their leads. The tests check it against
// llvm-cxxfilt.
func demangledStartsDunder(name string) bool {
	s, ok := strings.CutPrefix(name, "_Z")
	if !ok {
		return false
	}
	d := &demangler{s: s}
	lead := d.encoding()
	return !d.bad && strings.HasPrefix(lead, "__")
}

// demangler reads an Itanium mangling far enough to know the text its
// demangling starts with ("lead"). Leads it cannot tell are "?".
type demangler struct {
	s     string
	i     int
	bad   bool
	depth int
	targs []string // leads of the template arguments of the last name read
	subs  []string // leads of the substitution candidates, in order
}

func (d *demangler) push(lead string) { d.subs = append(d.subs, lead) }

const (
	unqPlain = iota
	unqCtorDtor
	unqConversion
)

func (d *demangler) peek() byte {
	if d.bad || d.i >= len(d.s) {
		return 0
	}
	return d.s[d.i]
}

func (d *demangler) peekAt(k int) byte {
	if d.bad || d.i+k >= len(d.s) {
		return 0
	}
	return d.s[d.i+k]
}

func (d *demangler) eat(c byte) bool {
	if d.peek() == c && c != 0 {
		d.i++
		return true
	}
	return false
}

func (d *demangler) fail() string {
	d.bad = true
	return "?"
}

// number reads [n]<digits> and reports whether there were digits.
func (d *demangler) number() bool {
	d.eat('n')
	start := d.i
	for isDigit(d.peek()) {
		d.i++
	}
	return d.i > start
}

// seqID reads [<seq-id>] _ (substitutions, T<n>_, Ut<n>_) and returns
// the index it stands for: 0 for none, the base-36 value plus one
// otherwise.
func (d *demangler) seqID() int {
	n, digits := 0, false
	for c := d.peek(); isDigit(c) || c >= 'A' && c <= 'Z'; c = d.peek() {
		v := int(c - '0')
		if c >= 'A' {
			v = int(c-'A') + 10
		}
		n = n*36 + v
		digits = true
		d.i++
		if n > len(d.s) {
			d.fail()
			return 0
		}
	}
	if !d.eat('_') {
		d.fail()
	}
	if digits {
		n++
	}
	return n
}

func (d *demangler) sourceName() string {
	n := 0
	start := d.i
	for isDigit(d.peek()) {
		n = n*10 + int(d.s[d.i]-'0')
		d.i++
		if n > len(d.s) {
			return d.fail()
		}
	}
	if d.i == start || d.i+n > len(d.s) {
		return d.fail()
	}
	id := d.s[d.i : d.i+n]
	d.i += n
	if strings.HasPrefix(id, "_GLOBAL__N") {
		return "(anonymous namespace)"
	}
	return id
}

// encoding reads <encoding> and returns its lead.
func (d *demangler) encoding() string {
	if d.depth++; d.depth > 64 {
		return d.fail()
	}
	defer func() { d.depth-- }()
	switch d.peek() {
	case 'T', 'G':
		return "special" // "vtable for …", "guard variable for …", thunks
	}
	lead, tmpl, kind := d.name()
	if d.bad {
		return "?"
	}
	if c := d.peek(); c == 0 || c == 'E' || c == '.' {
		return lead // a data name, or a function with no parameter list
	}
	targs := d.targs
	if tmpl && kind == unqPlain {
		lead = d.typ() // the return type is printed first
	}
	d.targs = targs
	for c := d.peek(); c != 0 && c != 'E' && c != '.'; c = d.peek() {
		d.typ()
	}
	return lead
}

// name reads <name>: its lead, whether its last component has template
// arguments, and the kind of that component.
func (d *demangler) name() (lead string, tmpl bool, kind int) {
	switch d.peek() {
	case 'N':
		return d.nestedName()
	case 'Z':
		return d.localName()
	case 'S':
		if d.peekAt(1) != 't' {
			lead, tmpl = d.substitution(true)
			return lead, tmpl, unqPlain
		}
		d.i += 2
		_, kind = d.unqualifiedName()
		lead = "std"
	default:
		lead, kind = d.unqualifiedName()
	}
	if d.peek() == 'I' {
		d.push(lead) // <unscoped-template-name>
		d.templateArgs(true)
		tmpl = true
	}
	return lead, tmpl, kind
}

func (d *demangler) nestedName() (lead string, tmpl bool, kind int) {
	d.eat('N')
	for strings.IndexByte("rVK", d.peek()) >= 0 && d.peek() != 0 {
		d.i++
	}
	if c := d.peek(); c == 'R' || c == 'O' {
		d.i++
	}
	// Every component but the last is a substitution candidate (a
	// <prefix>); one read from the table is not added again.
	first := true
	for !d.bad && !d.eat('E') {
		var l string
		fromTable := false
		switch c := d.peek(); {
		case c == 0:
			return d.fail(), false, 0
		case c == 'I':
			if first {
				return d.fail(), false, 0
			}
			d.templateArgs(true)
			tmpl = true
			if d.peek() != 'E' {
				d.push(lead)
			}
			continue
		case c == 'S' && d.peekAt(1) == 't':
			d.i += 2 // std:: and the name after it
			_, kind = d.unqualifiedName()
			l = "std"
		case c == 'S':
			l, _ = d.substitution(false)
			kind, fromTable = unqPlain, true
		case c == 'T':
			l = d.templateParam()
			kind = unqPlain
		case c == 'D' && (d.peekAt(1) == 't' || d.peekAt(1) == 'T'):
			return d.fail(), false, 0 // decltype(expression)
		case c == 'M':
			d.i++ // data-member prefix (closure types in initializers)
			continue
		default:
			l, kind = d.unqualifiedName()
		}
		if first {
			lead = l
			first = false
		}
		tmpl = false
		if !fromTable && d.peek() != 'E' {
			d.push(lead)
		}
	}
	if first {
		return d.fail(), false, 0
	}
	return lead, tmpl, kind
}

// localName reads Z <encoding> E <entity> [<discriminator>]; the
// demangling starts with the enclosing function's.
func (d *demangler) localName() (lead string, tmpl bool, kind int) {
	d.eat('Z')
	lead = d.encoding()
	if !d.eat('E') {
		return d.fail(), false, 0
	}
	switch d.peek() {
	case 's':
		d.i++
	case 'd':
		d.i++
		d.number()
		if !d.eat('_') {
			return d.fail(), false, 0
		}
		_, tmpl, kind = d.name()
	default:
		_, tmpl, kind = d.name()
	}
	if d.peek() == '_' {
		d.i++
		if d.eat('_') {
			d.number()
			d.eat('_')
		} else if isDigit(d.peek()) {
			d.i++
		}
	}
	return lead, tmpl, kind
}

// unqualifiedName reads an <unqualified-name> with its ABI tags.
func (d *demangler) unqualifiedName() (lead string, kind int) {
	d.eat('L') // internal linkage
	switch c := d.peek(); {
	case isDigit(c):
		lead = d.sourceName()
	case c == 'C':
		d.i++
		if d.eat('I') {
			d.i++
			d.typ()
		} else {
			d.i++
		}
		lead, kind = "?", unqCtorDtor
	case c == 'D' && d.peekAt(1) >= '0' && d.peekAt(1) <= '5':
		d.i += 2
		lead, kind = "~", unqCtorDtor
	case c == 'D' && d.peekAt(1) == 'C':
		d.i += 2
		for !d.bad && !d.eat('E') {
			d.sourceName()
		}
		lead = "["
	case c == 'U':
		lead = d.unnamedType()
	case c == 'c' && d.peekAt(1) == 'v':
		d.i += 2
		d.typ()
		lead, kind = "operator", unqConversion
	case c == 'l' && d.peekAt(1) == 'i':
		d.i += 2
		d.sourceName()
		lead = "operator"
	case c == 'v' && isDigit(d.peekAt(1)):
		d.i += 2
		d.sourceName()
		lead = "operator"
	case c >= 'a' && c <= 'z' && isLetter(d.peekAt(1)):
		d.i += 2 // an operator name: nw, pl, aS, …
		lead = "operator"
	default:
		return d.fail(), 0
	}
	for d.peek() == 'B' {
		d.i++
		d.sourceName()
	}
	return lead, kind
}

// unnamedType reads Ut [<n>] _ or Ul <lambda-sig> E [<n>] _.
func (d *demangler) unnamedType() string {
	d.eat('U')
	switch {
	case d.eat('t'):
		d.seqID()
		return "'unnamed"
	case d.eat('l'):
		for !d.bad && !d.eat('E') {
			if d.peek() == 0 {
				return d.fail()
			}
			d.typ()
		}
		d.number()
		if !d.eat('_') {
			return d.fail()
		}
		return "'lambda"
	}
	return d.fail()
}

// substitution reads S_, S<seq>_ or a standard abbreviation; with args,
// also the template arguments after it (reporting whether there were
// any).
func (d *demangler) substitution(args bool) (lead string, tmpl bool) {
	d.eat('S')
	lead = "?"
	switch c := d.peek(); c {
	case 'a', 'b', 's', 'i', 'o', 'd':
		d.i++
		lead = "std"
	default:
		if n := d.seqID(); n < len(d.subs) {
			lead = d.subs[n]
		}
	}
	if args && d.peek() == 'I' {
		d.templateArgs(true)
		tmpl = true
	}
	return lead, tmpl
}

// templateParam reads T_ or T<n>_ and returns the lead of that template
// argument of the last name read, when known.
func (d *demangler) templateParam() string {
	d.eat('T')
	n := d.seqID()
	if n < len(d.targs) {
		return d.targs[n]
	}
	return "?"
}

// templateArgs reads I <template-arg>+ E; record keeps the arguments'
// leads for T_ references.
func (d *demangler) templateArgs(record bool) {
	d.eat('I')
	var leads []string
	for !d.bad && !d.eat('E') {
		if d.peek() == 0 {
			d.fail()
			return
		}
		leads = append(leads, d.templateArg())
	}
	if record {
		d.targs = leads
	}
}

func (d *demangler) templateArg() string {
	switch d.peek() {
	case 'X':
		return d.fail() // a dependent expression: not read
	case 'L':
		d.i++
		if d.peek() == '_' && d.peekAt(1) == 'Z' {
			d.i += 2
			d.encoding()
		} else {
			d.typ()
			for c := d.peek(); c != 0 && c != 'E'; c = d.peek() {
				d.i++ // the literal's value
			}
		}
		if !d.eat('E') {
			return d.fail()
		}
		return "?"
	case 'J':
		d.i++
		for !d.bad && !d.eat('E') {
			if d.peek() == 0 {
				return d.fail()
			}
			d.templateArg()
		}
		return "?"
	}
	return d.typ()
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

var builtinTypes = map[byte]string{
	'v': "void", 'w': "wchar_t", 'b': "bool", 'c': "char", 'a': "signed char",
	'h': "unsigned char", 's': "short", 't': "unsigned short", 'i': "int",
	'j': "unsigned int", 'l': "long", 'm': "unsigned long", 'x': "long long",
	'y': "unsigned long long", 'n': "__int128", 'o': "unsigned __int128",
	'f': "float", 'd': "double", 'e': "long double", 'g': "__float128", 'z': "...",
}

// typ reads a <type> and returns its lead. Every type but a builtin or
// a bare substitution is a substitution candidate.
func (d *demangler) typ() string {
	if d.depth++; d.depth > 64 {
		return d.fail()
	}
	defer func() { d.depth-- }()
	c := d.peek()
	if b, ok := builtinTypes[c]; ok {
		d.i++
		return b
	}
	if c == 'D' {
		switch d.peekAt(1) {
		case 'p', 'v', 't', 'T':
		default:
			return d.dType() // builtins
		}
	}
	if c == 'S' && d.peekAt(1) != 't' {
		l, tmpl := d.substitution(true)
		if tmpl {
			d.push(l)
		}
		return l
	}
	l := d.typeBody(c)
	d.push(l)
	return l
}

func (d *demangler) typeBody(c byte) string {
	switch c {
	case 'r', 'V', 'K', 'P', 'R', 'O', 'C', 'G':
		d.i++
		return d.typ() // cv-qualifiers are printed after the type
	case 'u':
		d.i++
		l := d.sourceName()
		if d.peek() == 'I' {
			d.templateArgs(false)
		}
		return l
	case 'F':
		d.i++
		d.eat('Y')
		ret := d.typ()
		for !d.bad && !d.eat('E') {
			switch d.peek() {
			case 0:
				return d.fail()
			case 'R', 'O':
				if d.peekAt(1) == 'E' {
					d.i++
					continue
				}
			}
			d.typ()
		}
		return ret
	case 'A':
		d.i++
		if isDigit(d.peek()) {
			d.number()
		} else if d.peek() != '_' {
			return d.fail() // a dependent bound
		}
		if !d.eat('_') {
			return d.fail()
		}
		return d.typ()
	case 'M':
		d.i++
		d.typ()
		return d.typ()
	case 'T':
		l := d.templateParam()
		if d.peek() == 'I' {
			d.push(l)
			d.templateArgs(false)
		}
		return l
	case 'S': // St
		d.i += 2
		d.unqualifiedName()
		if d.peek() == 'I' {
			d.push("std")
			d.templateArgs(false)
		}
		return "std"
	case 'N', 'Z':
		l, _, _ := d.name()
		return l
	case 'D':
		return d.dType()
	}
	if isDigit(c) {
		l, _, _ := d.name()
		return l
	}
	return d.fail()
}

// dType reads the D… types.
func (d *demangler) dType() string {
	d.i++
	c := d.peek()
	d.i++
	switch c {
	case 'p':
		return d.typ()
	case 'v':
		if isDigit(d.peek()) {
			d.number()
		} else if d.peek() != '_' {
			return d.fail()
		}
		if !d.eat('_') {
			return d.fail()
		}
		return d.typ()
	case 'F':
		d.number()
		if d.eat('b') {
			return "std"
		}
		d.eat('x')
		if !d.eat('_') {
			return d.fail()
		}
		return "_Float"
	case 'B', 'U':
		if !d.number() || !d.eat('_') {
			return d.fail()
		}
		return "_BitInt"
	case 'n':
		return "std"
	case 'a', 'c', 'd', 'e', 'f', 'h', 'i', 's', 'u':
		return "D" + string(c) // auto, decltype(auto), decimal, half, char types
	}
	return d.fail()
}
