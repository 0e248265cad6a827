package sycldev

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorNamesObject: a corrupt bitcode image in a fat object fails the
// link with an error naming the object, alone or beside another input,
// in-process and with LLVM as child processes (where llvm-dis, given a
// lone input, names no file at all: the error names it as in-process),
// never the deleted temporary it was extracted to.
func TestErrorNamesObject(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-offload-binary", "llvm-link", "llvm-dis")
	dir := t.TempDir()
	good := compile(t, dir, "good", splitSrcA)
	bad, pkg, host, obj := filepath.Join(dir, "bad.bc"), filepath.Join(dir, "pkg.out"), filepath.Join(dir, "host.c"), filepath.Join(dir, "bad.o")
	require.NoError(t, os.WriteFile(bad, []byte("BC\xc0\xde\x35\x14\x00\x00\x05\x00\x00\x00\x62\x0c\x30\x24garbage"), 0o644))
	require.NoError(t, os.WriteFile(host, []byte("int main(void) { return 0; }\n"), 0o644))
	for _, argv := range [][]string{
		{filepath.Join(llvmBin, "llvm-offload-binary"), "-o", pkg, "--image=file=" + bad + ",triple=spirv64,arch=,kind=sycl"},
		{filepath.Join(llvmBin, "clang"), "-c", host, "-Xclang", "-fembed-offload-object=" + pkg, "-o", obj},
	} {
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		require.NoError(t, err, "%v\n%s", argv, out)
	}
	pool := llvmpool.New(llvmpool.Config{Helpers: 1})
	defer pool.Close()
	for _, p := range []*llvmpool.Pool{pool, nil} {
		for _, inputs := range [][]string{{obj}, {obj, good}} {
			o, err := ParseArgs(append([]string{"--triple=spirv64", "-o", filepath.Join(dir, "out")}, inputs...))
			require.NoError(t, err)
			env, _, _ := testEnv()
			env.LLVM = p
			err = Run(context.Background(), env, *o)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "offload-kit-", "no temporary named")
			switch {
			case p != nil, len(inputs) == 1:
				// a lone input goes straight to llvm-dis, whose message
				// names no file at all: the error names the object as
				// in-process
				assert.Equal(t, obj+": error: Invalid bitcode signature", err.Error(), inputs)
			default:
				assert.Contains(t, err.Error(), "llvm-link: "+filepath.Join(llvmBin, "llvm-link")+": "+obj+": error: Invalid bitcode signature")
			}
		}
	}
}
