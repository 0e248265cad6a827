package packager

import (
	"debug/elf"
	"debug/macho"
	"encoding/binary"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
)

// fileFormatName is the "file format" string llvm-objdump prints (LLVM's
// getFileFormatName, lower-cased as objdump does).
func fileFormatName(o *elfembed.Object) string {
	if o.Format == elfembed.COFF {
		switch o.Machine {
		case 0x14c:
			return "coff-i386"
		case 0x8664:
			return "coff-x86-64"
		case 0x1c4:
			return "coff-arm"
		case 0xaa64:
			return "coff-arm64"
		case 0xa641:
			return "coff-arm64ec"
		case 0xa64e:
			return "coff-arm64x"
		}
		return "coff-<unknown arch>"
	}
	le := o.ByteOrder == binary.LittleEndian
	m := elf.Machine(o.Machine)
	if o.Class == 32 {
		switch m {
		case elf.EM_68K:
			return "elf32-m68k"
		case elf.EM_386:
			return "elf32-i386"
		case 6: // EM_IAMCU
			return "elf32-iamcu"
		case elf.EM_X86_64:
			return "elf32-x86-64"
		case elf.EM_ARM:
			return pick(le, "elf32-littlearm", "elf32-bigarm")
		case elf.EM_AVR:
			return "elf32-avr"
		case elf.EM_QDSP6:
			return "elf32-hexagon"
		case elf.EM_LANAI:
			return "elf32-lanai"
		case elf.EM_MIPS:
			return "elf32-mips"
		case elf.EM_MSP430:
			return "elf32-msp430"
		case elf.EM_PPC:
			return pick(le, "elf32-powerpcle", "elf32-powerpc")
		case elf.EM_RISCV:
			return pick(le, "elf32-littleriscv", "elf32-bigriscv")
		case 252: // EM_CSKY
			return "elf32-csky"
		case elf.EM_SPARC, elf.EM_SPARC32PLUS:
			return "elf32-sparc"
		case elf.EM_AMDGPU:
			return "elf32-amdgpu"
		case elf.EM_LOONGARCH:
			return "elf32-loongarch"
		case 94: // EM_XTENSA
			return "elf32-xtensa"
		}
		return "elf32-unknown"
	}
	switch m {
	case elf.EM_386:
		return "elf64-i386"
	case elf.EM_X86_64:
		return "elf64-x86-64"
	case elf.EM_AARCH64:
		return pick(le, "elf64-littleaarch64", "elf64-bigaarch64")
	case elf.EM_PPC64:
		return pick(le, "elf64-powerpcle", "elf64-powerpc")
	case elf.EM_RISCV:
		return pick(le, "elf64-littleriscv", "elf64-bigriscv")
	case elf.EM_S390:
		return "elf64-s390"
	case elf.EM_SPARCV9:
		return "elf64-sparc"
	case elf.EM_MIPS:
		return "elf64-mips"
	case elf.EM_AMDGPU:
		return "elf64-amdgpu"
	case elf.EM_BPF:
		return "elf64-bpf"
	case 251: // EM_VE
		return "elf64-ve"
	case elf.EM_LOONGARCH:
		return "elf64-loongarch"
	}
	return "elf64-unknown"
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

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
	is64 := magic == 0xfeedfacf || magic == 0xcffaedfe
	cpu := macho.Cpu(bo.Uint32(head[4:]))
	var s string
	if is64 {
		switch cpu {
		case macho.CpuAmd64:
			s = "Mach-O 64-bit x86-64"
		case macho.CpuArm64:
			s = "Mach-O arm64"
		case macho.CpuPpc64:
			s = "Mach-O 64-bit ppc64"
		default:
			s = "Mach-O 64-bit unknown"
		}
	} else {
		switch cpu {
		case macho.Cpu386:
			s = "Mach-O 32-bit i386"
		case macho.CpuArm:
			s = "Mach-O arm"
		case macho.CpuPpc:
			s = "Mach-O 32-bit ppc"
		case 0x0200000c:
			s = "Mach-O arm64 (ILP32)"
		default:
			s = "Mach-O 32-bit unknown"
		}
	}
	return strings.ToLower(s)
}
