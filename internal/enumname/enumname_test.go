package enumname

import "testing"

type color uint8

const (
	red color = iota
	green
	blue = 4
)

var colorNames = []string{red: "red", green: "green", blue: "blue"}

type signed int

func TestName(t *testing.T) {
	for _, tt := range []struct {
		v    color
		want string
	}{
		{red, "red"}, {green, "green"}, {blue, "blue"},
		{2, "color(2)"}, {3, "color(3)"}, {5, "color(5)"}, {255, "color(255)"},
	} {
		if got := Name(colorNames, tt.v, "color"); got != tt.want {
			t.Errorf("Name(%d) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if got := Name([]string{"zero"}, signed(-1), "signed"); got != "signed(-1)" {
		t.Errorf("Name(-1) = %q", got)
	}
	if s, ok := Lookup(colorNames, color(3)); ok || s != "" {
		t.Errorf("Lookup(3) = %q, %v; want a gap", s, ok)
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want color
		ok   bool
	}{
		{"red", red, true}, {"green", green, true}, {"blue", blue, true},
		{"", 0, false}, {"Red", 0, false}, {"color(2)", 0, false},
	} {
		if got, ok := Parse[color](colorNames, tt.s); got != tt.want || ok != tt.ok {
			t.Errorf("Parse(%q) = %d, %v; want %d, %v", tt.s, got, ok, tt.want, tt.ok)
		}
	}
}
