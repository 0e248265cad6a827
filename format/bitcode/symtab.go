package bitcode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/enumname"
)

// Top-level block IDs and record codes of the irsymtab (LLVMBitCodes.h).
const (
	symtabID   = 25 // SYMTAB_BLOCK_ID
	symtabBlob = 1  // SYMTAB_BLOB
	strtabBlob = 1  // STRTAB_BLOB
)

// SymtabVersion is the irsymtab format version this package reads
// (storage::Header::kCurrentVersion in LLVM 22).
const SymtabVersion = 3

// LLVMProducer is the irsymtab producer string of the LLVM release this
// package is verified against. LLVM rebuilds the symbol table from the IR
// when a file's producer differs from its own; see SymbolTable.Current.
const LLVMProducer = "22.1.8"

// SymbolFlags holds a symbol's flag word exactly as irsymtab stores it
// (storage::Symbol::Flags): the visibility in bits 0-1, then one bit per
// Flag* constant.
type SymbolFlags uint32

// Flag bits of SymbolFlags (storage::Symbol::FlagBits).
const (
	FlagHasUncommon    SymbolFlags = 1 << 2  // FB_has_uncommon: an Uncommon entry follows
	FlagUndefined      SymbolFlags = 1 << 3  // FB_undefined
	FlagWeak           SymbolFlags = 1 << 4  // FB_weak
	FlagCommon         SymbolFlags = 1 << 5  // FB_common
	FlagIndirect       SymbolFlags = 1 << 6  // FB_indirect
	FlagUsed           SymbolFlags = 1 << 7  // FB_used
	FlagTLS            SymbolFlags = 1 << 8  // FB_tls
	FlagMayOmit        SymbolFlags = 1 << 9  // FB_may_omit
	FlagGlobal         SymbolFlags = 1 << 10 // FB_global
	FlagFormatSpecific SymbolFlags = 1 << 11 // FB_format_specific
	FlagUnnamedAddr    SymbolFlags = 1 << 12 // FB_unnamed_addr
	FlagExecutable     SymbolFlags = 1 << 13 // FB_executable
)

var flagNames = []struct {
	f    SymbolFlags
	name string
}{
	{FlagHasUncommon, "uncommon"}, {FlagUndefined, "undefined"}, {FlagWeak, "weak"},
	{FlagCommon, "common"}, {FlagIndirect, "indirect"}, {FlagUsed, "used"}, {FlagTLS, "tls"},
	{FlagMayOmit, "may_omit"}, {FlagGlobal, "global"}, {FlagFormatSpecific, "format_specific"},
	{FlagUnnamedAddr, "unnamed_addr"}, {FlagExecutable, "executable"},
}

// Visibility is a symbol's visibility (GlobalValue::VisibilityTypes).
type Visibility uint8

const (
	VisibilityDefault   Visibility = 0
	VisibilityHidden    Visibility = 1
	VisibilityProtected Visibility = 2
)

var visibilityNames = []string{VisibilityDefault: "default", VisibilityHidden: "hidden", VisibilityProtected: "protected"}

func (v Visibility) String() string { return enumname.Name(visibilityNames, v, "Visibility") }

// Visibility returns the visibility bits.
func (f SymbolFlags) Visibility() Visibility { return Visibility(f & 3) }

// Has reports whether all bits of g are set.
func (f SymbolFlags) Has(g SymbolFlags) bool { return f&g == g }

// String lists the set flags, e.g. "global|executable|hidden".
func (f SymbolFlags) String() string {
	var parts []string
	for _, n := range flagNames {
		if f&n.f != 0 {
			parts = append(parts, n.name)
		}
	}
	if v := f.Visibility(); v != VisibilityDefault {
		parts = append(parts, v.String())
	}
	if rest := f &^ (1<<14 - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint32(rest)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// Symbol is one irsymtab symbol (irsymtab::Symbol).
type Symbol struct {
	Name        string // mangled name, as linkers and archive indexes see it
	IRName      string // IR name; empty for symbols of module-level asm
	ComdatIndex int    // index into SymbolTable.Comdats, or -1
	Flags       SymbolFlags

	// From the symbol's Uncommon entry (zero unless FlagHasUncommon).
	CommonSize, CommonAlign uint32
	COFFWeakExternFallback  string
	SectionName             string
}

func (s *Symbol) Visibility() Visibility { return s.Flags.Visibility() }
func (s *Symbol) IsUndefined() bool      { return s.Flags&FlagUndefined != 0 }
func (s *Symbol) IsWeak() bool           { return s.Flags&FlagWeak != 0 }
func (s *Symbol) IsCommon() bool         { return s.Flags&FlagCommon != 0 }
func (s *Symbol) IsIndirect() bool       { return s.Flags&FlagIndirect != 0 }
func (s *Symbol) IsUsed() bool           { return s.Flags&FlagUsed != 0 }
func (s *Symbol) IsTLS() bool            { return s.Flags&FlagTLS != 0 }
func (s *Symbol) IsGlobal() bool         { return s.Flags&FlagGlobal != 0 }
func (s *Symbol) IsFormatSpecific() bool { return s.Flags&FlagFormatSpecific != 0 }
func (s *Symbol) IsExecutable() bool     { return s.Flags&FlagExecutable != 0 }

// IsArchiveSymbol reports whether LLVM's archive writer indexes the symbol
// (isArchiveSymbol: global, defined, not format-specific). Common symbols
// count as defined.
func (s *Symbol) IsArchiveSymbol() bool {
	return s.Flags&(FlagGlobal|FlagUndefined|FlagFormatSpecific) == FlagGlobal
}

// Comdat is one entry of the irsymtab comdat table.
type Comdat struct {
	Name          string
	SelectionKind uint32 // llvm::Comdat::SelectionKind
}

// SymbolTable is the decoded irsymtab of a bitcode file.
type SymbolTable struct {
	Version            uint32 // always SymtabVersion
	Producer           string // e.g. "22.1.8"
	Modules            int    // number of modules the table covers
	TargetTriple       string
	SourceFileName     string
	COFFLinkerOpts     string
	DependentLibraries []string
	Comdats            []Comdat
	Symbols            []Symbol // in irsymtab order, all modules

	modEnds []int // end index in Symbols of each module's symbols
}

// Current reports whether LLVM 22 (LLVMProducer) would use this table as
// is. For another producer LLVM's irsymtab::readBitcode rebuilds the table
// from the IR; the rebuilt table normally has the same symbols, but this
// package cannot rebuild it, so callers wanting LLVM's exact behaviour for
// foreign producers should check this.
func (t *SymbolTable) Current() bool { return t.Producer == LLVMProducer }

// Sizes of the storage structs (IRSymtab.h), all made of 32-bit words.
const (
	hdrSize      = 76
	strSize      = 8
	moduleSize   = 12
	comdatSize   = 12
	symbolSize   = 24
	uncommonSize = 24
)

// ReadSymbolTable decodes the irsymtab that LLVM (since 5.0) writes into
// bitcode files: the blob of the top-level SYMTAB_BLOCK, whose strings live
// in the STRTAB_BLOCK that follows it. The input may be raw bitcode or
// behind the wrapper header; MODULE blocks are skipped, not decoded.
//
// LLVM's irsymtab::readBitcode builds a fresh table from the IR instead of
// reading the stored one when the file has no SYMTAB or STRTAB block, when
// the table's version is not 3, or when its module count differs from the
// file's (e.g. after "llvm-cat -b"). This package cannot do that: in those
// cases it returns an error wrapping format.ErrUnsupported (a stored table
// of another version: format.ErrVersion, which also means "LLVM would
// rebuild"). A table from another producer is returned as stored;
// SymbolTable.Current says whether LLVM 22 would use it as is.
//
// Unlike LLVM, every range and string is bounds-checked: errors are
// *format.FormatError with offsets into buf. Memory use is bounded by the
// input (strings share one copy of the string table).
func ReadSymbolTable(buf []byte) (*SymbolTable, error) {
	data, base, err := unwrap(buf)
	if err != nil {
		return nil, err
	}
	s := &stream{data: data, base: base}
	symtab, symtabOff, strtab, strtabOff, nmods, err := s.scanSymtab()
	if err != nil {
		return nil, err
	}
	if nmods == 0 {
		return nil, s.errAt(0, format.ErrCorrupt, "bitcode: no module block")
	}
	if symtab == nil {
		return nil, s.errAt(0, format.ErrUnsupported, "bitcode: no irsymtab (SYMTAB_BLOCK); LLVM would build one from the IR")
	}
	if strtab == nil {
		return nil, format.Errorf(symtabOff, format.ErrUnsupported, "bitcode: irsymtab without a following STRTAB_BLOCK")
	}
	d := &symDecoder{sym: symtab, symOff: symtabOff, str: string(strtab), strOff: strtabOff}
	return d.decode(nmods)
}

// Symbols returns the symbols of a bitcode file's irsymtab, in irsymtab
// order (for each module: its global values in the order functions,
// variables, aliases, ifuncs, then the symbols of module-level asm). See
// ReadSymbolTable for when it fails; a file without a usable irsymtab
// gives an error wrapping format.ErrUnsupported or format.ErrVersion.
func Symbols(buf []byte) ([]Symbol, error) {
	t, err := ReadSymbolTable(buf)
	if err != nil {
		return nil, err
	}
	return t.Symbols, nil
}

// ArchiveSymbols returns the names LLVM's archive writer puts in an
// archive's symbol table for this bitcode member: the symbols that are
// global, defined (common included) and not format-specific, in the order
// LLVM writes them (ModuleSymbolTable order: functions, variables,
// aliases, ifuncs, then module-asm symbols, module by module).
//
// LLVM computes them from the IR (IRObjectFile), whose ModuleSymbolTable
// is also what the irsymtab is built from, so they are read from the
// irsymtab when it is one LLVM 22 would use as is. Otherwise (no irsymtab,
// e.g. llvm-as output; another version or producer; concatenated modules)
// they are computed from the module records the way LLVM does: linkage,
// declaration, "llvm." names, the "llvm.metadata" section, and the data
// layout's name mangling ('' escapes, the '_' prefix of Mach-O and x86
// COFF, "__unnamed_N"). That fallback returns an error wrapping
// format.ErrUnsupported for module-level asm, Microsoft x86 calling
// convention decoration, GOFF/XCOFF mangling and pre-2017 bitcode; for a
// stored table of another producer the stored table is used instead. A
// corrupt irsymtab is an error (format.ErrCorrupt), not a fallback.
//
// The result is never nil on success (an empty list still makes the
// member an object for the archive writer).
func ArchiveSymbols(buf []byte) ([]string, error) {
	t, err := ReadSymbolTable(buf)
	if err != nil && !errors.Is(err, format.ErrUnsupported) && !errors.Is(err, format.ErrVersion) {
		return nil, err
	}
	if err != nil || !t.Current() {
		names, ferr := irArchiveSymbols(buf)
		switch {
		case ferr == nil:
			return names, nil
		case err != nil:
			return nil, ferr
		}
		// A table from another producer that the fallback cannot
		// reproduce: use it as stored.
	}
	return t.archiveSymbols(), nil
}

// archiveSymbols filters the table with isArchiveSymbol. Unnamed globals
// are renamed: the irsymtab numbers them "__unnamed_N" over all of a
// module's symbols, while the archive writer's single Mangler numbers only
// the ones it prints, across modules.
func (t *SymbolTable) archiveSymbols() []string {
	names := []string{}
	anon, begin := 0, 0
	for _, end := range t.modEnds {
		k := 0
		for i := begin; i < end; i++ {
			sym := &t.Symbols[i]
			cut := -1
			if sym.IRName == "" {
				// An unnamed global, unless it is a module-asm symbol
				// that happens to be called "__unnamed_<next>".
				want := "__unnamed_" + strconv.Itoa(k+1)
				if strings.HasSuffix(sym.Name, want) && len(sym.Name)-len(want) <= 3 {
					cut = len(sym.Name) - len(want)
					k++
				}
			}
			if !sym.IsArchiveSymbol() {
				continue
			}
			if cut < 0 {
				names = append(names, sym.Name)
				continue
			}
			anon++
			names = append(names, sym.Name[:cut]+"__unnamed_"+strconv.Itoa(anon))
		}
		begin = end
	}
	return names
}

// scanSymtab walks the top-level blocks like LLVM's getBitcodeFileContents:
// it counts MODULE blocks, keeps the first SYMTAB blob and the first STRTAB
// blob that follows it, and skips everything else by its length.
func (s *stream) scanSymtab() (symtab []byte, symtabOff int64, strtab []byte, strtabOff int64, nmods int, err error) {
	top := &block{id: topLevelID, width: 2, end: uint64(len(s.data)) * 8}
	s.pos = 32
	var ops []uint64
	for {
		if uint64(len(s.data))-s.pos/8 <= 8 {
			break
		}
		kind, id, err := s.next(top, nil)
		if err != nil {
			return nil, 0, nil, 0, 0, err
		}
		switch kind {
		case entryRecord:
			if _, ops, _, err = s.record(top, id, ops, false); err != nil {
				return nil, 0, nil, 0, 0, err
			}
		case entrySub:
			switch {
			case id == moduleID:
				nmods++
				err = s.skip(top, id)
			case id == symtabID && symtab == nil:
				symtab, symtabOff, err = s.readBlob(top, id, symtabBlob)
				if err == nil && symtab == nil {
					symtab = []byte{} // present but without a blob: unusable
				}
			case id == strtabID && symtab != nil && strtab == nil:
				strtab, strtabOff, err = s.readBlob(top, id, strtabBlob)
			default:
				err = s.skip(top, id)
			}
			if err != nil {
				return nil, 0, nil, 0, 0, err
			}
		}
	}
	return symtab, symtabOff, strtab, strtabOff, nmods, nil
}

// readBlob returns the blob of the first record with the given code in
// sub-block id (LLVM's readBlobInRecord), and its offset in the input.
func (s *stream) readBlob(parent *block, id, code uint64) ([]byte, int64, error) {
	var blob []byte
	var off int64
	err := s.walk(parent, id, func(c uint64, _ []uint64, b []byte, _ uint64) error {
		if c == code && blob == nil && b != nil {
			blob, off = b, s.base+int64(s.blobAt/8)
		}
		return nil
	}, true)
	return blob, off, err
}

// symDecoder reads the storage structs of one irsymtab blob.
type symDecoder struct {
	sym    []byte
	symOff int64
	str    string
	strOff int64
}

func (d *symDecoder) word(off uint64) uint32 {
	return binary.LittleEndian.Uint32(d.sym[off:])
}

// rng checks a Range<T> at header offset at and returns its byte offset
// and element count.
func (d *symDecoder) rng(at uint64, elem uint64, what string) (uint64, uint64, error) {
	off, n := uint64(d.word(at)), uint64(d.word(at+4))
	if off > uint64(len(d.sym)) || n > (uint64(len(d.sym))-off)/elem {
		return 0, 0, format.Errorf(d.symOff+int64(at), format.ErrCorrupt,
			"bitcode: irsymtab %s range (offset %d, %d entries) past the %d-byte table", what, off, n, len(d.sym))
	}
	return off, n, nil
}

// string resolves a Str at table offset at.
func (d *symDecoder) string(at uint64, what string) (string, error) {
	off, n := uint64(d.word(at)), uint64(d.word(at+4))
	if off > uint64(len(d.str)) || n > uint64(len(d.str))-off {
		return "", format.Errorf(d.symOff+int64(at), format.ErrCorrupt,
			"bitcode: irsymtab %s (offset %d, size %d) past the %d-byte string table", what, off, n, len(d.str))
	}
	return d.str[off : off+n], nil
}

func (d *symDecoder) decode(nmods int) (*SymbolTable, error) {
	if len(d.sym) < 4 {
		return nil, format.Errorf(d.symOff, format.ErrUnsupported, "bitcode: irsymtab of %d bytes has no header; LLVM would rebuild it", len(d.sym))
	}
	t := &SymbolTable{Version: d.word(0)}
	if len(d.sym) < hdrSize {
		if len(d.sym) >= 12 && t.Version != SymtabVersion {
			return nil, format.Errorf(d.symOff, format.ErrVersion, "bitcode: irsymtab version %d, want %d; LLVM would rebuild it", t.Version, SymtabVersion)
		}
		return nil, format.Errorf(d.symOff, format.ErrUnsupported, "bitcode: irsymtab of %d bytes is shorter than its %d-byte header; LLVM would rebuild it", len(d.sym), hdrSize)
	}
	if t.Version != SymtabVersion {
		return nil, format.Errorf(d.symOff, format.ErrVersion, "bitcode: irsymtab version %d, want %d; LLVM would rebuild it", t.Version, SymtabVersion)
	}
	var err error
	if t.Producer, err = d.string(4, "producer"); err != nil {
		return nil, err
	}
	modOff, nm, err := d.rng(12, moduleSize, "module")
	if err != nil {
		return nil, err
	}
	if nm != uint64(nmods) {
		return nil, format.Errorf(d.symOff+12, format.ErrUnsupported,
			"bitcode: irsymtab covers %d modules, the file has %d (concatenated bitcode?); LLVM would rebuild it", nm, nmods)
	}
	t.Modules = int(nm)
	cOff, nc, err := d.rng(20, comdatSize, "comdat")
	if err != nil {
		return nil, err
	}
	sOff, ns, err := d.rng(28, symbolSize, "symbol")
	if err != nil {
		return nil, err
	}
	uOff, nu, err := d.rng(36, uncommonSize, "uncommon")
	if err != nil {
		return nil, err
	}
	if t.TargetTriple, err = d.string(44, "target triple"); err != nil {
		return nil, err
	}
	if t.SourceFileName, err = d.string(52, "source file name"); err != nil {
		return nil, err
	}
	if t.COFFLinkerOpts, err = d.string(60, "COFF linker options"); err != nil {
		return nil, err
	}
	lOff, nl, err := d.rng(68, strSize, "dependent library")
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < nl; i++ {
		lib, err := d.string(lOff+i*strSize, "dependent library")
		if err != nil {
			return nil, err
		}
		t.DependentLibraries = append(t.DependentLibraries, lib)
	}
	for i := uint64(0); i < nc; i++ {
		at := cOff + i*comdatSize
		name, err := d.string(at, "comdat name")
		if err != nil {
			return nil, err
		}
		t.Comdats = append(t.Comdats, Comdat{Name: name, SelectionKind: d.word(at + 8)})
	}
	// The modules must tile the symbol list in order, as irsymtab::build
	// writes them; module_symbols would read out of bounds otherwise.
	var next, nextUnc uint64
	for i := uint64(0); i < nm; i++ {
		at := modOff + i*moduleSize
		b, e, u := uint64(d.word(at)), uint64(d.word(at+4)), uint64(d.word(at+8))
		if b != next || e < b || e > ns || u != nextUnc {
			return nil, format.Errorf(d.symOff+int64(at), format.ErrCorrupt,
				"bitcode: irsymtab module %d covers symbols [%d, %d) from uncommon %d; want them to start at %d and %d", i, b, e, u, next, nextUnc)
		}
		for k := b; k < e; k++ {
			if FlagHasUncommon&SymbolFlags(d.word(sOff+k*symbolSize+20)) != 0 {
				nextUnc++
			}
		}
		next = e
		t.modEnds = append(t.modEnds, int(e))
	}
	if next != ns {
		return nil, format.Errorf(d.symOff+12, format.ErrCorrupt, "bitcode: irsymtab modules cover %d of %d symbols", next, ns)
	}
	t.Symbols = make([]Symbol, 0, ns)
	u := uint64(0)
	for i := uint64(0); i < ns; i++ {
		at := sOff + i*symbolSize
		sym := Symbol{ComdatIndex: int(int32(d.word(at + 16))), Flags: SymbolFlags(d.word(at + 20))}
		if sym.Name, err = d.string(at, "symbol name"); err != nil {
			return nil, err
		}
		if sym.IRName, err = d.string(at+8, "symbol IR name"); err != nil {
			return nil, err
		}
		if sym.ComdatIndex < -1 || sym.ComdatIndex >= int(nc) {
			return nil, format.Errorf(d.symOff+int64(at+16), format.ErrCorrupt, "bitcode: irsymtab symbol %d: comdat index %d out of range (%d comdats)", i, sym.ComdatIndex, nc)
		}
		if sym.Flags&FlagHasUncommon != 0 {
			if u >= nu {
				return nil, format.Errorf(d.symOff+int64(at+20), format.ErrCorrupt, "bitcode: irsymtab symbol %d: more uncommon symbols than the %d uncommon entries", i, nu)
			}
			ua := uOff + u*uncommonSize
			u++
			sym.CommonSize, sym.CommonAlign = d.word(ua), d.word(ua+4)
			if sym.COFFWeakExternFallback, err = d.string(ua+8, "weak external fallback name"); err != nil {
				return nil, err
			}
			if sym.SectionName, err = d.string(ua+16, "section name"); err != nil {
				return nil, err
			}
		}
		t.Symbols = append(t.Symbols, sym)
	}
	return t, nil
}
