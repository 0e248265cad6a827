package packager

import (
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/offload-kit/offload-kit/elfembed"
)

func TestFileFormatName(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	for _, tc := range []struct {
		o    elfembed.Object
		want string
	}{
		{elfembed.Object{Format: elfembed.ELF, Class: 64, ByteOrder: le, Machine: uint16(elf.EM_X86_64)}, "elf64-x86-64"},
		{elfembed.Object{Format: elfembed.ELF, Class: 64, ByteOrder: le, Machine: uint16(elf.EM_AARCH64)}, "elf64-littleaarch64"},
		{elfembed.Object{Format: elfembed.ELF, Class: 64, ByteOrder: be, Machine: uint16(elf.EM_AARCH64)}, "elf64-bigaarch64"},
		{elfembed.Object{Format: elfembed.ELF, Class: 64, ByteOrder: be, Machine: uint16(elf.EM_S390)}, "elf64-s390"},
		{elfembed.Object{Format: elfembed.ELF, Class: 64, ByteOrder: le, Machine: uint16(elf.EM_68K)}, "elf64-unknown"},
		{elfembed.Object{Format: elfembed.ELF, Class: 32, ByteOrder: le, Machine: uint16(elf.EM_68K)}, "elf32-m68k"},
		{elfembed.Object{Format: elfembed.ELF, Class: 32, ByteOrder: be, Machine: uint16(elf.EM_PPC)}, "elf32-powerpc"},
		{elfembed.Object{Format: elfembed.ELF, Class: 32, ByteOrder: le, Machine: uint16(elf.EM_SPARC32PLUS)}, "elf32-sparc"},
		{elfembed.Object{Format: elfembed.ELF, Class: 32, ByteOrder: le, Machine: uint16(elf.EM_AARCH64)}, "elf32-unknown"},
		{elfembed.Object{Format: elfembed.COFF, Class: 64, ByteOrder: le, Machine: 0x8664}, "coff-x86-64"},
		{elfembed.Object{Format: elfembed.COFF, Class: 32, ByteOrder: le, Machine: 0x1234}, "coff-<unknown arch>"},
	} {
		if got := fileFormatName(&tc.o); got != tc.want {
			t.Errorf("fileFormatName(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}

func TestMachoFormatName(t *testing.T) {
	for _, tc := range []struct {
		head []byte
		want string
	}{
		{[]byte{0xcf, 0xfa, 0xed, 0xfe, 0x07, 0x00, 0x00, 0x01}, "mach-o 64-bit x86-64"},
		{[]byte{0xfe, 0xed, 0xfa, 0xcf, 0x01, 0x00, 0x00, 0x0c}, "mach-o arm64"},
		{[]byte{0xce, 0xfa, 0xed, 0xfe, 0x0c, 0x00, 0x00, 0x02}, "mach-o arm64 (ilp32)"},
		{[]byte{0xce, 0xfa, 0xed, 0xfe, 0x07, 0x00, 0x00, 0x01}, "mach-o 32-bit unknown"},
		{[]byte{0xcf, 0xfa}, "mach-o 32-bit unknown"},
	} {
		if got := machoFormatName(tc.head); got != tc.want {
			t.Errorf("machoFormatName(% x) = %q, want %q", tc.head, got, tc.want)
		}
	}
}
