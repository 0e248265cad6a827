package linkwrap

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scopedValues maps each device link of a --dry-run listing (its
// --target=) to the values of interest it was given, in order: tokens
// holding "-Q" (the markers below) and the bare triple
// "spir64-unknown-unknown". Every link of one triple must get the same.
func scopedValues(t *testing.T, listing string) map[string][]string {
	t.Helper()
	target := regexp.MustCompile(`(?:^| )--target=(\S+)`)
	out := map[string][]string{}
	for _, l := range strings.Split(listing, "\n") {
		m := target.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var got []string
		for _, tok := range strings.Fields(l) {
			if strings.Contains(tok, "-Q") || tok == "spir64-unknown-unknown" {
				got = append(got, tok)
			}
		}
		if prev, ok := out[m[1]]; ok {
			require.Equal(t, prev, got, "two %s links got different values", m[1])
		}
		out[m[1]] = got
	}
	return out
}

// TestDeviceLinkerScoping pins how --device-linker and --device-compiler
// values are scoped to device links, against LLVM 22's
// clang-linker-wrapper --dry-run: the text before the first '=' is a
// triple when llvm::Triple knows its architecture (spir64, armv7a and
// spirv64 are; "x86" is not), a triple value reaches only the links of
// exactly that triple, a triple followed by an empty value is itself
// passed to every link, and anything else is passed whole to every link.
// The links are amdgcn-amd-amdhsa and nvptx64-nvidia-cuda GPU links and an
// x86_64-unknown-linux-gnu CPU link; LLVM 22 links no spir64 images, so
// values for spir64-unknown-unknown must reach none of them.
func TestDeviceLinkerScoping(t *testing.T) {
	if testing.Short() {
		t.Skip("needs LLVM 22")
	}
	if _, ok := run.FindProgram("clang-linker-wrapper", []string{llvmBin}, ""); !ok {
		t.Skip("no reference clang-linker-wrapper")
	}
	files := fixtures(t)
	args := []string{"--dry-run", "--linker-path=/usr/bin/ld", "-o", "app", "xtu_main.o", "xtu_dev.o", "gpu.out",
		"--device-linker=spir64-unknown-unknown=-QLspir",
		"--device-linker=amdgcn-amd-amdhsa=-QLamd",
		"--device-linker=nvptx64-nvidia-cuda=-QLnv",
		"--device-linker=x86_64-unknown-linux-gnu=-QLx86",
		"--device-linker=spir64-unknown-unknown=",
		"--device-linker=x86=-QLnotarch",
		"--device-linker=armv7a-none-eabi=-QLarm",
		"--device-linker=-Wl,-QLdefsym=a=b",
		"--device-linker=-QLplain",
		"--device-compiler=spir64-unknown-unknown=-QCspir",
		"--device-compiler=amdgcn-amd-amdhsa=-QCamd",
		"--device-compiler=nvptx64-nvidia-cuda=-QCnv",
		"--device-compiler=x86_64-unknown-linux-gnu=-QCx86",
		"--device-compiler=spirv64-unknown-unknown=-QCspirv",
		"--device-compiler=-QCplain",
	}
	ref, ours := runBoth(t, files, args, nil)
	every := []string{"spir64-unknown-unknown", "x86=-QLnotarch", "-Wl,-QLdefsym=a=b", "-QLplain"}
	want := map[string][]string{
		"amdgcn-amd-amdhsa":        append(append([]string{"-QLamd"}, every...), "-QCamd", "-QCplain"),
		"nvptx64-nvidia-cuda":      append(append([]string{"-QLnv"}, every...), "-QCnv", "-QCplain"),
		"x86_64-unknown-linux-gnu": append(append([]string{"-QLx86"}, every...), "-QCx86", "-QCplain"),
	}
	assert.Equal(t, want, scopedValues(t, ref), "LLVM 22:\n%s", ref)
	assert.Equal(t, want, scopedValues(t, dropToolNotes(ours)), "ours:\n%s", ours)
}

// TestDeviceValuesArchTable: the scoping rule on its own, for triples the old
// string-level arch table got wrong (spir64, armv7a, x86_64h and arm64e
// are architectures; x86 is not).
func TestDeviceValuesArchTable(t *testing.T) {
	vals := []string{"spir64-unknown-unknown=-a", "armv7a-none-eabi=-b", "x86_64h-apple-darwin=-c",
		"arm64e-apple-ios=-d", "x86=-e", "-f=g", "-h", "spir64-unknown-unknown=", "nvptx64-nvidia-cuda=-i=j"}
	assert.Equal(t, []string{"-a", "x86=-e", "-f=g", "-h", "spir64-unknown-unknown"},
		deviceValues(vals, "spir64-unknown-unknown", true))
	assert.Equal(t, []string{"x86=-e", "-f=g", "-h", "spir64-unknown-unknown", "-i=j"},
		deviceValues(vals, "nvptx64-nvidia-cuda", true))
	assert.Equal(t, []string{"x86=-e", "-f=g", "-h", "spir64-unknown-unknown"},
		deviceValues(vals, "spir64-unknown-unknown-sycl", true))
}

// TestDeviceValuesOldReleases: LLVM 16's and 19's wrappers split every
// value at its first '=' and apply what follows only to the link of that
// exact triple, so an arg=value option with no triple before it
// ("-Wl,-defsym=a=b", "x86=-e") reaches no link; values without '=', and
// triples with nothing after it, reach every link (seen with their
// clang-linker-wrapper --dry-run: TestDeviceLinkerScopingReleases).
func TestDeviceValuesOldReleases(t *testing.T) {
	vals := []string{"spir64-unknown-unknown=-a", "x86=-e", "-Wl,-f=g", "-h", "spir64-unknown-unknown=", "x86_64-unknown-linux-gnu=-i=j"}
	assert.Equal(t, []string{"-a", "-h", "spir64-unknown-unknown"}, deviceValues(vals, "spir64-unknown-unknown", false))
	assert.Equal(t, []string{"-h", "spir64-unknown-unknown", "-i=j"}, deviceValues(vals, "x86_64-unknown-linux-gnu", false))
}

// TestDeviceLinkerScopingReleases: under LLVM 16's and 19's profiles, the
// values reach the device link as those releases' own
// clang-linker-wrapper --dry-run gives them (an OpenMP object of that
// release's clang, offloading to x86_64), not as 22's.
func TestDeviceLinkerScopingReleases(t *testing.T) {
	ours := filepath.Join(buildWrapper(t), "clang-linker-wrapper")
	vals := []string{"--device-linker=spir64-unknown-unknown=", "--device-linker=-Wl,-QLdefsym=a=b",
		"--device-linker=armv7a-none-eabi=-QLarm", "--device-linker=foo=-QLfoo", "--device-linker=x86=-QLnotarch",
		"--device-linker=x86_64-unknown-linux-gnu=-QLx86", "--device-linker=-QLplain"}
	for _, major := range []int{16, 19} {
		t.Run(fmt.Sprint(major), func(t *testing.T) {
			dir := t.TempDir()
			clang := llvmtools.ReleaseTool(t, major, "clang")
			require.NoError(t, os.WriteFile(filepath.Join(dir, "m.c"), []byte("int main(void) { int x = 0;\n#pragma omp target map(tofrom: x)\nx = 1;\nreturn x - 1; }\n"), 0o644))
			var se bytes.Buffer
			require.NoError(t, run.Exec{}.Run(context.Background(), &run.Cmd{Args: []string{clang, "-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-c", "m.c", "-o", "m.o"}, Dir: dir, Stderr: &se}), se.String())
			listing := func(bin string) string {
				var stderr bytes.Buffer
				args := append([]string{bin, "--dry-run", "--host-triple=x86_64-unknown-linux-gnu", "--linker-path=/usr/bin/ld", "-o", "app", "m.o"}, vals...)
				require.NoError(t, run.Exec{}.Run(context.Background(), &run.Cmd{Args: args, Dir: dir, Stderr: &stderr,
					Env: []string{"PATH=" + os.Getenv("PATH"), fmt.Sprintf("OFFLOAD_KIT_LLVM_RELEASE=%d", major), "OFFLOAD_KIT_CLANG=" + clang}}), "%s\n%s", bin, stderr.String())
				return stderr.String()
			}
			// 16's spells each value -Wl,<v> where ours writes -Xlinker <v>:
			// the same for these comma-free values; the scoping is compared.
			ref := strings.NewReplacer(" -Wl,-Q", " -Q", " -Wl,spir64-unknown-unknown", " spir64-unknown-unknown").
				Replace(listing(llvmtools.ReleaseTool(t, major, "clang-linker-wrapper")))
			got := listing(ours)
			want := scopedValues(t, ref)
			require.NotEmpty(t, want["x86_64-unknown-linux-gnu"], ref)
			assert.Equal(t, want, scopedValues(t, dropToolNotes(got)), "LLVM %d:\n%s\nours:\n%s", major, ref, got)
		})
	}
}
