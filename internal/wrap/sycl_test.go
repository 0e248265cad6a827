package wrap

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSYCLRegistration links our SYCL wrapper object with a recording stub
// of __sycl_register_lib / __sycl_unregister_lib and checks every field the
// runtime receives against the spec's layout (§9.5).
func TestSYCLRegistration(t *testing.T) {
	src, err := filepath.Abs("testdata/sycl/stub.c")
	require.NoError(t, err)
	for _, h := range hostEnvs(t) {
		t.Run(h.name, func(t *testing.T) { testSYCLRegistration(t, h, src) })
	}
}

func testSYCLRegistration(t *testing.T, h hostEnv, src string) {
	dir := t.TempDir()
	bin := packV1(0, 8, []byte("\x03\x02\x23\x07 spirv module"), "triple", "spirv64-unknown-unknown", "arch", "", "symbols", "_ZTS6kernA\n_ZTS6kernB")
	first, err := syclImageFromBinary(bin)
	require.NoError(t, err)
	assert.Equal(t, "spirv64-unknown-unknown", first.Triple)
	assert.Equal(t, 2, len(first.Symbols))
	images := []SYCLImage{first, {Triple: "spirv64-intel", Image: []byte("second"), Symbols: []string{"_ZTS6kernA", "k3"},
		ImageKind: 6, CompileOptions: "-O2", LinkOptions: "-g"}, {Triple: "", Image: nil}}
	obj, err := SYCL(Options{Triple: h.triple}, images)
	require.NoError(t, err)
	writeFile(t, dir, "sycl.o", obj)
	inc := stubInclude(t)
	runCmd(t, dir, h.cc, inc, "-o", "prog", src, "sycl.o")
	out := h.exec(t, dir, "prog")
	want := `register version=1 images=3 null=1,1
 image 0 version=3 kind=8 format=0 target="spirv64-unknown-unknown" compile="" link="" size=17 fnv=` + fnv(first.Image) + ` props=1,1 entries=2
  entry reserved=0 version=1 kind=8 flags=0 addr=(nil) name=_ZTS6kernA size=0 data=0 aux=(nil)
  entry reserved=0 version=1 kind=8 flags=0 addr=(nil) name=_ZTS6kernB size=0 data=0 aux=(nil)
 image 1 version=3 kind=8 format=6 target="spirv64-intel" compile="-O2" link="-g" size=6 fnv=` + fnv([]byte("second")) + ` props=1,1 entries=2
  entry reserved=0 version=1 kind=8 flags=0 addr=(nil) name=_ZTS6kernA size=0 data=0 aux=(nil)
  entry reserved=0 version=1 kind=8 flags=0 addr=(nil) name=k3 size=0 data=0 aux=(nil)
 image 2 version=3 kind=8 format=0 target="" compile="" link="" size=0 fnv=` + fnv(nil) + ` props=1,1 entries=0
main: llvm_offload_entries holds 4 entries: _ZTS6kernA/8 _ZTS6kernB/8 _ZTS6kernA/8 k3/8
unregister same=1
`
	assert.Equal(t, want, out)
	if h.name == "x86_64" {
		// Windows x64 template under Linux (see gpu_test.go).
		win, err := SYCL(Options{Triple: hostTriple, winABI: true}, images)
		require.NoError(t, err)
		writeFile(t, dir, "win.o", win)
		runCmd(t, dir, h.cc, "-DMS_ABI", inc, "-o", "win", src, "win.o")
		assert.Equal(t, want, h.exec(t, dir, "win"))
	}
}

func fnv(b []byte) string {
	h := uint64(1469598103934665603)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	const hex = "0123456789abcdef"
	s := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		s[i] = hex[h&15]
		h >>= 4
	}
	return string(s)
}
