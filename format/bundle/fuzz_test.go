package bundle

import (
	"bytes"
	"testing"
)

func seedBundles(f *testing.F) {
	one, _ := AppendBinary(nil, []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a"}, [][]byte{[]byte("host"), []byte("CCOB dev")}, 8)
	f.Add(one)
	f.Add(one[:40])
	f.Add([]byte("__CLANG_OFFLOAD_BUNDLE__\xff\xff\xff\xff\xff\xff\xff\xff"))
	c, _, _ := Compress(nil, one, CompressOptions{})
	f.Add(c)
	z, _, _ := Compress(nil, one, CompressOptions{Version: 2, Zlib: true})
	f.Add(z)
	f.Add(append(append(bytes.Clone(c), 0, 0), one...))
}

// FuzzParseBundle: no panics, error ⇒ nil result, entries stay in bounds,
// and Scan agrees with Parse on single bundles.
func FuzzParseBundle(f *testing.F) {
	seedBundles(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		b, err := Parse(in)
		if err != nil {
			if b != nil {
				t.Fatal("error with non-nil bundle")
			}
		} else {
			for _, e := range b.Entries {
				if e.Offset <= 0 || e.Offset+e.Size > int64(len(in)) || int64(len(e.Data)) != e.Size {
					t.Fatalf("entry out of bounds: %+v", e)
				}
			}
			if b.End > int64(len(in)) {
				t.Fatalf("end %d past input %d", b.End, len(in))
			}
			// Re-encoding the parsed entries must parse back to the same IDs.
			var ids []string
			var data [][]byte
			for _, e := range b.Entries {
				ids = append(ids, e.ID)
				data = append(data, e.Data)
			}
			out, err := AppendBinary(nil, ids, data, 1)
			if err != nil {
				t.Fatal(err)
			}
			b2, err := Parse(out)
			if err != nil || len(b2.Entries) != len(b.Entries) {
				t.Fatalf("re-encoded bundle does not parse: %v", err)
			}
		}
		lb, _ := ParseLenient(in)
		if lb == nil {
			t.Fatal("lenient parse returned nil")
		}
		items, err := Scan(in, Limits{MaxSize: 1 << 24})
		if err != nil && items != nil {
			t.Fatal("scan: error with items")
		}
		_, _ = ParseText(in, "//")
	})
}

// FuzzCCOBHeader: header decoding and decompression of hostile blobs.
func FuzzCCOBHeader(f *testing.F) {
	seedBundles(f)
	f.Add([]byte("CCOB\x03\x00\x01\x00"))
	f.Add([]byte("CCOB\x01\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00x"))
	f.Fuzz(func(t *testing.T, in []byte) {
		h, err := ParseHeader(in)
		if err == nil {
			if h.Size() == 0 || h.Size() > len(in) {
				t.Fatalf("header size %d for %d bytes", h.Size(), len(in))
			}
			if h.Version >= 2 && (h.TotalFileSize > uint64(len(in)) || h.TotalFileSize < uint64(h.Size())) {
				t.Fatalf("bad total size %d", h.TotalFileSize)
			}
			if got := h.AppendHeader(nil); !bytes.Equal(got, in[:h.Size()]) {
				t.Fatalf("header does not re-encode")
			}
		}
		d, err := Decompress(in, Limits{MaxSize: 1 << 24})
		if err != nil {
			if d != nil {
				t.Fatal("error with non-nil result")
			}
			return
		}
		if uint64(len(d.Data)) != d.Header.UncompressedSize || truncatedMD5(d.Data) != d.Header.Hash {
			t.Fatal("verified result does not match header")
		}
	})
}
