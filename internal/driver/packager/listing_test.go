package packager

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bundle"
)

// TestListingErrorsKeepChain: the lister's errors add where (the offset
// in the section, in the decompressed data) to the bundle reader's error
// and keep it, so errors.Is still sees the reader's sentinel.
func TestListingErrorsKeepChain(t *testing.T) {
	one := []byte("__CLANG_OFFLOAD_BUNDLE__")
	one = binary.LittleEndian.AppendUint64(one, 1)
	one = binary.LittleEndian.AppendUint64(one, 71) // the entry's data, past the cut below
	one = binary.LittleEndian.AppendUint64(one, 3)
	one = binary.LittleEndian.AppendUint64(one, 15)
	one = append(one, "hip-amdgcn-amd-amdhsa--gfx90a"[:15]...)
	short := append(one, 0x7f) // 72 bytes: the 3-byte entry at 71 runs past the end

	l := &lister{in: &input{data: short}, full: true}
	_, err := l.sectionBundles(short)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "bundle at offset 0x0: "), err)
	assert.True(t, errors.Is(err, format.ErrTruncated), "%v", err)

	z, _, err := bundle.Compress(nil, short, bundle.CompressOptions{})
	require.NoError(t, err)
	l = &lister{in: &input{data: z}, full: true}
	_, err = l.sectionBundles(z)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "failed to decompress input at offset 0x0: bundle at offset 0x0 of the decompressed data: "), err)
	assert.True(t, errors.Is(err, format.ErrTruncated), "%v", err)
}

// FuzzListContents: listing any bytes as a container file (bundle, CCOB,
// text bundle, fatbin, HCF, OffloadBinary) never panics or loops, every
// entry stored plainly lies inside the input, and printing the result
// works.
func FuzzListContents(f *testing.F) {
	one := []byte("__CLANG_OFFLOAD_BUNDLE__")
	one = binary.LittleEndian.AppendUint64(one, 1)
	one = binary.LittleEndian.AppendUint64(one, 71)
	one = binary.LittleEndian.AppendUint64(one, 3)
	one = binary.LittleEndian.AppendUint64(one, 15)
	one = append(one, "hip-amdgcn-amd-amdhsa--gfx90a:xnack-"[:15]...)
	one = append(one, "\x7fELF"...)
	f.Add(one)
	f.Add(append(append(append([]byte{}, one...), make([]byte, 9)...), one...))
	f.Add([]byte("\n; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux\n; x\n\n; __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux\n"))
	if z, _, err := bundle.Compress(nil, one, bundle.CompressOptions{}); err == nil {
		f.Add(z)
	}
	f.Add([]byte("object-id=1\n__acpp_hcf_binary_appendix"))
	f.Add([]byte{0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		l := &lister{in: &input{data: data}, deep: true, full: true}
		c, err := l.parse(data, 0)
		if err != nil || c == nil {
			return
		}
		check := func(es []DumpEntry) {
			for _, e := range es {
				if e.Offset >= 0 && (e.Offset > int64(len(data)) || e.Size > int64(len(data))-e.Offset) {
					t.Fatalf("entry %q at %d+%d outside %d bytes", e.ID, e.Offset, e.Size, len(data))
				}
				if e.data != nil && int64(len(e.data)) != e.Size {
					t.Fatalf("entry %q: %d bytes for size %d", e.ID, len(e.data), e.Size)
				}
			}
		}
		for _, b := range c.Bundles {
			check(b.Entries)
		}
		for _, fb := range c.Fatbins {
			check(fb.Entries)
		}
		var sb strings.Builder
		printContents(&sb, c, true, true, "")
	})
}

// FuzzEntryTarget: splitting any entry ID never panics, and the parts
// come from the ID.
func FuzzEntryTarget(f *testing.F) {
	for _, s := range []string{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "host-x86_64-unknown-linux", "hip-amdgcn-amd-amdhsa-gfx906", "", "-", "a-b-c-d-e-f-g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		k, tr, a := EntryTarget(id)
		if !strings.Contains(id, tr) || !strings.Contains(id, a) {
			t.Fatalf("%q -> %q %q %q", id, k, tr, a)
		}
		if first, _, _ := strings.Cut(id, "-"); k != first && !(first == "hipv4" && k == "hip") {
			t.Fatalf("%q: kind %q", id, k)
		}
		archMatches(a, id) // never panics on any target ID
	})
}
