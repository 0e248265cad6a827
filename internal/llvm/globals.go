package llvm

import "unsafe"

// Linkage is LLVMLinkage (the values this package uses).
type Linkage int32

const (
	ExternalLinkage  Linkage = 0
	AppendingLinkage Linkage = 7
	InternalLinkage  Linkage = 8
	PrivateLinkage   Linkage = 9
)

// Visibility is LLVMVisibility.
type Visibility int32

const (
	DefaultVisibility Visibility = iota
	HiddenVisibility
	ProtectedVisibility
)

// Global is a function or global variable of a module.
type Global struct {
	m   *Module
	ref uintptr
}

// Globals returns the module's functions, then its global variables, in
// module order.
func (m *Module) Globals() []Global {
	l := m.ctx.lib
	var out []Global
	for f := l.getFirstFunction(m.ref); f != 0; f = l.getNextFunction(f) {
		out = append(out, Global{m, f})
	}
	for g := l.getFirstGlobal(m.ref); g != 0; g = l.getNextGlobal(g) {
		out = append(out, Global{m, g})
	}
	return out
}

// Name is the symbol name.
func (g Global) Name() string {
	var n uintptr
	p := g.m.ctx.lib.getValueName2(g.ref, &n)
	if p == nil || n == 0 {
		return ""
	}
	return string(unsafe.Slice(p, n))
}

// IsDeclaration reports a function without a body or a variable without
// an initializer.
func (g Global) IsDeclaration() bool { return g.m.ctx.lib.isDeclaration(g.ref) != 0 }

// Linkage is the symbol's linkage.
func (g Global) Linkage() Linkage { return Linkage(g.m.ctx.lib.getLinkage(g.ref)) }

// SetLinkage changes the symbol's linkage.
func (g Global) SetLinkage(l Linkage) { g.m.ctx.lib.setLinkage(g.ref, int32(l)) }

// Visibility is the symbol's visibility.
func (g Global) Visibility() Visibility { return Visibility(g.m.ctx.lib.getVisibility(g.ref)) }

// SetVisibility changes the symbol's visibility.
func (g Global) SetVisibility(v Visibility) { g.m.ctx.lib.setVisibility(g.ref, int32(v)) }
