package offload

import (
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/release"
)

func TestCanonicalKind(t *testing.T) {
	for in, want := range map[format.OffloadKind]format.OffloadKind{
		0: 0, 1: format.OfkOpenMP, 2: format.OfkCuda, LegacyHIP: format.OfkHIP, format.OfkHIP: format.OfkHIP, format.OfkSYCL: format.OfkSYCL, 5: 5,
	} {
		if got := CanonicalKind(in); got != want {
			t.Errorf("CanonicalKind(%d) = %d, want %d", in, got, want)
		}
		b := &Binary{OffloadKind: in}
		if b.Kind() != want {
			t.Errorf("Binary{OffloadKind: %d}.Kind() = %d", in, b.Kind())
		}
	}
}

// TestStringMapOrder: the orders LLVM 16's clang-offload-packager writes
// (checked byte for byte against it in internal/driver/packager's
// TestReleaseCreateParity; these rows are its output).
func TestStringMapOrder(t *testing.T) {
	kv := func(keys ...string) []KV {
		out := make([]KV, len(keys))
		for i, k := range keys {
			out[i] = KV{k, "v" + k}
		}
		return out
	}
	for _, c := range []struct{ in, want []string }{
		{[]string{"arch", "triple"}, []string{"triple", "arch"}},
		{[]string{"feature", "b", "arch", "zeta", "f", "c", "d", "triple", "mmm", "e", "g", "alpha"},
			[]string{"triple", "b", "c", "zeta", "d", "f", "mmm", "e", "alpha", "g", "feature", "arch"}},
	} {
		got := StringMapOrder(kv(c.in...), release.HashDJB)
		for i, k := range c.want {
			if i >= len(got) || got[i].Key != k || got[i].Value != "v"+k {
				t.Fatalf("StringMapOrder(%v) = %v, want keys %v", c.in, got, c.want)
			}
		}
	}
	// A repeated key keeps its slot and takes the last value.
	got := StringMapOrder([]KV{{"a", "1"}, {"b", "2"}, {"a", "3"}}, release.HashXXH3)
	if len(got) != 2 {
		t.Fatalf("duplicates kept: %v", got)
	}
	for _, e := range got {
		if e.Key == "a" && e.Value != "3" {
			t.Errorf("a = %q, want 3", e.Value)
		}
	}
}
