package llvmtools

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

// Releases are the older LLVM releases whose own tools are the oracle for
// their clang (issue 21): scripts/install-deps.sh installs Debian's
// clang-N, clang-tools-N, lld-N and llvm-N, and unpacks libomp-N-dev and
// libomp5-N (which conflict with LLVM 22's) under RuntimeRoot.
var Releases = []int{16, 19}

// RuntimeRoot holds each older release's OpenMP runtime, unpacked by
// scripts/install-deps.sh with dpkg-deb -x: RuntimeRoot/llvm-N is the
// root of the unpacked packages.
const RuntimeRoot = "/opt/offload-kit/runtimes"

// ReleaseDir is the bin directory of LLVM release major (Debian's layout).
func ReleaseDir(major int) string { return fmt.Sprintf("/usr/lib/llvm-%d/bin", major) }

// ReleaseTool returns the path of tool name of LLVM release major; the
// test fails at once when it is missing (22 is Dir).
func ReleaseTool(t testing.TB, major int, name string) string {
	t.Helper()
	return testfiles.Executable(t, fmt.Sprintf("LLVM %d tool %s", major, name), filepath.Join(ReleaseDir(major), name))
}

// RuntimeLib returns the directory with LLVM release major's libomp,
// libomptarget and its plugins and device runtime (libomptarget.devicertl.a,
// libomptarget-amdgpu-*.bc); for 22, Debian's installed /usr/lib/llvm-22/lib.
// Programs linked against it run with LD_LIBRARY_PATH set to it (the
// plugins dlopen libomp.so by name). The test fails when it is missing.
func RuntimeLib(t testing.TB, major int) string {
	t.Helper()
	d := fmt.Sprintf("/usr/lib/llvm-%d/lib", major)
	if major != 22 {
		d = filepath.Join(RuntimeRoot, fmt.Sprintf("llvm-%d", major), "usr/lib", fmt.Sprintf("llvm-%d", major), "lib")
	}
	if _, err := os.Stat(filepath.Join(d, "libomptarget.so")); err != nil {
		t.Fatalf("LLVM %d OpenMP offload runtime: %v (scripts/install-deps.sh unpacks it)", major, err)
	}
	return d
}
