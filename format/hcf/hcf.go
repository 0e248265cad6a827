package hcf

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
)

// Appendix markers. The header ends at the first occurrence of either.
const (
	Marker       = "__acpp_hcf_binary_appendix"
	LegacyMarker = "__hipsycl_hcf_binary_appendix" // before AdaptiveCpp commit 692326ca (2024-06)
)

// BinaryNode is the name of the subnode that records an attachment.
const BinaryNode = "__binary"

// MaxDepth bounds node nesting (the root is depth 0).
const MaxDepth = 256

// KV is one key-value pair, kept exactly as read (no trimming around '=').
type KV struct {
	Key, Value string
}

// Node is a header node: its key-value pairs in order, then its subnodes.
// The root node is implicit in the file and named "root".
type Node struct {
	Name     string
	Values   []KV
	Children []*Node
}

// NewNode returns an empty node.
func NewNode(name string) *Node { return &Node{Name: name} }

// Get returns the first value stored under key (duplicates are kept; the
// first wins, as in AdaptiveCpp's get_value).
func (n *Node) Get(key string) (string, bool) {
	for _, kv := range n.Values {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// Set replaces the first value stored under key, or appends the pair.
func (n *Node) Set(key, value string) {
	for i := range n.Values {
		if n.Values[i].Key == key {
			n.Values[i].Value = value
			return
		}
	}
	n.Values = append(n.Values, KV{key, value})
}

// Child returns the first subnode called name, or nil.
func (n *Node) Child(name string) *Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Lookup follows a path of subnode names from n; nil if any is missing.
func (n *Node) Lookup(path ...string) *Node {
	for _, p := range path {
		if n == nil {
			return nil
		}
		n = n.Child(p)
	}
	return n
}

// AddChild appends a new subnode. Sibling names must be unique, as in
// AdaptiveCpp's add_subnode.
func (n *Node) AddChild(name string) (*Node, error) {
	if n.Child(name) != nil {
		return nil, fmt.Errorf("hcf: node %q: subnode %q already exists: %w", n.Name, name, format.ErrCorrupt)
	}
	c := NewNode(name)
	n.Children = append(n.Children, c)
	return c, nil
}

// Subnode returns the subnode called name, creating it if needed.
func (n *Node) Subnode(name string) *Node {
	if c := n.Child(name); c != nil {
		return c
	}
	c := NewNode(name)
	n.Children = append(n.Children, c)
	return c
}

// List returns the names of n's subnodes: the items of a list node
// (AdaptiveCpp's get_as_list).
func (n *Node) List() []string {
	out := make([]string, len(n.Children))
	for i, c := range n.Children {
		out[i] = c.Name
	}
	return out
}

// setList adds a list subnode key with one empty subnode per item
// (AdaptiveCpp's set_as_list).
func (n *Node) setList(key string, items []string) (*Node, error) {
	l, err := n.AddChild(key)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if _, err := l.AddChild(it); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// File is a parsed HCF object. After Parse, Appendix aliases the input.
type File struct {
	Root     *Node
	Appendix []byte
	// Marker is the appendix marker read (Marker or LegacyMarker); the
	// writer uses Marker when it is empty.
	Marker string
	// HeaderSize is the length of the text header that was parsed (the
	// offset of the marker); informational.
	HeaderSize int
}

// New returns an empty file with a root node.
func New() *File { return &File{Root: NewNode("root"), Marker: Marker} }

// Options adjust parsing.
type Options struct {
	// Lenient trims white space around '=' in key-value lines, as the
	// documented grammar says (AdaptiveCpp's parser does not, so
	// "a = 1" has key "a " there), and accepts duplicate sibling names.
	Lenient bool
}

// Parse decodes an HCF object the way AdaptiveCpp does, but returns an
// error instead of a partly filled container. Errors are
// *format.FormatError values carrying the byte offset (and the line number
// in the message). On error the result is nil.
func Parse(buf []byte) (*File, error) { return ParseWith(buf, Options{}) }

// ParseWith is Parse with options.
func ParseWith(buf []byte, opt Options) (*File, error) {
	m, marker := findMarker(buf)
	if m < 0 {
		return nil, format.Errorf(int64(len(buf)), format.ErrMagic, "hcf: no %s marker", Marker)
	}
	root, err := parseHeader(buf[:m], 0, opt)
	if err != nil {
		return nil, err
	}
	a := m + len(marker)
	return &File{Root: root, Appendix: buf[a:len(buf):len(buf)], Marker: marker, HeaderSize: m}, nil
}

// findMarker returns the offset and spelling of the earliest marker.
func findMarker(buf []byte) (int, string) {
	i := bytes.Index(buf, []byte(Marker))
	j := bytes.Index(buf, []byte(LegacyMarker))
	switch {
	case i < 0 && j < 0:
		return -1, ""
	case j < 0 || (i >= 0 && i < j):
		return i, Marker
	}
	return j, LegacyMarker
}

// space is C's isspace in the "C" locale.
const space = " \t\n\v\f\r"

type open struct {
	n     *Node
	line  int
	off   int64
	names map[string]struct{} // names of n's subnodes so far
}

// parseHeader parses header text; base is its absolute offset.
func parseHeader(h []byte, base int64, opt Options) (*Node, error) {
	root := NewNode("root")
	stack := []open{{n: root, names: map[string]struct{}{}}}
	line := 0
	for pos := 0; pos < len(h); {
		line++
		end := bytes.IndexByte(h[pos:], '\n')
		var raw []byte
		if end < 0 {
			raw, end = h[pos:], len(h)
		} else {
			raw, end = h[pos:pos+end], pos+end+1
		}
		off := base + int64(pos)
		pos = end
		s := strings.Trim(string(raw), space)
		if s == "" {
			continue
		}
		top := stack[len(stack)-1]
		switch {
		case len(stack) > 1 && s == "}."+top.n.Name:
			stack = stack[:len(stack)-1]
		case strings.HasPrefix(s, "{."):
			name := strings.TrimLeft(s[2:], space)
			if len(stack) > MaxDepth {
				return nil, format.Errorf(off, format.ErrLimit, "hcf: line %d: nodes nested deeper than %d", line, MaxDepth)
			}
			if _, dup := top.names[name]; dup && !opt.Lenient {
				return nil, format.Errorf(off, format.ErrCorrupt, "hcf: line %d: duplicate subnode %q in node %q", line, name, top.n.Name)
			}
			top.names[name] = struct{}{}
			c := NewNode(name)
			top.n.Children = append(top.n.Children, c)
			stack = append(stack, open{n: c, line: line, off: off, names: map[string]struct{}{}})
		case strings.IndexByte(s, '=') >= 0:
			k, v, _ := strings.Cut(s, "=")
			if opt.Lenient {
				k, v = strings.Trim(k, space), strings.Trim(v, space)
			}
			top.n.Values = append(top.n.Values, KV{k, v})
		case strings.HasPrefix(s, "}."):
			if len(stack) == 1 {
				return nil, format.Errorf(off, format.ErrCorrupt, "hcf: line %d: end marker %q without an open node", line, s)
			}
			return nil, format.Errorf(off, format.ErrCorrupt, "hcf: line %d: end marker %q, but node %q opened at line %d is still open",
				line, s, top.n.Name, top.line)
		default:
			return nil, format.Errorf(off, format.ErrCorrupt, "hcf: line %d: %q is neither key=value nor a node marker", line, truncate(s))
		}
	}
	if len(stack) > 1 {
		top := stack[len(stack)-1]
		return nil, format.Errorf(top.off, format.ErrCorrupt, "hcf: line %d: node %q has no end marker }.%s", top.line, top.n.Name, top.n.Name)
	}
	return root, nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// binaryNode returns the __binary node of n: n itself if it is one, else
// its __binary child.
func binaryNode(n *Node) *Node {
	if n == nil {
		return nil
	}
	if n.Name == BinaryNode {
		if _, ok := n.Get("start"); ok {
			return n
		}
	}
	return n.Child(BinaryNode)
}

// HasAttachment reports whether n owns a __binary subnode (or is one).
func HasAttachment(n *Node) bool { return binaryNode(n) != nil }

// Attachment returns the bytes of n's binary attachment, aliasing
// f.Appendix. n may own a __binary subnode or be one (as in AdaptiveCpp's
// get_binary_attachment).
func (f *File) Attachment(n *Node) ([]byte, error) {
	b := binaryNode(n)
	if b == nil {
		name := "<nil>"
		if n != nil {
			name = n.Name
		}
		return nil, fmt.Errorf("hcf: node %q has no %s subnode: %w", name, BinaryNode, format.ErrCorrupt)
	}
	start, err := number(b, "start")
	if err != nil {
		return nil, err
	}
	size, err := number(b, "size")
	if err != nil {
		return nil, err
	}
	if !binio.InRange(start, size, uint64(len(f.Appendix))) {
		return nil, format.Errorf(int64(f.HeaderSize+len(f.Marker))+int64(min(start, uint64(1)<<62)), format.ErrTruncated,
			"hcf: attachment [%d, +%d) exceeds the %d-byte appendix", start, size, len(f.Appendix))
	}
	return f.Appendix[start : start+size : start+size], nil
}

func number(b *Node, key string) (uint64, error) {
	v, ok := b.Get(key)
	if !ok {
		return 0, fmt.Errorf("hcf: %s node has no %q key: %w", BinaryNode, key, format.ErrCorrupt)
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("hcf: %s %s=%q is not a number: %w", BinaryNode, key, v, format.ErrCorrupt)
	}
	return n, nil
}

// Attach appends data to the appendix and records it in a new __binary
// subnode of n, as AdaptiveCpp's attach_binary_content does.
func (f *File) Attach(n *Node, data []byte) error {
	b, err := n.AddChild(BinaryNode)
	if err != nil {
		return err
	}
	b.Values = append(b.Values, KV{"start", strconv.Itoa(len(f.Appendix))}, KV{"size", strconv.Itoa(len(data))})
	// Parse leaves no spare capacity in Appendix, so this never writes
	// into the parsed input.
	f.Appendix = append(f.Appendix, data...)
	return nil
}
