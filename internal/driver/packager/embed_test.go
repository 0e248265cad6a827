package packager

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// TestEmbedGCCObjectEndToEnd turns a gcc-built host object into a fat
// object with Embed, links it through clang 22 (and so
// clang-linker-wrapper) with the OpenMP host side of the kernels, and runs
// the program, which must report that its target region ran on the
// offload device.
func TestEmbedGCCObjectEndToEnd(t *testing.T) {
	fx := fixtures(t)
	d := t.TempDir()
	clitest.CopyInto(t, fx, d, "gmain.c", "omp.host.o", "omp.dev.o")
	clitest.Sh(t, d, "gcc", "-c", "gmain.c", "-o", "gmain.o")
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Tool: "offload-packager", Dir: d}
	require.NoError(t, Create(context.Background(), env, "dev.pkg", []string{"file=omp.dev.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp"}))
	require.NoError(t, Embed(context.Background(), env, EmbedOptions{Output: "gmain.fat.o", Host: "gmain.o", Packages: []string{"dev.pkg"}}))

	// Same section as clang's -fembed-offload-object.
	sec := string(clitest.Sh(t, d, llvmtools.Tool(t, "llvm-readelf"), "-S", "gmain.fat.o"))
	assert.Regexp(t, `\.llvm\.offloading\s+LLVM_OFFLOADING\s+0+\s+[0-9a-f]+\s+[0-9a-f]+\s+00\s+E\s+0\s+0\s+8`, sec)
	out, _, err := runDump(d, DumpOptions{Files: []string{"gmain.fat.o"}})
	require.NoError(t, err)
	assert.Contains(t, out, "OFFLOADING IMAGE [0]:\nkind            elf\narch            generic\ntriple          x86_64-unknown-linux-gnu\nproducer        openmp\n")

	clitest.Sh(t, d, llvmtools.Tool(t, "clang"), "-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "gmain.fat.o", "omp.host.o", "-o", "app")
	cmd := exec.Command(filepath.Join(d, "app"))
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	require.NoError(t, cmd.Run(), o.String())
	assert.Equal(t, "ran on device sum=4950\n", o.String())
}

// TestEmbedTwiceConcatenates: embedding into an object that already has
// offloading data appends, as ld -r does.
func TestEmbedTwiceConcatenates(t *testing.T) {
	fx := fixtures(t)
	d := t.TempDir()
	clitest.CopyInto(t, fx, d, "omp.o", "raw.pkg")
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Tool: "offload-packager", Dir: d}
	require.NoError(t, Embed(context.Background(), env, EmbedOptions{Output: "twice.o", Host: "omp.o", Packages: []string{"raw.pkg"}}))
	want, _, _ := clitest.Objdump(t, d, "twice.o")
	got, _, err := runDump(d, DumpOptions{Files: []string{"twice.o"}})
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, 5, strings.Count(got, "OFFLOADING IMAGE"))
}

// TestEmbedBadInputsLeaveNothing: errors name the file, exit non-zero and
// leave no output behind.
func TestEmbedBadInputsLeaveNothing(t *testing.T) {
	fx := fixtures(t)
	d := t.TempDir()
	clitest.CopyInto(t, fx, d, "omp.o", "trunc.pkg", "text.txt", "raw.pkg")
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Tool: "offload-packager", Dir: d}
	for _, c := range []struct {
		host, pkg, want string
	}{
		{"omp.o", "trunc.pkg", "trunc.pkg: not a valid offload package"},
		{"text.txt", "raw.pkg", "text.txt: not an ELF or COFF relocatable object"},
		{"missing.o", "raw.pkg", "missing.o: No such file or directory"},
		{"omp.o", "missing.pkg", "missing.pkg: No such file or directory"},
	} {
		err := Embed(context.Background(), env, EmbedOptions{Output: "out.o", Host: c.host, Packages: []string{c.pkg}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
		_, statErr := os.Stat(filepath.Join(d, "out.o"))
		assert.True(t, os.IsNotExist(statErr), "no partial output")
	}
	ents, _ := os.ReadDir(d)
	for _, e := range ents {
		assert.False(t, strings.Contains(e.Name(), ".tmp-"), "temporary file left: %s", e.Name())
	}
}
