package bundler

import (
	"strings"
	"testing"
)

// TestDiagnostics compares stdout, stderr and exit codes for option and
// target errors.
func TestDiagnostics(t *testing.T) {
	needOracle(t)
	dir := t.TempDir()
	write(t, dir, "a.bin", []byte("AAAA"))
	write(t, dir, "b.bin", []byte("BB"))
	write(t, dir, "empty.a", []byte("!<arch>\n"))
	H := "host-x86_64-unknown-linux-gnu"
	cases := [][]string{
		{},
		{"-type=bc"},
		{"-help"},
		{"--help", "-type=bc"},
		{"-h"},
		{"foo", "-type=bc"},
		{"-type=bc", "-bogus"},
		{"-type=bc", "-targets=" + H, "-input=a.bin"},
		{"-type=bc", "-input=a.bin", "-output=x"},
		{"-type=zz", "-targets=" + H, "-input=a.bin", "-output=x"},
		{"-type=bc", "-targets=" + H, "-input=missing.bin", "-output=x"},
		{"-type=bc", "-targets=" + H, "-input=a.bin", "-output=nodir/x"},
		{"-type=bc", "-targets=x86", "-input=a.bin", "-output=x"},
		{"-type=bc", "-targets=cuda-nvptx64-nvidia-cuda-sm_70", "-input=a.bin", "-output=x"},
		{"-type=bc", "-targets=host-foo-bar-baz-qux", "-input=a.bin", "-output=x"},
		{"-type=bc", "-targets=sycl-foo-bar-baz-qux", "-input=a.bin", "-output=x"},
		{"-type=bc", "-targets=" + H + "," + H, "-input=a.bin", "-input=b.bin", "-output=x"},
		{"-type=bc", "-targets=" + H + ",openmp-x86_64-unknown-linux-gnu", "-input=a.bin", "-output=x"},
		{"-type=bc", "-targets=openmp-x86_64-unknown-linux-gnu", "-input=a.bin", "-output=x"},
		{"-type=bc", "-targets=hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "-input=a.bin", "-input=b.bin", "-output=x"},
		{"-type=bc", "-targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack-,hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "-input=a.bin", "-input=b.bin", "-output=x"},
		{"-type=bc", "-targets=" + H, "-input=a.bin", "-output=x", "-output=y"},
		{"-type=a", "-targets=" + H, "-input=a.bin", "-output=x"},
		{"-type=bc", "-targets=" + H, "-input=a.bin", "-inputs=b.bin", "-output=x"},
		{"-type=bc", "-targets=" + H, "-inputs=a.bin", "-output=x"},
		{"-type=bc", "-targets=" + H, "-input=a.bin", "-outputs=x"},
		{"-type=bc", "-targets=" + H, "-input=a.bin", "-outputs=x", "-output=y"},
		{"-type=bc", "-list", "-unbundle", "-input=a.bin"},
		{"-type=bc", "-list", "-input=a.bin", "-input=b.bin"},
		{"-type=bc", "-list", "-input=a.bin", "-output=x"},
		{"-type=bc", "-list", "-input=a.bin", "-targets=" + H},
		{"-type=bc", "-list", "-input=a.bin"},
		{"-type=bc", "-list", "-input=missing"},
		{"-type=bc", "-check-input-archive", "-targets=" + H, "-input=a.bin", "-output=x"},
		{"-type=bc", "-check-input-archive", "-unbundle", "-targets=" + H, "-input=a.bin", "-output=x"},
		{"-type=bc", "-unbundle", "-targets=" + H, "-input=a.bin", "-input=b.bin", "-output=x"},
		{"-type=bc", "-unbundle", "-targets=" + H, "-input=a.bin", "-output=x", "-output=y"},
		{"-type=bc", "-unbundle", "-targets=" + H + ",host-x86_64-pc-linux-gnu", "-input=a.bin", "-output=x", "-output=y"},
		{"-type=bc", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=a.bin", "-output=x"},
		{"-type=bc", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx90a," + H, "-input=a.bin", "-output=x", "-output=y", "-allow-missing-bundles"},
		{"-type=bc", "-targets=" + H, "-input=a.bin", "-output=x", "-bundle-align=-1"},
		{"-type=bc", "-targets=" + H, "-input=a.bin", "-output=x", "-compression-level=abc"},
		{"-type=bc", "-targets=" + H, "-input=a.bin", "-output=x", "-compress=maybe"},
		{"-type=a", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=a.bin", "-output=x"},
		{"-type=a", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=empty.a", "-output=x"},
		{"-type=a", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=empty.a", "-output=x", "-allow-missing-bundles"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			rt := runTheirs(t, dir, nil, args...)
			ro := runOurs(t, dir, nil, args...)
			if len(args) > 0 && args[len(args)-1] == "-bogus" {
				// The suggestion depends on every cl::opt in libLLVM.
				rt.stderr, _, _ = strings.Cut(rt.stderr, "\n")
				ro.stderr, _, _ = strings.Cut(ro.stderr, "\n")
			}
			if rt != ro {
				t.Errorf("\ntheirs %+v\nours   %+v", rt, ro)
			}
		})
	}
}
