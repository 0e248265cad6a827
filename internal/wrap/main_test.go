package wrap

import (
	"os"
	"testing"

	"github.com/offload-kit/offload-kit/internal/testutil/tmproot"
)

// clang leaves directories in TMPDIR (its per-architecture ones)
func TestMain(m *testing.M) { os.Exit(tmproot.Run(m)) }
