package split

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
)

// ErrNotPartitionable is returned by Partition for a module it does not
// split (aliases or ifuncs: their declarations would need the aliasee's
// type). Callers link such a module whole.
var ErrNotPartitionable = errors.New("module not partitioned")

// Partition is one part of an optimised device module, to be compiled on
// its own and linked with the others (Module.Partition).
type Partition struct {
	Index int
	// Roots are the symbols with external linkage this part defines for
	// the link: kernels, exported functions and variables, and local
	// variables or functions it promotes (sorted).
	Roots []string
	IR    []byte
}

// Home is the part, of n, that defines the symbol name: a hash of the
// name alone, so that an edit elsewhere moves nothing.
func Home(name string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int(h.Sum64() % uint64(n))
}

// role is what a part does with a global its closure reaches.
type role uint8

const (
	asIs      role = iota // written verbatim (a definition, or a declaration)
	copyLocal             // a function with external linkage, copied with internal linkage
	declare               // defined in another part: written as a declaration
	promote               // a local symbol other parts refer to: defined here, hidden, external
)

// Partition splits an optimised (post-LTO) device module into n parts,
// each a complete module that code generation can compile on its own, so
// that linking the parts' objects gives the program the whole module
// gives. The rules (docs/partitions.md):
//   - every definition with external linkage (kernels, exported functions
//     and variables) is defined by exactly one part, Home(name, n);
//   - a part copies everything its definitions call, with internal
//     linkage: a kernel's code sees the same callees as in the whole
//     module, so its resources are the same;
//   - a function whose address is taken (used other than as a direct
//     callee, or named by metadata) is never copied: it is defined once
//     (a local one is promoted to hidden external linkage) and declared by
//     the parts that refer to it, so function pointers compare equal;
//   - variables are defined once, except local constants with unnamed_addr
//     (their address is not significant) and, on GPUs, group-segment
//     (addrspace 3) variables, which are allocated per kernel launch:
//     those are copied. A local variable that two parts refer to is
//     promoted to hidden external linkage in its home part;
//   - llvm.used and llvm.compiler.used are rebuilt per part from the
//     members it defines; llvm.global_ctors and other appending variables
//     go to part 0.
//
// A part may be empty of roots; it still parses. Modules with aliases or
// ifuncs, or a variable it cannot read, give ErrNotPartitionable (the
// caller links them whole).
func (m *Module) Partition(n int) ([]Partition, error) {
	if n < 1 {
		return nil, fmt.Errorf("partition: %d parts", n)
	}
	for i := range m.Globals {
		if k := m.Globals[i].Kind; k == Alias || k == IFunc {
			return nil, fmt.Errorf("%w: %s @%s", ErrNotPartitionable, k, m.Globals[i].Name())
		}
	}
	gpu := strings.HasPrefix(m.Triple, "amdgcn") || strings.HasPrefix(m.Triple, "nvptx")
	taken := m.addressTaken()
	ng := len(m.Globals)
	home := make([]int, ng)
	local := make([]bool, ng)
	copyable := make([]bool, ng) // local, and copied into every part that refers to it
	usedList := make([]bool, ng)
	var usedMembers []int32
	for i := range m.Globals {
		g := &m.Globals[i]
		home[i] = Home(g.Name(), n)
		local[i] = g.Linkage == "internal" || g.Linkage == "private"
		switch {
		case g.Kind == Variable && (g.Name() == "llvm.used" || g.Name() == "llvm.compiler.used"):
			usedList[i] = true
			usedMembers = append(usedMembers, g.Refs.Globals...)
		case g.Kind == Variable && g.Linkage == "appending":
			home[i] = 0
		case g.Decl || !local[i]:
		case g.Kind == Function:
			copyable[i] = !taken[i]
		default:
			words, kw, _, _, err := m.splitVar(g)
			if err != nil {
				return nil, err
			}
			copyable[i] = gpu && slices.Contains(words, "addrspace(3)") ||
				slices.Contains(words, "unnamed_addr") && kw == "constant"
		}
	}
	// AMDGPU: a kernel whose calls the part cannot see whole (an
	// indirect call, or a call of a function defined elsewhere) is given
	// the registers of every function in the module it is compiled in.
	// Such kernels, and every function, are compiled in part 0, so that
	// "every function" is the whole program's, as in the whole link.
	whole := false
	if strings.HasPrefix(m.Triple, "amdgcn") {
		for i, inc := range m.openCallKernels(taken) {
			if inc {
				home[i], whole = 0, true
			}
		}
	}
	if whole {
		for i := range m.Globals {
			if g := &m.Globals[i]; g.Kind == Function && !g.Decl && !g.IsKernel() {
				home[i] = 0
			}
		}
	}
	inUsed := make([]bool, ng)
	for _, u := range usedMembers {
		inUsed[u] = true
	}
	// A local symbol is promoted when a part other than its home reaches
	// it; find those by taking every part's closure first.
	type plan struct {
		roots []int32
		c     *Closure
	}
	plans := make([]plan, n)
	for i := range m.Globals {
		g := &m.Globals[i]
		if usedList[i] || g.Decl {
			continue
		}
		if !local[i] || inUsed[i] && !copyable[i] || whole && g.Kind == Function {
			plans[home[i]].roots = append(plans[home[i]].roots, int32(i))
		}
	}
	roleIn := func(p int, i int32) role {
		g := &m.Globals[i]
		switch {
		case g.Decl || copyable[i]:
			return asIs
		case home[i] == p:
			if local[i] {
				return promote // asIs unless another part reaches it (below)
			}
			return asIs
		case g.Kind == Function && !taken[i] && !g.IsKernel():
			if local[i] {
				return asIs
			}
			return copyLocal
		default:
			return declare
		}
	}
	reached := make([]bool, ng) // a non-copyable local reached from a part other than its home
	x := m.NewExtractor(ClosureOptions{NoSeeds: true})
	for p := range plans {
		x.opts.Stop = func(i int32) bool { return roleIn(p, i) == declare }
		plans[p].c = x.Closure(plans[p].roots)
		for _, i := range plans[p].c.Globals {
			if local[i] && !copyable[i] && home[i] != p && roleIn(p, i) == declare {
				reached[i] = true
			}
		}
	}
	// A local, non-copyable symbol that other parts reach must be defined
	// by its home part even when nothing there reaches it; adding it may
	// reach more, so repeat until nothing changes.
	for changed := true; changed; {
		changed = false
		for i := range m.Globals {
			p := home[i]
			if !reached[i] || contains(plans[p].c.Globals, int32(i)) {
				continue
			}
			plans[p].roots = append(plans[p].roots, int32(i))
			x.opts.Stop = func(j int32) bool { return roleIn(p, j) == declare }
			plans[p].c = x.Closure(plans[p].roots)
			for _, j := range plans[p].c.Globals {
				if local[j] && !copyable[j] && home[j] != p && roleIn(p, j) == declare {
					reached[j] = true
				}
			}
			changed = true
		}
	}
	out := make([]Partition, n)
	for p := range plans {
		c := plans[p].c
		var moved []int32
		rest := *c
		rest.Globals = rest.Globals[:0:0]
		roots := map[string]bool{}
		for _, i := range plans[p].roots {
			if !local[i] || reached[i] {
				roots[m.Globals[i].Name()] = true
			}
		}
		for _, i := range c.Globals {
			r := roleIn(p, i)
			if r == promote && !reached[i] {
				r = asIs
			}
			if r == declare || r == promote {
				moved = append(moved, i)
				if r == promote {
					roots[m.Globals[i].Name()] = true
				}
				continue
			}
			rest.Globals = append(rest.Globals, i)
		}
		// comdats only definitions that keep external linkage name
		dst := m.AppendIR(nil, &rest, func(i int32) bool { return roleIn(p, i) == copyLocal })
		for _, i := range moved {
			g := &m.Globals[i]
			dst = append(dst, '\n')
			r := roleIn(p, i)
			if r == promote && !reached[i] {
				r = asIs
			}
			switch {
			case g.Kind == Function && r == declare:
				d := appendDecl(nil, g, string(m.Src[g.Header.Start:g.Header.End]))
				if local[i] {
					d = hideDecl(d)
				}
				dst = append(dst, d...)
			case g.Kind == Function: // promote
				dst = append(dst, "define hidden "...)
				dst = append(dst, strings.TrimPrefix(string(appendExternal(nil, g, string(m.Src[g.Header.Start:g.Header.End]))), "define ")...)
				dst = append(dst, m.Src[g.Header.End:g.Span.End]...)
				dst = fixEOL(dst, m.Src[g.Span.Start:g.Span.End])
			case r == declare:
				d, err := m.varDecl(g, local[i])
				if err != nil {
					return nil, err
				}
				dst = append(dst, d...)
			default: // a promoted variable
				d, err := m.varPromoted(g)
				if err != nil {
					return nil, err
				}
				dst = append(dst, d...)
			}
		}
		for i := range m.Globals {
			if usedList[i] {
				var err error
				dst, err = m.appendUsed(dst, &m.Globals[i], func(j int32) bool {
					return contains(c.Globals, j) && roleIn(p, j) != declare
				})
				if err != nil {
					return nil, err
				}
			}
		}
		names := make([]string, 0, len(roots))
		for r := range roots {
			names = append(names, r)
		}
		sort.Strings(names)
		out[p] = Partition{Index: p, Roots: names, IR: canonicalNumbering(dst)}
	}
	return out, nil
}

// openCallKernels marks the kernels whose call graph is open: a function
// they reach by direct calls makes an indirect call, or calls a function
// that is not copied into the caller's part (a declaration other than an
// intrinsic, an address-taken function, a kernel). The AMDGPU backend
// gives such a kernel the largest register counts of all functions in the
// module it compiles (amdgpu.max_num_vgpr and its kind), where a closed
// one gets those of its own callees.
func (m *Module) openCallKernels(taken []bool) []bool {
	open := make([]bool, len(m.Globals))
	seen := make([]int32, len(m.Globals)) // the kernel (+1) that last visited
	var stack []int32
	for k := range m.Globals {
		if !m.Globals[k].IsKernel() || m.Globals[k].Decl {
			continue
		}
		stack = append(stack[:0], int32(k))
		seen[k] = int32(k) + 1
		for len(stack) > 0 && !open[k] {
			g := &m.Globals[stack[len(stack)-1]]
			stack = stack[:len(stack)-1]
			if len(g.indirect) > 0 {
				open[k] = true
				break
			}
			for _, c := range g.calls {
				cg := &m.Globals[c]
				switch {
				case cg.Decl && strings.HasPrefix(cg.Name(), "llvm."):
					continue
				case cg.Decl || taken[c] || cg.IsKernel():
					open[k] = true
				case seen[c] != int32(k)+1:
					seen[c] = int32(k) + 1
					stack = append(stack, c)
				}
			}
		}
	}
	return open
}

func contains(sorted []int32, i int32) bool {
	k := sort.Search(len(sorted), func(j int) bool { return sorted[j] >= i })
	return k < len(sorted) && sorted[k] == i
}

// addressTaken marks the functions used other than as the callee of a
// direct call: named by a variable's initializer, by metadata, or in a
// body more often than it is called there.
func (m *Module) addressTaken() []bool {
	taken := make([]bool, len(m.Globals))
	for hi := range m.Globals {
		h := &m.Globals[hi]
		if h.Decl {
			continue
		}
		if h.Kind != Function {
			for _, f := range h.Refs.Globals {
				taken[f] = taken[f] || m.Globals[f].Kind == Function
			}
			continue
		}
		calls := map[int32]int{}
		for _, c := range h.calls {
			calls[c]++
		}
		body := string(m.Src[h.Header.Start:h.Span.End])
		for _, f := range h.Refs.Globals {
			if m.Globals[f].Kind != Function || taken[f] {
				continue
			}
			uses := countRefs(body, m.Globals[f].Tok)
			if f == int32(hi) {
				uses-- // its own define line
			}
			if uses > calls[f] {
				taken[f] = true
			}
		}
	}
	for mi := range m.MD {
		for _, f := range m.MD[mi].Refs.Globals {
			taken[f] = taken[f] || m.Globals[f].Kind == Function
		}
	}
	return taken
}

// countRefs counts "@tok" in s as a whole name.
func countRefs(s, tok string) int {
	n := 0
	for off := 0; ; {
		k := strings.Index(s[off:], "@"+tok)
		if k < 0 {
			return n
		}
		e := off + k + 1 + len(tok)
		if tok[0] == '"' || e >= len(s) || !isIdentChar(s[e]) {
			n++
		}
		off = e
	}
}

// splitVar cuts a variable definition line into its words before the
// type, the keyword (global or constant), the type, and the rest after
// the type (initializer, section, alignment, attachments).
func (m *Module) splitVar(g *Global) (words []string, kw, typ, rest string, err error) {
	s := strings.TrimRight(string(m.Src[g.Span.Start:g.Span.End]), "\n")
	eq := strings.Index(s, " = ")
	if eq < 0 || strings.ContainsRune(s, '\n') {
		return nil, "", "", "", fmt.Errorf("%w: cannot read the definition of @%s", ErrNotPartitionable, g.Name())
	}
	i := eq + 3
	for i < len(s) {
		j := tokenEnd(s, i)
		w := s[i:j]
		i = skipSpace(s, j)
		if w == "global" || w == "constant" {
			kw = w
			break
		}
		words = append(words, w)
	}
	if kw == "" || !startsType(s, i) {
		return nil, "", "", "", fmt.Errorf("%w: cannot read the type of @%s", ErrNotPartitionable, g.Name())
	}
	_, te, ok := parseType(s, i)
	if !ok {
		return nil, "", "", "", fmt.Errorf("%w: cannot read the type of @%s", ErrNotPartitionable, g.Name())
	}
	return words, kw, s[i:te], s[te:], nil
}

// varDecl writes variable g as an external declaration: the visibility,
// thread_local, address space and externally_initialized words stay (a
// local one becomes hidden), then its type and alignment.
func (m *Module) varDecl(g *Global, wasLocal bool) ([]byte, error) {
	words, kw, typ, rest, err := m.splitVar(g)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("@" + g.Tok + " = external")
	if wasLocal {
		b.WriteString(" hidden")
	}
	for _, w := range words {
		if linkages[w] || w == "unnamed_addr" || w == "local_unnamed_addr" || w == "dso_local" || w == "dso_preemptable" {
			continue
		}
		b.WriteString(" " + w)
	}
	b.WriteString(" " + kw + " " + typ)
	if a := alignOf(rest); a != "" {
		b.WriteString(", align " + a)
	}
	b.WriteByte('\n')
	return []byte(b.String()), nil
}

// varPromoted writes local variable g with hidden external linkage.
func (m *Module) varPromoted(g *Global) ([]byte, error) {
	words, kw, typ, rest, err := m.splitVar(g)
	if err != nil {
		return nil, err
	}
	if r := strings.TrimSpace(rest); r == "" || r[0] == ',' {
		return nil, fmt.Errorf("%w: @%s has no initializer", ErrNotPartitionable, g.Name())
	}
	var b strings.Builder
	b.WriteString("@" + g.Tok + " = hidden")
	for _, w := range words {
		if linkages[w] || headerSkip[w] {
			continue
		}
		b.WriteString(" " + w)
	}
	b.WriteString(" " + kw + " " + typ + stripComdat(rest) + "\n")
	return []byte(b.String()), nil
}

// alignOf finds ", align N" in the part of a variable line after its type.
func alignOf(rest string) string {
	for off := 0; ; {
		k := strings.Index(rest[off:], ", align ")
		if k < 0 {
			return ""
		}
		k += off
		if quotesBefore(rest, k)%2 == 0 {
			j := k + len(", align ")
			e := j
			for e < len(rest) && isDigit(rest[e]) {
				e++
			}
			return rest[j:e]
		}
		off = k + 1
	}
}

// hideDecl makes the declaration d (of a promoted local function) hidden.
func hideDecl(d []byte) []byte {
	tail, ok := strings.CutPrefix(string(d), "declare ")
	if !ok {
		return d
	}
	for _, v := range []string{"default ", "protected ", "hidden "} {
		tail = strings.TrimPrefix(tail, v)
	}
	return []byte("declare hidden " + tail)
}

// appendUsed writes the llvm.used or llvm.compiler.used variable g with
// only the members keep accepts; nothing when none is kept.
func (m *Module) appendUsed(dst []byte, g *Global, keep func(int32) bool) ([]byte, error) {
	words, kw, _, rest, err := m.splitVar(g)
	if err != nil {
		return nil, err
	}
	init := strings.TrimSpace(rest)
	e := -1
	if strings.HasPrefix(init, "[") {
		e = matchClose(init, 0)
	}
	if e < 0 || strings.ContainsAny(init[e:], "@[") {
		return nil, fmt.Errorf("%w: cannot read @%s", ErrNotPartitionable, g.Name())
	}
	tail := init[e:]
	var elems []string
	body := init[1 : e-1]
	for i := 0; i < len(body); {
		j := i
		for j < len(body) && body[j] != ',' {
			switch body[j] {
			case '(', '[', '{', '<':
				if c := matchClose(body, j); c > 0 {
					j = c
					continue
				}
			}
			j++
		}
		el := strings.TrimSpace(body[i:j])
		i = j + 1
		if el == "" {
			continue
		}
		at := strings.IndexByte(el, '@')
		if at < 0 {
			continue
		}
		name := el[at+1:]
		end := len(name)
		if name != "" && name[0] == '"' {
			if q := strings.IndexByte(name[1:], '"'); q >= 0 {
				end = q + 2
			}
		} else {
			for k := 0; k < len(name); k++ {
				if !isIdentChar(name[k]) {
					end = k
					break
				}
			}
		}
		if gi := m.Lookup(unquote(name[:end])); gi >= 0 && keep(int32(gi)) {
			elems = append(elems, el)
		}
	}
	if len(elems) == 0 {
		return dst, nil
	}
	dst = append(dst, '\n')
	dst = append(dst, "@"+g.Tok+" = "+strings.Join(words, " ")+" "+kw+" "+
		fmt.Sprintf("[%d x ptr] [%s]", len(elems), strings.Join(elems, ", "))+tail+"\n"...)
	return dst, nil
}

// canonicalNumbering renumbers a part's attribute groups (#N) and numbered
// metadata (!N) in the order they first appear, so that a part's text, and so its cache key, does not change when an edit
// elsewhere in the program shifts the whole module's numbering. Quoted
// strings are copied as they are.
func canonicalNumbering(ir []byte) []byte {
	out := make([]byte, 0, len(ir))
	attrs, mds := map[string]int{}, map[string]int{}
	for i := 0; i < len(ir); {
		c := ir[i]
		switch {
		case c == '"':
			// a string ends at its quote (IR escapes newlines in strings)
			j := i + 1
			for j < len(ir) && ir[j] != '"' && ir[j] != '\n' {
				j++
			}
			if j < len(ir) && ir[j] == '"' {
				j++
			}
			out = append(out, ir[i:j]...)
			i = j
		case (c == '#' || c == '!') && i+1 < len(ir) && isDigit(ir[i+1]):
			j := i + 1
			for j < len(ir) && isDigit(ir[j]) {
				j++
			}
			m := mds
			if c == '#' {
				m = attrs
			}
			k := string(ir[i+1 : j])
			n, ok := m[k]
			if !ok {
				n = len(m)
				m[k] = n
			}
			out = append(out, c)
			out = fmt.Appendf(out, "%d", n)
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}
