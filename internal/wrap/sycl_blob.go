package wrap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/objw"
)

// LLVM main's blob-taking SYCL registration (docs/wrapper-objects.md, "SYCL
// on LLVM main: one blob"), opt-in: SYCL (above) keeps LLVM 22's
// __sycl.tgt_bin_desc registration and its golden output.
//
// Facts, from the format definitions only (no LLVM 23 binary is installed):
// llvm-project PR #193876 ("[Offload][libsycl][clang-sycl-linker] Simplify
// SYCL Offload wrapping", merged 2026-04) replaced the descriptor with one
// OffloadBinary blob; wrapSYCLBinaries in
// llvm/lib/Frontend/Offloading/OffloadWrapper.cpp then embeds the buffer it
// is given unchanged as the internal constant ".sycl_offloading.binary"
// (unnamed_addr) in section .llvm.offloading and emits
//
//	void sycl.descriptor_reg(void)   { __sycl_register_lib(blob, size); }
//	void sycl.descriptor_unreg(void) { __sycl_unregister_lib(blob, size); }
//
// with both entry points declared void(ptr, i64), the first a constructor
// and the second a destructor of priority 1. llvm-project PR #217173
// ("[clang][SYCL] Align device binary (un)registration with
// CUDA/HIP/OpenMP", merged 2026-08-19) then dropped the destructor: the
// constructor, at priority 101, registers and passes the unregistering
// function to atexit, as OpenMP's does. SYCLBlobOptions.AtExit selects that
// later form. The blob is what clang-sycl-linker on main writes: one
// OffloadBinary (version 3, all images as entries), each image with the
// strings triple, arch and symbols, symbols in the serialized symbol table
// of llvm/Frontend/Offloading/Utility.h (AppendSYCLSymbolTable).

// SYCLBlobOptions selects the form of the blob registration.
type SYCLBlobOptions struct {
	// AtExit emits llvm-project PR #217173's form: a priority-101
	// constructor that calls __sycl_register_lib(blob, size) and then
	// atexit(sycl.descriptor_unreg). False emits PR #193876's form: a
	// priority-1 constructor and a priority-1 destructor.
	AtExit bool
}

// SYCLBlob returns a registration object that embeds blob, an
// OffloadBinary holding the SYCL device images, and passes it to the SYCL
// runtime as LLVM main does: __sycl_register_lib(const void *blob, uint64_t
// size) at startup and __sycl_unregister_lib(blob, size) at exit. blob
// must parse as OffloadBinaries (any version; SYCLBlobFromBinaries makes
// main's form from our sycl-linker's output).
func SYCLBlob(opts Options, blob []byte, bo SYCLBlobOptions) ([]byte, error) {
	return encode(BuildSYCLBlob(opts, blob, bo))
}

// BuildSYCLBlob is SYCLBlob returning the object model.
func BuildSYCLBlob(opts Options, blob []byte, bo SYCLBlobOptions) (*objw.Object, error) {
	if !bytes.HasPrefix(blob, format.OffloadBinaryMagic) {
		return nil, format.Errorf(0, format.ErrMagic, "wrap: sycl blob: not an offload binary")
	}
	if _, err := offload.ParseAll(blob, offload.ReadOptions{Align8: true}); err != nil {
		return nil, fmt.Errorf("wrap: sycl blob: %w", err)
	}
	m, err := newModule(opts)
	if err != nil {
		return nil, err
	}
	o := m.o
	// The blob's own section: SHT_LLVM_OFFLOADING and allocated, so the
	// linked program still lists its images (offload-binary.md §1 item 7).
	// Aligned to 8, OffloadBinary's alignment, so that the runtime can
	// parse it in place.
	data := o.AddSection(format.OffloadingSection, format.SHT_LLVM_OFFLOADING, format.SHF_ALLOC, 8, nil)
	off := data.Append(blob)
	o.AddSymbol(".sycl_offloading.binary", data, off, uint64(len(blob)), format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)
	emitBlobFuncs(m, m.secSym(data), int64(off), uint64(len(blob)), bo.AtExit)
	if bo.AtExit {
		m.ctorArray(101, false, m.fnOff("sycl.descriptor_reg"))
	} else {
		m.ctorArray(1, false, m.fnOff("sycl.descriptor_reg"))
		m.ctorArray(1, true, m.fnOff("sycl.descriptor_unreg"))
	}
	if _, err := m.finish(); err != nil {
		return nil, err
	}
	return o, nil
}

// emitBlobFuncs emits sycl.descriptor_reg and sycl.descriptor_unreg, each
// calling its runtime entry point with (blob, size): the address in the
// first argument register and the size in the second (x0/x1, %rcx/%rdx,
// %rdi/%rsi). With atexit the register function then passes
// sycl.descriptor_unreg to atexit.
func emitBlobFuncs(m *module, blob *objw.Symbol, blobOff int64, size uint64, atexit bool) {
	emitRegFuncs(m, blob, blobOff, &size, "sycl.descriptor_reg", "sycl.descriptor_unreg", "__sycl_register_lib", "__sycl_unregister_lib", atexit)
}

// x86MovImm loads v into the 64-bit register reg (0-7: rax, rcx, rdx, rbx,
// rsp, rbp, rsi, rdi): mov $v,%e<reg> (zero-extending) when v fits in 32
// bits, else movabs $v,%<reg>.
func x86MovImm(c *code, reg byte, v uint64) {
	if v <= math.MaxUint32 {
		c.op(0xb8 + reg)
		c.op(binary.LittleEndian.AppendUint32(nil, uint32(v))...)
		return
	}
	c.op(0x48, 0xb8+reg)
	c.op(binary.LittleEndian.AppendUint64(nil, v)...)
}

// a64MovImm64 loads v into xd: movz xd, #v[15:0], then movk for each
// further non-zero 16-bit part.
func a64MovImm64(c *code, rd uint32, v uint64) {
	c.ins(0xd2800000 | uint32(v&0xffff)<<5 | rd) // movz xd, #imm16
	for hw := uint32(1); hw < 4; hw++ {
		if part := uint32(v>>(16*hw)) & 0xffff; part != 0 {
			c.ins(0xf2800000 | hw<<21 | part<<5 | rd) // movk xd, #imm16, lsl #16*hw
		}
	}
}

// AppendSYCLSymbolTable appends the serialized symbol table that LLVM main
// stores in a SYCL image's "symbols" string (llvm::offloading::sycl in
// llvm/include/llvm/Frontend/Offloading/Utility.h, PR #193876): a u32
// count N, N u32 offsets of the names from the start of the table, then
// the names, each NUL-terminated, packed in order. All little-endian.
func AppendSYCLSymbolTable(dst []byte, names []string) ([]byte, error) {
	size := 4 + 4*uint64(len(names))
	for _, n := range names {
		if strings.IndexByte(n, 0) >= 0 {
			return dst, fmt.Errorf("wrap: sycl symbol %q contains NUL", n)
		}
		size += uint64(len(n)) + 1
	}
	if size > math.MaxUint32 {
		return dst, fmt.Errorf("wrap: sycl symbol table of %d bytes exceeds 32-bit offsets", size)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(names)))
	at := uint32(4 + 4*len(names))
	for _, n := range names {
		dst = binary.LittleEndian.AppendUint32(dst, at)
		at += uint32(len(n)) + 1
	}
	for _, n := range names {
		dst = append(dst, n...)
		dst = append(dst, 0)
	}
	return dst, nil
}

// ParseSYCLSymbolTable reads a serialized symbol table (AppendSYCLSymbolTable).
// Every offset is checked and every name must be NUL-terminated inside
// the table; errors are *format.FormatError with offsets into s.
func ParseSYCLSymbolTable(s string) ([]string, error) {
	if len(s) < 4 {
		return nil, format.Errorf(0, format.ErrTruncated, "sycl symbol table of %d bytes has no count", len(s))
	}
	n := uint64(binary.LittleEndian.Uint32([]byte(s[:4])))
	if n > uint64(len(s)-4)/4 {
		return nil, format.Errorf(0, format.ErrTruncated, "sycl symbol table: %d entries do not fit in %d bytes", n, len(s))
	}
	names := make([]string, 0, n)
	for i := uint64(0); i < n; i++ {
		at := 4 + 4*i
		off := uint64(binary.LittleEndian.Uint32([]byte(s[at : at+4])))
		if off >= uint64(len(s)) {
			return nil, format.Errorf(int64(at), format.ErrTruncated, "sycl symbol %d at 0x%x is past the end (0x%x)", i, off, len(s))
		}
		end := strings.IndexByte(s[off:], 0)
		if end < 0 {
			return nil, format.Errorf(int64(at), format.ErrTruncated, "sycl symbol %d at 0x%x is not NUL-terminated", i, off)
		}
		names = append(names, s[off:off+uint64(end)])
	}
	return names, nil
}

// SYCLSymbols returns the kernel names of a SYCL image's "symbols" string
// in either form: LLVM main's serialized table (recognised by its NUL
// bytes, which names cannot contain) or clang-sycl-linker 22's names joined
// by "\n". An empty string has no names.
func SYCLSymbols(s string) ([]string, error) {
	switch {
	case s == "":
		return nil, nil
	case strings.IndexByte(s, 0) >= 0:
		return ParseSYCLSymbolTable(s)
	default:
		return strings.Split(s, "\n"), nil
	}
}

// SYCLBlobFromBinaries converts SYCL OffloadBinaries of any version (our
// sycl-linker's and clang-sycl-linker 22's concatenated v1 binaries, or a
// v2/v3 one, compressed or not) into the blob LLVM main registers: one
// uncompressed version 3 OffloadBinary with every image as an entry, in
// input order, each keeping its kinds, flags and strings, with "symbols"
// rewritten as main's serialized table (AppendSYCLSymbolTable). Images of
// another offload kind are an error.
func SYCLBlobFromBinaries(data []byte) ([]byte, error) {
	bins, err := offload.ParseAll(data, offload.ReadOptions{Align8: true})
	if err != nil {
		return nil, err
	}
	if len(bins) == 0 {
		return nil, fmt.Errorf("wrap: sycl blob: no OffloadBinary")
	}
	imgs := make([]*offload.Image, 0, len(bins))
	for i, b := range bins {
		if b.OffloadKind != format.OfkSYCL {
			return nil, fmt.Errorf("wrap: sycl blob: image %d has offload kind %v, expected sycl", i, b.OffloadKind)
		}
		im := &offload.Image{ImageKind: b.ImageKind, OffloadKind: b.OffloadKind, Flags: b.Flags, Image: b.Image}
		for _, kv := range b.Strings {
			if kv.Key == "symbols" {
				names, err := SYCLSymbols(kv.Value)
				if err != nil {
					return nil, fmt.Errorf("wrap: sycl blob: image %d: %w", i, err)
				}
				tab, err := AppendSYCLSymbolTable(nil, names)
				if err != nil {
					return nil, err
				}
				kv.Value = string(tab)
			}
			im.Strings = append(im.Strings, kv)
		}
		imgs = append(imgs, im)
	}
	return offload.AppendBinaryV3(nil, imgs, "", 0)
}

// SYCLImagesFromBinaries decodes SYCL OffloadBinaries of any version into
// registration images for SYCL (LLVM 22's descriptor form): concatenated
// v1 binaries as our sycl-linker and clang-sycl-linker 22 write them, and
// LLVM main's single v2/v3 binary, compressed or not (a compressed v3 is
// inflated: the images are slices of the inflated body). Kernel names are
// read from "symbols" in either form (SYCLSymbols). The image bytes are not
// copied; "properties" is left to the caller, as with syclImageFromBinary.
func SYCLImagesFromBinaries(data []byte) ([]SYCLImage, error) {
	bins, err := offload.ParseAll(data, offload.ReadOptions{Align8: true})
	if err != nil {
		return nil, err
	}
	out := make([]SYCLImage, 0, len(bins))
	for i, b := range bins {
		if b.OffloadKind != format.OfkSYCL {
			return nil, fmt.Errorf("wrap: sycl: image %d has offload kind %v, expected sycl", i, b.OffloadKind)
		}
		syms, err := SYCLSymbols(b.Get("symbols"))
		if err != nil {
			return nil, fmt.Errorf("wrap: sycl: image %d: %w", i, err)
		}
		out = append(out, SYCLImage{Triple: b.Triple(), Image: b.Image, ImageKind: uint8(b.ImageKind), Symbols: syms})
	}
	return out, nil
}
