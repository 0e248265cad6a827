// Package tmproot gives a test binary a temporary root of its own: TMPDIR
// points into a fresh directory for the whole run, which is removed at the
// end. Tests that run clang and LLVM's own tools as oracles need it: those
// leave files and directories in TMPDIR (clang's per-architecture
// directories, an oracle's temporaries when it fails on purpose), about a
// thousand per `make test` in /tmp otherwise. (The OpenMP programs the
// tests run leave /tmp/tmpfile_XXXXXX, the host offload plugin's copy of
// the device image; that path is fixed in LLVM's runtime, not taken from
// TMPDIR, so it is not contained here.)
package tmproot

import (
	"fmt"
	"os"
	"strings"
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

// Env is env with this process's TMPDIR added when env names none: a test
// that runs a program with an environment of its own (PATH and
// LD_LIBRARY_PATH only, say) keeps its temporary files in the run's root.
// A nil env (inherit everything) stays nil.
func Env(env []string) []string {
	if env == nil {
		return nil
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "TMPDIR=") {
			return env
		}
	}
	return append(env[:len(env):len(env)], "TMPDIR="+os.Getenv("TMPDIR"))
}
