package bundler

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// TestHelpParity: every help form, and --help or -h among other arguments,
// prints what LLVM 22's clang-offload-bundler prints, byte for byte, with
// its exit code. The help text is generated from the option table.
func TestHelpParity(t *testing.T) {
	llvmtools.Tool(t, "clang-offload-bundler")
	dir := t.TempDir()
	for _, args := range [][]string{
		{},
		{"--help"},
		{"--help-list"},
		{"--help-hidden"},
		{"--help-list-hidden"},
		{"-help"},
		{"-h"},
		{"-h", "-type=bc"},
		{"-h=0", "-type=bc", "-list"},
		{"--help", "-type=bc"},
		{"--help=false"},
		{"--help-list=0", "-type=bc"},
		{"--version=1", "-type=bc"},
		{"--foo", "--help"},
		{"--help", "--foo"},
		{"a", "b", "--help-list-hidden"},
		{"-h", "a"},
		{"--help-list-hidden", "--help"},
		{"--", "--help"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			rt := runTheirs(t, dir, nil, args...)
			ro := runOurs(t, dir, nil, args...)
			assert.Equal(t, rt.code, ro.code, "exit code")
			assert.Equal(t, rt.stdout, ro.stdout, "stdout")
			assert.Equal(t, rt.stderr, ro.stderr, "stderr")
		})
	}
}
