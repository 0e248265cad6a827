// Package llvmtools locates the LLVM 22.1.8 tools that tests compare with
// (the oracle, which scripts/install-deps.sh installs). It is the one place
// that names their directory. A missing tool fails the test rather than
// skipping it: a differential test that cannot run is a defect.
package llvmtools

import (
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

// Dir is the directory of the LLVM 22 tools (Debian's llvm-22 layout).
const Dir = "/usr/lib/llvm-22/bin"

// Path is the path of tool name in Dir, whether or not it exists.
func Path(name string) string { return filepath.Join(Dir, name) }

// Tool returns the path of tool name in Dir; the test fails at once when
// it is not an executable file there.
func Tool(t testing.TB, name string) string {
	t.Helper()
	return testfiles.Executable(t, "LLVM tool "+name, Path(name))
}

// Tools returns the paths of the named tools, failing the test on the
// first that is missing.
func Tools(t testing.TB, names ...string) []string {
	t.Helper()
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = Tool(t, n)
	}
	return out
}
