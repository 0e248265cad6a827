package packager

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"encoding/binary"
	"errors"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
)

// fileFormatName is the "file format" string llvm-objdump prints (LLVM's
// getFileFormatName, lower-cased as objdump does).
func fileFormatName(o *elfembed.Object) string {
	if o.Format == elfembed.COFF {
		if s, ok := coffFormatNames[o.Machine]; ok {
			return s
		}
		return "coff-<unknown arch>"
	}
	names, unknown := elf64FormatNames, "elf64-unknown"
	if o.Class == 32 {
		names, unknown = elf32FormatNames, "elf32-unknown"
	}
	n, ok := names[elf.Machine(o.Machine)]
	switch {
	case !ok:
		return unknown
	case n.big != "" && o.ByteOrder != binary.LittleEndian:
		return n.big
	}
	return n.name
}

// elfFormatName is an ELF file format name; big, where set, is the name of
// big-endian objects.
type elfFormatName struct{ name, big string }

// The names of COFFObjectFile::getFileFormatName by machine.
var coffFormatNames = map[uint16]string{
	0x14c:  "coff-i386",
	0x8664: "coff-x86-64",
	0x1c4:  "coff-arm",
	0xaa64: "coff-arm64",
	0xa641: "coff-arm64ec",
	0xa64e: "coff-arm64x",
}

// The names of ELFObjectFile::getFileFormatName by class and machine.
var (
	elf32FormatNames = map[elf.Machine]elfFormatName{
		elf.EM_68K:         {name: "elf32-m68k"},
		elf.EM_386:         {name: "elf32-i386"},
		6:                  {name: "elf32-iamcu"}, // EM_IAMCU
		elf.EM_X86_64:      {name: "elf32-x86-64"},
		elf.EM_ARM:         {name: "elf32-littlearm", big: "elf32-bigarm"},
		elf.EM_AVR:         {name: "elf32-avr"},
		elf.EM_QDSP6:       {name: "elf32-hexagon"},
		elf.EM_LANAI:       {name: "elf32-lanai"},
		elf.EM_MIPS:        {name: "elf32-mips"},
		elf.EM_MSP430:      {name: "elf32-msp430"},
		elf.EM_PPC:         {name: "elf32-powerpcle", big: "elf32-powerpc"},
		elf.EM_RISCV:       {name: "elf32-littleriscv", big: "elf32-bigriscv"},
		252:                {name: "elf32-csky"}, // EM_CSKY
		elf.EM_SPARC:       {name: "elf32-sparc"},
		elf.EM_SPARC32PLUS: {name: "elf32-sparc"},
		elf.EM_AMDGPU:      {name: "elf32-amdgpu"},
		elf.EM_LOONGARCH:   {name: "elf32-loongarch"},
		94:                 {name: "elf32-xtensa"}, // EM_XTENSA
	}
	elf64FormatNames = map[elf.Machine]elfFormatName{
		elf.EM_386:       {name: "elf64-i386"},
		elf.EM_X86_64:    {name: "elf64-x86-64"},
		elf.EM_AARCH64:   {name: "elf64-littleaarch64", big: "elf64-bigaarch64"},
		elf.EM_PPC64:     {name: "elf64-powerpcle", big: "elf64-powerpc"},
		elf.EM_RISCV:     {name: "elf64-littleriscv", big: "elf64-bigriscv"},
		elf.EM_S390:      {name: "elf64-s390"},
		elf.EM_SPARCV9:   {name: "elf64-sparc"},
		elf.EM_MIPS:      {name: "elf64-mips"},
		elf.EM_AMDGPU:    {name: "elf64-amdgpu"},
		elf.EM_BPF:       {name: "elf64-bpf"},
		251:              {name: "elf64-ve"}, // EM_VE
		elf.EM_LOONGARCH: {name: "elf64-loongarch"},
	}
)

// machoFormatName mirrors MachOObjectFile::getFileFormatName (lower-cased).
func machoFormatName(head []byte) string {
	if len(head) < 8 {
		return "mach-o 32-bit unknown"
	}
	var bo binary.ByteOrder = binary.LittleEndian
	magic := binary.LittleEndian.Uint32(head)
	if magic == 0xcefaedfe || magic == 0xcffaedfe {
		bo = binary.BigEndian
	}
	names, unknown := macho32FormatNames, "Mach-O 32-bit unknown"
	if magic == 0xfeedfacf || magic == 0xcffaedfe {
		names, unknown = macho64FormatNames, "Mach-O 64-bit unknown"
	}
	s, ok := names[macho.Cpu(bo.Uint32(head[4:]))]
	if !ok {
		s = unknown
	}
	return strings.ToLower(s)
}

// The names of MachOObjectFile::getFileFormatName by class and CPU type.
var (
	macho32FormatNames = map[macho.Cpu]string{
		macho.Cpu386: "Mach-O 32-bit i386",
		macho.CpuArm: "Mach-O arm",
		macho.CpuPpc: "Mach-O 32-bit ppc",
		0x0200000c:   "Mach-O arm64 (ILP32)", // CPU_TYPE_ARM64_32
	}
	macho64FormatNames = map[macho.Cpu]string{
		macho.CpuAmd64: "Mach-O 64-bit x86-64",
		macho.CpuArm64: "Mach-O arm64",
		macho.CpuPpc64: "Mach-O 64-bit ppc64",
	}
)

// isCOFFUnknownMachine reports what LLVM's identify_magic takes for a COFF
// object with machine IMAGE_FILE_MACHINE_UNKNOWN: at least 4 bytes that
// start with two zero bytes and are none of the other formats that do
// (bigobj, import members, Windows resources). A zero-filled file is one:
// llvm-objdump prints "file format coff-<unknown arch>" for it and
// nothing else, and dump does the same.
func isCOFFUnknownMachine(data []byte) bool {
	return len(data) >= 4 && data[0] == 0 && data[1] == 0 &&
		format.Identify(data) == format.KindUnknown &&
		!bytes.HasPrefix(data, winResMagic)
}

// winResMagic starts a Windows resource file (COFF::WinResMagic).
var winResMagic = []byte("\x00\x00\x00\x00\x20\x00\x00\x00\xff\xff\x00\x00\xff\xff\x00\x00")

// errCOFFEOF is LLVM's message for a COFF header or table that runs past
// the end of the file.
var errCOFFEOF = errors.New("The end of the file was unexpectedly encountered")

// parseCOFFUnknownMachine reads a COFF object with machine 0, which
// elfembed (like the linkers) does not take for an object: it parses a
// copy whose machine is i386 (32-bit, as LLVM reads unknown machines)
// and reports machine 0 again, so the file format is LLVM's
// "coff-<unknown arch>". The copy holds only the header when there is
// nothing else to read (no sections, no symbol table), so a large
// zero-filled file costs nothing. The returned data is what the
// object's sections point into.
func parseCOFFUnknownMachine(data []byte) (*elfembed.Object, []byte, error) {
	if len(data) < 20 {
		return nil, nil, errCOFFEOF
	}
	n := len(data)
	nsec, symPtr, opt := binary.LittleEndian.Uint16(data[2:]), binary.LittleEndian.Uint32(data[8:]), int(binary.LittleEndian.Uint16(data[16:]))
	if nsec == 0 && symPtr == 0 {
		n = min(n, 20+opt)
	}
	c := append([]byte(nil), data[:n]...)
	binary.LittleEndian.PutUint16(c, 0x14c)
	eo, err := elfembed.Parse(c)
	if err != nil {
		if errors.Is(err, format.ErrTruncated) {
			return nil, nil, errCOFFEOF
		}
		return nil, nil, errors.New("The file was not recognized as a valid object file: " + err.Error())
	}
	eo.Machine = 0
	return eo, c, nil
}
