package split

import (
	"fmt"
	"slices"
)

// ESIMD split (spec §2.8). ESIMD code is marked with the function metadata
// !sycl_explicit_simd; before splitting, intel copies the marker up to the
// wrapper functions that call a marked function (spec §2.1), which
// markESIMD does over direct calls. Each part of the normal split is then
// divided into an ESIMD and a SYCL part, so no image mixes the two.

// markESIMD returns, per global, whether it is an ESIMD function: it
// carries !sycl_explicit_simd, or it calls such a function directly or
// through a chain of direct calls. found is false (and the slice nil)
// when the module has no marked function.
func (m *Module) markESIMD() (esimd []bool, found bool) {
	var stack []int32
	for i := range m.Globals {
		g := &m.Globals[i]
		if g.Kind != Function {
			continue
		}
		if _, ok := g.Attach["sycl_explicit_simd"]; ok {
			stack = append(stack, int32(i))
		}
	}
	if len(stack) == 0 {
		return nil, false
	}
	esimd = make([]bool, len(m.Globals))
	callers := make([][]int32, len(m.Globals))
	for i := range m.Globals {
		for _, c := range m.Globals[i].calls {
			callers[c] = append(callers[c], int32(i))
		}
	}
	for _, i := range stack {
		esimd[i] = true
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range callers[i] {
			if !esimd[c] {
				esimd[c] = true
				stack = append(stack, c)
			}
		}
	}
	return esimd, true
}

// IsESIMD reports whether global i is an ESIMD function: marked with
// !sycl_explicit_simd, or a (transitive) direct caller of one.
func (m *Module) IsESIMD(i int32) bool {
	g := m.graph()
	return g.anyESIMD && g.esimd[i]
}

// HasESIMD reports whether the module holds any ESIMD function.
func (m *Module) HasESIMD() bool { return m.graph().anyESIMD }

func (m *Module) allESIMD(entries []int32) bool {
	g := m.graph()
	if !g.anyESIMD || len(entries) == 0 {
		return false
	}
	for _, e := range entries {
		if !g.esimd[e] {
			return false
		}
	}
	return true
}

// ESIMDError reports SYCL code that uses an ESIMD function other than by
// calling it (invoke_simd passes it by address): the two cannot be put in
// separate images. intel rejects invoke_simd with -split-esimd too (spec
// §2.7).
type ESIMDError struct {
	Entry, Func string
}

func (e *ESIMDError) Error() string {
	return fmt.Sprintf("SYCL entry point %s uses ESIMD function %s other than by a direct call (invoke_simd?): "+
		"ESIMD and SYCL code cannot be split into separate images", e.Entry, e.Func)
}

// SplitESIMD divides every part that holds both ESIMD and SYCL entry
// points into an ESIMD part (marked ESIMD) followed by a SYCL part; both
// keep the part's ID, entry points keep module order, and a part of one
// kind only is kept as it is (spec §2.8). The ESIMD part takes the ESIMD
// entry points and their whole closure; the SYCL part's closure must reach
// no ESIMD function, otherwise the error is an *ESIMDError. Keys get the
// suffix " <ESIMD>" or " <SYCL>".
func (m *Module) SplitESIMD(parts []Part, opts ClosureOptions) ([]Part, error) {
	g := m.graph()
	if !g.anyESIMD {
		return parts, nil
	}
	x := m.NewExtractor(opts)
	out := make([]Part, 0, len(parts)+1)
	for _, p := range parts {
		var es, sy []int32
		for _, e := range p.Entries {
			if g.esimd[e] {
				es = append(es, e)
			} else {
				sy = append(sy, e)
			}
		}
		if len(sy) > 0 {
			if err := m.checkNoESIMD(x, sy); err != nil {
				return nil, err
			}
		}
		if len(es) == 0 || len(sy) == 0 {
			p.ESIMD = len(sy) == 0 && len(es) > 0
			out = append(out, p)
			continue
		}
		out = append(out,
			Part{Key: p.Key + " <ESIMD>", Entries: es, ID: p.ID, ESIMD: true},
			Part{Key: p.Key + " <SYCL>", Entries: sy, ID: p.ID})
	}
	return out, nil
}

// checkNoESIMD fails when the closure of the SYCL entry points sy reaches
// an ESIMD function definition; it names the first such entry point.
func (m *Module) checkNoESIMD(x *Extractor, sy []int32) error {
	g := m.graph()
	cl := x.Closure(sy)
	for _, i := range cl.Globals {
		if !g.esimd[i] || m.Globals[i].Decl {
			continue
		}
		for _, e := range sy {
			if x.Closure([]int32{e}).has(i) {
				return &ESIMDError{Entry: m.Globals[e].Name(), Func: m.Globals[i].Name()}
			}
		}
		return &ESIMDError{Entry: m.Globals[sy[0]].Name(), Func: m.Globals[i].Name()}
	}
	return nil
}

// has reports whether global i is in the closure (Globals is sorted).
func (c *Closure) has(i int32) bool {
	_, ok := slices.BinarySearch(c.Globals, i)
	return ok
}
