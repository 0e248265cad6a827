package driverenv

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/internal/release"
)

// ReleaseEnv names the LLVM release to behave as, overriding detection
// (docs/environment.md): "16" ... "22".
const ReleaseEnv = "OFFLOAD_KIT_LLVM_RELEASE"

// Release is the LLVM release this run behaves as, from what the process
// knows before reading any input: $OFFLOAD_KIT_LLVM_RELEASE, else the clang
// that invoked it (run.Toolchain.ParentRelease). An unsettled profile
// (Settled false) is LLVM release.Newest; drivers that read inputs refine
// it from them (their .comment producer strings, entry sections and
// options). The environment's Runner runs the parent's --version when its
// installation does not name the release; nil means run.Exec.
func (e *Env) Release(ctx context.Context) (release.Profile, error) {
	if v, ok := e.Lookup(ReleaseEnv); ok && v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return release.Profile{}, fmt.Errorf("%s=%s: not an LLVM major release number", ReleaseEnv, v)
		}
		if n < release.Oldest || n > release.Newest {
			return release.Profile{}, fmt.Errorf("%s=%d: offload-kit behaves as LLVM %d to %d", ReleaseEnv, n, release.Oldest, release.Newest)
		}
		return release.Of(n, "$"+ReleaseEnv), nil
	}
	if m, why, ok := e.Toolchain().ParentRelease(ctx); ok {
		return release.Of(m, why), nil
	}
	return release.Default(), nil
}
