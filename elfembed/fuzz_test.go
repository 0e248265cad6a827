package elfembed

import (
	"bytes"
	"io"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

func FuzzParse(f *testing.F) {
	testfiles.Seed(f, "testdata/*.o")
	f.Add([]byte("\x7fELF\x01\x02\x01"))
	f.Add([]byte{0, 0, 0xff, 0xff, 2, 0, 0x64, 0x86})
	// COFF short import members and a bigobj header (Sig1=0, Sig2=0xFFFF
	// both): import members have no sections.
	testfiles.Seed(f, "../format/testdata/coffimport/[a-z]*")
	f.Fuzz(func(t *testing.T, in []byte) {
		o, err := Parse(in)
		if err != nil {
			if o != nil {
				t.Fatalf("error %v with non-nil result", err)
			}
			return
		}
		for _, s := range o.Sections {
			if s.Data != nil && !bytes.Equal(s.Data, in[s.Offset:s.Offset+int64(len(s.Data))]) {
				t.Fatalf("section %d data does not match its offset", s.Index)
			}
		}
		_ = o.OffloadSections()
	})
}

// capBuffer is a bytes.Buffer that fails once it would exceed n bytes.
type capBuffer struct {
	bytes.Buffer
	n int
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.n {
		return 0, io.ErrShortWrite
	}
	return c.Buffer.Write(p)
}

// capWriter fails once more than n bytes were written.
type capWriter struct{ n int64 }

func (c *capWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.n {
		return 0, io.ErrShortWrite
	}
	c.n -= int64(len(p))
	return len(p), nil
}

// FuzzRewrite checks that Rewrite never panics, and that whatever it
// writes parses again with the added section. pick chooses a section to
// remove, so that removal paths (symbol dropping, renumbering, group
// pruning) run on mutated input.
func FuzzRewrite(f *testing.F) {
	for i, b := range testfiles.Read(f, "testdata/*.o") {
		f.Add(b, uint16(i))
	}
	f.Fuzz(func(t *testing.T, in []byte, pick uint16) {
		e := Edit{
			Add: []NewSection{
				{Name: ".llvm.offloading", Type: format.SHT_LLVM_OFFLOADING, Flags: shfExclude, Align: 8, Data: bytes.NewReader([]byte("0123456789")), Size: 10},
				{Name: "__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu", Type: format.SHT_PROGBITS, Flags: shfExclude, Align: 1, Data: bytes.NewReader([]byte{0}), Size: 1},
			},
			Concat:        true,
			Remove:        []string{".comment"},
			RenameSection: map[string]string{".data": ".data.renamed_section_name"},
			RenameSymbol:  map[string]string{"main": "a_long_renamed_main_symbol"},
		}
		if o, err := Parse(in); err == nil && len(o.Sections) > 0 {
			e.Remove = append(e.Remove, o.Sections[int(pick)%len(o.Sections)].Name)
		}
		out := &capBuffer{n: 4 << 20}
		if err := Rewrite(out, in, e); err != nil {
			return
		}
		o, err := Parse(out.Bytes())
		if err != nil {
			t.Fatalf("rewritten object does not parse: %v", err)
		}
		if o.Section("__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu") == nil {
			t.Fatal("added section missing")
		}
		// Rewriting again with no edits must also succeed.
		if err := Rewrite(&capWriter{n: 1 << 26}, out.Bytes(), Edit{}); err != nil {
			t.Fatalf("re-rewrite: %v", err)
		}
	})
}
