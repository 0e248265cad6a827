package linkwrap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/run"
)

// TestCOFFUnsupportedAsLLVM runs LLVM 22's clang-linker-wrapper and ours on
// the same Windows (x86_64-pc-windows-msvc) links that LLVM does not
// support, and checks that ours fails, or goes on, as LLVM's does, in its
// words (docs/linker-wrapper.md, "Windows hosts"):
//
//   - -r on a COFF host, with no offload code and with an OpenMP image:
//     "Relocatable linking is not supported on COFF targets", after the
//     host link (so the wrapper object is made and linked first);
//   - OpenMP offload to an x86_64-pc-windows-msvc device: LLVM has no
//     diagnostic of its own; it runs the same device link (clang
//     --target=x86_64-pc-windows-msvc ... -Wl,--no-undefined -Wl,-Bsymbolic
//     -shared), which fails in the linker, and so does ours (--dry-run
//     compares the plan: both exit 0 with the same device link).
func TestCOFFUnsupportedAsLLVM(t *testing.T) {
	ref := findTool(t, "clang-linker-wrapper")
	clang := findTool(t, "clang")
	packager := findTool(t, "llvm-offload-binary")
	dir := t.TempDir()
	const win = "x86_64-pc-windows-msvc"
	coffUnsupportedWrite(t, dir, "host.c", "int main(void) { return 0; }\n")
	coffUnsupportedWrite(t, dir, "dev.c", "int device_global = 1;\n")
	sh(t, dir, nil, clang, "--target="+win, "-c", "host.c", "-o", "plain.obj")
	// An OpenMP image for a Linux x86-64 device, and one for a Windows device.
	sh(t, dir, nil, clang, "--target=x86_64-unknown-linux-gnu", "-fPIC", "-c", "dev.c", "-o", "dev-linux.o")
	sh(t, dir, nil, clang, "--target="+win, "-c", "dev.c", "-o", "dev-win.obj")
	sh(t, dir, nil, packager, "-o", "linux.bin", "--image=file=dev-linux.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp")
	sh(t, dir, nil, packager, "-o", "win.bin", "--image=file=dev-win.obj,triple="+win+",arch=generic,kind=openmp")
	sh(t, dir, nil, clang, "--target="+win, "-c", "host.c", "-o", "omp-linux.obj", "-Xclang", "-fembed-offload-object=linux.bin")
	sh(t, dir, nil, clang, "--target="+win, "-c", "host.c", "-o", "omp-win.obj", "-Xclang", "-fembed-offload-object=win.bin")

	for _, tc := range []struct {
		name string
		args []string
		want string // LLVM's error text; "" for success
	}{
		{"relocatable-plain", []string{"-r", "-o", "out.obj", "plain.obj"}, "Relocatable linking is not supported on COFF targets"},
		{"relocatable-openmp", []string{"--dry-run", "-r", "-o", "out.obj", "omp-linux.obj"}, "Relocatable linking is not supported on COFF targets"},
		{"windows-device", []string{"--dry-run", "-o", "out.exe", "omp-win.obj"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--host-triple=" + win, "--linker-path=/bin/true"}, tc.args...)
			var out, errb bytes.Buffer
			refErr := run.Exec{}.Run(context.Background(), &run.Cmd{Args: append([]string{ref}, args...), Dir: dir, Stdout: &out, Stderr: &errb})
			refMsg := ""
			if refErr != nil {
				lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
				_, refMsg, _ = strings.Cut(lines[len(lines)-1], ": error: ")
			}
			require.Equal(t, tc.want, refMsg, "LLVM's clang-linker-wrapper: %s", errb.String())

			abs := make([]string, len(args))
			for i, a := range args {
				if strings.HasSuffix(a, ".obj") && a != "out.obj" {
					a = filepath.Join(dir, a)
				}
				abs[i] = a
			}
			inv := invoke(t, dir, nil, abs...)
			if tc.want == "" {
				require.NoError(t, inv.err, inv.stderr.String())
			} else {
				require.Error(t, inv.err)
				assert.Equal(t, tc.want, inv.err.Error())
			}
			if strings.Contains(tc.name, "openmp") || tc.name == "windows-device" {
				// The device link each plans (dry run): the same target and flags.
				refDev := deviceLinkFlags(errb.String())
				assert.NotEmpty(t, refDev, "LLVM's device link in:\n%s", errb.String())
				assert.Equal(t, refDev, deviceLinkFlags(inv.stderr.String()), "ours:\n%s", inv.stderr.String())
			}
		})
	}
}

// deviceLinkFlags returns the target and the flags (not the files) of the
// device link in a --dry-run listing.
func deviceLinkFlags(listing string) []string {
	for _, l := range strings.Split(listing, "\n") {
		if !strings.Contains(l, "--target=") || !strings.Contains(l, "-shared") {
			continue
		}
		var flags []string
		for _, f := range strings.Fields(l) {
			f = strings.Trim(f, `"`)
			if strings.HasPrefix(f, "--target=") || strings.HasPrefix(f, "-Wl,") || f == "-shared" {
				flags = append(flags, f)
			}
		}
		return flags
	}
	return nil
}

func coffUnsupportedWrite(t *testing.T, dir, name, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
}
