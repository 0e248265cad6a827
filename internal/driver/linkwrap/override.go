package linkwrap

import (
	"debug/elf" // for its machine names only
	"encoding/binary"
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
	f, err := format.ParseELF(data)
	if err != nil {
		return "", "", fmt.Errorf("not an ELF file: %w", err)
	}
	switch f.Machine {
	case format.EM_AMDGPU:
		return "amdgcn-amd-amdhsa", codeobj.AMDGPUProcessor(f.Flags), nil
	case format.EM_CUDA:
		sm := f.Flags & 0xff
		if f.ABIVersion >= 8 { // CUDA 12.8+ moved the SM to bits 8..15
			sm = (f.Flags >> 8) & 0xff
		}
		return "nvptx64-nvidia-cuda", fmt.Sprintf("sm_%d", sm), nil
	case format.EM_X86_64:
		return "x86_64-unknown-linux-gnu", "", nil
	case format.EM_AARCH64:
		return "aarch64-unknown-linux-gnu", "", nil
	case format.EM_PPC64:
		if f.ByteOrder == binary.LittleEndian {
			return "powerpc64le-unknown-linux-gnu", "", nil
		}
		return "powerpc64-unknown-linux-gnu", "", nil
	}
	return "", "", fmt.Errorf("unsupported ELF machine %s", elf.Machine(f.Machine))
}
