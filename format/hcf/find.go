package hcf

import (
	"bytes"

	"github.com/offload-kit/offload-kit/format"
)

// Location is an HCF object found inside a larger buffer (a host binary's
// .rodata, a memory dump).
type Location struct {
	Offset int64 // first byte of the text header
	Size   int64 // header + marker + appendix up to the last attachment's end
	File   *File // the object parsed from buf[Offset:Offset+Size]
}

// maxScanHeader bounds how far back from a marker Find looks for the start
// of the header.
const maxScanHeader = 64 << 20

// maxStarts bounds how many candidate start lines Find tries per marker.
const maxStarts = 64

// Find locates HCF objects embedded in buf (spec §6). AdaptiveCpp embeds
// them without a section or length prefix: multipass objects as a
// const unsigned char array, SSCP objects as the NUL-terminated string
// __acpp_local_sscp_hcf_content.initialized. For each appendix marker Find
// walks back over text bytes (stopping at NUL or another control byte) to
// the header start, and parses the header strictly; if that fails it
// retries from the following lines. A header whose first line has junk
// glued in front of "object-id=" starts at "object-id=".
//
// The object's end is not recorded anywhere, so Size covers the appendix
// only up to the largest start+size among the __binary nodes; appendix
// bytes no attachment references are not included. Markers inside a found
// object's appendix are skipped. Objects whose attachments run past the end
// of buf are not reported.
func Find(buf []byte) []Location {
	var out []Location
	pos := 0
	// Next occurrence of each spelling at or after pos (-1: none left),
	// searched again only once pos passes it, so the scan stays linear.
	next := [2]int{-2, -2}
	spell := [2]string{Marker, LegacyMarker}
	for pos < len(buf) {
		m, marker := -1, ""
		for k := range next {
			if next[k] == -2 || next[k] >= 0 && next[k] < pos {
				if i := bytes.Index(buf[pos:], []byte(spell[k])); i >= 0 {
					next[k] = pos + i
				} else {
					next[k] = -1
				}
			}
			if next[k] >= 0 && (m < 0 || next[k] < m) {
				m, marker = next[k], spell[k]
			}
		}
		if m < 0 {
			break
		}
		loc, ok := locate(buf, pos, m, marker)
		if !ok {
			pos = m + len(marker)
			continue
		}
		out = append(out, loc)
		pos = int(loc.Offset + loc.Size)
	}
	return out
}

func isHeaderByte(b byte) bool {
	return b >= 0x20 && b != 0x7f || b >= '\t' && b <= '\r'
}

// locate finds the object whose marker is at m; its header starts at or
// after lo (the end of whatever was scanned before).
func locate(buf []byte, lo, m int, marker string) (Location, bool) {
	s := m
	for s > lo && m-s < maxScanHeader && isHeaderByte(buf[s-1]) {
		s--
	}
	// Junk glued to the front of the first line.
	if k := bytes.Index(buf[s:m], []byte("object-id=")); k > 0 && bytes.IndexByte(buf[s:s+k], '\n') < 0 {
		s += k
	}
	// Retry from the line after each failure, within a work budget, so a
	// long header that fails late is not re-parsed over and over.
	budget := 8*(m-s) + 1<<20
	for try := 0; try < maxStarts && s < m && budget > 0; try++ {
		budget -= m - s
		root, err := parseHeader(buf[s:m], int64(s), Options{})
		if err == nil && (len(root.Values) > 0 || len(root.Children) > 0) {
			a := m + len(marker)
			need, ok := appendixNeed(root, uint64(len(buf)-a))
			if !ok {
				return Location{}, false
			}
			end := a + int(need)
			f := &File{Root: root, Appendix: buf[a:end:end], Marker: marker, HeaderSize: m - s}
			return Location{Offset: int64(s), Size: int64(end - s), File: f}, true
		}
		next := s
		if fe, ok := err.(*format.FormatError); ok && int(fe.Off) > s && int(fe.Off) < m {
			next = int(fe.Off)
		}
		nl := bytes.IndexByte(buf[next:m], '\n')
		if nl < 0 {
			break
		}
		s = next + nl + 1
	}
	return Location{}, false
}

// appendixNeed returns the largest start+size among n's __binary nodes; ok
// is false if one is malformed or exceeds limit.
func appendixNeed(n *Node, limit uint64) (need uint64, ok bool) {
	stack := []*Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Name == BinaryNode {
			if _, has := n.Get("start"); has {
				start, err1 := number(n, "start")
				size, err2 := number(n, "size")
				if err1 != nil || err2 != nil || start > limit || size > limit-start {
					return 0, false
				}
				need = max(need, start+size)
			}
		}
		stack = append(stack, n.Children...)
	}
	return need, true
}
