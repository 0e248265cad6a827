package codeobj

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/offload-kit/offload-kit/format"
)

// Kind names what a code object is.
type Kind string

const (
	KindAMDGPU Kind = "amdgpu"   // AMDGPU ELF code object
	KindCubin  Kind = "cubin"    // NVIDIA cubin ELF
	KindPTX    Kind = "ptx"      // PTX text
	KindSPIRV  Kind = "spirv"    // SPIR-V module
	KindHost   Kind = "host-elf" // any other ELF (OpenMP host images)
)

// Object is what a code object holds.
type Object struct {
	Kind Kind
	// Target is what the object says about its target: the AMDGPU
	// metadata's amdhsa.target, the cubin's sm_NN, PTX's .target line,
	// the ELF machine of a host image; "" if it says nothing.
	Target    string
	Functions []Function
}

// Function is one kernel or device function.
type Function struct {
	Name   string // as stored (mangled)
	Kernel bool   // an entry point (AMDGPU .kd, CUDA entry, PTX .entry, OpEntryPoint)
	// Offset and Size locate the function's bytes in the code object:
	// machine code for ELF objects, the text from the directive to the
	// closing brace for PTX, the words from OpFunction to OpFunctionEnd
	// (Size = 4 × words) for SPIR-V. Offset is -1 where the code is not
	// stored (e.g. a cubin function in a NOBITS section).
	Offset, Size int64
	// Resources is set where the object records them (AMDGPU kernels,
	// cubin functions).
	Resources *Resources
}

// Resources are what a kernel needs from the hardware, as recorded in
// the code object. Fields a vendor does not record are zero.
type Resources struct {
	SGPRs      int64 `json:"sgprs,omitempty"`       // AMDGPU .sgpr_count
	VGPRs      int64 `json:"vgprs,omitempty"`       // AMDGPU .vgpr_count
	AGPRs      int64 `json:"agprs,omitempty"`       // AMDGPU .agpr_count
	Registers  int64 `json:"registers,omitempty"`   // NVIDIA per-thread registers (EIATTR_REGCOUNT)
	LDS        int64 `json:"lds"`                   // AMDGPU group segment / NVIDIA static shared memory, bytes
	Scratch    int64 `json:"scratch"`               // AMDGPU private segment / NVIDIA local frame, bytes per work-item
	Stack      int64 `json:"stack,omitempty"`       // NVIDIA EIATTR_MIN_STACK_SIZE (cuobjdump STACK)
	Constant   int64 `json:"constant,omitempty"`    // NVIDIA .nv.constant0.<name> bytes
	Kernarg    int64 `json:"kernarg,omitempty"`     // AMDGPU kernarg segment bytes
	SGPRSpills int64 `json:"sgpr_spills,omitempty"` // AMDGPU .sgpr_spill_count
	VGPRSpills int64 `json:"vgpr_spills,omitempty"` // AMDGPU .vgpr_spill_count
	MaxThreads int64 `json:"max_threads,omitempty"` // AMDGPU .max_flat_workgroup_size; NVIDIA EIATTR_MAX_THREADS x*y*z
}

// Code returns the function's bytes in data, the code object it was
// parsed from (nil if they are not stored).
func (fn *Function) Code(data []byte) []byte {
	if fn.Offset < 0 || fn.Offset > int64(len(data)) || fn.Size > int64(len(data))-fn.Offset {
		return nil
	}
	return data[fn.Offset : fn.Offset+fn.Size]
}

// Identify names the code object kind of data from its first bytes and,
// for ELF, its machine; ok is false for anything else (bitcode included:
// it is not a code object this package reads).
func Identify(data []byte) (Kind, bool) {
	switch {
	case len(data) >= 20 && string(data[:4]) == "\x7fELF":
		switch binary.LittleEndian.Uint16(data[18:]) {
		case emAMDGPU:
			return KindAMDGPU, true
		case emCUDA:
			return KindCubin, true
		}
		return KindHost, true
	case len(data) >= 4 && (binary.LittleEndian.Uint32(data) == spirvMagic || binary.BigEndian.Uint32(data) == spirvMagic):
		return KindSPIRV, true
	case looksLikePTX(data):
		return KindPTX, true
	}
	return "", false
}

// looksLikePTX: PTX text has a .version directive near the top.
func looksLikePTX(data []byte) bool {
	head := data[:min(len(data), 4096)]
	return bytes.Contains(head, []byte(".version")) && (bytes.Contains(head, []byte(".target")) || bytes.Contains(data, []byte(".entry")))
}

// Parse reads the kernels and functions of a code object of any kind
// Identify knows.
func Parse(data []byte) (*Object, error) {
	k, ok := Identify(data)
	if !ok {
		return nil, format.Errorf(0, format.ErrMagic, "not a code object (ELF, PTX or SPIR-V)")
	}
	return ParseKind(data, k)
}

// ParseKind reads data as a code object of kind k.
func ParseKind(data []byte, k Kind) (o *Object, err error) {
	defer func() {
		// The parsers are bounds-checked; this is a last line of defence
		// so a bug is one error, never a crash of a whole report.
		if r := recover(); r != nil {
			o, err = nil, format.Errorf(0, format.ErrCorrupt, "%s: internal error: %v", k, r)
		}
	}()
	switch k {
	case KindAMDGPU:
		return parseAMDGPU(data)
	case KindCubin:
		return parseCubin(data)
	case KindHost:
		return parseHost(data)
	case KindPTX:
		return parsePTX(data)
	case KindSPIRV:
		return parseSPIRV(data)
	}
	return nil, fmt.Errorf("codeobj: unknown kind %q", k)
}

// parseHost lists the defined STT_FUNC symbols of an ELF image. OpenMP
// host images' offloading entry points (__omp_offloading_*) are kernels.
func parseHost(data []byte) (*Object, error) {
	f, err := parseELF(data)
	if err != nil {
		return nil, err
	}
	o := &Object{Kind: KindHost, Target: machineName(f.machine)}
	err = f.symbols(func(_ int, s *elfSymbol) {
		if s.typ() != sttFunc || s.shndx == 0 {
			return
		}
		fn := Function{Name: s.name, Kernel: bytes.HasPrefix([]byte(s.name), []byte("__omp_offloading_")), Offset: -1, Size: int64(s.size)}
		if off, _, ok := f.fileRange(s); ok {
			fn.Offset = int64(off)
		}
		o.Functions = append(o.Functions, fn)
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

func machineName(m uint16) string {
	switch m {
	case emX86_64:
		return "x86_64"
	case 183:
		return "aarch64"
	case 21:
		return "ppc64"
	case 243:
		return "riscv"
	case emAMDGPU:
		return "amdgpu"
	case emCUDA:
		return "cuda"
	}
	return fmt.Sprintf("EM_%d", m)
}
