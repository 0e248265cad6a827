package bitcode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kindsArchive is what llvm-ar 22 indexes for testdata/symtab/kinds.bc.
var kindsArchive = []string{"fn", "wfn", "lofn", "wofn", "gvar", "cvar", "wvar", "lovar", "hvar", "pvar",
	"tlsvar", "tlshid", "sect", "constv", "alias", "falias", "halias", "ifn", "wifn", "asm_global", "asm_weak"}

func TestSymbolsKinds(t *testing.T) {
	b := readTestdata(t, "symtab/kinds.bc")
	tab, err := ReadSymbolTable(b)
	require.NoError(t, err)
	assert.Equal(t, "22.1.8", tab.Producer)
	assert.True(t, tab.Current())
	assert.Equal(t, uint32(3), tab.Version)
	assert.Equal(t, 1, tab.Modules)
	assert.Equal(t, "x86_64-unknown-linux-gnu", tab.TargetTriple)
	assert.Equal(t, "symtab/kinds.ll", tab.SourceFileName)
	assert.Equal(t, []Comdat{{Name: "cd", SelectionKind: 0}}, tab.Comdats)
	require.Len(t, tab.Symbols, 38)

	byName := map[string]Symbol{}
	for _, s := range tab.Symbols {
		byName[s.Name] = s
	}
	type want struct {
		flags SymbolFlags
		vis   Visibility
	}
	for name, w := range map[string]want{
		"fn":         {FlagGlobal | FlagExecutable, VisibilityDefault},
		"wofn":       {FlagWeak | FlagGlobal | FlagExecutable | SymbolFlags(VisibilityHidden), VisibilityHidden},
		".Lprivfn":   {FlagFormatSpecific | FlagExecutable, VisibilityDefault},
		"ewdecl":     {FlagUndefined | FlagWeak | FlagGlobal | FlagExecutable, VisibilityDefault},
		"availfn":    {FlagUndefined | FlagGlobal | FlagExecutable, VisibilityDefault},
		"usedfn":     {FlagUsed | FlagExecutable, VisibilityDefault},
		"pvar":       {FlagGlobal | SymbolFlags(VisibilityProtected), VisibilityProtected},
		"tlshid":     {FlagTLS | FlagGlobal | SymbolFlags(VisibilityHidden), VisibilityHidden},
		"constv":     {FlagGlobal | FlagUnnamedAddr, VisibilityDefault},
		"llvm.used":  {FlagHasUncommon | FlagGlobal | FlagFormatSpecific, VisibilityDefault},
		"falias":     {FlagWeak | FlagIndirect | FlagGlobal | FlagExecutable, VisibilityDefault},
		"asm_undef":  {FlagUndefined | FlagUsed | FlagGlobal | FlagExecutable, VisibilityDefault},
		"asm_global": {FlagGlobal | FlagExecutable, VisibilityDefault},
	} {
		s, ok := byName[name]
		if !assert.True(t, ok, "symbol %s missing", name) {
			continue
		}
		assert.Equal(t, w.flags, s.Flags, name)
		assert.Equal(t, w.vis, s.Visibility(), name)
	}
	cvar := byName["cvar"]
	assert.True(t, cvar.IsCommon() && cvar.CommonSize == 4 && cvar.CommonAlign == 8, "cvar: %+v", cvar)
	assert.Equal(t, 0, byName["lovar"].ComdatIndex)
	assert.Equal(t, -1, byName["gvar"].ComdatIndex)
	assert.Equal(t, ".mysect", byName["sect"].SectionName)
	assert.Equal(t, "", byName["asm_global"].IRName)
	assert.Equal(t, "privfn", byName[".Lprivfn"].IRName)
	assert.Equal(t, "tls|global|hidden", byName["tlshid"].Flags.String())

	names, err := ArchiveSymbols(b)
	require.NoError(t, err)
	assert.Equal(t, kindsArchive, names)
}

// symtabAt returns the offset of the irsymtab blob in b.
func symtabAt(t *testing.T, b []byte) int {
	t.Helper()
	data, base, err := unwrap(b)
	require.NoError(t, err)
	s := &stream{data: data, base: base}
	sym, off, _, _, _, err := s.scanSymtab()
	require.NoError(t, err)
	require.True(t, sym != nil, "no irsymtab")
	return int(off)
}

func TestArchiveSymbolsFixtures(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
		tab  bool // has an irsymtab
	}{
		{"host-one-flto.bc", []string{"main"}, true},
		{"host-one-darwin.bc", []string{"_main"}, true}, // wrapper header, Mach-O mangling
		{"lib-two-flto.bc", []string{"helper"}, true},
		{"linked.bc", []string{"main", "helper"}, true},
		{"omp-x86_64.bc", []string{"main", ".__omp_offloading_fe00_510177_main_l3.region_id", ".offloading.entry.__omp_offloading_fe00_510177_main_l3"}, true},
		// No irsymtab (llvm-as without a data layout; llvm-cat -b): IR fallback.
		{"none.bc", []string{}, false},
		{"nometa.bc", []string{}, false},
		{"several.bc", []string{}, false},
		{"two-modules.bc", []string{"main", "helper"}, false},
	} {
		t.Run(c.file, func(t *testing.T) {
			b := readTestdata(t, c.file)
			_, err := Symbols(b)
			if c.tab {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, format.ErrUnsupported)
			}
			got, err := ArchiveSymbols(b)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
			if c.tab {
				got, err = irArchiveSymbols(b)
				require.NoError(t, err)
				assert.Equal(t, c.want, got, "IR fallback")
			}
		})
	}
}

// TestStaleSymtab: a table from another producer or version is what LLVM
// rebuilds from the IR.
func TestStaleSymtab(t *testing.T) {
	for _, file := range []string{"host-one-flto.bc", "symtab/kinds.bc"} {
		orig := readTestdata(t, file)
		want, err := ArchiveSymbols(orig)
		require.NoError(t, err)

		// Another producer: still readable, not Current; ArchiveSymbols
		// uses the IR, or the stored table where the IR has module asm.
		b := bytes.ReplaceAll(orig, []byte("22.1.8"), []byte("21.1.0"))
		tab, err := ReadSymbolTable(b)
		require.NoError(t, err, file)
		assert.Equal(t, "21.1.0", tab.Producer)
		assert.True(t, !tab.Current(), file)
		got, err := ArchiveSymbols(b)
		require.NoError(t, err, file)
		assert.Equal(t, want, got, file)

		// Another version: an error wrapping ErrVersion.
		b = bytes.Clone(orig)
		binary.LittleEndian.PutUint32(b[symtabAt(t, b):], 2)
		_, err = Symbols(b)
		require.ErrorIs(t, err, format.ErrVersion)
		got, err = ArchiveSymbols(b)
		if file == "symtab/kinds.bc" {
			require.ErrorIs(t, err, format.ErrUnsupported) // module asm needs LLVM
		} else {
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
	}
}

func TestSymtabCorrupt(t *testing.T) {
	orig := readTestdata(t, "symtab/kinds.bc")
	at := symtabAt(t, orig)
	for _, c := range []struct {
		field int // byte offset in the header or the first symbol
		val   uint32
		err   error
	}{
		{4, 0xFFFFFFF0, format.ErrCorrupt},           // producer offset
		{8, 0xFFFFFFFF, format.ErrCorrupt},           // producer size
		{12, 0xFFFFFFFF, format.ErrCorrupt},          // modules offset
		{16, 2, format.ErrUnsupported},               // 2 modules in a 1-module file
		{16, 0x40000000, format.ErrCorrupt},          // modules count
		{24, 100, format.ErrCorrupt},                 // comdat count
		{32, 0x10000000, format.ErrCorrupt},          // symbol count
		{40, 0x10000000, format.ErrCorrupt},          // uncommon count
		{40, 0, format.ErrCorrupt},                   // no uncommons for uncommon symbols
		{48, 0xFFFF, format.ErrCorrupt},              // triple size
		{72, 0x10000000, format.ErrCorrupt},          // dependent libraries
		{hdrSize, 0x7FFFFFFF, format.ErrCorrupt},     // module 0 Begin
		{hdrSize + 4, 0x7FFFFFFF, format.ErrCorrupt}, // module 0 End
	} {
		b := bytes.Clone(orig)
		binary.LittleEndian.PutUint32(b[at+c.field:], c.val)
		syms, err := Symbols(b)
		if err == nil || syms != nil {
			t.Errorf("field %d = %#x: no error", c.field, c.val)
			continue
		}
		if !errors.Is(err, c.err) {
			t.Errorf("field %d = %#x: %v, want %v", c.field, c.val, err, c.err)
		}
		var fe *format.FormatError
		require.ErrorAs(t, err, &fe)
		assert.True(t, fe.Off >= int64(at) && fe.Off < int64(len(b)), "offset %#x outside the table: %v", fe.Off, err)
	}
	// A bad symbol name and comdat index.
	tab, err := ReadSymbolTable(orig)
	require.NoError(t, err)
	symOff := at + int(binary.LittleEndian.Uint32(orig[at+28:]))
	for _, field := range []int{0, 8, 16} {
		b := bytes.Clone(orig)
		binary.LittleEndian.PutUint32(b[symOff+field:], 0x7FFFFFF0)
		_, err := Symbols(b)
		require.ErrorIs(t, err, format.ErrCorrupt)
	}
	assert.True(t, len(tab.Symbols) > 0)
}

// TestSymtabMutations: random damage to the table never panics, and
// errors are FormatErrors with a nil result.
func TestSymtabMutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, file := range []string{"symtab/kinds.bc", "host-one-flto.bc", "linked.bc"} {
		orig := readTestdata(t, file)
		at := symtabAt(t, orig)
		for range 300 {
			b := bytes.Clone(orig)
			for range 1 + rng.IntN(4) {
				i := at + rng.IntN(len(b)-at)
				b[i] = byte(rng.Uint32())
			}
			syms, err := Symbols(b)
			if err != nil {
				assert.True(t, syms == nil, "error with a result")
				var fe *format.FormatError
				require.ErrorAs(t, err, &fe)
			}
			names, err := ArchiveSymbols(b)
			if err != nil {
				assert.True(t, names == nil, "error with a result")
				var fe *format.FormatError
				require.ErrorAs(t, err, &fe)
			}
		}
	}
}

func TestSymbolFlagsString(t *testing.T) {
	assert.Equal(t, "0", SymbolFlags(0).String())
	assert.Equal(t, "undefined|weak|protected", (FlagUndefined | FlagWeak | 2).String())
	assert.Equal(t, "global|0x4000", (FlagGlobal | 1<<14).String())
	assert.Equal(t, "Visibility(3)", Visibility(3).String())
	s := Symbol{Flags: FlagGlobal | FlagCommon}
	assert.True(t, s.IsArchiveSymbol() && s.IsCommon() && s.IsGlobal() && !s.IsWeak())
	s.Flags |= FlagFormatSpecific
	assert.True(t, !s.IsArchiveSymbol())
}
