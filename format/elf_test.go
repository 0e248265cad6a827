package format_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

// elfFixtures are ELF objects of both classes and byte orders (i386, mips
// and powerpc64 big-endian, riscv64, x86_64, aarch64 relocatable objects,
// a CUDA cubin) and a dynamically linked LLVM tool (for .dynsym).
var elfFixtures = []string{"../elfembed/testdata/*-linux-gnu.o", "codeobj/testdata/host-x86_64-clang22.o",
	"codeobj/testdata/cuda13/*.cubin"}

// TestELFLikeDebugELF: on well-formed files ParseELF reads the sections
// and Symbols/DynamicSymbols the symbols that debug/elf reads (which the
// linker-wrapper and the describer used before), field for field.
func TestELFLikeDebugELF(t *testing.T) {
	files := testfiles.Read(t, elfFixtures...)
	exe, err := os.ReadFile(llvmtools.Tool(t, "clang-offload-bundler"))
	require.NoError(t, err)
	files = append(files, exe)
	for n, data := range files {
		ref, err := elf.NewFile(bytes.NewReader(data))
		require.NoError(t, err, n)
		f, err := format.ParseELF(data)
		require.NoError(t, err, n)
		assert.Equal(t, int(ref.Class)*32, f.Class, n)
		assert.Equal(t, ref.ByteOrder, f.ByteOrder, n)
		assert.Equal(t, uint16(ref.Type), f.Type, n)
		assert.Equal(t, uint16(ref.Machine), f.Machine, n)
		assert.Equal(t, ref.ABIVersion, f.ABIVersion, n)
		require.Len(t, f.Sections, len(ref.Sections), n)
		for i, rs := range ref.Sections {
			s := f.Sections[i]
			assert.Equal(t, rs.Name, s.Name, "%d: section %d", n, i)
			assert.Equal(t, uint32(rs.Type), uint32(s.Type), "%d: %s", n, s.Name)
			assert.Equal(t, uint64(rs.Flags), uint64(s.Flags), "%d: %s", n, s.Name)
			assert.Equal(t, [6]uint64{rs.Addr, rs.Offset, rs.Size, uint64(rs.Link), uint64(rs.Info), rs.Addralign},
				[6]uint64{s.Addr, s.Offset, s.Size, uint64(s.Link), uint64(s.Info), s.Addralign}, "%d: %s", n, s.Name)
			if i > 0 && rs.Type != elf.SHT_NOBITS && rs.Type != elf.SHT_NULL && rs.Flags&elf.SHF_COMPRESSED == 0 {
				want, err := rs.Data()
				require.NoError(t, err)
				assert.Equal(t, want, s.Data, "%d: %s", n, s.Name)
			}
		}
		for _, tc := range []struct {
			ours func() ([]format.ELFSymbol, error)
			ref  func() ([]elf.Symbol, error)
		}{{f.Symbols, ref.Symbols}, {f.DynamicSymbols, ref.DynamicSymbols}} {
			want, rerr := tc.ref()
			got, err := tc.ours()
			require.NoError(t, err, n)
			if errors.Is(rerr, elf.ErrNoSymbols) {
				assert.Empty(t, got, n)
				continue
			}
			require.NoError(t, rerr, n)
			require.Len(t, got, len(want)+1, n) // debug/elf drops the null symbol
			assert.Equal(t, format.ELFSymbol{}, got[0], n)
			for k, rs := range want {
				s := got[k+1]
				assert.Equal(t, format.ELFSymbol{Name: rs.Name, Value: rs.Value, Size: rs.Size, Info: rs.Info, Other: rs.Other,
					Section: uint32(rs.Section)}, s, "%d: symbol %d", n, k+1)
			}
		}
	}
}

// TestELFErrors: damaged headers give one *FormatError naming the field.
func TestELFErrors(t *testing.T) {
	good := testfiles.Read(t, "../elfembed/testdata/hello-x86_64-linux-gnu.o")[0]
	patch := func(off int, b ...byte) []byte {
		d := append([]byte(nil), good...)
		copy(d[off:], b)
		return d
	}
	for name, tc := range map[string]struct {
		data []byte
		want error
	}{
		"empty":        {nil, format.ErrMagic},
		"class":        {patch(4, 3), format.ErrCorrupt},
		"encoding":     {patch(5, 0), format.ErrCorrupt},
		"short header": {good[:40], format.ErrTruncated},
		"shentsize":    {patch(58, 63), format.ErrCorrupt},
		"shoff":        {patch(40, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0), format.ErrTruncated},
		"shnum":        {patch(60, 0xff, 0x7f), format.ErrTruncated},
		"shstrndx":     {patch(62, 0xf0, 0x7f), format.ErrCorrupt},
	} {
		_, err := format.ParseELF(tc.data)
		var fe *format.FormatError
		assert.True(t, errors.As(err, &fe), "%s: %v", name, err)
		assert.ErrorIs(t, err, tc.want, name)
	}
}

// FuzzParseELF: any bytes parse or fail with a *FormatError, never panic;
// a parsed file's section contents lie inside the input, and its symbol
// tables read whole or fail with a *FormatError.
func FuzzParseELF(f *testing.F) {
	testfiles.Seed(f, elfFixtures...)
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := format.ParseELF(data)
		if err != nil {
			var fe *format.FormatError
			if ef != nil || !errors.As(err, &fe) {
				t.Fatalf("%v (%T) with %v", err, err, ef)
			}
			return
		}
		for i, s := range ef.Sections {
			if s.Data != nil && (uint64(len(s.Data)) != s.Size || s.Offset+s.Size > uint64(len(data))) {
				t.Fatalf("section %d: %d bytes of %d at 0x%x", i, len(s.Data), s.Size, s.Offset)
			}
		}
		for i := range ef.Sections {
			if ef.Sections[i].Type != format.SHT_SYMTAB && ef.Sections[i].Type != format.SHT_DYNSYM {
				continue
			}
			syms, err := ef.SymbolTable(i)
			var fe *format.FormatError
			if err != nil && (syms != nil || !errors.As(err, &fe)) {
				t.Fatalf("symbol table %d: %v (%T)", i, err, err)
			}
		}
	})
}

// TestELFStricterSide pins the cases where elfembed's own section-header
// reader (now built on ParseELF) and ParseELF differed, each decided as
// LLVM decides it (format/elf.go, ParseELF).
func TestELFStricterSide(t *testing.T) {
	good := testfiles.Read(t, "../elfembed/testdata/hello-x86_64-linux-gnu.o")[0]
	f, err := format.ParseELF(good)
	require.NoError(t, err)
	le := binary.LittleEndian
	shoff := int(f.ShOff)
	patch := func(off int, put func([]byte)) []byte {
		d := append([]byte(nil), good...)
		put(d[off:])
		return d
	}
	empty, strtab := -1, f.ShStrNdx
	for i, s := range f.Sections {
		if i > 0 && s.Size == 0 && s.Type != format.SHT_NOBITS && s.Type != format.SHT_NULL && empty < 0 {
			empty = i
		}
	}
	require.Positive(t, empty, "the fixture has an empty section")
	for name, tc := range map[string]struct {
		data []byte
		want error
		off  int64
	}{
		"ident only":               {good[:6], format.ErrTruncated, 0},
		"e_shnum without table":    {patch(40, func(b []byte) { le.PutUint64(b, 0) }), format.ErrCorrupt, 40},
		"names without name table": {patch(62, func(b []byte) { le.PutUint16(b, 0) }), format.ErrCorrupt, int64(shoff + 64)},
		"empty section past end":   {patch(shoff+64*empty+24, func(b []byte) { le.PutUint64(b, uint64(len(good))+1) }), format.ErrTruncated, int64(shoff + 64*empty)},
		"SHT_NULL name table":      {patch(shoff+64*strtab+4, func(b []byte) { le.PutUint32(b, 0) }), format.ErrCorrupt, int64(shoff + 64)},
	} {
		_, err := format.ParseELF(tc.data)
		var fe *format.FormatError
		require.True(t, errors.As(err, &fe), "%s: %v", name, err)
		assert.ErrorIs(t, err, tc.want, name)
		assert.Equal(t, tc.off, fe.Off, "%s: %v", name, err)
	}
}
