package bundler

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/offload-kit/offload-kit/format/bundle"
)

// TestMalformedBundles compares -list and unbundling of damaged bundles:
// the reference silently keeps the entries read before the damage.
func TestMalformedBundles(t *testing.T) {
	needOracle(t)
	dir := t.TempDir()
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx1100"}
	good, err := bundle.AppendBinary(nil, ids, [][]byte{[]byte("host"), []byte("dev-a"), []byte("dev-b")}, 1)
	if err != nil {
		t.Fatal(err)
	}
	set64 := func(off int, v uint64) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint64(b[off:], v)
		return b
	}
	e1 := 32 + 24 + len(ids[0]) // second table entry
	cases := map[string][]byte{
		"count+2":       set64(24, 5),
		"count huge":    set64(24, 1<<62),
		"truncated":     good[:e1+10],
		"bad offset":    set64(e1, 1<<40),
		"zero offset":   set64(e1, 0),
		"long id":       set64(e1+16, 1<<50),
		"size overflow": set64(e1+8, ^uint64(0)-2),
		"header only":   good[:32],
		"magic only":    good[:24],
		"dup ids": func() []byte {
			b, _ := bundle.AppendBinary(nil, []string{ids[1], ids[1]}, [][]byte{[]byte("one"), []byte("two")}, 1)
			return b
		}(),
	}
	// The reference crashes (reads uninitialised iterators or out of
	// bounds) on these; we only require sane behaviour from ours.
	crash := map[string]bool{"count+2": true, "count huge": true, "bad offset": true, "zero offset": true, "long id": true, "size overflow": true}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if crash[name] {
				write(t, dir, "m.bc", data)
				if r := runOurs(t, dir, nil, "-list", "-type=bc", "-input=m.bc"); r.code != 0 {
					t.Fatalf("%+v", r)
				}
				return
			}
			write(t, dir, "m.bc", data)
			lt := runTheirs(t, dir, nil, "-list", "-type=bc", "-input=m.bc")
			lo := runOurs(t, dir, nil, "-list", "-type=bc", "-input=m.bc")
			if lt.code < 0 || lt.code >= 128 {
				t.Logf("the reference crashes listing this; we print %q", lo.stdout)
			} else if lt != lo {
				t.Fatalf("list: theirs %+v ours %+v", lt, lo)
			}
			if name == "size overflow" {
				return // the reference reads out of bounds here
			}
			args := []string{"-unbundle", "-type=bc", "-targets=hip-amdgcn-amd-amdhsa--gfx90a,host-x86_64-unknown-linux-gnu", "-input=m.bc", "-allow-missing-bundles"}
			rt := runTheirs(t, dir, nil, append(args, "-output=t0", "-output=t1")...)
			ro := runOurs(t, dir, nil, append(args, "-output=o0", "-output=o1")...)
			if rt.code < 0 || rt.code >= 128 {
				t.Logf("the reference crashes unbundling this; we exit %d", ro.code)
				return
			}
			if rt != ro {
				t.Fatalf("unbundle: theirs %+v ours %+v", rt, ro)
			}
			for i := 0; i < 2; i++ {
				if a, b := read(t, dir, fmt.Sprintf("t%d", i)), read(t, dir, fmt.Sprintf("o%d", i)); !bytes.Equal(a, b) {
					t.Fatalf("output %d: %q vs %q", i, a, b)
				}
			}
		})
	}
}
