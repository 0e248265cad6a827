package packager

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format/bundle"
)

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
