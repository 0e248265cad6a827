package hcf

import (
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

func FuzzParse(f *testing.F) {
	testfiles.Seed(f, filepath.Join("testdata", "*.hcf"))
	f.Add([]byte(docExample))
	f.Add([]byte("{.a\n{.a\n}.a\n}.a\n" + LegacyMarker))
	f.Add([]byte("\x00object-id=1\r\n" + Marker + "\x00"))
	f.Fuzz(func(t *testing.T, buf []byte) {
		for _, opt := range []Options{{}, {Lenient: true}} {
			file, err := ParseWith(buf, opt)
			if err != nil {
				if file != nil {
					t.Fatalf("error %v with non-nil result", err)
				}
				continue
			}
			tree := file.Tree()
			walkAttachments(t, file, file.Root, 0)
			// Whatever parses and can be written reads back as the same tree.
			out, err := file.Bytes()
			if err != nil {
				continue
			}
			back, err := ParseWith(out, opt)
			if err != nil {
				t.Fatalf("rewritten file does not parse: %v\n%q", err, out)
			}
			if got := back.Tree(); got != tree {
				t.Fatalf("tree changed on rewrite:\n%s\nvs\n%s", tree, got)
			}
		}
		for _, l := range Find(buf) {
			if l.Offset < 0 || l.Size <= 0 || l.Offset+l.Size > int64(len(buf)) {
				t.Fatalf("location [%d,+%d) outside %d", l.Offset, l.Size, len(buf))
			}
			if _, err := Parse(buf[l.Offset : l.Offset+l.Size]); err != nil {
				t.Fatalf("found object does not parse alone: %v", err)
			}
		}
	})
}

func walkAttachments(t *testing.T, f *File, n *Node, depth int) {
	if depth > MaxDepth+1 {
		t.Fatal("tree deeper than MaxDepth")
	}
	b, err := f.Attachment(n)
	if err != nil && b != nil {
		t.Fatalf("error %v with non-nil attachment", err)
	}
	for _, c := range n.Children {
		walkAttachments(t, f, c, depth+1)
	}
}
