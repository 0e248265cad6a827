package format

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// COFF files that start with Sig1=0, Sig2=0xFFFF are one of three things,
// told apart as LLVM's identify_magic does: a bigobj object (the class ID
// at offset 12 is BigObjClassID), a cl.exe /GL object (ClGlObjClassID:
// MSVC's LTCG intermediate, which no LLVM tool reads), or else a short
// import member (IMPORT_OBJECT_HEADER, what llvm-dlltool, lld-link /implib,
// llvm-lib and the Windows SDK put in import libraries).
var (
	BigObjClassID  = []byte{0xC7, 0xA1, 0xBA, 0xD1, 0xEE, 0xBA, 0xA9, 0x4B, 0xAF, 0x20, 0xFA, 0xF6, 0x6A, 0xA4, 0xDC, 0xB8}
	ClGlObjClassID = []byte{0x38, 0xFE, 0xB3, 0x0C, 0xA5, 0xD9, 0xAB, 0x4D, 0xAC, 0x9B, 0xD6, 0xB6, 0x22, 0x26, 0x53, 0xC2}
)

// coffAnonKind classifies a file that starts with 00 00 FF FF.
func coffAnonKind(h []byte) Kind {
	if len(h) >= 28 {
		switch {
		case bytes.Equal(h[12:28], BigObjClassID):
			return KindCOFF
		case bytes.Equal(h[12:28], ClGlObjClassID):
			return KindUnknown // cl /GL: not an object anything here reads
		}
	}
	return KindCOFFImport
}

// IsCOFFBigObj reports a bigobj COFF header: Sig1=0, Sig2=0xFFFF and the
// bigobj class ID at offset 12 (the version is not checked here).
func IsCOFFBigObj(h []byte) bool {
	return len(h) >= 28 && binary.LittleEndian.Uint32(h) == 0xFFFF0000 && bytes.Equal(h[12:28], BigObjClassID)
}

// COFFImportHeaderSize is the size of IMPORT_OBJECT_HEADER.
const COFFImportHeaderSize = 20

// COFF import types (IMPORT_OBJECT_TYPE, bits 0-1 of the type field).
const (
	COFFImportCode  = 0
	COFFImportData  = 1
	COFFImportConst = 2
)

// COFF import name types (IMPORT_OBJECT_NAME_TYPE, bits 2-4).
const (
	COFFImportOrdinal        = 0
	COFFImportName           = 1
	COFFImportNameNoPrefix   = 2
	COFFImportNameUndecorate = 3
	COFFImportNameExportAs   = 4
)

// COFFImport is a short import member: IMPORT_OBJECT_HEADER (Sig1=0,
// Sig2=0xFFFF, Version, Machine, TimeDateStamp, SizeOfData, Ordinal/Hint,
// the type bits) followed by the NUL-terminated symbol name and DLL name
// (and, for IMPORT_OBJECT_NAME_EXPORTAS, the export name). It holds no
// sections and no code: the linker makes the import thunk and the
// __imp_ pointer from it.
type COFFImport struct {
	Version       uint16
	Machine       uint16
	TimeDateStamp uint32
	SizeOfData    uint32
	OrdinalHint   uint16
	Type          uint8 // COFFImportCode, COFFImportData, COFFImportConst
	NameType      uint8 // COFFImportOrdinal ... COFFImportNameExportAs
	Symbol        string
	DLL           string
	ExportAs      string // NameType COFFImportNameExportAs only
}

// ParseCOFFImport reads a short import member. The names must lie within
// SizeOfData, which must lie within data (lld-link rejects a member whose
// size is not exactly 20+SizeOfData as a "broken import library"; bytes
// after it are tolerated here). Errors are *FormatError.
func ParseCOFFImport(data []byte) (*COFFImport, error) {
	le := binary.LittleEndian
	if len(data) < COFFImportHeaderSize {
		return nil, Errorf(0, ErrTruncated, "import object header")
	}
	if le.Uint16(data) != 0 || le.Uint16(data[2:]) != 0xFFFF {
		return nil, Errorf(0, ErrMagic, "not a COFF import object")
	}
	if IsCOFFBigObj(data) {
		return nil, Errorf(12, ErrMagic, "a bigobj COFF object, not an import object")
	}
	imp := &COFFImport{
		Version: le.Uint16(data[4:]), Machine: le.Uint16(data[6:]), TimeDateStamp: le.Uint32(data[8:]),
		SizeOfData: le.Uint32(data[12:]), OrdinalHint: le.Uint16(data[16:]),
	}
	ty := le.Uint16(data[18:])
	imp.Type, imp.NameType = uint8(ty&3), uint8(ty>>2&7)
	if imp.Version != 0 {
		return nil, Errorf(4, ErrVersion, "import object version %d", imp.Version)
	}
	if imp.Type > COFFImportConst {
		return nil, Errorf(18, ErrCorrupt, "import type %d", imp.Type)
	}
	if uint64(imp.SizeOfData) > uint64(len(data)-COFFImportHeaderSize) {
		return nil, Errorf(12, ErrTruncated, "import data of %d bytes", imp.SizeOfData)
	}
	rest := data[COFFImportHeaderSize : COFFImportHeaderSize+int(imp.SizeOfData)]
	off := int64(COFFImportHeaderSize)
	next := func(what string) (string, error) {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return "", Errorf(off, ErrTruncated, "%s", what)
		}
		s := string(rest[:i])
		rest, off = rest[i+1:], off+int64(i)+1
		return s, nil
	}
	var err error
	if imp.Symbol, err = next("import symbol name"); err != nil {
		return nil, err
	}
	if imp.DLL, err = next("import DLL name"); err != nil {
		return nil, err
	}
	if imp.NameType == COFFImportNameExportAs {
		if imp.ExportAs, err = next("import export name"); err != nil {
			return nil, err
		}
	}
	return imp, nil
}

// IsARM64EC reports the ARM64EC and ARM64X machines.
func isARM64EC(m uint16) bool { return m == 0xA641 || m == 0xA64E }

// Symbols lists the symbols the member defines, as LLVM's COFFImportFile
// does (and so as llvm-nm, llvm-ar's symbol table and lld-link see them):
// __imp_<name> always; <name> (the thunk) unless the import is DATA; on
// ARM64EC also __imp_aux_<name> and the mangled thunk name, where <name>
// is demangled (a leading '#' and a C++ name's "$$h" tag dropped).
func (imp *COFFImport) Symbols() []string {
	name := imp.Symbol
	ec := isARM64EC(imp.Machine)
	if ec {
		if d, ok := arm64ECDemangled(name); ok {
			name = d
		}
	}
	out := []string{"__imp_" + name}
	if imp.Type == COFFImportData {
		return out
	}
	out = append(out, name)
	if ec {
		out = append(out, "__imp_aux_"+name, imp.Symbol)
	}
	return out
}

// arm64ECDemangled is llvm::getArm64ECDemangledFunctionName.
func arm64ECDemangled(n string) (string, bool) {
	if n == "" || strings.Contains(n, "$exit_thunk") {
		return "", false
	}
	if n[0] == '#' {
		return n[1:], true
	}
	if n[0] != '?' {
		return "", false
	}
	a, b, ok := strings.Cut(n, "$$h")
	if !ok || b == "" {
		return "", false
	}
	return a + b, true
}

// coffImportTypeName names an import type as llvm-readobj does.
func coffImportTypeName(t uint8) string {
	switch t {
	case COFFImportCode:
		return "code"
	case COFFImportData:
		return "data"
	case COFFImportConst:
		return "const"
	}
	return "unknown"
}
