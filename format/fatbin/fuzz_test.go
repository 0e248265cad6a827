package fatbin

import (
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

func FuzzParse(f *testing.F) {
	testfiles.Seed(f, filepath.Join("testdata", "*.fatbin"))
	f.Add([]byte{0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, buf []byte) {
		files, err := Parse(buf)
		if err != nil {
			if files != nil {
				t.Fatalf("error %v with non-nil result", err)
			}
			return
		}
		for _, fb := range files {
			if fb.End() > int64(len(buf)) {
				t.Fatalf("container end %d past %d", fb.End(), len(buf))
			}
			for i := range fb.Entries {
				e := &fb.Entries[i]
				if e.Offset < 0 || e.Offset+e.Size > int64(len(buf)) || int64(len(e.Data)) != e.Size {
					t.Fatalf("entry %d payload [%d,+%d) outside %d", i, e.Offset, e.Size, len(buf))
				}
				out, err := e.Uncompressed()
				if err != nil {
					if out != nil {
						t.Fatalf("error %v with non-nil result", err)
					}
					continue
				}
				if e.Compression == CompressLZ4 && int64(len(out)) != e.UncompressedSize {
					t.Fatalf("lz4 decoded %d bytes, want %d", len(out), e.UncompressedSize)
				}
			}
		}
	})
}
