package llvmpool

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The wire protocol between a tool and its helpers, over the helper's
// standard input (requests) and output (responses), one response per
// request, in order:
//
//	frame    = length:u64le payload[length]
//	request  = op:u8 field*
//	response = status:u8 field*      (status 0: ok; 1: error, one field: the message;
//	                                  2: ok, the first field LLVM's warnings, then the results;
//	                                  3: error, the message, then LLVM's warnings)
//	field    = length:u64le bytes[length]
//
// A helper first sends a response without a request: ok with its library's
// version and path, or an error saying why it cannot serve (then exits).
const (
	opLink     byte = 1 // mode ("dis"|"link"), ident, ll out, bc out, inputs... → ()
	opAssemble byte = 2 // name, text → (bitcode)
	opCodegen  byte = 3 // name, text, triple, cpu, features → (object)
	opLTO      byte = 4 // triple, cpu, features, level, inputs... → (textual IR) (lto.go)
	// opCodegenAt is opCodegen at an optimisation level, the sixth field
	// ("0" to "3"), for targets other than SPIR-V (lto.go).
	opCodegenAt byte = 5
)

const (
	statusOK      byte = 0
	statusErr     byte = 1
	statusOKDiag  byte = 2 // ok; the first field is LLVM's warnings and notes, one per line
	statusErrDiag byte = 3 // error; the message, then LLVM's warnings and notes before it
)

// maxFrame bounds a frame read from the other side: a module larger than
// this is not a device image.
const maxFrame = 1 << 36

var errFrame = errors.New("llvmpool: malformed frame")

func appendField(b, f []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(f)))
	return append(b, f...)
}

// frame builds a payload: the leading byte, then the fields.
func frame(lead byte, fields ...[]byte) []byte {
	n := 1
	for _, f := range fields {
		n += 8 + len(f)
	}
	b := make([]byte, 8, 8+n)
	binary.LittleEndian.PutUint64(b, uint64(n))
	b = append(b, lead)
	for _, f := range fields {
		b = appendField(b, f)
	}
	return b
}

// readFrame reads one payload into buf (reused when large enough).
func readFrame(r *bufio.Reader, buf []byte) ([]byte, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint64(h[:])
	if n == 0 || n > maxFrame {
		return nil, fmt.Errorf("%w: length %d", errFrame, n)
	}
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// fields splits a payload (after its leading byte) into its fields; they
// alias p.
func fields(p []byte) (byte, [][]byte, error) {
	if len(p) == 0 {
		return 0, nil, errFrame
	}
	lead, p := p[0], p[1:]
	var out [][]byte
	for len(p) > 0 {
		if len(p) < 8 {
			return 0, nil, errFrame
		}
		n := binary.LittleEndian.Uint64(p)
		p = p[8:]
		if n > uint64(len(p)) {
			return 0, nil, errFrame
		}
		out = append(out, p[:n])
		p = p[n:]
	}
	return lead, out, nil
}
