package split

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/internal/enumname"
)

// Mode is the device-code split mode.
type Mode int

const (
	// ModeNone keeps one module holding every entry point (cleanup only).
	ModeNone Mode = iota
	// ModeKernel gives every entry point its own module.
	ModeKernel
	// ModeSource groups entry points by translation unit and optional
	// features (spec §2.3).
	ModeSource
	// ModeAuto is ModeSource: per-source splitting is always safe.
	ModeAuto
)

var (
	modeNames = []string{ModeNone: "none", ModeKernel: "kernel", ModeSource: "source", ModeAuto: "auto"}
	// intelModeNames are intel's spellings, which ParseMode accepts too.
	intelModeNames = map[string]Mode{"off": ModeNone, "per_kernel": ModeKernel, "per_source": ModeSource}
)

func (m Mode) String() string { return enumname.Name(modeNames, m, "Mode") }

// ParseMode maps none|kernel|source|auto (and intel's per_kernel,
// per_source, off) to a Mode.
func ParseMode(s string) (Mode, error) {
	if i := slices.Index(modeNames, s); i >= 0 {
		return Mode(i), nil
	}
	if m, ok := intelModeNames[s]; ok {
		return m, nil
	}
	return 0, fmt.Errorf("unknown split mode %q (want none, kernel, source or auto)", s)
}

// Options control Split.
type Options struct {
	Mode Mode
	// KernelsOnly makes only kernels (and "indirectly-callable" functions)
	// entry points; by default SYCL_EXTERNAL functions are entry points too.
	KernelsOnly bool
	// Origin names the input file a function came from; it is the
	// per-source key when neither sycl-module-id nor module-id is present.
	Origin func(name string) string
	// Closure options used for feature detection and emission.
	Closure ClosureOptions
}

// Part is one output module: its entry points in module order and the
// grouping key (printable; missing attributes are written as "-", values
// are quoted, so a missing attribute never equals any value).
type Part struct {
	Key     string
	Entries []int32
	// ID numbers the top-level split the part comes from: Split gives
	// part i the ID i, and the ESIMD and SYCL halves SplitESIMD makes of
	// one part share its ID (spec §2.10: <stem>[_esimd]_<ID>).
	ID int
	// ESIMD marks a part whose entry points are all ESIMD functions (spec
	// §2.8); its outputs take the "_esimd" suffix.
	ESIMD bool
}

var builtinPrefix = regexp.MustCompile(`^_Z[0-9]+`)

// IsEntryPoint reports whether g is an entry point (spec §2.1): a kernel
// definition, or a SYCL_EXTERNAL function (one with "sycl-module-id",
// other than __spirv_/__sycl_/__esimd_/__builtin_ builtins) unless
// kernelsOnly, in which case "indirectly-callable" functions count.
func (m *Module) IsEntryPoint(g *Global, kernelsOnly bool) bool {
	if g.Kind != Function || g.Decl {
		return false
	}
	if g.IsKernel() {
		return true
	}
	if kernelsOnly {
		_, ok := m.Attr(g, "indirectly-callable")
		return ok
	}
	if _, ok := m.Attr(g, "sycl-module-id"); !ok {
		return false
	}
	n := g.Name()
	if strings.HasPrefix(n, "__builtin_") {
		return false
	}
	n = builtinPrefix.ReplaceAllString(n, "")
	return !strings.HasPrefix(n, "__spirv_") && !strings.HasPrefix(n, "__sycl_") && !strings.HasPrefix(n, "__esimd_")
}

// EntryPoints lists the entry points in module order.
func (m *Module) EntryPoints(kernelsOnly bool) []int32 {
	var out []int32
	for i := range m.Globals {
		if m.IsEntryPoint(&m.Globals[i], kernelsOnly) {
			out = append(out, int32(i))
		}
	}
	return out
}

// Split partitions the entry points. Parts come in descending key order
// (intel's order: output _0 has the largest key); within a part entry
// points keep module order. A module without entry points yields one
// part without entries. The result is deterministic.
func (m *Module) Split(opts Options) []Part {
	entries := m.EntryPoints(opts.KernelsOnly)
	if len(entries) == 0 {
		return []Part{{Key: "<GLOBAL>"}}
	}
	groups := map[string][]int32{}
	switch opts.Mode {
	case ModeNone:
		return []Part{{Key: "<GLOBAL>", Entries: entries, ESIMD: m.allESIMD(entries)}}
	case ModeKernel:
		for _, e := range entries {
			k := strconv.Quote(m.Globals[e].Name())
			groups[k] = append(groups[k], e)
		}
	default:
		x := m.NewExtractor(opts.Closure)
		for _, e := range entries {
			k := m.sourceKey(e, x.Closure([]int32{e}), opts.Origin)
			groups[k] = append(groups[k], e)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	parts := make([]Part, len(keys))
	for i, k := range keys {
		parts[i] = Part{Key: k, Entries: groups[k], ID: i, ESIMD: m.allESIMD(groups[k])}
	}
	return parts
}

func keyAttr(b *strings.Builder, name, v string, ok bool) {
	b.WriteString(name)
	b.WriteByte('=')
	if ok {
		b.WriteString(strconv.Quote(v))
	} else {
		b.WriteByte('-')
	}
	b.WriteByte(' ')
}

func keyInts[T int | int64](b *strings.Builder, name string, v []T) {
	b.WriteString(name)
	b.WriteByte('=')
	if v == nil {
		b.WriteByte('-')
	}
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(x), 10))
	}
	b.WriteByte(' ')
}

// sourceKey builds the per-source category (spec §2.3) with fp64 detected
// from the IR, and with a missing attribute distinct from every value.
func (m *Module) sourceKey(e int32, cl *Closure, origin func(string) string) string {
	g := &m.Globals[e]
	var b strings.Builder
	id, ok := m.Attr(g, "sycl-module-id")
	if !ok {
		id, ok = m.Attr(g, "module-id")
	}
	if !ok && origin != nil {
		if o := origin(g.Name()); o != "" {
			id, ok = "file:"+o, true
		}
	}
	keyAttr(&b, "module", id, ok)
	for _, a := range []string{"indirectly-callable", "sycl-register-alloc-mode", "sycl-grf-size", "sycl-optlevel"} {
		v, ok := m.Attr(g, a)
		keyAttr(&b, a, v, ok)
	}
	f := m.entryFeatures(e, cl)
	keyInts(&b, "aspects", f.Aspects)
	keyInts(&b, "reqd_work_group_size", f.ReqdWorkGroup)
	keyInts(&b, "work_group_num_dim", f.WorkGroupNumDim)
	keyInts(&b, "reqd_sub_group_size", f.ReqdSubGroupSize)
	b.WriteString("joint_matrix=" + strconv.Quote(strings.Join(f.JointMatrix, ",")) + " ")
	b.WriteString("joint_matrix_mad=" + strconv.Quote(strings.Join(f.JointMatrixMad, ",")))
	return b.String()
}

// PartFeatures computes the features of a part from its closure: aspects,
// fp64 and assert use over every function kept; sizes from its entry
// points (the first reqd_work_group_size found; dropped if entries
// disagree).
func (m *Module) PartFeatures(p *Part, cl *Closure) Features {
	var f Features
	if len(p.Entries) == 0 {
		return f
	}
	f = m.entryFeatures(p.Entries[0], cl)
	for _, e := range p.Entries[1:] {
		o := m.entryFeatures(e, &Closure{})
		if !equalInts(o.ReqdWorkGroup, f.ReqdWorkGroup) {
			if f.ReqdWorkGroup == nil {
				f.ReqdWorkGroup = o.ReqdWorkGroup
			} else if o.ReqdWorkGroup != nil {
				f.ReqdWorkGroup = nil
			}
		}
		if f.ReqdSubGroupSize == nil {
			f.ReqdSubGroupSize = o.ReqdSubGroupSize
		}
		if f.WorkGroupNumDim == nil {
			f.WorkGroupNumDim = o.WorkGroupNumDim
		}
	}
	return f
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// internalPred reports whether function gi loses its linkage (becomes internal) in a part whose
// entry points are entries (spec §2.6): entry points, and functions with
// "indirectly-callable" or "referenced-indirectly".
func (m *Module) internalPred(isEntry func(int32) bool) func(int32) bool {
	return func(gi int32) bool {
		if isEntry(gi) {
			return false
		}
		g := &m.Globals[gi]
		if _, ok := m.Attr(g, "referenced-indirectly"); ok {
			return false
		}
		if _, ok := m.Attr(g, "indirectly-callable"); ok {
			return false
		}
		return true
	}
}

// Emit writes part p: its closure, with every kept function definition
// other than the part's entry points and indirectly referenced functions
// internalised, virtual functions declared or exported as the closure
// says, and !sycl_registered_kernels pruned to the part's kernels (spec
// §2.6). It returns the text and the closure (for properties).
func (x *Extractor) Emit(dst []byte, p *Part) ([]byte, *Closure) {
	cl := x.Closure(p.Entries)
	set := make(map[int32]bool, len(p.Entries))
	for _, e := range p.Entries {
		set[e] = true
	}
	x.m.pruneRegisteredKernels(cl)
	internal := x.m.internalPred(func(i int32) bool { return set[i] })
	return x.m.appendPart(dst, cl, internal), cl
}

// appendPart is AppendIR plus the rewrites of the per-part cleanup: the
// functions in c.Decls are written as declarations, those in c.Exported
// with external linkage, and the nodes in c.MDText with their new text.
// Those entities go after the rest (top-level order does not matter).
func (m *Module) appendPart(dst []byte, c *Closure, internal func(int32) bool) []byte {
	if len(c.Decls) == 0 && len(c.Exported) == 0 && len(c.MDText) == 0 {
		return m.AppendIR(dst, c, internal)
	}
	moved := make(map[int32]bool, len(c.Decls)+len(c.Exported))
	for _, i := range c.Decls {
		moved[i] = true
	}
	for _, i := range c.Exported {
		moved[i] = true
	}
	rest := *c
	rest.Globals = make([]int32, 0, len(c.Globals))
	for _, i := range c.Globals {
		if !moved[i] {
			rest.Globals = append(rest.Globals, i)
		}
	}
	rest.MD = make([]int32, 0, len(c.MD))
	for _, i := range c.MD {
		if _, ok := c.MDText[i]; !ok {
			rest.MD = append(rest.MD, i)
		}
	}
	dst = m.AppendIR(dst, &rest, internal)
	for _, i := range c.Globals {
		g := &m.Globals[i]
		switch {
		case !moved[i]:
		case c.DropsBody(i):
			dst = append(dst, '\n')
			dst = appendDecl(dst, g, string(m.Src[g.Header.Start:g.Header.End]))
		default:
			dst = append(dst, '\n')
			dst = appendExternal(dst, g, string(m.Src[g.Header.Start:g.Header.End]))
			dst = append(dst, m.Src[g.Header.End:g.Span.End]...)
			dst = fixEOL(dst, m.Src[g.Span.Start:g.Span.End])
		}
	}
	if len(c.MDText) > 0 {
		dst = append(dst, '\n')
		for _, i := range c.MD {
			if t, ok := c.MDText[i]; ok {
				dst = append(dst, t...)
			}
		}
	}
	return dst
}

// appendDecl writes function g, whose header is h, as a declaration: the
// linkage goes (a declaration is external), and so do the comdat, section,
// partition, personality, prefix and prologue data and the metadata
// attachments (a definition's !dbg would make an invalid declaration).
// Parameter names may stay: the IR parser accepts them on declarations.
func appendDecl(dst []byte, g *Global, h string) []byte {
	s := strings.TrimPrefix(h, "define ")
	if w, rest, ok := strings.Cut(s, " "); ok && linkages[w] {
		s = rest
	}
	dst = append(dst, "declare "...)
	at := strings.Index(s, "@"+g.Tok+"(")
	if at < 0 {
		return append(append(dst, strings.TrimSuffix(strings.TrimRight(s, " \r"), "{")...), '\n')
	}
	e := matchClose(s, at+1+len(g.Tok))
	if e < 0 {
		return append(append(dst, strings.TrimSuffix(strings.TrimRight(s, " \r"), "{")...), '\n')
	}
	dst = append(dst, s[:e]...)
	tail := strings.TrimSuffix(strings.TrimRight(s[e:], " \r"), "{")
	for i := 0; i < len(tail); {
		i = skipSpace(tail, i)
		if i >= len(tail) {
			break
		}
		j := tokenEnd(tail, i)
		w := tail[i:j]
		switch {
		case w == "comdat" || strings.HasPrefix(w, "comdat("):
		case w == "section" || w == "partition":
			j = tokenEnd(tail, skipSpace(tail, j))
		case w == "prefix" || w == "prologue" || w == "personality":
			k := skipSpace(tail, j)
			if _, te, ok := parseType(tail, k); ok {
				j = tokenEnd(tail, skipSpace(tail, te))
			}
		case w[0] == '!':
			j = tokenEnd(tail, skipSpace(tail, j))
		default:
			dst = append(dst, ' ')
			dst = append(dst, w...)
		}
		i = j
	}
	return append(dst, '\n')
}

// tokenEnd returns the end of the header token at s[i]: a quoted string
// (with a ="value" part), a bracketed group, or a word with an attached
// bracketed group (addrspace(1), comdat($c)).
func tokenEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		_, _, n, ok := readStringAttr(s, i)
		if !ok {
			return len(s)
		}
		return n
	case '(', '[', '{', '<':
		if e := matchClose(s, i); e > 0 {
			return e
		}
		return len(s)
	}
	j := i
	for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '(' {
		j++
	}
	if j < len(s) && s[j] == '(' {
		if e := matchClose(s, j); e > 0 {
			return e
		}
		return len(s)
	}
	return j
}

// appendExternal writes the "define" header h of g with external linkage:
// the linkage word goes, and so does the comdat (the comdat entity is not
// written for a function that leaves the regular order).
func appendExternal(dst []byte, g *Global, h string) []byte {
	s := strings.TrimPrefix(h, "define ")
	if w, rest, ok := strings.Cut(s, " "); ok && linkages[w] {
		s = rest
	}
	if at := strings.Index(s, "@"+g.Tok+"("); at >= 0 {
		if e := matchClose(s, at+1+len(g.Tok)); e > 0 {
			s = s[:e] + stripComdat(s[e:])
		}
	}
	dst = append(dst, "define "...)
	return append(dst, s...)
}

// KeepReachable is the "keep only what kernels reach" operation (for HIP
// stdpar and similar): it appends a module holding the closure of the
// global values for which root returns true (every kernel definition when
// root is nil), dropping everything else. Linkage is left unchanged.
func (m *Module) KeepReachable(dst []byte, root func(*Global) bool, opts ClosureOptions) []byte {
	if root == nil {
		root = func(g *Global) bool { return g.IsKernel() && !g.Decl }
	}
	var roots []int32
	for i := range m.Globals {
		if root(&m.Globals[i]) {
			roots = append(roots, int32(i))
		}
	}
	cl := m.NewExtractor(opts).Closure(roots)
	return m.AppendIR(dst, cl, nil)
}

// SymbolTable is the .sym text of a part: each entry point's name and a
// newline, in entry-point order (spec §8.2).
func (m *Module) SymbolTable(p *Part) string {
	var b strings.Builder
	for _, e := range p.Entries {
		b.WriteString(m.Globals[e].Name())
		b.WriteByte('\n')
	}
	return b.String()
}

// Undefined lists the functions a closure declares but nobody defines,
// leaving out intrinsics and builtins (names that, after a leading
// _Z<digits>, start with "__"), as intel's checkForCallsToUndefinedFunctions
// does. They are unresolved device symbols: the image fails at run time.
func (m *Module) Undefined(cl *Closure) []string {
	var out []string
	for _, gi := range cl.Globals {
		g := &m.Globals[gi]
		if g.Kind != Function || !g.Decl {
			continue
		}
		n := g.Name()
		if strings.HasPrefix(n, "llvm.") {
			continue
		}
		if strings.HasPrefix(builtinPrefix.ReplaceAllString(n, ""), "__") {
			continue
		}
		out = append(out, n)
	}
	return out
}
