// Package tmproot gives a test binary a temporary root of its own: TMPDIR
// points into a fresh directory for the whole run, which is removed at the
// end. Tests that run clang and LLVM's own tools as oracles need it: those
// leave files and directories in TMPDIR (clang's per-architecture
// directories, an oracle's temporaries when it fails on purpose), about a
// thousand per `make test` in /tmp otherwise.
package tmproot

import (
	"fmt"
	"os"
	"testing"
)

// Run runs m with TMPDIR set to a new directory, removes that directory,
// and returns m.Run's exit code. The directory is world-writable and
// sticky, as /tmp is: some tests run a tool as another user, or plant a
// directory as one.
func Run(m *testing.M) int {
	root, err := os.MkdirTemp("", "offload-kit-test-")
	if err == nil {
		err = os.Chmod(root, 0o777|os.ModeSticky)
	}
	if err == nil {
		err = os.Setenv("TMPDIR", root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tmproot:", err)
		return 1
	}
	defer os.RemoveAll(root)
	return m.Run()
}
