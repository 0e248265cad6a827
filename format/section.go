package format

import (
	"debug/elf"
	"strconv"
)

// OffloadingSection is the name of the section that holds OffloadBinaries
// in host objects (ELF and COFF) and of the globals clang places there in
// bitcode; ELF readers find it by its type, SHT_LLVM_OFFLOADING, COFF
// readers by this name as a prefix.
const OffloadingSection = ".llvm.offloading"

// SectionType is an ELF section type (sh_type). It names LLVM's own types,
// which debug/elf does not know: %v prints SHT_LLVM_OFFLOADING, %#v
// format.SHT_LLVM_OFFLOADING; other values print as debug/elf's
// elf.SectionType does.
type SectionType uint32

const (
	SHT_NULL          SectionType = 0
	SHT_PROGBITS      SectionType = 1
	SHT_SYMTAB        SectionType = 2
	SHT_STRTAB        SectionType = 3
	SHT_RELA          SectionType = 4
	SHT_NOBITS        SectionType = 8
	SHT_REL           SectionType = 9
	SHT_INIT_ARRAY    SectionType = 14
	SHT_FINI_ARRAY    SectionType = 15
	SHT_GROUP         SectionType = 17
	SHT_SYMTAB_SHNDX  SectionType = 18
	SHT_X86_64_UNWIND SectionType = 0x70000001

	// SHT_LLVM_ADDRSIG lists the address-significant symbols (llvm-objcopy
	// drops it when symbol indices change).
	SHT_LLVM_ADDRSIG SectionType = 0x6FFF4C03
	// SHT_LLVM_OFFLOADING is the type of .llvm.offloading sections.
	SHT_LLVM_OFFLOADING SectionType = 0x6FFF4C0B
)

var shtStrings = []intName{
	{uint64(SHT_NULL), "SHT_NULL"},
	{uint64(SHT_PROGBITS), "SHT_PROGBITS"},
	{uint64(SHT_SYMTAB), "SHT_SYMTAB"},
	{uint64(SHT_STRTAB), "SHT_STRTAB"},
	{uint64(SHT_RELA), "SHT_RELA"},
	{uint64(SHT_NOBITS), "SHT_NOBITS"},
	{uint64(SHT_REL), "SHT_REL"},
	{uint64(SHT_INIT_ARRAY), "SHT_INIT_ARRAY"},
	{uint64(SHT_FINI_ARRAY), "SHT_FINI_ARRAY"},
	{uint64(SHT_GROUP), "SHT_GROUP"},
	{uint64(SHT_SYMTAB_SHNDX), "SHT_SYMTAB_SHNDX"},
	{uint64(SHT_X86_64_UNWIND), "SHT_X86_64_UNWIND"},
	{uint64(SHT_LLVM_ADDRSIG), "SHT_LLVM_ADDRSIG"},
	{uint64(SHT_LLVM_OFFLOADING), "SHT_LLVM_OFFLOADING"},
}

func (t SectionType) String() string {
	if s, ok := lookupName(uint64(t), shtStrings); ok {
		return s
	}
	return elf.SectionType(t).String()
}

func (t SectionType) GoString() string {
	if s, ok := lookupName(uint64(t), shtStrings); ok {
		return "format." + s
	}
	return elf.SectionType(t).GoString()
}

// SectionFlag is an ELF section flag (sh_flags). %v prints the set flags
// joined by "+" (SHF_ALLOC+SHF_EXCLUDE), as debug/elf's elf.SectionFlag
// does.
type SectionFlag uint64

const (
	SHF_WRITE     SectionFlag = 0x1
	SHF_ALLOC     SectionFlag = 0x2
	SHF_EXECINSTR SectionFlag = 0x4
	SHF_MERGE     SectionFlag = 0x10
	SHF_STRINGS   SectionFlag = 0x20
	SHF_INFO_LINK SectionFlag = 0x40
	SHF_GROUP     SectionFlag = 0x200
	SHF_TLS       SectionFlag = 0x400
	// SHF_EXCLUDE is the only flag of .llvm.offloading and of bundle
	// sections (llvm-objcopy --set-section-flags=<s>=readonly,exclude).
	SHF_EXCLUDE SectionFlag = 0x80000000
)

var shfStrings = []intName{
	{uint64(SHF_WRITE), "SHF_WRITE"},
	{uint64(SHF_ALLOC), "SHF_ALLOC"},
	{uint64(SHF_EXECINSTR), "SHF_EXECINSTR"},
	{uint64(SHF_MERGE), "SHF_MERGE"},
	{uint64(SHF_STRINGS), "SHF_STRINGS"},
	{uint64(SHF_INFO_LINK), "SHF_INFO_LINK"},
	{uint64(SHF_GROUP), "SHF_GROUP"},
	{uint64(SHF_TLS), "SHF_TLS"},
	{uint64(SHF_EXCLUDE), "SHF_EXCLUDE"},
}

func (f SectionFlag) String() string   { return flagName(uint64(f), shfStrings, "") }
func (f SectionFlag) GoString() string { return flagName(uint64(f), shfStrings, "format.") }

// intName maps a value to its name, as debug/elf's tables do.
type intName struct {
	i uint64
	s string
}

func lookupName(v uint64, names []intName) (string, bool) {
	for _, n := range names {
		if n.i == v {
			return n.s, true
		}
	}
	return "", false
}

// flagName joins the names of the flags set in v with "+"; bits without a
// name are added as a hex number; 0 prints as "0".
func flagName(v uint64, names []intName, prefix string) string {
	s := ""
	for _, n := range names {
		if v&n.i == n.i {
			if s != "" {
				s += "+"
			}
			s += prefix + n.s
			v &^= n.i
		}
	}
	if s == "" {
		return "0x" + strconv.FormatUint(v, 16)
	}
	if v != 0 {
		s += "+0x" + strconv.FormatUint(v, 16)
	}
	return s
}
