package split

import (
	"bytes"
	"slices"
	"sort"
	"sync"
)

// graph holds the module-wide data the closure needs, built once.
type graph struct {
	cands   map[string][]int32 // indirect-call candidates by signature
	all     map[string][]int32 // every non-kernel function definition by signature
	seeds   []int32            // non-discardable global variables
	never   []bool             // globals never copied (llvm.used & co.)
	opBase  []int32            // named metadata i's operands are flat ids opBase[i]…
	opGlobs [][]int32          // flat operand id → globals reached through metadata
	opsOf   map[int32][]int32  // global → flat operand ids that reach it
	nOps    int
	freeOps []int32 // operands that reach no global: always kept

	// virtual functions (spec §2.6): definitions with "indirectly-callable",
	// and the references of their headers alone (types, attribute groups),
	// which is all a declaration of one needs
	vf    []bool
	vfHdr map[int32]Refs
	// esimd marks ESIMD functions (spec §2.8): !sycl_explicit_simd, copied
	// up to every direct caller; anyESIMD is set when one exists
	esimd    []bool
	anyESIMD bool
	// reg is !sycl_registered_kernels, parsed
	reg *registered
}

type modCache struct {
	once sync.Once
	g    *graph
}

var discardable = map[string]bool{
	"internal": true, "private": true, "linkonce": true, "linkonce_odr": true,
	"available_externally": true,
}

// droppedGlobals are never copied into a part: they list uses, not code.
var droppedGlobals = map[string]bool{
	"llvm.used": true, "llvm.compiler.used": true, "llvm.global.annotations": true,
}

func (m *Module) graph() *graph {
	m.cache.once.Do(func() { m.cache.g = m.buildGraph() })
	return m.cache.g
}

func (m *Module) buildGraph() *graph {
	g := &graph{cands: map[string][]int32{}, all: map[string][]int32{}, never: make([]bool, len(m.Globals)), opsOf: map[int32][]int32{},
		vf: make([]bool, len(m.Globals)), vfHdr: map[int32]Refs{}}
	g.esimd, g.anyESIMD = m.markESIMD()
	g.reg = m.parseRegistered()
	for i := range m.Globals {
		h := &m.Globals[i]
		if droppedGlobals[h.Name()] {
			g.never[i] = true
			continue
		}
		switch h.Kind {
		case Function:
			if h.Decl || h.IsKernel() {
				continue
			}
			g.all[h.Sig] = append(g.all[h.Sig], int32(i))
			if _, ok := m.Attr(h, "indirectly-callable"); ok {
				g.vf[i] = true
				g.vfHdr[int32(i)] = m.headerRefs(h)
			}
			if _, ok := m.Attr(h, "referenced-indirectly"); ok {
				g.cands[h.Sig] = append(g.cands[h.Sig], int32(i))
			}
		case Variable:
			if !h.Decl && !discardable[h.Linkage] {
				g.seeds = append(g.seeds, int32(i))
			}
		}
	}
	// Globals reached from each named metadata operand through metadata.
	stamp := make([]int32, len(m.MD))
	var stack []int32
	id := int32(0)
	for i := range m.Named {
		g.opBase = append(g.opBase, int32(g.nOps))
		for _, op := range m.Named[i].Ops {
			id++
			var globs []int32
			stack = append(stack[:0], op)
			stamp[op] = id
			for len(stack) > 0 {
				n := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				globs = append(globs, m.MD[n].Refs.Globals...)
				for _, c := range m.MD[n].Refs.MD {
					if stamp[c] != id {
						stamp[c] = id
						stack = append(stack, c)
					}
				}
			}
			globs = uniq(globs)
			flat := int32(g.nOps)
			g.opGlobs = append(g.opGlobs, globs)
			for _, gl := range globs {
				g.opsOf[gl] = append(g.opsOf[gl], flat)
			}
			if len(globs) == 0 {
				g.freeOps = append(g.freeOps, flat)
			}
			g.nOps++
		}
	}
	return g
}

// Closure is the set of entities one part keeps, each list sorted in
// module order. NamedOps holds, per named metadata, the kept operands.
//
// The per-part cleanup of virtual functions (spec §2.6, step 1) is part of
// the closure: when none of the entry points carries "indirectly-callable",
// every such function reached is kept as a declaration only (Decls: its
// body, and what only the body refers to, are left out; the image that
// defines the set provides it at run time). Otherwise the kept ones get
// external linkage (Exported lists those whose linkage changes).
type Closure struct {
	Globals  []int32
	MD       []int32
	Types    []int32
	Comdats  []int32
	Attrs    []int32
	NamedOps [][]int32
	Decls    []int32 // function definitions written as declarations
	Exported []int32 // function definitions whose linkage becomes external
	// MDText replaces the text of numbered metadata nodes (index → the
	// whole "!N = …" line), e.g. a pruned !sycl_registered_kernels list.
	MDText map[int32]string
}

// DropsBody reports whether the part writes global i, a function
// definition, as a declaration (i is in Decls, which is sorted).
func (c *Closure) DropsBody(i int32) bool {
	_, ok := slices.BinarySearch(c.Decls, i)
	return ok
}

// ClosureOptions select how the dependency closure is taken.
type ClosureOptions struct {
	// IndirectAll makes an indirect call reach every non-kernel function
	// of the same type, as upstream does; by default only functions with
	// the "referenced-indirectly" attribute count, as intel does.
	IndirectAll bool
	// NoSeeds leaves out the non-discardable global variables that are
	// otherwise copied into every part.
	NoSeeds bool
	// Stop, when set, names the globals a part declares rather than
	// defines: the walk takes only what their declaration needs (the
	// types, and a function's header), not their bodies or initializers.
	Stop func(int32) bool
}

// Extractor computes closures. It reuses its work arrays (a visited stamp
// per entity kind), so one closure costs time proportional to its size.
// An Extractor is not safe for concurrent use; make one per goroutine.
type Extractor struct {
	m               *Module
	g               *graph
	opts            ClosureOptions
	stamp           uint32
	gs, ms, ts, cs  []uint32
	as              []uint32
	opCount         []int32
	opStamp         []uint32
	gstack, mdstack []int32
}

// NewExtractor returns an Extractor for m.
func (m *Module) NewExtractor(opts ClosureOptions) *Extractor {
	g := m.graph()
	return &Extractor{
		m: m, g: g, opts: opts,
		gs: make([]uint32, len(m.Globals)), ms: make([]uint32, len(m.MD)),
		ts: make([]uint32, len(m.Types)), cs: make([]uint32, len(m.Comdats)),
		as:      make([]uint32, len(m.AttrGroups)),
		opCount: make([]int32, g.nOps), opStamp: make([]uint32, g.nOps),
	}
}

func (x *Extractor) visitG(i int32, c *Closure) {
	if x.gs[i] == x.stamp || x.g.never[i] {
		return
	}
	x.gs[i] = x.stamp
	c.Globals = append(c.Globals, i)
	x.gstack = append(x.gstack, i)
}

func (x *Extractor) visitMD(i int32, c *Closure) {
	if x.ms[i] == x.stamp {
		return
	}
	x.ms[i] = x.stamp
	c.MD = append(c.MD, i)
	x.mdstack = append(x.mdstack, i)
}

func (x *Extractor) visitRefs(r *Refs, c *Closure) {
	for _, t := range r.Globals {
		x.visitG(t, c)
	}
	for _, t := range r.MD {
		x.visitMD(t, c)
	}
	for _, t := range r.Types {
		if x.ts[t] != x.stamp {
			x.ts[t] = x.stamp
			c.Types = append(c.Types, t)
			x.visitRefs(&x.m.Types[t].Refs, c)
		}
	}
	for _, t := range r.Comdats {
		if x.cs[t] != x.stamp {
			x.cs[t] = x.stamp
			c.Comdats = append(c.Comdats, t)
		}
	}
	for _, t := range r.Attrs {
		if x.as[t] != x.stamp {
			x.as[t] = x.stamp
			c.Attrs = append(c.Attrs, t)
		}
	}
}

// Closure returns everything the given entry points need: the transitive
// references through calls, address uses, initializers, aliases, operand
// bundles and metadata, indirect-call candidates, and (unless NoSeeds) the
// non-discardable global variables. Named metadata operands are kept when
// every global they reach is kept.
func (x *Extractor) Closure(entries []int32) *Closure {
	m := x.m
	x.stamp++
	c := &Closure{}
	declVF := true // no entry point defines a virtual-function set
	for _, e := range entries {
		x.visitG(e, c)
		if x.g.vf[e] {
			declVF = false
		}
	}
	if !x.opts.NoSeeds {
		for _, s := range x.g.seeds {
			x.visitG(s, c)
		}
	}
	cands := x.g.cands
	if x.opts.IndirectAll {
		cands = x.g.all
	}
	for len(x.gstack) > 0 || len(x.mdstack) > 0 {
		for len(x.gstack) > 0 {
			i := x.gstack[len(x.gstack)-1]
			x.gstack = x.gstack[:len(x.gstack)-1]
			h := &m.Globals[i]
			if x.opts.Stop != nil && !h.Decl && x.opts.Stop(i) {
				r := Refs{Types: h.Refs.Types}
				if h.Kind == Function {
					r = m.headerRefs(h)
				}
				x.visitRefs(&r, c)
				continue
			}
			if x.g.vf[i] {
				if declVF {
					c.Decls = append(c.Decls, i)
					r := x.g.vfHdr[i]
					x.visitRefs(&r, c)
					continue
				}
				if discardable[h.Linkage] || h.Linkage == "weak" || h.Linkage == "weak_odr" {
					c.Exported = append(c.Exported, i)
				}
			}
			x.visitRefs(&h.Refs, c)
			for _, sig := range h.indirect {
				for _, t := range cands[sig] {
					x.visitG(t, c)
				}
			}
		}
		for len(x.mdstack) > 0 {
			i := x.mdstack[len(x.mdstack)-1]
			x.mdstack = x.mdstack[:len(x.mdstack)-1]
			x.visitRefs(&m.MD[i].Refs, c)
		}
	}
	// Named metadata: operands whose globals are all kept.
	var kept []int32
	for _, gi := range c.Globals {
		for _, op := range x.g.opsOf[gi] {
			if x.opStamp[op] != x.stamp {
				x.opStamp[op] = x.stamp
				x.opCount[op] = 0
			}
			x.opCount[op]++
			if int(x.opCount[op]) == len(x.g.opGlobs[op]) {
				kept = append(kept, op)
			}
		}
	}
	kept = append(kept, x.g.freeOps...)
	sortI32(kept)
	c.NamedOps = make([][]int32, len(m.Named))
	ni := 0
	for _, op := range kept {
		for ni+1 < len(x.g.opBase) && x.g.opBase[ni+1] <= op {
			ni++
		}
		md := m.Named[ni].Ops[op-x.g.opBase[ni]]
		c.NamedOps[ni] = append(c.NamedOps[ni], md)
		x.visitMD(md, c)
	}
	for len(x.mdstack) > 0 {
		i := x.mdstack[len(x.mdstack)-1]
		x.mdstack = x.mdstack[:len(x.mdstack)-1]
		x.visitRefs(&m.MD[i].Refs, c)
	}
	sortI32(c.Globals)
	sortI32(c.Decls)
	sortI32(c.Exported)
	sortI32(c.MD)
	sortI32(c.Types)
	sortI32(c.Comdats)
	sortI32(c.Attrs)
	return c
}

func sortI32(s []int32) { sort.Slice(s, func(i, j int) bool { return s[i] < s[j] }) }

// headerRefs returns the types and attribute groups named by the header of
// function g (its signature, parameter attributes, attribute groups): all
// a declaration of it needs.
func (m *Module) headerRefs(g *Global) Refs {
	sc := &scanner{m: m}
	h := m.Src[g.Header.Start:g.Header.End]
	at := bytes.Index(h, []byte("@"+g.Tok))
	if at < 0 {
		return Refs{}
	}
	sc.scan(h[:at], "")
	sc.scan(h[at+1+len(g.Tok):], "")
	r := sc.take()
	return Refs{Types: r.Types, Attrs: r.Attrs}
}
