package linkwrap

import (
	"os"
	"path/filepath"
	"strconv"
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

// TestNameMaxOutput: -o names of 240, 250 and 255 bytes link a SYCL fat
// object, with and without --save-temps (whose names derived from -o are
// shortened to fit NAME_MAX).
func TestNameMaxOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	clang := findTool(t, "clang-22", "clang")
	packager := findTool(t, "llvm-offload-binary")
	bin := buildWrapper(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "k.cpp"), []byte("[[clang::sycl_kernel_entry_point(class K)]] void k() {}\nvoid f() { k(); }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.c"), []byte("int main(void) { return 0; }\n"), 0o644))
	sh(t, dir, nil, clang, "-cc1", "-fsycl-is-device", "-triple", "spirv64", "-emit-llvm-bc", "k.cpp", "-o", "k.bc")
	sh(t, dir, nil, packager, "-o", "pkg.out", "--image=file=k.bc,triple=spirv64,arch=,kind=sycl")
	sh(t, dir, nil, clang, "-c", "m.c", "-Xclang", "-fembed-offload-object=pkg.out", "-o", "fat.o")
	env := append(os.Environ(), "PATH="+filepath.Dir(clang)+":"+os.Getenv("PATH"))
	for _, n := range []int{240, 250, 255} {
		sub := filepath.Join(dir, strconv.Itoa(n))
		require.NoError(t, os.Mkdir(sub, 0o755))
		out := filepath.Join(sub, strings.Repeat("w", n-4)+".exe")
		for _, extra := range [][]string{nil, {"--save-temps"}} {
			argv := append([]string{filepath.Join(bin, "linker-wrapper"), "--host-triple=x86_64-unknown-linux-gnu", "--linker-path=/usr/bin/ld",
				"-o", out, filepath.Join(dir, "fat.o"), "--unresolved-symbols=ignore-all", "-e", "0"}, extra...)
			stderr, err := runIn(sub, env, argv...)
			require.NoError(t, err, stderr)
			fi, err := os.Stat(out)
			require.NoError(t, err)
			assert.Positive(t, fi.Size())
		}
		ents, _ := os.ReadDir(sub)
		for _, e := range ents {
			assert.LessOrEqual(t, len(e.Name()), 255)
			assert.NotContains(t, e.Name(), ".tmp-")
		}
	}
}
