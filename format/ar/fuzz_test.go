package ar

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

func FuzzParse(f *testing.F) {
	for _, n := range []string{"gnu.a", "bsd.a", "darwin.a", "thin.a", "plain-gnu.a", "coff.a", "offload-archive.a"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("!<arch>\n"))
	for _, n := range []string{"hello.o", "hello.obj"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteGNU(&buf, []WriteMember{{Name: n, Data: b}}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte("!<arch>\n#1/4            0           0     0     644     8         `\nname1234"))
	// Windows import library members (short import members) and an
	// archive of them, as llvm-dlltool writes them.
	var imps []WriteMember
	for _, b := range testfiles.Read(f, "../testdata/coffimport/*-code", "../testdata/coffimport/x86_64-*") {
		imps = append(imps, WriteMember{Name: "kernel32.dll", Data: b})
	}
	var impBuf bytes.Buffer
	if err := WriteGNU(&impBuf, imps); err != nil {
		f.Fatal(err)
	}
	f.Add(impBuf.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := Parse(in)
		if err != nil {
			if a != nil {
				t.Fatalf("error %v with non-nil result", err)
			}
			return
		}
		for _, m := range a.Members {
			if m.Data != nil && !bytes.Equal(m.Data, in[m.Offset:m.Offset+m.Size]) {
				t.Fatalf("member %q data does not match offset/size", m.Name)
			}
		}
		// What parsed re-writes and re-parses to the same members.
		if a.Thin {
			return
		}
		var w []WriteMember
		for _, m := range a.Members {
			if m.Name == "" || bytes.ContainsAny([]byte(m.Name), "\n") {
				return
			}
			w = append(w, WriteMember{m.Name, m.Data})
		}
		var buf bytes.Buffer
		if err := WriteGNU(&buf, w); err != nil {
			return // a member that looks like a malformed ELF/COFF object
		}
		b, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Members) != len(w) {
			t.Fatalf("round trip: %d members, want %d", len(b.Members), len(w))
		}
	})
}
