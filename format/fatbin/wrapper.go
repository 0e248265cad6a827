package fatbin

import (
	"encoding/binary"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
)

// WrapperMagic is the first u32 of the host-side fat binary descriptor
// (__fatBinC_Wrapper_t) that nvcc and clang place in .nvFatBinSegment and
// pass to __cudaRegisterFatBinary.
const WrapperMagic = 0x466243B1

// WrapperSize is the size of the descriptor on a 64-bit host.
const WrapperSize = 24

// Wrapper is the host-side descriptor:
//
//	struct { int32 magic; int32 version; const void *data; void *filename_or_fatbins; }
//
// In a relocatable object the pointers are zero and filled in by
// relocations (R_X86_64_64 against .nv_fatbin or __nv_relfatbin at
// offset 8), so Data is only meaningful in a linked image.
type Wrapper struct {
	Magic   uint32
	Version uint32 // 1 in every fixture; 2 is reported for -rdc link output (guess)
	Data    uint64 // address of the fat binary
	Aux     uint64 // version 1: file name or 0; version 2: prelinked fatbin list (guess)
}

// ParseWrapper decodes a 64-bit little-endian wrapper at the start of b.
func ParseWrapper(b []byte) (*Wrapper, error) {
	c := binio.NewCursor(b, 0)
	w := &Wrapper{
		Magic:   c.U32("wrapper magic"),
		Version: c.U32("wrapper version"),
		Data:    c.U64("wrapper data pointer"),
		Aux:     c.U64("wrapper aux pointer"),
	}
	if err := c.Err(); err != nil {
		return nil, format.CursorError(err, "")
	}
	if w.Magic != WrapperMagic {
		return nil, format.Errorf(0, format.ErrMagic, "fatbin: wrapper magic 0x%08x, want 0x%08x", w.Magic, uint32(WrapperMagic))
	}
	if w.Version < 1 || w.Version > 2 {
		return nil, format.Errorf(4, format.ErrVersion, "fatbin: wrapper version %d", w.Version)
	}
	return w, nil
}

// AppendBinary appends the 24-byte encoding of w.
func (w *Wrapper) AppendBinary(b []byte) ([]byte, error) {
	b = binary.LittleEndian.AppendUint32(b, w.Magic)
	b = binary.LittleEndian.AppendUint32(b, w.Version)
	b = binary.LittleEndian.AppendUint64(b, w.Data)
	b = binary.LittleEndian.AppendUint64(b, w.Aux)
	return b, nil
}
