// Package llvmtools locates the LLVM 22.1.8 tools that tests compare with
// (the oracle, which scripts/install-deps.sh installs). It is the one place
// that names their directory. A missing tool fails the test rather than
// skipping it: a differential test that cannot run is a defect.
package llvmtools

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir is the directory of the LLVM 22 tools (Debian's llvm-22 layout).
const Dir = "/usr/lib/llvm-22/bin"

// Path is the path of tool name in Dir, whether or not it exists.
func Path(name string) string { return filepath.Join(Dir, name) }

// Tool returns the path of tool name in Dir; the test fails at once when
// it is not an executable file there.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p := Path(name)
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		t.Fatalf("LLVM tool %s: %v (scripts/install-deps.sh installs it)", name, err)
	case fi.IsDir() || fi.Mode()&0o111 == 0:
		t.Fatalf("LLVM tool %s: %s is not an executable file", name, p)
	}
	return p
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
