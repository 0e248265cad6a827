package linkwrap

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/codeobj"
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
		return "amdgcn-amd-amdhsa", codeobj.AMDGPUProcessor(flags), nil
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
