package bundler

import (
	"fmt"
	"strings"
	"testing"
)

// TestUnbundleFlags covers -hip-openmp-compatible, -allow-missing-bundles
// and repeated outputs against the reference.
func TestUnbundleFlags(t *testing.T) {
	needOracle(t)
	dir := t.TempDir()
	write(t, dir, "h.bin", []byte("host"))
	write(t, dir, "d1.bin", []byte("dev one"))
	write(t, dir, "d2.bin", []byte("dev two"))
	if r := runTheirs(t, dir, nil, "-type=bc", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,openmp-amdgcn-amd-amdhsa--gfx908",
		"-input=h.bin", "-input=d1.bin", "-input=d2.bin", "-output=b.bc"); r.code != 0 {
		t.Fatal(r)
	}
	for _, tc := range [][]string{
		{"-targets=openmp-amdgcn-amd-amdhsa--gfx90a"},
		{"-targets=openmp-amdgcn-amd-amdhsa--gfx90a", "-hip-openmp-compatible"},
		{"-targets=hipv4-amdgcn-amd-amdhsa--gfx908", "-hip-openmp-compatible"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx908:xnack+,openmp-amdgcn-amd-amdhsa--gfx908", "-hip-openmp-compatible"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx942,host-x86_64-unknown-linux-gnu", "-allow-missing-bundles"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx942,hip-amdgcn-amd-amdhsa--gfx90a"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx942,hip-amdgcn-amd-amdhsa--gfx90a,openmp-amdgcn-amd-amdhsa--gfx1100,hip-amdgcn-amd-amdhsa--gfx1030"},
		{"-targets=hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx908", "-hip-openmp-compatible", "-allow-missing-bundles"},
	} {
		t.Run(strings.Join(tc, " "), func(t *testing.T) {
			n := len(strings.Split(strings.TrimPrefix(tc[0], "-targets="), ","))
			args := append([]string{"-unbundle", "-type=bc", "-input=b.bc"}, tc...)
			var to, oo []string
			for i := 0; i < n; i++ {
				to = append(to, fmt.Sprintf("-output=t%d", i))
				oo = append(oo, fmt.Sprintf("-output=o%d", i))
			}
			rt := runTheirs(t, dir, nil, append(args, to...)...)
			ro := runOurs(t, dir, nil, append(args, oo...)...)
			if rt != ro {
				t.Fatalf("theirs %+v\nours %+v", rt, ro)
			}
			if rt.code != 0 {
				return
			}
			for i := 0; i < n; i++ {
				if a, b := read(t, dir, fmt.Sprintf("t%d", i)), read(t, dir, fmt.Sprintf("o%d", i)); string(a) != string(b) {
					t.Fatalf("output %d: %q vs %q", i, a, b)
				}
			}
		})
	}
}
