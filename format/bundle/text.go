package bundle

import (
	"bytes"
	"io"

	"github.com/offload-kit/offload-kit/format"
)

// CommentFor returns the line-comment marker the reference uses for a text
// bundle of file type typ, and false for non-text types.
func CommentFor(typ string) (string, bool) {
	switch typ {
	case "i", "ii", "cui", "hipi":
		return "//", true
	case "d", "s":
		return "#", true
	case "ll":
		return ";", true
	}
	return "", false
}

// IsBinaryType reports whether typ uses the binary (or, for o/a, object)
// bundle format.
func IsBinaryType(typ string) bool {
	switch typ {
	case "bc", "o", "a", "gch", "ast":
		return true
	}
	return false
}

func startMarker(c string) string { return "\n" + c + " __CLANG_OFFLOAD_BUNDLE____START__ " }
func endMarker(c string) string   { return "\n" + c + " __CLANG_OFFLOAD_BUNDLE____END__ " }

// WriteText writes a text bundle: for each entry a start comment line, the
// data, and an end comment line, using comment marker c.
func WriteText(w io.Writer, c string, entries []Input) (int64, error) {
	cw := &countWriter{w: w}
	for _, e := range entries {
		if _, err := io.WriteString(cw, startMarker(c)+e.ID+"\n"); err != nil {
			return cw.n, err
		}
		if e.Size > 0 {
			n, err := io.Copy(cw, io.LimitReader(e.Data, e.Size))
			if err != nil {
				return cw.n, err
			}
			if n != e.Size {
				return cw.n, io.ErrUnexpectedEOF
			}
		}
		if _, err := io.WriteString(cw, endMarker(c)+e.ID+"\n"); err != nil {
			return cw.n, err
		}
	}
	return cw.n, nil
}

// ParseText scans a text bundle with comment marker c the way the
// reference reads one sequentially: each start line gives an ID, the data
// runs to the next end marker. Text without markers has no entries.
func ParseText(buf []byte, c string) (*Bundle, error) {
	start, end := []byte(startMarker(c)), []byte(endMarker(c))
	b := &Bundle{}
	pos := 0
	for {
		i := bytes.Index(buf[pos:], start)
		if i < 0 {
			break
		}
		idStart := pos + i + len(start)
		nl := bytes.IndexByte(buf[idStart:], '\n')
		if nl < 0 {
			break
		}
		id := string(buf[idStart : idStart+nl])
		dataStart := idStart + nl + 1
		j := bytes.Index(buf[dataStart:], end)
		if j < 0 {
			return nil, format.Errorf(int64(dataStart), format.ErrTruncated, "text bundle entry %s has no end marker", id)
		}
		dataEnd := dataStart + j
		b.Entries = append(b.Entries, Entry{ID: id, Offset: int64(dataStart), Size: int64(j), Data: buf[dataStart:dataEnd:dataEnd]})
		k := bytes.IndexByte(buf[dataEnd+1:], '\n')
		if k < 0 {
			pos = len(buf)
			break
		}
		pos = dataEnd + 1 + k + 1
	}
	b.End = int64(pos)
	return b, nil
}

// TextSize is the number of bytes WriteText writes for entries.
func TextSize(c string, entries []Input) int64 {
	var n int64
	for _, e := range entries {
		n += int64(len(startMarker(c))+len(endMarker(c))+2*len(e.ID)+2) + e.Size
	}
	return n
}
