package codeobj

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

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
	// SizeFrom says where Size comes from; SizeUnknown (Size is 0) when
	// nothing gives it.
	SizeFrom SizeSource
	// Resources is set where the object records them (AMDGPU kernels,
	// cubin functions).
	Resources *Resources
}

// SizeSource names where a function's size comes from.
type SizeSource string

const (
	SizeUnknown SizeSource = ""       // nothing records it (e.g. st_size 0 in a NOBITS section)
	SizeSymbol  SizeSource = "symbol" // the symbol's st_size
	// SizeLayout: the symbol has st_size 0 (hand-written assembly, such
	// as Tensile's code objects), so the function runs to the next
	// function symbol of its section, or to the section's end.
	SizeLayout SizeSource = "layout"
	SizeText   SizeSource = "text"  // PTX: bytes from the directive's line to the closing brace
	SizeWords  SizeSource = "words" // SPIR-V: 4 × the words from OpFunction to OpFunctionEnd
	// SizeBitcode: LLVM bitcode, the bytes of the function's FUNCTION_BLOCK
	// (4 × llvm-bcanalyzer's NumWords; format/bitcode.FunctionBodies).
	SizeBitcode SizeSource = "bitcode"
)

// Resources are what a kernel needs from the hardware, as recorded in
// the code object. Recorded says which fields the object records: a
// field not in it is unknown (and zero), which is not the same as a
// recorded zero. JSON has exactly the recorded fields.
type Resources struct {
	SGPRs      int64 // AMDGPU .sgpr_count
	VGPRs      int64 // AMDGPU .vgpr_count
	AGPRs      int64 // AMDGPU .agpr_count
	Registers  int64 // NVIDIA per-thread registers, as cuobjdump -res-usage's REG (see parseCubin)
	LDS        int64 // AMDGPU group segment / NVIDIA static shared memory, bytes
	Scratch    int64 // AMDGPU private segment / NVIDIA local frame (EIATTR_FRAME_SIZE), bytes per work-item
	Stack      int64 // NVIDIA EIATTR_MIN_STACK_SIZE of a kernel (cuobjdump STACK)
	Constant   int64 // NVIDIA .nv.constant0.<name> bytes
	Kernarg    int64 // AMDGPU kernarg segment bytes
	SGPRSpills int64 // AMDGPU .sgpr_spill_count
	VGPRSpills int64 // AMDGPU .vgpr_spill_count
	MaxThreads int64 // AMDGPU .max_flat_workgroup_size; NVIDIA EIATTR_MAX_THREADS (or REQNTID) x*y*z

	Recorded ResourceSet
}

// ResourceSet is a set of Resources fields.
type ResourceSet uint16

// The Resources fields, in JSON order.
const (
	ResSGPRs ResourceSet = 1 << iota
	ResVGPRs
	ResAGPRs
	ResRegisters
	ResLDS
	ResScratch
	ResStack
	ResConstant
	ResKernarg
	ResSGPRSpills
	ResVGPRSpills
	ResMaxThreads
)

// resourceFields lists each field with its JSON key, in order.
var resourceFields = [...]struct {
	bit ResourceSet
	key string
	get func(r *Resources) *int64
}{
	{ResSGPRs, "sgprs", func(r *Resources) *int64 { return &r.SGPRs }},
	{ResVGPRs, "vgprs", func(r *Resources) *int64 { return &r.VGPRs }},
	{ResAGPRs, "agprs", func(r *Resources) *int64 { return &r.AGPRs }},
	{ResRegisters, "registers", func(r *Resources) *int64 { return &r.Registers }},
	{ResLDS, "lds", func(r *Resources) *int64 { return &r.LDS }},
	{ResScratch, "scratch", func(r *Resources) *int64 { return &r.Scratch }},
	{ResStack, "stack", func(r *Resources) *int64 { return &r.Stack }},
	{ResConstant, "constant", func(r *Resources) *int64 { return &r.Constant }},
	{ResKernarg, "kernarg", func(r *Resources) *int64 { return &r.Kernarg }},
	{ResSGPRSpills, "sgpr_spills", func(r *Resources) *int64 { return &r.SGPRSpills }},
	{ResVGPRSpills, "vgpr_spills", func(r *Resources) *int64 { return &r.VGPRSpills }},
	{ResMaxThreads, "max_threads", func(r *Resources) *int64 { return &r.MaxThreads }},
}

// Has reports whether the object records every field of s.
func (r *Resources) Has(s ResourceSet) bool { return r != nil && r.Recorded&s == s }

// fieldOf is the field of r that bit s names.
func fieldOf(r *Resources, s ResourceSet) *int64 {
	for _, f := range resourceFields {
		if f.bit == s {
			return f.get(r)
		}
	}
	return nil
}

// set records field s as v.
func (r *Resources) set(s ResourceSet, v int64) {
	*fieldOf(r, s) = v
	r.Recorded |= s
}

// MarshalJSON writes the recorded fields only, in declaration order.
func (r Resources) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for _, f := range resourceFields {
		if r.Recorded&f.bit == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, f.key...)
		b = append(b, '"', ':')
		b = strconv.AppendInt(b, *f.get(&r), 10)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes: the keys present are the
// recorded fields.
func (r *Resources) UnmarshalJSON(b []byte) error {
	var m map[string]int64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*r = Resources{}
	for _, f := range resourceFields {
		if v, ok := m[f.key]; ok {
			*f.get(r) = v
			r.Recorded |= f.bit
		}
	}
	return nil
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
// Every parser is bounds-checked (ELF through format.ParseELF) and fuzzed
// (FuzzParse), so none needs a recover.
func ParseKind(data []byte, k Kind) (*Object, error) {
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
	var funcs []elfSymbol
	err = f.symbols(func(_ int, s *elfSymbol) {
		if s.typ() == sttFunc && s.shndx != 0 {
			funcs = append(funcs, *s)
		}
	})
	if err != nil {
		return nil, err
	}
	from := f.layoutSizes(funcs)
	for i := range funcs {
		s := &funcs[i]
		fn := Function{Name: s.name, Kernel: strings.HasPrefix(s.name, "__omp_offloading_"), Offset: -1, Size: int64(s.size), SizeFrom: from[i]}
		if off, _, ok := f.fileRange(s); ok {
			fn.Offset = int64(off)
		}
		o.Functions = append(o.Functions, fn)
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
