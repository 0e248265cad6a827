package elfembed

import "testing"

func TestFormatString(t *testing.T) {
	for f, want := range map[Format]string{ELF: "ELF", COFF: "COFF", 2: "Format(2)", -1: "Format(-1)"} {
		if got := f.String(); got != want {
			t.Errorf("Format(%d).String() = %q, want %q", int(f), got, want)
		}
	}
}
