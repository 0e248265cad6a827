package xxhash

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestXXH64(t *testing.T) {
	// Known values of XXH64 with seed 0.
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"a", 0xd24ec4f1a98c6e5b},
		{"abc", 0x44bc2cf5ad770999},
		{"Nobody inspects the spammish repetition", 0xfbcea83c8a378bf1},
	} {
		var x Digest
		x.Reset()
		x.Write([]byte(c.in))
		require.Equal(t, c.want, x.Sum64(), c.in)
	}
	// Streaming in pieces equals one write.
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte(i*131 + i>>3)
	}
	var a, b Digest
	a.Reset()
	a.Write(data)
	b.Reset()
	for p := data; len(p) > 0; {
		k := min(len(p), 1+len(p)%37)
		b.Write(p[:k])
		p = p[k:]
	}
	require.Equal(t, a.Sum64(), b.Sum64())
}
