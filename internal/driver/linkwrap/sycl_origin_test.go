package linkwrap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSYCLErrorNamesOrigin: a corrupt bitcode image in a fat object, or in
// an archive member, fails the SYCL device link with an error naming the
// object ("bad.o") or the member ("libk.a(k.o)"), never the temporary
// file it was extracted to (deleted by then); one error line.
func TestSYCLErrorNamesOrigin(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	clang := findTool(t, "clang-22", "clang")
	packager := findTool(t, "llvm-offload-binary")
	ar := findTool(t, "llvm-ar")
	bin := buildWrapper(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.bc"), []byte("BC\xc0\xde\x35\x14\x00\x00\x05\x00\x00\x00\x62\x0c\x30\x24garbage"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.c"), []byte("int main(void) { return 0; }\n"), 0o644))
	sh(t, dir, nil, packager, "-o", "pkg.out", "--image=file=bad.bc,triple=spirv64,arch=,kind=sycl")
	sh(t, dir, nil, clang, "-c", "m.c", "-o", "m.o")
	sh(t, dir, nil, clang, "-c", "m.c", "-Xclang", "-fembed-offload-object=pkg.out", "-o", "bad.o")
	require.NoError(t, os.Link(filepath.Join(dir, "bad.o"), filepath.Join(dir, "k.o")))
	sh(t, dir, nil, ar, "rc", "libk.a", "k.o")
	wrapper := filepath.Join(bin, "linker-wrapper")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bad.o"}, "linker-wrapper: error: SYCL device link for spirv64: bad.o: error: Invalid bitcode signature\n"},
		{[]string{"m.o", "--whole-archive", "libk.a"}, "linker-wrapper: error: SYCL device link for spirv64: libk.a(k.o): error: Invalid bitcode signature\n"},
	} {
		argv := append([]string{wrapper, "--host-triple=x86_64-unknown-linux-gnu", "--linker-path=/usr/bin/ld", "-o", "a.out"}, c.args...)
		stderr, err := runIn(dir, append(os.Environ(), "PATH="+filepath.Dir(clang)+":"+os.Getenv("PATH")), argv...)
		require.Error(t, err, strings.Join(c.args, " "))
		assert.Equal(t, c.want, stderr)
		assert.NotContains(t, stderr, "offload-kit-")
	}
}
