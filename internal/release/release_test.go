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

func TestClangMajor(t *testing.T) {
	for in, want := range map[string]int{
		"Debian clang version 19.1.7 (3~deb12u1)\nTarget: x86_64-pc-linux-gnu": 19,
		"\x00clang version 16.0.6 (15~deb12u1)\x00":                            16,
		"Ubuntu clang version 18.1.3 (1ubuntu1)":                               18,
		"clang version 22.1.8":                                                 22,
		"GCC: (Debian 12.2.0-14) 12.2.0":                                       0,
		"libclang version 19.1.7":                                              0,
	} {
		got, ok := ClangMajor([]byte(in))
		if got != want || ok != (want > 0) {
			t.Errorf("ClangMajor(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
}
