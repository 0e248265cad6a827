package format

import (
	"errors"
	"fmt"

	"github.com/offload-kit/offload-kit/internal/binio"
)

// Sentinels wrapped by every codec's errors; match them with errors.Is.
var (
	ErrTruncated   = errors.New("truncated") // a field or payload runs past the end
	ErrMagic       = errors.New("bad magic") // the bytes are not this format
	ErrVersion     = errors.New("unsupported version")
	ErrCorrupt     = errors.New("corrupt")       // structurally invalid
	ErrLimit       = errors.New("exceeds limit") // hostile size, count or depth
	ErrUnsupported = errors.New("unsupported")   // valid but not handled here
	ErrShort       = binio.ErrShort
)

// FormatError is the one error type codecs return. Off is the absolute
// offset of the failing field within the innermost buffer being decoded;
// Msg says what was wrong; Err is one of the sentinels above.
type FormatError struct {
	Off int64
	Msg string
	Err error
}

func (e *FormatError) Error() string {
	switch {
	case e.Msg == "":
		return fmt.Sprintf("%v at offset 0x%x", e.Err, e.Off)
	case e.Err == nil:
		return fmt.Sprintf("%s at offset 0x%x", e.Msg, e.Off)
	}
	return fmt.Sprintf("%s (%v) at offset 0x%x", e.Msg, e.Err, e.Off)
}

func (e *FormatError) Unwrap() error { return e.Err }

// Errorf builds a *FormatError.
func Errorf(off int64, sentinel error, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// CursorError converts an error of a binio.Cursor or binio.ReadAtCapped
// (a field or read that runs past the end) into a *FormatError with the
// same offset and message, prefix added before the message, wrapping
// ErrTruncated. Any other error, and nil, is returned unchanged.
func CursorError(err error, prefix string) error {
	var be *binio.Error
	if errors.As(err, &be) {
		return &FormatError{Off: be.Off, Msg: prefix + be.Msg, Err: ErrTruncated}
	}
	return err
}

// PathError prefixes an error with the container path once per boundary:
// "libfoo.a(bar.o): section .llvm.offloading: ...".
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

// WithPath wraps err (if non-nil) with a path component.
func WithPath(path string, err error) error {
	if err == nil {
		return nil
	}
	return &PathError{Path: path, Err: err}
}
