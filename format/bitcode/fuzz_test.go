package bitcode

import (
	"errors"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

func FuzzEmbeddedObjects(f *testing.F) {
	addBitcodeSeeds(f, "testdata/*.bc")
	f.Fuzz(func(t *testing.T, in []byte) {
		objs, err := EmbeddedObjects(in)
		if err != nil {
			if objs != nil {
				t.Fatalf("error %v with non-nil result", err)
			}
			var fe *format.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *format.FormatError: %v", err, err)
			}
			return
		}
		var total int
		for _, o := range objs {
			total += len(o.Data)
		}
		if total > maxOutputFactor*len(in)+minOutputBudget {
			t.Fatalf("%d bytes of output from %d bytes of input", total, len(in))
		}
	})
}

// addBitcodeSeeds seeds a target with every module matching patterns
// (each must match one at least), raw and in a bitcode wrapper, and a bare
// magic.
func addBitcodeSeeds(f *testing.F, patterns ...string) {
	f.Helper()
	for _, b := range testfiles.Read(f, patterns...) {
		f.Add(b)
		f.Add(wrap(b, 4))
	}
	f.Add([]byte("BC\xC0\xDE"))
}

func FuzzSymbols(f *testing.F) {
	addBitcodeSeeds(f, "testdata/*.bc", "testdata/symtab/*.bc")
	f.Fuzz(func(t *testing.T, in []byte) {
		check := func(what string, n int, isNil bool, err error) {
			if err != nil {
				if !isNil {
					t.Fatalf("%s: error %v with non-nil result", what, err)
				}
				var fe *format.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("%s: error %T is not a *format.FormatError: %v", what, err, err)
				}
				return
			}
			if n > len(in) {
				t.Fatalf("%s: %d symbols from %d bytes", what, n, len(in))
			}
		}
		syms, err := Symbols(in)
		check("Symbols", len(syms), syms == nil, err)
		names, err := ArchiveSymbols(in)
		check("ArchiveSymbols", len(names), names == nil, err)
		if err == nil && names == nil {
			t.Fatal("ArchiveSymbols: nil list without an error")
		}
	})
}

func FuzzModuleTriple(f *testing.F) {
	addBitcodeSeeds(f, "testdata/*.bc", "testdata/symtab/*.bc")
	f.Fuzz(func(t *testing.T, in []byte) {
		triple, err := ModuleTriple(in)
		if err != nil {
			if triple != "" {
				t.Fatalf("error %v with triple %q", err, triple)
			}
			var fe *format.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *format.FormatError: %v", err, err)
			}
			return
		}
		if len(triple) > len(in) {
			t.Fatalf("%d-byte triple from %d bytes", len(triple), len(in))
		}
	})
}
