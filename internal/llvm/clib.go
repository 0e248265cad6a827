package llvm

import (
	"fmt"

	"github.com/ebitengine/purego"
)

// CLib is a C library opened by name, for the few C functions besides
// libLLVM's that a helper calls (glibc's, for the SPIR-V workaround in
// internal/llvmpool). This package is the one importer of purego
// (internal/depcheck).
type CLib struct {
	name string
	h    uintptr
}

// OpenC opens the C library name (e.g. "libc.so.6") with RTLD_NOW.
func OpenC(name string) (*CLib, error) {
	h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("no %s: %v", name, err)
	}
	return &CLib{name: name, h: h}, nil
}

// Has reports whether the library defines symbol.
func (l *CLib) Has(symbol string) bool {
	p, err := purego.Dlsym(l.h, symbol)
	return err == nil && p != 0
}

// Bind makes *fptr, a pointer to a func variable, call the C function
// symbol.
func (l *CLib) Bind(fptr any, symbol string) error {
	p, err := purego.Dlsym(l.h, symbol)
	if err != nil || p == 0 {
		return fmt.Errorf("%s: no %s", l.name, symbol)
	}
	purego.RegisterFunc(fptr, p)
	return nil
}
