package format

import (
	"debug/elf"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSectionTypeNames(t *testing.T) {
	assert.Equal(t, "SHT_LLVM_OFFLOADING", fmt.Sprint(SHT_LLVM_OFFLOADING))
	assert.Equal(t, "format.SHT_LLVM_OFFLOADING", fmt.Sprintf("%#v", SHT_LLVM_OFFLOADING))
	assert.Equal(t, "SHT_LLVM_ADDRSIG", SHT_LLVM_ADDRSIG.String())
	// Every name agrees with debug/elf where debug/elf has one.
	for _, n := range shtStrings {
		if e := elf.SectionType(n.i).String(); !strings.Contains(e, "+") { // "SHT_LOOS+0x...": unnamed there
			assert.Equal(t, e, SectionType(n.i).String())
		}
	}
	// Values without a name here print as debug/elf prints them.
	assert.Equal(t, elf.SHT_DYNSYM.String(), SectionType(elf.SHT_DYNSYM).String())
	assert.Equal(t, elf.SectionType(0x6fff4c7f).String(), SectionType(0x6fff4c7f).String())
	assert.Equal(t, elf.SHT_NOTE.GoString(), SectionType(elf.SHT_NOTE).GoString())
}

func TestSectionFlagNames(t *testing.T) {
	assert.Equal(t, "SHF_ALLOC+SHF_EXCLUDE", (SHF_ALLOC | SHF_EXCLUDE).String())
	assert.Equal(t, "format.SHF_WRITE+format.SHF_ALLOC", fmt.Sprintf("%#v", SHF_WRITE|SHF_ALLOC))
	assert.Equal(t, "SHF_ALLOC+0x100000", (SHF_ALLOC | 0x100000).String())
	assert.Equal(t, "0x0", SectionFlag(0).String())
	// As debug/elf prints the flags both know.
	for _, f := range []elf.SectionFlag{elf.SHF_WRITE | elf.SHF_ALLOC, elf.SHF_ALLOC | elf.SHF_EXECINSTR, elf.SHF_MERGE | elf.SHF_STRINGS, elf.SHF_INFO_LINK} {
		assert.Equal(t, f.String(), SectionFlag(f).String())
	}
}
