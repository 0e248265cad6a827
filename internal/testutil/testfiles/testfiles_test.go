package testfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"b.bin": "B", "a.bin": "A", "c.txt": "C"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := Read(t, filepath.Join(dir, "*.bin"), filepath.Join(dir, "*.txt"))
	var s []string
	for _, b := range got {
		s = append(s, string(b))
	}
	if strings.Join(s, ",") != "A,B,C" {
		t.Errorf("Read = %q, want A, B, C", s)
	}
}
