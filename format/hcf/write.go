package hcf

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/format"
)

// AppendTo appends the serialized file to dst, byte for byte as
// AdaptiveCpp's hcf_container::serialize writes it: for every node its
// key-value pairs ("key=value\n", in order), then its subnodes ("{.name\n",
// contents, "}.name\n"); the root has no markers; the marker follows the last
// header line directly, then the appendix.
//
// Content AdaptiveCpp would write but could not read back is refused with an
// error wrapping format.ErrUnsupported (Off is the output offset): newlines
// anywhere, '=' in a key, a key starting with "{.", node names with
// surrounding white space, duplicate sibling names, and the marker text in
// any name, key or value. White space at the ends of keys and values is
// written as is; AdaptiveCpp's reader drops it (see testdata/edge.hcf).
func (f *File) AppendTo(dst []byte) ([]byte, error) {
	if f.Root == nil {
		return dst, format.Errorf(0, format.ErrUnsupported, "hcf: file has no root node")
	}
	start := len(dst)
	w := writer{b: dst, start: start}
	if err := w.node(f.Root, 0, true); err != nil {
		return dst[:start], err
	}
	marker := f.Marker
	if marker == "" {
		marker = Marker
	}
	if marker != Marker && marker != LegacyMarker {
		return dst[:start], format.Errorf(int64(len(w.b)-start), format.ErrUnsupported, "hcf: unknown marker %q", marker)
	}
	w.b = append(w.b, marker...)
	return append(w.b, f.Appendix...), nil
}

// Bytes returns the serialized file.
func (f *File) Bytes() ([]byte, error) { return f.AppendTo(nil) }

type writer struct {
	b     []byte
	start int
}

func (w *writer) fail(format_ string, args ...any) error {
	return &format.FormatError{Off: int64(len(w.b) - w.start), Msg: "hcf: " + fmt.Sprintf(format_, args...), Err: format.ErrUnsupported}
}

func hasMarker(s string) bool {
	return strings.Contains(s, Marker) || strings.Contains(s, LegacyMarker)
}

func (w *writer) node(n *Node, depth int, root bool) error {
	if depth > MaxDepth {
		return w.fail("nodes nested deeper than %d", MaxDepth)
	}
	for _, kv := range n.Values {
		switch {
		case strings.ContainsAny(kv.Key, "\n=") || strings.HasPrefix(strings.TrimLeft(kv.Key, space), "{."):
			return w.fail("node %q: key %q cannot be written", n.Name, kv.Key)
		case strings.Contains(kv.Value, "\n"):
			return w.fail("node %q: value of %q contains a newline", n.Name, kv.Key)
		case hasMarker(kv.Key) || hasMarker(kv.Value):
			return w.fail("node %q: key-value pair %q contains the appendix marker", n.Name, kv.Key)
		case !root && strings.Trim(kv.Key+"="+kv.Value, space) == "}."+n.Name:
			return w.fail("node %q: key-value pair %q reads as the node's end marker", n.Name, kv.Key)
		}
		w.b = append(w.b, kv.Key...)
		w.b = append(w.b, '=')
		w.b = append(w.b, kv.Value...)
		w.b = append(w.b, '\n')
	}
	seen := make(map[string]struct{}, len(n.Children))
	for _, c := range n.Children {
		switch {
		case strings.Contains(c.Name, "\n") || strings.Trim(c.Name, space) != c.Name:
			return w.fail("node %q: subnode name %q cannot be written", n.Name, c.Name)
		case hasMarker(c.Name):
			return w.fail("node %q: subnode name contains the appendix marker", n.Name)
		}
		if _, dup := seen[c.Name]; dup {
			return w.fail("node %q: duplicate subnode %q", n.Name, c.Name)
		}
		seen[c.Name] = struct{}{}
		w.b = append(w.b, "{."...)
		w.b = append(w.b, c.Name...)
		w.b = append(w.b, '\n')
		if err := w.node(c, depth+1, false); err != nil {
			return err
		}
		w.b = append(w.b, "}."...)
		w.b = append(w.b, c.Name...)
		w.b = append(w.b, '\n')
	}
	return nil
}

// Tree renders the file in the format of the reference *.tree fixtures
// (testdata/README.md): one "kv KEY = [VALUE]" or "node [NAME]" line per
// item, indented two spaces per level, key-value pairs before subnodes;
// then one "attachment PATH size=N first=BYTES" line per node that owns an
// attachment, in document order, BYTES being the first (up to) 16 raw bytes.
func (f *File) Tree() string {
	var sb strings.Builder
	var paths []string
	var nodes []*Node
	var walk func(n *Node, depth int, path string)
	walk = func(n *Node, depth int, path string) {
		if depth > MaxDepth+1 {
			return
		}
		ind := strings.Repeat("  ", depth)
		for _, kv := range n.Values {
			sb.WriteString(ind + "kv " + kv.Key + " = [" + kv.Value + "]\n")
		}
		for _, c := range n.Children {
			sb.WriteString(ind + "node [" + c.Name + "]\n")
			p := path + "/" + c.Name
			if c.Child(BinaryNode) != nil {
				paths = append(paths, p)
				nodes = append(nodes, c)
			}
			walk(c, depth+1, p)
		}
	}
	if f.Root == nil {
		return ""
	}
	if f.Root.Child(BinaryNode) != nil {
		paths = append(paths, "/")
		nodes = append(nodes, f.Root)
	}
	walk(f.Root, 0, "")
	for i, n := range nodes {
		b, err := f.Attachment(n)
		if err != nil {
			msg := err.Error()
			if fe, ok := err.(*format.FormatError); ok {
				msg = fe.Msg // without the offset, which depends on the header size
			}
			sb.WriteString("attachment " + paths[i] + " error=" + msg + "\n")
			continue
		}
		sb.WriteString("attachment " + paths[i] + " size=" + strconv.Itoa(len(b)) + " first=" + string(b[:min(len(b), 16)]) + "\n")
	}
	return sb.String()
}
