package bundle

import (
	"bytes"

	"github.com/offload-kit/offload-kit/format"
)

// MaxTextID bounds the length of an entry ID a TextScanner collects: an
// ID line longer than this is an error (ParseText would copy it whole).
const MaxTextID = 1 << 20

// TextScanner reads a text bundle as it streams by, in pieces of any
// size, and finds what ParseText finds in the whole buffer: the same
// entries (ID, Offset and Size; Data is nil) and End. Its memory is the
// IDs, whatever the bundle's size, so a text bundle decoded from a CCOB
// blob can be listed without holding it.
type TextScanner struct {
	start, end []byte
	state      textState
	base       int64  // stream offset of the next byte Write gets
	carry      []byte // the bytes just before base that may begin a marker
	id         []byte
	last       int64 // ParseText's pos: where the current search began
	dataStart  int64
	entries    []Entry
	err        error
}

type textState uint8

const (
	seekStart textState = iota // looking for a start marker
	readID                     // collecting the ID up to the newline
	seekEnd                    // looking for the entry's end marker
	skipLine                   // skipping the rest of the end marker's line
)

// NewTextScanner returns a scanner for a text bundle with comment marker c.
func NewTextScanner(c string) *TextScanner {
	return &TextScanner{start: []byte(startMarker(c)), end: []byte(endMarker(c))}
}

// Write consumes the next bytes of the bundle. It fails only when an ID
// exceeds MaxTextID; the error stays.
func (s *TextScanner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && s.err == nil {
		var rest []byte
		switch s.state {
		case seekStart, seekEnd:
			pat := s.start
			if s.state == seekEnd {
				pat = s.end
			}
			at, r, found := s.seek(pat, p)
			rest = r
			if !found {
				break
			}
			if s.state == seekStart {
				s.state, s.id = readID, s.id[:0]
			} else {
				s.entries = append(s.entries, Entry{ID: string(s.id), Offset: s.dataStart, Size: at - s.dataStart})
				s.state = skipLine
			}
		case readID:
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				i = len(p)
			}
			if len(s.id)+i > MaxTextID {
				s.err = format.Errorf(s.base, format.ErrUnsupported, "text bundle entry ID longer than %d bytes", MaxTextID)
				return 0, s.err
			}
			s.id = append(s.id, p[:i]...)
			if i == len(p) {
				rest = nil
				break
			}
			s.dataStart, s.state = s.base+int64(i)+1, seekEnd
			rest = p[i+1:]
		case skipLine:
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				rest = nil
				break
			}
			s.last, s.state = s.base+int64(i)+1, seekStart
			rest = p[i+1:]
		}
		s.base += int64(len(p) - len(rest))
		p = rest
	}
	return n, s.err
}

// seek looks for pat in the stream from the current search start: carry
// (the bytes before p that could begin a match) and then p. found gives
// the stream offset of the match and what follows it in p; otherwise
// carry keeps the tail of the stream and rest is empty.
func (s *TextScanner) seek(pat, p []byte) (at int64, rest []byte, found bool) {
	if len(s.carry) > 0 {
		c := len(s.carry)
		j := append(s.carry, p[:min(len(p), len(pat)-1)]...)
		if i := bytes.Index(j, pat); i >= 0 {
			s.carry = s.carry[:0]
			return s.base - int64(c) + int64(i), p[i+len(pat)-c:], true
		}
		s.carry = j[:c]
	}
	if i := bytes.Index(p, pat); i >= 0 {
		s.carry = s.carry[:0]
		return s.base + int64(i), p[i+len(pat):], true
	}
	// Keep the last len(pat)-1 bytes of carry+p.
	keep := len(pat) - 1
	if len(p) >= keep {
		s.carry = append(s.carry[:0], p[len(p)-keep:]...)
	} else {
		s.carry = append(s.carry, p...)
		s.carry = s.carry[max(0, len(s.carry)-keep):]
	}
	return 0, nil, false
}

// Close ends the stream and returns what ParseText would: the entries
// and End, or ParseText's error for an entry without an end marker.
func (s *TextScanner) Close() (*Bundle, error) {
	if s.err != nil {
		return nil, s.err
	}
	end := s.last
	switch s.state {
	case seekEnd:
		return nil, format.Errorf(s.dataStart, format.ErrTruncated, "text bundle entry %s has no end marker", s.id)
	case skipLine:
		end = s.base
	}
	return &Bundle{Entries: s.entries, End: end}, nil
}
