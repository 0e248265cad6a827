package llvmtools

import (
	"fmt"
	"strings"
	"testing"
)

func TestToolFound(t *testing.T) {
	if got := Tool(t, "clang-offload-bundler"); got != Dir+"/clang-offload-bundler" {
		t.Errorf("Tool = %q", got)
	}
}

// fakeTB records a fatal failure instead of stopping the test.
type fakeTB struct {
	testing.TB
	msg string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

func TestToolMissingFails(t *testing.T) {
	for _, name := range []string{"no-such-llvm-tool", "."} {
		f := &fakeTB{TB: t}
		func() {
			defer func() {
				if r := recover(); r != f {
					t.Errorf("%q: Tool did not fail the test (recovered %v)", name, r)
				}
			}()
			Tool(f, name)
		}()
		if !strings.HasPrefix(f.msg, "LLVM tool "+name+": ") || !strings.Contains(f.msg, "scripts/install-deps.sh installs it") {
			t.Errorf("%q: message %q", name, f.msg)
		}
	}
}
