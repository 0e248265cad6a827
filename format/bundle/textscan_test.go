package bundle

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/offload-kit/offload-kit/format"
)

// scanInPieces feeds buf to a TextScanner in pieces whose sizes come from
// cuts (cycled; 0 is read as 1).
func scanInPieces(buf []byte, c string, cuts []byte) (*Bundle, error) {
	s := NewTextScanner(c)
	for i := 0; len(buf) > 0; i++ {
		n := 1
		if len(cuts) > 0 {
			n = max(1, int(cuts[i%len(cuts)]))
		}
		n = min(n, len(buf))
		if _, err := s.Write(buf[:n]); err != nil {
			return nil, err
		}
		buf = buf[n:]
	}
	return s.Close()
}

// sameAsParseText checks that the scanner, fed in pieces, finds what
// ParseText finds in the whole buffer.
func sameAsParseText(t *testing.T, buf []byte, c string, cuts []byte) {
	t.Helper()
	want, werr := ParseText(buf, c)
	got, gerr := scanInPieces(buf, c, cuts)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("ParseText error %v, TextScanner error %v", werr, gerr)
	}
	if werr != nil {
		var we, ge *format.FormatError
		if !errors.As(werr, &we) || !errors.As(gerr, &ge) || we.Off != ge.Off {
			t.Fatalf("errors differ: %v vs %v", werr, gerr)
		}
		return
	}
	if got.End != want.End || len(got.Entries) != len(want.Entries) {
		t.Fatalf("End %d, %d entries; ParseText: End %d, %d entries", got.End, len(got.Entries), want.End, len(want.Entries))
	}
	for i, e := range want.Entries {
		g := got.Entries[i]
		if g.ID != e.ID || g.Offset != e.Offset || g.Size != e.Size {
			t.Fatalf("entry %d: %q @%d +%d; ParseText: %q @%d +%d", i, g.ID, g.Offset, g.Size, e.ID, e.Offset, e.Size)
		}
	}
}

func textSeeds() [][]byte {
	var b bytes.Buffer
	WriteText(&b, ";", []Input{{ID: "host-x86_64-unknown-linux-gnu-", Data: bytes.NewReader([]byte("HOST\n")), Size: 5},
		{ID: "hip-amdgcn-amd-amdhsa--gfx90a", Data: bytes.NewReader([]byte("; __CLANG_OFFLOAD_BUNDLE____END__ x\ndev")), Size: 39}})
	seeds := [][]byte{b.Bytes(), b.Bytes()[:b.Len()-20], b.Bytes()[:b.Len()-1], append(bytes.Clone(b.Bytes()), "tail\n; __CLANG_OFFLOAD_BUNDLE____START__ x"...)}
	if ll, err := os.ReadFile("testdata/bundle-hip-gfx90a-llvm22.ll"); err == nil {
		seeds = append(seeds, ll)
	}
	seeds = append(seeds, []byte("\n; __CLANG_OFFLOAD_BUNDLE____START__ a\n\n; __CLANG_OFFLOAD_BUNDLE____END__ a"),
		[]byte("\n; __CLANG_OFFLOAD_BUNDLE____START__ \n; __CLANG_OFFLOAD_BUNDLE____START__ b\n\n; __CLANG_OFFLOAD_BUNDLE____END__ \n"))
	return seeds
}

// TestTextScannerMatchesParseText: every seed, in pieces of 1 to 64 bytes
// and at random cuts, gives ParseText's entries and End.
func TestTextScannerMatchesParseText(t *testing.T) {
	seeds := textSeeds()
	if len(seeds) < 7 {
		t.Fatal("the LLVM text bundle fixture is missing")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range seeds {
		for n := 1; n <= 64; n++ {
			sameAsParseText(t, s, ";", []byte{byte(n)})
		}
		for range 50 {
			cuts := make([]byte, 7)
			for i := range cuts {
				cuts[i] = byte(r.IntN(80))
			}
			sameAsParseText(t, s, ";", cuts)
		}
	}
}

func TestTextScannerLongID(t *testing.T) {
	s := NewTextScanner(";")
	s.Write([]byte(startMarker(";")))
	_, err := s.Write(bytes.Repeat([]byte("x"), MaxTextID+1))
	if err == nil {
		t.Fatal("an ID longer than MaxTextID was accepted")
	}
}

// FuzzTextScanner: the streaming scanner agrees with ParseText for any
// input cut anywhere.
func FuzzTextScanner(f *testing.F) {
	for _, s := range textSeeds() {
		f.Add(s, []byte{3, 1, 40})
	}
	f.Fuzz(func(t *testing.T, in, cuts []byte) {
		sameAsParseText(t, in, ";", cuts)
	})
}
