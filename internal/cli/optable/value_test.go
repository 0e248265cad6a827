package optable

import "testing"

func TestEnum(t *testing.T) {
	e := Enum[int]{{"none", 0}, {"kernel", 1}, {"source", 2}}
	for _, tc := range []struct {
		v    string
		want int
		ok   bool
	}{{"none", 0, true}, {"source", 2, true}, {"Source", 0, false}, {"", 0, false}} {
		if got, ok := e.Lookup(tc.v); got != tc.want || ok != tc.ok {
			t.Errorf("Lookup(%q) = %d, %v; want %d, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
	if got := e.Names(""); got != "none, kernel or source" {
		t.Errorf("Names = %q", got)
	}
	if got := e[:2].Names("'"); got != "'none' or 'kernel'" {
		t.Errorf("Names(') = %q", got)
	}
	if got := e[:1].Names(""); got != "none" {
		t.Errorf("one name = %q", got)
	}
}

func TestIntAtLeast(t *testing.T) {
	for _, tc := range []struct {
		v    string
		min  int
		want int
		ok   bool
	}{{"4", 1, 4, true}, {"0", 0, 0, true}, {"0", 1, 0, false}, {"-1", 0, -1, false}, {"x", 0, 0, false}, {"", 1, 0, false}, {"+3", 1, 3, true}} {
		if n, ok := IntAtLeast(tc.v, tc.min); ok != tc.ok || ok && n != tc.want {
			t.Errorf("IntAtLeast(%q, %d) = %d, %v", tc.v, tc.min, n, ok)
		}
	}
}
