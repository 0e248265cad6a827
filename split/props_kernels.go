package split

import (
	"slices"
	"sort"
	"strings"

	"github.com/offload-kit/offload-kit/format/syclprop"
)

// Per-kernel property sets (spec §7.6): SYCL/virtual functions, SYCL/implicit
// local arg and SYCL/registered kernels, and the pruning of
// !sycl_registered_kernels (spec §2.6, step 6).

// registeredEntry is one !{!"registered name", !"kernel name"} pair of
// !sycl_registered_kernels.
type registeredEntry struct {
	name, kernel string
}

// registeredList is one operand of !sycl_registered_kernels: a node that
// lists pairs. Operands that are not well-formed pairs have ok false.
type registeredList struct {
	node  int32
	ops   []string // operand tokens as written ("!5")
	pairs []registeredEntry
	ok    []bool // per operand: a well-formed pair
}

// registered is !sycl_registered_kernels, parsed once per module (in the
// graph), with an index from kernel names to the pairs that name them.
type registered struct {
	lists    []registeredList
	byKernel map[string][][2]int // kernel → {list, operand} positions
}

// parseRegistered parses !sycl_registered_kernels = !{!L, …}, where each
// !L = !{!P, …} and each !P = !{!"registered name", !"kernel"}. Operands of
// another shape are kept apart (ok false) and name no kernel.
func (m *Module) parseRegistered() *registered {
	r := &registered{byKernel: map[string][][2]int{}}
	for ni := range m.Named {
		if m.Named[ni].Name != "sycl_registered_kernels" {
			continue
		}
		for _, l := range m.Named[ni].Ops {
			rl := registeredList{node: l}
			for _, op := range m.mdOperands(l) {
				var e registeredEntry
				ok := false
				if len(op) > 1 && op[0] == '!' && isDigit(op[1]) {
					if k, found := m.mdIDs[op[1:]]; found {
						if s := m.mdOperands(k); len(s) == 2 && isMDString(s[0]) && isMDString(s[1]) {
							e = registeredEntry{name: unquote(s[0][1:]), kernel: unquote(s[1][1:])}
							ok = true
						}
					}
				}
				if ok {
					r.byKernel[e.kernel] = append(r.byKernel[e.kernel], [2]int{len(r.lists), len(rl.ops)})
				}
				rl.ops = append(rl.ops, op)
				rl.pairs = append(rl.pairs, e)
				rl.ok = append(rl.ok, ok)
			}
			r.lists = append(r.lists, rl)
		}
	}
	return r
}

// kept returns the {list, operand} positions of the pairs that name one of
// kernels, in list and operand order.
func (r *registered) kept(kernels []string) [][2]int {
	var out [][2]int
	for _, k := range kernels {
		out = append(out, r.byKernel[k]...)
	}
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return slices.Compact(out)
}

func isMDString(op string) bool {
	return len(op) >= 3 && op[0] == '!' && op[1] == '"' && op[len(op)-1] == '"'
}

// mdOperands returns the operand tokens of numbered metadata node i
// ("!{a, b}"), blanks trimmed; nil when the node is not a plain tuple.
func (m *Module) mdOperands(i int32) []string {
	e := &m.MD[i]
	txt := string(m.Src[e.Span.Start:e.Span.End])
	body := strings.TrimSpace(txt[strings.IndexByte(txt, '=')+1:])
	body = strings.TrimPrefix(body, "distinct ")
	if !strings.HasPrefix(body, "!{") {
		return nil
	}
	c := matchClose(body, 1)
	if c < 0 {
		return nil
	}
	var out []string
	for _, op := range splitTop(body[2 : c-1]) {
		out = append(out, strings.TrimSpace(op))
	}
	return out
}

// partKernels returns the names of the kernels the closure defines, in
// module order.
func (m *Module) partKernels(cl *Closure) []string {
	var out []string
	for _, i := range cl.Globals {
		g := &m.Globals[i]
		if g.IsKernel() && !g.Decl && !cl.DropsBody(i) {
			out = append(out, g.Name())
		}
	}
	return out
}

// pruneRegisteredKernels keeps in each !sycl_registered_kernels list only
// the pairs that name a kernel the closure defines, through cl.MDText.
func (m *Module) pruneRegisteredKernels(cl *Closure) {
	r := m.graph().reg
	if len(r.lists) == 0 {
		return
	}
	keep := make([][]string, len(r.lists))
	for _, pos := range r.kept(m.partKernels(cl)) {
		keep[pos[0]] = append(keep[pos[0]], r.lists[pos[0]].ops[pos[1]])
	}
	for li, l := range r.lists {
		if len(keep[li]) == len(l.ops) {
			continue
		}
		if cl.MDText == nil {
			cl.MDText = map[int32]string{}
		}
		cl.MDText[l.node] = "!" + m.MD[l.node].Tok + " = !{" + strings.Join(keep[li], ", ") + "}\n"
	}
}

// addRegisteredKernels adds SYCL/registered kernels: registered name →
// byte array of the kernel name, for the pairs whose kernel the part
// defines, in list order; a repeated registered name keeps its first
// kernel; malformed pairs are ignored. The set is left out when empty.
func (m *Module) addRegisteredKernels(ps *syclprop.Sets, cl *Closure) {
	r := m.graph().reg
	if len(r.lists) == 0 {
		return
	}
	var props []syclprop.Prop
	seen := map[string]bool{}
	for _, pos := range r.kept(m.partKernels(cl)) {
		e := r.lists[pos[0]].pairs[pos[1]]
		if seen[e.name] {
			continue
		}
		seen[e.name] = true
		props = append(props, byteProp(e.name, []byte(e.kernel)))
	}
	if len(props) > 0 {
		ps.Set("SYCL/registered kernels").Props = props
	}
}

// byteProp is a byte-array property holding data (all bits significant).
func byteProp(name string, data []byte) syclprop.Prop {
	var s syclprop.Set
	s.AddBytes(name, data, uint64(len(data))*8)
	return s.Props[0]
}

// addImplicitLocalArgs adds SYCL/implicit local arg for SPIR and SPIR-V
// modules: for each kernel entry point with the "sycl-work-group-static"
// attribute, the index of its parameter carrying "sycl-implicit-local-arg".
// A kernel without such a parameter gets no entry.
func (m *Module) addImplicitLocalArgs(ps *syclprop.Sets, p *Part) {
	if !strings.HasPrefix(m.Triple, "spir") {
		return
	}
	var props []syclprop.Prop
	for _, e := range p.Entries {
		g := &m.Globals[e]
		if g.CC != "spir_kernel" {
			continue
		}
		if _, ok := m.Attr(g, "sycl-work-group-static"); !ok {
			continue
		}
		if k := m.paramWithAttr(g, "sycl-implicit-local-arg"); k >= 0 {
			props = append(props, syclprop.Prop{Name: g.Name(), Type: syclprop.Uint32, U32: uint32(k)})
		}
	}
	if len(props) > 0 {
		ps.Set("SYCL/implicit local arg").Props = props
	}
}

// paramWithAttr returns the index of the first parameter of function g
// that carries the string attribute attr, or -1.
func (m *Module) paramWithAttr(g *Global, attr string) int {
	h := string(m.Src[g.Header.Start:g.Header.End])
	at := strings.Index(h, "@"+g.Tok+"(")
	if at < 0 {
		return -1
	}
	open := at + 1 + len(g.Tok)
	e := matchClose(h, open)
	if e < 0 {
		return -1
	}
	for k, p := range splitTop(h[open+1 : e-1]) {
		for i := 0; i < len(p); i++ {
			if p[i] != '"' {
				continue
			}
			key, _, n, ok := readStringAttr(p, i)
			if !ok {
				break
			}
			if key == attr {
				return k
			}
			i = n - 1
		}
	}
	return -1
}

// addVirtualFunctions adds SYCL/virtual functions. A part that defines a
// function with "indirectly-callable" gets "virtual-functions-set" = the
// value of the first one (in module order; splitting keeps sets apart);
// otherwise the sets named by the "calls-indirectly" attributes (comma
// separated) of the functions it defines give "uses-virtual-functions-set"
// = the set names, without repeats, sorted and joined by ",". Both values
// are byte arrays of the string.
func (m *Module) addVirtualFunctions(ps *syclprop.Sets, cl *Closure) {
	used := map[string]bool{}
	for _, i := range cl.Globals {
		g := &m.Globals[i]
		if g.Kind != Function || g.Decl || cl.DropsBody(i) {
			continue
		}
		if v, ok := m.Attr(g, "indirectly-callable"); ok {
			ps.Set("SYCL/virtual functions").Props = []syclprop.Prop{byteProp("virtual-functions-set", []byte(v))}
			return
		}
		if v, ok := m.Attr(g, "calls-indirectly"); ok {
			for _, s := range strings.Split(v, ",") {
				if s != "" {
					used[s] = true
				}
			}
		}
	}
	if len(used) == 0 {
		return
	}
	sets := make([]string, 0, len(used))
	for s := range used {
		sets = append(sets, s)
	}
	sort.Strings(sets)
	ps.Set("SYCL/virtual functions").Props = []syclprop.Prop{byteProp("uses-virtual-functions-set", []byte(strings.Join(sets, ",")))}
}
