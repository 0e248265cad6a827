package format

import "github.com/offload-kit/offload-kit/internal/enumname"

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
	imgLast      ImageKind = 7 // LLVM's IMG_LAST: one past the kinds it defines
)

// Name tables of ImageKind (see internal/enumname).
var (
	// imageKindExts serves both directions of LLVM 22.1.8's extension
	// mapping (getImageKind, getImageKindName); IMG_None and SPIR-V have
	// no extension.
	imageKindExts = []string{ImgObject: "o", ImgBitcode: "bc", ImgCubin: "cubin",
		ImgFatbinary: "fatbin", ImgPTX: "s"}
	// imageKindDumpNames are llvm-objdump --offloading's names.
	imageKindDumpNames = []string{ImgObject: "elf", ImgBitcode: "llvm ir", ImgCubin: "cubin",
		ImgFatbinary: "fatbinary", ImgPTX: "ptx"}
	// imageKindNames are our own names, for diagnostics and JSON.
	imageKindNames = []string{ImgNone: "none", ImgObject: "object", ImgBitcode: "bitcode",
		ImgCubin: "cubin", ImgFatbinary: "fatbinary", ImgPTX: "ptx", ImgSPIRV: "spirv"}
)

// ImageKindFromExt maps a file extension (without the dot) to an image kind
// exactly as LLVM 22.1.8's getImageKind does ("spv" is IMG_None there).
func ImageKindFromExt(ext string) ImageKind {
	k, _ := enumname.Parse[ImageKind](imageKindExts, ext)
	return k // ImgNone when ext is no kind's
}

// Ext is LLVM 22.1.8's getImageKindName: the extension used for extracted
// files; "" for IMG_None, SPIR-V and out-of-range values.
func (k ImageKind) Ext() string {
	s, _ := enumname.Lookup(imageKindExts, k)
	return s
}

// DumpName is the name llvm-objdump --offloading prints for the kind.
func (k ImageKind) DumpName() string {
	if s, ok := enumname.Lookup(imageKindDumpNames, k); ok {
		return s
	}
	return "<none>"
}

// String gives a readable name for diagnostics and JSON.
func (k ImageKind) String() string { return enumname.Name(imageKindNames, k, "ImageKind") }

// OffloadKind is the producing offload model (uint16 bit values).
type OffloadKind uint16

const (
	OfkNone   OffloadKind = 0
	OfkOpenMP OffloadKind = 1
	OfkCuda   OffloadKind = 2
	OfkHIP    OffloadKind = 4
	OfkSYCL   OffloadKind = 8
	ofkLast   OffloadKind = 16 // LLVM's OFK_LAST: one past the bits it defines
)

// offloadKindNames serves LLVM's getOffloadKind and getOffloadKindName.
var offloadKindNames = []string{OfkOpenMP: "openmp", OfkCuda: "cuda", OfkHIP: "hip", OfkSYCL: "sycl"}

// ParseOffloadKind is LLVM's getOffloadKind: case-sensitive, unknown → 0.
func ParseOffloadKind(s string) OffloadKind {
	k, _ := enumname.Parse[OffloadKind](offloadKindNames, s)
	return k // OfkNone when unknown
}

// String is LLVM's getOffloadKindName: "none" for every unknown value.
func (k OffloadKind) String() string {
	if s, ok := enumname.Lookup(offloadKindNames, k); ok {
		return s
	}
	return "none"
}
