package format

import (
	"bytes"
	"encoding/binary"
)

// Kind is a container or object format recognised from magic bytes.
type Kind int

const (
	KindUnknown       Kind = iota
	KindELF                // \x7fELF
	KindCOFF               // x86-64/aarch64/i386/arm64ec machine + plausible header, a PE image, or bigobj (by its class ID)
	KindMachO              // feedfacf etc.
	KindArchive            // "!<arch>\n"
	KindThinArchive        // "!<thin>\n"
	KindOffloadBinary      // 10 FF 10 AD
	KindBundle             // "__CLANG_OFFLOAD_BUNDLE__"
	KindCCOB               // "CCOB"
	KindHCF                // AdaptiveCpp HCF: has no magic; Identify never returns it (hcf.Find locates HCF blobs)
	KindBitcode            // BC C0 DE or wrapper 0x0B17C0DE
	KindSPIRV              // 0x07230203
	KindFatbin             // NVIDIA fatbin 0xBA55ED50
	KindCOFFImport         // COFF short import member: Sig1=0, Sig2=0xFFFF without the bigobj class ID (see coffimport.go)
)

var kindNames = [...]string{"unknown", "ELF", "COFF", "Mach-O", "archive", "thin archive",
	"OffloadBinary", "offload bundle", "compressed offload bundle", "HCF", "LLVM bitcode", "SPIR-V", "fatbin", "COFF import"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Magic values.
var (
	OffloadBinaryMagic = []byte{0x10, 0xFF, 0x10, 0xAD}
	BundleMagic        = []byte("__CLANG_OFFLOAD_BUNDLE__")
	CCOBMagic          = []byte("CCOB")
	ArchiveMagic       = []byte("!<arch>\n")
	ThinArchiveMagic   = []byte("!<thin>\n")
	BitcodeMagic       = []byte{'B', 'C', 0xC0, 0xDE}
	BitcodeWrapper     = []byte{0xDE, 0xC0, 0x17, 0x0B}
)

// IsBitcode reports whether head starts with raw or wrapped LLVM bitcode.
func IsBitcode(head []byte) bool {
	return bytes.HasPrefix(head, BitcodeMagic) || bytes.HasPrefix(head, BitcodeWrapper)
}

// Identify classifies data by its leading bytes only. It never fails.
func Identify(head []byte) Kind {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return KindELF
	case bytes.HasPrefix(head, ArchiveMagic):
		return KindArchive
	case bytes.HasPrefix(head, ThinArchiveMagic):
		return KindThinArchive
	case bytes.HasPrefix(head, OffloadBinaryMagic):
		return KindOffloadBinary
	case bytes.HasPrefix(head, BundleMagic):
		return KindBundle
	case bytes.HasPrefix(head, CCOBMagic):
		return KindCCOB
	case IsBitcode(head):
		return KindBitcode
	case len(head) >= 4 && binary.LittleEndian.Uint32(head) == 0x07230203:
		return KindSPIRV
	case len(head) >= 4 && binary.LittleEndian.Uint32(head) == 0xBA55ED50:
		return KindFatbin
	case isMachO(head):
		return KindMachO
	case len(head) >= 4 && binary.LittleEndian.Uint32(head) == 0xFFFF0000:
		// Sig1=0, Sig2=0xFFFF: bigobj, cl /GL or a short import member,
		// by the class ID at offset 12 (LLVM's identify_magic).
		return coffAnonKind(head)
	case isCOFF(head):
		return KindCOFF
	}
	return KindUnknown
}

func isMachO(h []byte) bool {
	if len(h) < 4 {
		return false
	}
	switch binary.LittleEndian.Uint32(h) {
	case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe, 0xbebafeca:
		return true
	}
	return false
}

// COFF object machines LLVM's identify_magic accepts.
var coffMachines = map[uint16]bool{
	0x14c: true, 0x8664: true, 0x1c4: true, 0xaa64: true, 0xa641: true, 0xa64e: true, 0x0: false,
}

func isCOFF(h []byte) bool {
	if len(h) < 20 {
		return false
	}
	if bytes.HasPrefix(h, []byte("MZ")) {
		return true // PE image
	}
	return coffMachines[binary.LittleEndian.Uint16(h)]
}
