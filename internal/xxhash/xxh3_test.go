package xxhash

import "testing"

func TestXXH3Vectors(t *testing.T) {
	// Published XXH3_64bits values (seed 0).
	if got := XXH3(nil); got != 0x2D06800538D394C2 {
		t.Errorf("XXH3(\"\") = %#x", got)
	}
}
