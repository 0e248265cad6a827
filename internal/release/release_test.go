package release

import "testing"

func TestOf(t *testing.T) {
	for _, c := range []struct {
		in, want int
	}{{16, 16}, {19, 19}, {22, 22}, {23, 22}, {14, 16}} {
		if got := Of(c.in, "x").Major; got != c.want {
			t.Errorf("Of(%d).Major = %d, want %d", c.in, got, c.want)
		}
	}
	if Default().Settled || Default().Major != Newest {
		t.Errorf("Default() = %+v", Default())
	}
}

func TestFacts(t *testing.T) {
	for _, c := range []struct {
		major   int
		legacy  bool
		hip     uint16
		dumpdir bool
	}{{16, true, 3, false}, {17, true, 3, true}, {19, true, 3, true}, {20, false, 4, true}, {22, false, 4, true}} {
		p := Of(c.major, "test")
		if p.LegacyEntries() != c.legacy || p.HIPOffloadKind() != c.hip || p.Dumpdir() != c.dumpdir {
			t.Errorf("LLVM %d: legacy=%v hip=%d dumpdir=%v", c.major, p.LegacyEntries(), p.HIPOffloadKind(), p.Dumpdir())
		}
	}
}
