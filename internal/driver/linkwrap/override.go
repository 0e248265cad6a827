package linkwrap

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"strings"

	"github.com/offload-kit/offload-kit/format"
)

// overrideImages implements --override-image=<kind>=<file>: input scanning
// and device linking are skipped, and each file (an ELF object) is used as
// a linked image, its triple and arch read from the ELF header.
func (d *driver) overrideImages() ([]linkedImage, error) {
	var out []linkedImage
	for _, v := range d.opt.OverrideImages {
		ks, file, ok := strings.Cut(v, "=")
		kind := format.ParseOffloadKind(ks)
		if !ok || kind == format.OfkNone {
			return nil, fmt.Errorf("--override-image=%s: expected <openmp|cuda|hip|sycl>=<file>", v)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		triple, arch, err := elfTarget(data)
		if err != nil {
			return nil, fmt.Errorf("--override-image: %s: %w", file, err)
		}
		out = append(out, linkedImage{key: groupKey{triple, arch}, kind: kind, path: file, data: data})
	}
	return out, nil
}

// amdgpuMach maps EF_AMDGPU_MACH values to processor names.
var amdgpuMach = map[uint32]string{
	0x020: "gfx600", 0x021: "gfx601", 0x022: "gfx700", 0x023: "gfx701", 0x024: "gfx702", 0x025: "gfx703",
	0x026: "gfx704", 0x028: "gfx801", 0x029: "gfx802", 0x02a: "gfx803", 0x02b: "gfx810", 0x02c: "gfx900",
	0x02d: "gfx902", 0x02e: "gfx904", 0x02f: "gfx906", 0x030: "gfx908", 0x031: "gfx909", 0x032: "gfx90c",
	0x033: "gfx1010", 0x034: "gfx1011", 0x035: "gfx1012", 0x036: "gfx1030", 0x037: "gfx1031",
	0x038: "gfx1032", 0x039: "gfx1033", 0x03a: "gfx602", 0x03b: "gfx705", 0x03c: "gfx805",
	0x03d: "gfx1035", 0x03e: "gfx1034", 0x03f: "gfx90a", 0x040: "gfx940", 0x041: "gfx1100",
	0x042: "gfx1013", 0x043: "gfx1150", 0x044: "gfx1103", 0x045: "gfx1036", 0x046: "gfx1101",
	0x047: "gfx1102", 0x048: "gfx1200", 0x04a: "gfx1151", 0x04b: "gfx941", 0x04c: "gfx942",
	0x04e: "gfx1201", 0x04f: "gfx950", 0x050: "gfx1152", 0x051: "gfx9-generic", 0x052: "gfx10-1-generic",
	0x053: "gfx10-3-generic", 0x054: "gfx11-generic", 0x055: "gfx1153", 0x059: "gfx12-generic",
}

// elfTarget derives (triple, arch) from an ELF device image.
func elfTarget(data []byte) (triple, arch string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("not a valid ELF file")
		}
	}()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return "", "", fmt.Errorf("not an ELF file: %w", err)
	}
	flags := uint32(0)
	if len(data) >= 52 {
		if f.Class == elf.ELFCLASS64 && len(data) >= 64 {
			flags = f.ByteOrder.Uint32(data[48:])
		} else {
			flags = f.ByteOrder.Uint32(data[36:])
		}
	}
	switch f.Machine {
	case elf.EM_AMDGPU:
		return "amdgcn-amd-amdhsa", amdgpuMach[flags&0xff], nil
	case elf.EM_CUDA:
		sm := flags & 0xff
		if f.ABIVersion >= 8 { // CUDA 12.8+ moved the SM to bits 8..15
			sm = (flags >> 8) & 0xff
		}
		return "nvptx64-nvidia-cuda", fmt.Sprintf("sm_%d", sm), nil
	case elf.EM_X86_64:
		return "x86_64-unknown-linux-gnu", "", nil
	case elf.EM_AARCH64:
		return "aarch64-unknown-linux-gnu", "", nil
	case elf.EM_PPC64:
		if f.ByteOrder.String() == "LittleEndian" {
			return "powerpc64le-unknown-linux-gnu", "", nil
		}
		return "powerpc64-unknown-linux-gnu", "", nil
	}
	return "", "", fmt.Errorf("unsupported ELF machine %s", f.Machine)
}
