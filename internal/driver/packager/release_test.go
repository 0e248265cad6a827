package packager

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// The releases whose clang-offload-packager and llvm-objdump the tests
// below run: Debian's 16.0.6 and 19.1.7 and 22.1.8.
var packagerReleases = append(append([]int(nil), llvmtools.Releases...), 22)

func releaseTool(t *testing.T, major int, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("differential test skipped in -short mode")
	}
	if major == 22 {
		return llvmtools.Tool(t, name)
	}
	return llvmtools.ReleaseTool(t, major, name)
}

// releaseEnv is a driver environment in dir that behaves as LLVM major
// ($OFFLOAD_KIT_LLVM_RELEASE through the Env's LookupEnv), named argv0.
func releaseEnv(major int, dir, argv0 string, so, se *bytes.Buffer) *Env {
	return &Env{Stdout: so, Stderr: se, Tool: argv0, Dir: dir, Stdin: strings.NewReader(""),
		LookupEnv: func(k string) (string, bool) {
			if k == driverenv.ReleaseEnv {
				return fmt.Sprint(major), true
			}
			return "", false
		}}
}

type run3 struct {
	stdout, stderr string
	code           int
}

// packagerAs runs our clang-offload-packager personality as LLVM major in
// dir, argv[0] the release's own packager.
func packagerAs(t *testing.T, major int, dir string, args ...string) run3 {
	t.Helper()
	argv0 := releaseTool(t, major, "clang-offload-packager")
	var so, se bytes.Buffer
	err := OffloadBinaryMain(context.Background(), releaseEnv(major, dir, argv0, &so, &se), argv0, args)
	code := diag.ExitCode(&se, argv0, err)
	return run3{so.String(), se.String(), code}
}

// execRelease runs LLVM major's tool name in dir.
func execRelease(t *testing.T, major int, dir, name string, args ...string) run3 {
	t.Helper()
	cmd := exec.Command(releaseTool(t, major, name), args...)
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return run3{so.String(), se.String(), code}
}

func releaseFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	img := make([]byte, 100)
	for i := range img {
		img[i] = byte(i*7 + 3)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "img.bin"), img, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dev.o"), []byte("abc"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "k.bc"), []byte("BC\xc0\xde\x35\x14\x00\x00"), 0o644))
	return dir
}

// releaseImages are --image lists: what clang 16-22 pass for HIP and
// OpenMP, many keys (LLVM 16 writes them in its StringMap's order, 17 and
// later in the packager's DenseMap order), repeated keys, sycl (unknown to
// 16 and 19), and an image without triple= (refused up to 21).
var releaseImages = [][]string{
	{"--image=file=k.bc,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip"},
	{"--image=file=img.bin,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip", "--image=file=dev.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp,foo=bar"},
	{"--image=file=img.bin,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip,zeta=1,alpha=2,mmm=3,feature=+x,b=4,c=5,d=6,e=7,f=8,g=9,h=10,i=11,j=12,k=13"},
	{"--image=file=img.bin,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=cuda,a=1,a=2,kind=sycl"},
	{"--image=file=dev.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=sycl"},
	{"--image=file=img.bin,arch=gfx90a,kind=hip"},
}

// TestReleaseCreateParity packages with clang-offload-packager 16, 19 and
// 22 and with ours as each: the same bytes (kind 3 for HIP up to 19, the
// string order), stdout, stderr (22's deprecation warning, nothing
// before) and exit status.
func TestReleaseCreateParity(t *testing.T) {
	for _, major := range packagerReleases {
		for i, imgs := range releaseImages {
			a, b := releaseFixture(t), releaseFixture(t)
			args := append([]string{"-o", "out.pkg"}, imgs...)
			want := execRelease(t, major, a, "clang-offload-packager", args...)
			got := packagerAs(t, major, b, args...)
			assert.Equal(t, want, got, "LLVM %d, images %d", major, i)
			assert.Equal(t, snapshot(t, a), snapshot(t, b), "LLVM %d, images %d", major, i)
		}
	}
}

// TestReleaseReadBothNumberings: packages written by 16, 19 and 22 (HIP 3
// or 4) read by ours as each release. dump's text output is the release's
// llvm-objdump --offloading, byte for byte (kind 3 is "hip" to 16 and 19,
// "none" to 22); dump --json and extraction by kind=hip see HIP either
// way, where the releases' own packagers find nothing in the other
// numbering.
func TestReleaseReadBothNumberings(t *testing.T) {
	src := releaseFixture(t)
	var pkgs []string
	for _, w := range packagerReleases {
		name := fmt.Sprintf("p%d.pkg", w)
		r := execRelease(t, w, src, "clang-offload-packager", "-o", name, releaseImages[1][0], releaseImages[1][1])
		require.Equal(t, 0, r.code, r.stderr)
		pkgs = append(pkgs, name)
	}
	for _, major := range packagerReleases {
		for _, p := range pkgs {
			want := execRelease(t, major, src, "llvm-objdump", "--offloading", p)
			var so, se bytes.Buffer
			err := Dump(context.Background(), releaseEnv(major, src, "offload-packager", &so, &se), DumpOptions{Files: []string{p}})
			require.NoError(t, err)
			assert.Equal(t, want.stdout, so.String(), "LLVM %d dump %s", major, p)

			so.Reset()
			require.NoError(t, Dump(context.Background(), releaseEnv(major, src, "offload-packager", &so, &se), DumpOptions{Files: []string{p}, JSON: true}))
			assert.Contains(t, so.String(), `"kind": "hip"`, "LLVM %d dump --json %s", major, p)

			dir := t.TempDir()
			clitest.CopyInto(t, src, dir, p)
			r := packagerAs(t, major, dir, p, "--image=kind=hip,file=hip.out")
			require.Equal(t, 0, r.code, r.stderr)
			got, err := os.ReadFile(filepath.Join(dir, "hip.out"))
			require.NoError(t, err, "LLVM %d: kind=hip extracts nothing from %s", major, p)
			want2, err := os.ReadFile(filepath.Join(src, "img.bin"))
			require.NoError(t, err)
			assert.Equal(t, want2, got, "LLVM %d: kind=hip from %s", major, p)
		}
	}
}

// TestReleaseExtractParity extracts from each release's own packages as
// that release's packager does (same numbering), byte for byte.
func TestReleaseExtractParity(t *testing.T) {
	for _, major := range packagerReleases {
		src := releaseFixture(t)
		r := execRelease(t, major, src, "clang-offload-packager", "-o", "p.pkg", releaseImages[1][0], releaseImages[1][1])
		require.Equal(t, 0, r.code, r.stderr)
		for _, args := range [][]string{
			{"p.pkg", "--image=kind=hip,file=a.out"},
			{"p.pkg", "--image=kind=openmp"},
			{"p.pkg", "--image=kind=openmp", "--image=arch=gfx90a"},
			{"p.pkg", "--image=triple=amdgcn-amd-amdhsa,arch=gfx90a"},
			{"p.pkg", "--image=kind=hip,file=lib.a", "--archive"},
		} {
			a, b := t.TempDir(), t.TempDir()
			clitest.CopyInto(t, src, a, "p.pkg")
			clitest.CopyInto(t, src, b, "p.pkg")
			want := execRelease(t, major, a, "clang-offload-packager", args...)
			got := packagerAs(t, major, b, args...)
			// cl::opt's "Did you mean" depends on all of libLLVM's options.
			want.stderr, got.stderr = dropSuggestions(want.stderr), dropSuggestions(got.stderr)
			assert.Equal(t, want, got, "LLVM %d %v", major, args)
			assert.Equal(t, snapshot(t, a), snapshot(t, b), "LLVM %d %v", major, args)
		}
	}
}

func dropSuggestions(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.Contains(l, ": Did you mean '") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}
