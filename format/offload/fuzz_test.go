package offload

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/require"
)

func fuzzSeeds(tb testing.TB) [][]byte {
	base, err := os.ReadFile("testdata/annotated-llvm22.bin")
	require.NoError(tb, err)
	imgs := []*Image{annotatedImage(), {ImageKind: format.ImgSPIRV, Strings: []KV{{"k", "v\x00w"}}, Image: []byte("xyz")}}
	v2, err := AppendBinaryV2(nil, imgs)
	require.NoError(tb, err)
	zs, err := AppendBinaryV3(nil, imgs, "zstd", 0)
	require.NoError(tb, err)
	zl, err := AppendBinaryV3(nil, imgs, "zlib", 0)
	require.NoError(tb, err)
	plain, err := AppendBinaryV3(nil, imgs, "", 0)
	require.NoError(tb, err)
	seeds := [][]byte{
		base, append(bytes.Clone(base), base...), base[:71], base[:100],
		AppendBinary(nil, &Image{}), v2, zs, zl, plain,
		append(bytes.Clone(zs), v2...), zs[:len(zs)-9], v2[:60],
		put64(base, 64, 1<<40), put64(base, 48, 1<<60),
	}
	return seeds
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := CheckHeader(data); err != nil && LLVMError(err) == err.Error() {
			t.Fatalf("CheckHeader: unclassified error %v", err)
		}
		one, n, err := Parse(data)
		if err != nil {
			if one != nil || n != 0 {
				t.Fatalf("Parse: error %v with a result", err)
			}
			var fe *format.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse: %T is not *format.FormatError", err)
			}
			if LLVMError(err) != msgParseFailed && LLVMError(err) != msgUnexpectedEOF {
				t.Fatalf("LLVMError(%v) = %q", err, LLVMError(err))
			}
		} else if n <= 0 || n > int64(len(data)) {
			t.Fatalf("Parse consumed %d of %d bytes", n, len(data))
		}
		for _, align := range []bool{false, true} {
			bins, err := ParseAll(data, ReadOptions{Align8: align, MaxInflated: 1 << 20})
			if err != nil {
				if bins != nil {
					t.Fatalf("ParseAll: error %v with a result", err)
				}
				continue
			}
			for _, b := range bins {
				if b.Version == 1 && b.Offset+int64(b.ImageOffset)+int64(len(b.Image)) > int64(len(data)) {
					t.Fatalf("image out of range")
				}
				// Whatever parsed re-encodes and parses back the same.
				img := &Image{ImageKind: b.ImageKind, OffloadKind: b.OffloadKind, Flags: b.Flags,
					Strings: b.Strings, Image: b.Image}
				if bytes.IndexByte(kvBytes(b.Strings), 0) >= 0 {
					continue // v2/v3 values may hold NULs, which v1 cannot
				}
				got, _, err := Parse(AppendBinary(nil, img))
				if err != nil {
					t.Fatalf("re-encoded binary does not parse: %v", err)
				}
				for _, kv := range b.Strings {
					if got[0].Get(kv.Key) != b.Get(kv.Key) {
						t.Fatalf("key %q: %q != %q", kv.Key, got[0].Get(kv.Key), b.Get(kv.Key))
					}
				}
				if !bytes.Equal(got[0].Image, b.Image) || got[0].ImageKind != b.ImageKind ||
					got[0].OffloadKind != b.OffloadKind || got[0].Flags != b.Flags {
					t.Fatalf("re-encoded binary differs")
				}
			}
		}
	})
}

func kvBytes(kvs []KV) []byte {
	var b []byte
	for _, kv := range kvs {
		b = append(b, kv.Key...)
		b = append(b, kv.Value...)
	}
	return b
}
