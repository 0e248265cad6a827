package hardening

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outputCase is one command that writes an output named on its command
// line ("OUT" in args stands for it).
type outputCase struct {
	name  string
	tool  string // a built tool, or an absolute path (the LLVM oracle)
	setup func(t *testing.T, dir string) []string
}

func imageArg(dir string) string {
	return "--image=file=" + filepath.Join(dir, "dev.o") + ",triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp"
}

func outputInputs(t *testing.T, dir string) {
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dev.o"), []byte("\x7fELF device code for the output tests"), 0o644))
	copyFixture(t, dir, "elfembed/testdata/hello-x86_64-linux-gnu.o", "host.o")
	copyFixture(t, dir, "elfembed/testdata/pkg.out", "a.pkg")
}

const bundleTargets = "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a"

var outputCases = []outputCase{
	{"create", "offload-packager", func(t *testing.T, d string) []string {
		return []string{"create", "-o", "OUT", imageArg(d)}
	}},
	{"extract", "offload-packager", func(t *testing.T, d string) []string {
		pkg := filepath.Join(d, "dev.pkg")
		runOK(t, d, nil, nil, toolPath(t, "offload-packager"), "create", "-o", pkg, imageArg(d))
		return []string{"extract", pkg, "--image=kind=openmp,file=OUT"}
	}},
	{"embed", "offload-packager", func(t *testing.T, d string) []string {
		return []string{"embed", "-o", "OUT", filepath.Join(d, "host.o"), filepath.Join(d, "a.pkg")}
	}},
	{"bundle", "offload-packager", func(t *testing.T, d string) []string {
		return []string{"bundle", "-type=o", bundleTargets, "-input=/dev/null", "-input=" + filepath.Join(d, "dev.o"), "-output=OUT"}
	}},
	{"bundle-compress", "clang-offload-bundler", func(t *testing.T, d string) []string {
		return []string{"-type=o", bundleTargets, "-compress", "-input=/dev/null", "-input=" + filepath.Join(d, "dev.o"), "-output=OUT"}
	}},
	{"unbundle", "clang-offload-bundler", func(t *testing.T, d string) []string {
		b := filepath.Join(d, "in.hipfb")
		out, err := exec.Command(toolPath(t, "clang-offload-bundler"), "-type=o", bundleTargets, "-input=/dev/null", "-input="+filepath.Join(d, "dev.o"), "-output="+b).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return []string{"-unbundle", "-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=" + b, "-output=OUT"}
	}},
	{"llvm-offload-binary", "llvm-offload-binary", func(t *testing.T, d string) []string {
		return []string{"-o", "OUT", imageArg(d)}
	}},
	{"llvm-offload-binary-oracle", filepath.Join(llvmBin, "llvm-offload-binary"), func(t *testing.T, d string) []string {
		return []string{"-o", "OUT", imageArg(d)}
	}},
	{"linker-wrapper-fatbin", "linker-wrapper", func(t *testing.T, d string) []string {
		require.NoError(t, os.WriteFile(filepath.Join(d, "omp.o"), wrapperInputs(t)["omp.o"], 0o644))
		return []string{"--emit-fatbin-only", "--host-triple=x86_64-unknown-linux-gnu", "--linker-path=/usr/bin/ld", "-o", "OUT", filepath.Join(d, "omp.o")}
	}},
	{"sycl-linker", "sycl-linker", func(t *testing.T, d string) []string {
		require.NoError(t, os.WriteFile(filepath.Join(d, "a.cpp"), []byte(syclSrc), 0o644))
		cmd := exec.Command(filepath.Join(llvmBin, "clang"), "-cc1", "-fsycl-is-device", "-triple", "spirv64", "-O2", "-emit-llvm-bc", "a.cpp", "-o", "a.bc")
		cmd.Dir = d
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return []string{"--triple=spirv64", "-o", "OUT", filepath.Join(d, "a.bc")}
	}},
}

func (c outputCase) bin(t *testing.T) string {
	if filepath.IsAbs(c.tool) {
		return c.tool
	}
	return toolPath(t, c.tool)
}

// reference sets the case up in a fresh directory and runs it with its
// output a regular file there: the tool, the directory, the arguments
// ("OUT" still in them) and the bytes a regular file gets.
func (c outputCase) reference(t *testing.T) (bin, dir string, args []string, want []byte) {
	t.Helper()
	bin = c.bin(t)
	dir = t.TempDir()
	outputInputs(t, dir)
	args = c.setup(t, dir)
	ref := filepath.Join(dir, "ref.out")
	runOK(t, dir, nil, nil, bin, withOut(args, ref)...)
	want, err := os.ReadFile(ref)
	require.NoError(t, err)
	return bin, dir, args, want
}

func withOut(args []string, out string) []string {
	r := make([]string, len(args))
	for i, a := range args {
		r[i] = strings.ReplaceAll(a, "OUT", out)
	}
	return r
}

// TestSpecialOutputs writes every output path of every tool to
// destinations that are not regular files. Each must be written in place
// (streamed) with exactly the bytes a regular file gets, and never be
// replaced: a character device (mknod, as root), a FIFO read by another
// process, the tool's own descriptor through /proc/self/fd/3, and bash's
// >(cat) process substitution. TestDevInNamespace adds /dev/null and
// /dev/stdout themselves. The llvm-offload-binary-oracle row runs LLVM's
// tool on the same destinations, which it handles the same way.
func TestSpecialOutputs(t *testing.T) {
	devNullIntact(t)
	for _, c := range outputCases {
		t.Run(c.name, func(t *testing.T) {
			bin, dir, args, want := c.reference(t)
			require.NotEmpty(t, want)

			t.Run("chardev", func(t *testing.T) {
				if os.Geteuid() != 0 {
					t.Skip("mknod needs root") // the FIFO, /proc and >() rows still run
				}
				od := t.TempDir()
				null := filepath.Join(od, "null")
				require.NoError(t, syscall.Mknod(null, syscall.S_IFCHR|0o666, int(unixMkdev(1, 3))))
				runOK(t, dir, nil, nil, bin, withOut(args, null)...)
				fi, err := os.Lstat(null)
				require.NoError(t, err)
				assert.True(t, fi.Mode()&os.ModeCharDevice != 0, "the device was replaced: %v", fi.Mode())
				assert.Equal(t, []string{"null"}, tree(t, od))
			})
			t.Run("fifo", func(t *testing.T) {
				od := t.TempDir()
				fifo := filepath.Join(od, "fifo")
				require.NoError(t, syscall.Mkfifo(fifo, 0o644))
				got := make(chan []byte, 1)
				go func() {
					f, err := os.Open(fifo)
					if err != nil {
						got <- nil
						return
					}
					b, _ := io.ReadAll(f)
					f.Close()
					got <- b
				}()
				runOK(t, dir, nil, nil, bin, withOut(args, fifo)...)
				assert.Equal(t, want, <-got)
				fi, err := os.Lstat(fifo)
				require.NoError(t, err)
				assert.True(t, fi.Mode()&os.ModeNamedPipe != 0, "the FIFO was replaced: %v", fi.Mode())
				assert.Equal(t, []string{"fifo"}, tree(t, od))
			})
			t.Run("proc-fd", func(t *testing.T) {
				r, w, err := os.Pipe()
				require.NoError(t, err)
				got := make(chan []byte, 1)
				go func() { b, _ := io.ReadAll(r); got <- b }()
				runOK(t, dir, nil, []*os.File{w}, bin, withOut(args, "/proc/self/fd/3")...)
				w.Close()
				assert.Equal(t, want, <-got)
			})
			t.Run("process-substitution", func(t *testing.T) {
				od := t.TempDir()
				sink := filepath.Join(od, "sink")
				script := shellQuote(bin)
				for _, a := range args {
					pre, post, ok := strings.Cut(a, "OUT")
					if !ok {
						script += " " + shellQuote(a)
						continue
					}
					// bash expands >(...) inside a word too: -output=>(cat)
					script += " " + shellQuote(pre) + ">(cat > " + shellQuote(sink) + ")" + shellQuote(post)
				}
				script += "; rc=$?; wait $!; exit $rc"
				runOK(t, dir, nil, nil, "/bin/bash", "-c", script)
				b, err := os.ReadFile(sink)
				require.NoError(t, err)
				assert.Equal(t, want, b)
			})
		})
	}
}

// TestDevInNamespace runs every output case against /dev/null and
// /dev/stdout themselves, as root, in a private mount namespace whose /dev
// is a fresh tmpfs (unshare -m): the real /dev is never at risk. /dev/null
// must still be a character device afterwards, and /dev/stdout (a pipe
// here) must carry the output.
func TestDevInNamespace(t *testing.T) {
	devNullIntact(t)
	if os.Geteuid() != 0 {
		t.Skip("a private mount namespace needs root")
	}
	if out, err := exec.Command("unshare", "-m", "true").CombinedOutput(); err != nil {
		t.Fatalf("unshare -m: %v: %s", err, out)
	}
	const prelude = `set -e; mount -t tmpfs tmpfs /dev; mknod -m 666 /dev/null c 1 3; ln -s /proc/self/fd /dev/fd; ln -s /proc/self/fd/1 /dev/stdout; set +e; `
	for _, c := range outputCases {
		t.Run(c.name, func(t *testing.T) {
			bin, dir, args, want := c.reference(t)
			for _, dest := range []string{"/dev/null", "/dev/stdout", "/dev/stdout|"} {
				t.Run(filepath.Base(dest), func(t *testing.T) {
					// stdout is the regular file $OUTFILE, or a pipe ("|").
					run := `"$@" > "$OUTFILE"`
					if strings.HasSuffix(dest, "|") {
						dest = strings.TrimSuffix(dest, "|")
						run = `"$@" | cat > "$OUTFILE"`
					}
					script := prelude + run + `; rc=$?; test -c /dev/null || { echo "/dev/null is no longer a character device" >&2; exit 99; }; test -L /dev/stdout || { echo "/dev/stdout was replaced" >&2; exit 98; }; exit $rc`
					outFile := filepath.Join(t.TempDir(), "stdout")
					cmd := exec.Command("unshare", append([]string{"-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", bin}, withOut(args, dest)...)...)
					cmd.Dir = dir
					cmd.Env = append(os.Environ(), "OUTFILE="+outFile)
					var stderr bytes.Buffer
					cmd.Stderr = &stderr
					err := cmd.Run()
					if c.name == "llvm-offload-binary-oracle" && dest == "/dev/stdout" && !strings.Contains(run, "|") {
						// LLVM's FileOutputBuffer stats /dev/stdout, sees the
						// regular file behind it and renames a temporary
						// over /dev/stdout itself (docs/hardening.md).
						var ee *exec.ExitError
						require.ErrorAs(t, err, &ee, "stderr: %s", stderr.String())
						assert.Equal(t, 98, ee.ExitCode(), "LLVM no longer replaces /dev/stdout: %s", stderr.String())
						return
					}
					require.NoError(t, err, "stderr: %s", stderr.String())
					if dest == "/dev/stdout" {
						b, err := os.ReadFile(outFile)
						require.NoError(t, err)
						// extract and sycl-linker also print to stdout; the
						// output itself must be there in full.
						assert.True(t, bytes.Contains(b, want), "stdout holds %d bytes, not the %d-byte output", len(b), len(want))
					}
				})
			}
		})
	}
}

// devNullIntact checks, after the test, that the real /dev/null is still a
// character device.
func devNullIntact(t *testing.T) {
	t.Cleanup(func() {
		fi, err := os.Lstat("/dev/null")
		if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("/dev/null is damaged: %v %v", fi, err)
		}
	})
}

func unixMkdev(major, minor uint32) uint64 {
	return uint64(major)<<8 | uint64(minor)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// runOK runs bin in dir and requires exit 0.
func runOK(t *testing.T, dir string, stdout io.Writer, extra []*os.File, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout = stdout
	cmd.ExtraFiles = extra
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), "%s %v: %s", bin, args, stderr.String())
}
