package packager

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// llvmOffloadBinary runs the oracle in dir and returns stdout, stderr
// (with the program path replaced by PROG) and the exit code.
func llvmOffloadBinary(t *testing.T, dir string, args ...string) (string, string, int) {
	p := llvmtools.Tool(t, "llvm-offload-binary")
	cmd := exec.Command(p, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), strings.ReplaceAll(errb.String(), p, "PROG"), code
}

// ours runs the llvm-offload-binary personality in-process in dir, with
// the same argv[0] the oracle gets.
func ours(dir string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	p := filepath.Join(llvmBin, "llvm-offload-binary")
	env := &Env{Stdout: &out, Stderr: &errb, Tool: p, Dir: dir, Stdin: strings.NewReader("")}
	err := OffloadBinaryMain(context.Background(), env, p, args)
	code := exitCode(&errb, p, err)
	return out.String(), strings.ReplaceAll(errb.String(), p, "PROG"), code
}

// checkParity runs llvm-offload-binary and ours with args, each in a
// fresh directory holding the fixtures names (from fx), and checks that
// they agree on the exit code, stdout, stderr and the files written.
func checkParity(t *testing.T, fx string, names []string, args ...string) {
	t.Helper()
	a, b := t.TempDir(), t.TempDir()
	clitest.CopyInto(t, fx, a, names...)
	clitest.CopyInto(t, fx, b, names...)
	wo, we, wc := llvmOffloadBinary(t, a, args...)
	go_, ge, gc := ours(b, args...)
	assert.Equal(t, wc, gc, "exit code")
	assert.Equal(t, wo, go_, "stdout")
	assert.Equal(t, we, ge, "stderr")
	assert.Equal(t, snapshot(t, a), snapshot(t, b), "files written")
}

// snapshot lists the files in dir with their size and SHA-256 (so that a
// mismatch prints a readable diff, not the bytes).
func snapshot(t *testing.T, dir string) map[string]string {
	m := map[string]string{}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		m[e.Name()] = fmt.Sprintf("%d bytes sha256:%x", len(b), sha256.Sum256(b))
	}
	return m
}

// TestExtractParity runs the same extraction with llvm-offload-binary and
// with ours in two fresh directories and compares every file written,
// stdout, stderr and the exit code.
func TestExtractParity(t *testing.T) {
	fx := fixtures(t)
	inputs := []string{"omp.o", "hip.o", "sycl.o", "merged.o", "gnu.a", "bsd.a", "raw.pkg", "concat.pkg", "coff.o", "app", "text.txt", "trunc.pkg", "padded.pkg"}
	filters := [][]string{
		{"--image=kind=openmp"},
		{"--image=kind=hip"},
		{"--image=arch=gfx90a"},
		{"--image=arch=gfx90a,file=one.bc"},
		{"--image=triple=amdgcn-amd-amdhsa,file=multi.out"},
		{"--image=kind=hip", "--image=kind=openmp", "--image=kind=sycl"},
		{"--image=arch="},
		{"--image=kind=cuda,arch=sm_90"},
		{"--image=file=all.a", "--archive"},
		{"--image=kind=hip,file=hip.a", "--archive"},
		{"--image=kind=hip", "--archive"},
		{"--image=nosuchkey=x"},
		{"--image=feature=+xnack"},
	}
	for _, in := range inputs {
		for _, f := range filters {
			name := in + " " + strings.Join(f, " ")
			t.Run(name, func(t *testing.T) {
				checkParity(t, fx, []string{in}, append([]string{in}, f...)...)
			})
		}
	}
}

// TestCLIParity compares messages and exit codes of the personality.
func TestCLIParity(t *testing.T) {
	fx := fixtures(t)
	cases := [][]string{
		{},
		{"--help"},
		{"--help-list"},
		{"--help-hidden"},
		{"--help-list-hidden"},
		{"-help"},
		{"-h"},
		{"-h", "raw.pkg"},
		{"-h=0"},
		{"-h", "a", "b"},
		{"--help=false"},
		{"--help-list=0"},
		{"--foo", "--help"},
		{"--help", "--foo"},
		{"a", "b", "--help-list"},
		{"--help-list-hidden", "--help"},
		{"--", "--help"},
		{"--foo"},
		{"-imag"},
		{"--archive=x"},
		{"--image"},
		{"-o"},
		{"-o", "x", "--image=triple=a"},
		{"-o", "x", "--image=file=nope"},
		{"-o", "/nonexistent-dir/x", "--image=file=nf.c"},
		{"raw.pkg", "-o", "x"},
		{"a", "b"},
		{"missing.pkg", "--image=kind=openmp"},
		{"raw.pkg", "--image=kind=openmp", "--archive"},
		{"-o", "x"},
		{"-o", "x", "--image=file=nf.c", "--image=file=k.hip,kind=hip,triple=t,arch=a"},
		{"-o", "x", "-image=file=nf.c,triple=t", "-image", "file=s.cpp,arch=z"},
		{"-o=x", "--image=file=nf.c,file=k.hip,kind=openmp"},
		{"-o", "x", "--image=file=omp.dev.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp,feature=+a,feature=-b"},
		{"-o", "-", "--image=file=nf.c,triple=t"},
		{"--archive", "raw.pkg", "--image=file=y.a,kind=sycl"},
		{"--", "-o"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d:%s", i, strings.Join(c, " ")), func(t *testing.T) {
			checkParity(t, fx, []string{"nf.c", "k.hip", "s.cpp", "raw.pkg", "omp.dev.o"}, c...)
		})
	}
}

// TestCreateRandomParity packages random argument sets through the CLI
// with both tools and compares the bytes (the codec-level test in
// format/offload covers many more sets).
func TestCreateRandomParity(t *testing.T) {
	fx := fixtures(t)
	r := rand.New(rand.NewPCG(7, 11))
	keys := []string{"triple", "arch", "kind", "feature", "symbols", "a", "bb", "some-longer-key-name-for-hashing", "x"}
	files := []string{"nf.c", "k.hip", "omp.dev.o", "raw.pkg", "s.cpp"}
	for i := 0; i < 40; i++ {
		var args []string
		nimg := 1 + r.IntN(3)
		for j := 0; j < nimg; j++ {
			parts := []string{"file=" + files[r.IntN(len(files))]}
			for k := r.IntN(6); k > 0; k-- {
				key := keys[r.IntN(len(keys))]
				switch r.IntN(5) {
				case 0:
					parts = append(parts, key)
				case 1:
					parts = append(parts, key+"=")
				default:
					parts = append(parts, fmt.Sprintf("%s=v%d", key, r.IntN(100)))
				}
			}
			r.Shuffle(len(parts), func(a, b int) { parts[a], parts[b] = parts[b], parts[a] })
			args = append(args, "--image="+strings.Join(parts, ","))
		}
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			checkParity(t, fx, files, append([]string{"-o", "out.pkg"}, args...)...)
		})
	}
}

// TestExtractAllNamesStayInside: with no --image every image is written and
// named; names built from hostile triples cannot leave the directory.
func TestExtractAllNamesStayInside(t *testing.T) {
	fx := fixtures(t)
	d := t.TempDir()
	clitest.CopyInto(t, fx, d, "nf.c")
	o, e, c := llvmOffloadBinary(t, d, "-o", "evil.pkg", "--image=file=nf.c,triple=../../../../tmp/escape,arch=/etc/passwd", "--image=file=nf.c,triple=..,arch=")
	require.Equal(t, 0, c, o+e)
	sub := filepath.Join(d, "out")
	require.NoError(t, os.Mkdir(sub, 0o755))
	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &out, Tool: "offload-packager", Dir: sub}
	require.NoError(t, Extract(context.Background(), env, ExtractOptions{Input: filepath.Join(d, "evil.pkg")}))
	got := snapshot(t, sub)
	var names []string
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	assert.Equal(t, []string{"evil-...1.", "evil-.._.._.._.._tmp_escape-_etc_passwd.0."}, names)
	assert.Equal(t, "Extracted: evil-.._.._.._.._tmp_escape-_etc_passwd.0.\nExtracted: evil-...1.\n", out.String())
	for n := range got {
		b, err := os.ReadFile(filepath.Join(sub, n))
		require.NoError(t, err)
		assert.Equal(t, "int f(void) { return 1; }\n", string(b))
	}
}

// TestExtractStemParity: extracted images are named after the input's
// stem, llvm::sys::path::stem's edge cases included (a dotfile's stem is
// empty, only the last extension goes).
func TestExtractStemParity(t *testing.T) {
	fx := fixtures(t)
	raw, err := os.ReadFile(filepath.Join(fx, "raw.pkg"))
	require.NoError(t, err)
	for _, name := range []string{".hidden", "a.b.pkg", "noext", "..pkg", "x."} {
		t.Run(name, func(t *testing.T) {
			a, b := t.TempDir(), t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(a, name), raw, 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(b, name), raw, 0o644))
			args := []string{name, "--image=kind=hip", "--image=kind=openmp", "--image=kind=sycl"}
			wo, we, wc := llvmOffloadBinary(t, a, args...)
			go_, ge, gc := ours(b, args...)
			assert.Equal(t, wc, gc, "exit code")
			assert.Equal(t, wo, go_, "stdout")
			assert.Equal(t, we, ge, "stderr")
			want := snapshot(t, a)
			require.Greater(t, len(want), 1, "llvm-offload-binary extracted nothing")
			assert.Equal(t, want, snapshot(t, b), "files written")
		})
	}
}
