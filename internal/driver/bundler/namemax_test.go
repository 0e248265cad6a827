package bundler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNameMaxOutputs: output names of 240, 250 and 255 bytes (legal on
// Linux; clang-offload-bundler 22 takes them) work for -output of a
// bundle, a compressed bundle and an unbundling, as they do for the
// reference; the outputs equal the reference's.
func TestNameMaxOutputs(t *testing.T) {
	needOracle(t)
	for _, n := range []int{240, 250, 255} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			a, b := t.TempDir(), t.TempDir()
			name := func(c string) string { return strings.Repeat(c, n-4) + ".out" }
			for _, d := range []string{a, b} {
				write(t, d, "host.o", []byte("host"))
				write(t, d, "dev.o", []byte("\x7fELF device code object"))
			}
			tg := "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a"
			for _, args := range [][]string{
				{"-type=o", tg, "-input=host.o", "-input=dev.o", "-output=" + name("b")},
				{"-type=o", tg, "-compress", "-input=host.o", "-input=dev.o", "-output=" + name("c")},
				{"-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=" + name("b"), "-output=" + name("u"), "-unbundle"},
			} {
				want, got := runTheirs(t, a, nil, args...), runOurs(t, b, nil, args...)
				require.Equal(t, 0, want.code, want.stderr)
				require.Equal(t, 0, got.code, got.stderr)
			}
			assert.Equal(t, read(t, a, name("b")), read(t, b, name("b")))
			assert.Equal(t, []byte("\x7fELF device code object"), read(t, b, name("u")))
			assert.NotEmpty(t, read(t, b, name("c")))
		})
	}
}
