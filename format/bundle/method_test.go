package bundle

import "testing"

func TestMethodString(t *testing.T) {
	for m, want := range map[Method]string{Zlib: "zlib", Zstd: "zstd", 2: "Method(2)", 0xffff: "Method(65535)"} {
		if got := m.String(); got != want {
			t.Errorf("Method(%d).String() = %q, want %q", uint16(m), got, want)
		}
	}
}

func TestMethodName(t *testing.T) {
	for m, want := range map[Method]string{Zlib: "zlib", Zstd: "zstd", 2: "", 0xffff: ""} {
		got, ok := m.Name()
		if got != want || ok != (want != "") {
			t.Errorf("Method(%d).Name() = %q, %v; want %q", uint16(m), got, ok, want)
		}
	}
}
