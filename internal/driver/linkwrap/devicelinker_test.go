package linkwrap

import (
	"regexp"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
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
		deviceValues(vals, "spir64-unknown-unknown"))
	assert.Equal(t, []string{"x86=-e", "-f=g", "-h", "spir64-unknown-unknown", "-i=j"},
		deviceValues(vals, "nvptx64-nvidia-cuda"))
	assert.Equal(t, []string{"x86=-e", "-f=g", "-h", "spir64-unknown-unknown"},
		deviceValues(vals, "spir64-unknown-unknown-sycl"))
}
