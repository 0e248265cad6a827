package format

import "strconv"

// ImageKind is the OffloadBinary image kind (uint16 on disk).
type ImageKind uint16

const (
	ImgNone      ImageKind = 0
	ImgObject    ImageKind = 1
	ImgBitcode   ImageKind = 2
	ImgCubin     ImageKind = 3
	ImgFatbinary ImageKind = 4
	ImgPTX       ImageKind = 5
	ImgSPIRV     ImageKind = 6
	ImgLast      ImageKind = 7
)

// ImageKindFromExt maps a file extension (without the dot) to an image kind
// exactly as LLVM 22.1.8's getImageKind does ("spv" is IMG_None there).
func ImageKindFromExt(ext string) ImageKind {
	switch ext {
	case "o":
		return ImgObject
	case "bc":
		return ImgBitcode
	case "cubin":
		return ImgCubin
	case "fatbin":
		return ImgFatbinary
	case "s":
		return ImgPTX
	}
	return ImgNone
}

// Ext is LLVM 22.1.8's getImageKindName: the extension used for extracted
// files; "" for IMG_None, SPIR-V and out-of-range values.
func (k ImageKind) Ext() string {
	switch k {
	case ImgObject:
		return "o"
	case ImgBitcode:
		return "bc"
	case ImgCubin:
		return "cubin"
	case ImgFatbinary:
		return "fatbin"
	case ImgPTX:
		return "s"
	}
	return ""
}

// DumpName is the name llvm-objdump --offloading prints for the kind.
func (k ImageKind) DumpName() string {
	switch k {
	case ImgObject:
		return "elf"
	case ImgBitcode:
		return "llvm ir"
	case ImgCubin:
		return "cubin"
	case ImgFatbinary:
		return "fatbinary"
	case ImgPTX:
		return "ptx"
	}
	return "<none>"
}

// String gives a readable name for diagnostics and JSON.
func (k ImageKind) String() string {
	switch k {
	case ImgNone:
		return "none"
	case ImgObject:
		return "object"
	case ImgBitcode:
		return "bitcode"
	case ImgCubin:
		return "cubin"
	case ImgFatbinary:
		return "fatbinary"
	case ImgPTX:
		return "ptx"
	case ImgSPIRV:
		return "spirv"
	}
	return "ImageKind(" + strconv.Itoa(int(k)) + ")"
}

// OffloadKind is the producing offload model (uint16 bit values).
type OffloadKind uint16

const (
	OfkNone   OffloadKind = 0
	OfkOpenMP OffloadKind = 1
	OfkCuda   OffloadKind = 2
	OfkHIP    OffloadKind = 4
	OfkSYCL   OffloadKind = 8
	OfkLast   OffloadKind = 16
)

// ParseOffloadKind is LLVM's getOffloadKind: case-sensitive, unknown → 0.
func ParseOffloadKind(s string) OffloadKind {
	switch s {
	case "openmp":
		return OfkOpenMP
	case "cuda":
		return OfkCuda
	case "hip":
		return OfkHIP
	case "sycl":
		return OfkSYCL
	}
	return OfkNone
}

// String is LLVM's getOffloadKindName: "none" for every unknown value.
func (k OffloadKind) String() string {
	switch k {
	case OfkOpenMP:
		return "openmp"
	case OfkCuda:
		return "cuda"
	case OfkHIP:
		return "hip"
	case OfkSYCL:
		return "sycl"
	}
	return "none"
}
