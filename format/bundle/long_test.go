package bundle

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nearPair is a bundle-like buffer: code-like data, then the same data
// with small edits (changed bytes, insertions, deletions), so the second
// copy matches the first at distances that drift.
func nearPair(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	var words [64][]byte
	for i := range words {
		words[i] = make([]byte, 3+r.IntN(12))
		for j := range words[i] {
			words[i][j] = byte(r.Uint32())
		}
	}
	a := make([]byte, 0, n)
	for len(a) < n {
		if r.IntN(5) == 0 {
			a = append(a, byte(r.Uint32()))
		} else {
			a = append(a, words[r.IntN(len(words))]...)
		}
	}
	a = a[:n]
	b := make([]byte, 0, n+n/100)
	for i := 0; i < n; {
		k := min(n-i, 1000+r.IntN(20000))
		b = append(b, a[i:i+k]...)
		i += k
		switch r.IntN(3) {
		case 0:
			b = append(b, byte(r.Uint32()))
		case 1:
			i += r.IntN(8)
		default:
			b = append(b, 0xAA, 0x55)
		}
	}
	return append(append(make([]byte, 4096), a...), b...)
}

// TestCompressLong: an input with near-duplicates beyond the independent
// frames' reach is written as one frame with long matches, decodes to
// itself, and is about half the size the independent frames give.
func TestCompressLong(t *testing.T) {
	data := nearPair(3<<20, 1)
	for _, level := range []int{1, 3, 5} {
		for _, chunk := range []int{0, 1 << 20} {
			o := CompressOptions{Level: level, ChunkSize: chunk, Concurrency: 2}
			_, beyond := findLong(data, max(chunk, 1<<20))
			require.True(t, useLong(int64(len(data)), beyond), "long matches cover %d bytes", beyond)
			out, h, err := Compress(nil, data, o)
			require.NoError(t, err)
			d, err := Decompress(out, Limits{})
			require.NoError(t, err, "level %d chunk %d", level, chunk)
			require.True(t, bytes.Equal(data, d.Data), "level %d chunk %d", level, chunk)
			// The independent frames (what CompressTo wrote before) for comparison.
			var frames bufWriterAt
			ow := &offsetWriter{w: &frames}
			require.NoError(t, streamZstdFrames(ow, bytes.NewReader(data), int64(len(data)), CompressOptions{Level: level, ChunkSize: 1 << 20, Concurrency: 2}))
			t.Logf("level %d chunk %d: %d bytes, independent 1 MiB frames %d", level, chunk, h.TotalFileSize, ow.off)
			assert.Less(t, float64(h.TotalFileSize), 0.7*float64(ow.off))
		}
	}
}

// TestCompressLongUnused: without far repeats the input keeps the
// independent frames, and with a short read CompressTo fails.
func TestCompressLongUnused(t *testing.T) {
	data := nearPair(3<<20, 2)[4096 : 4096+3<<20]
	_, beyond := findLong(data, 16<<20)
	assert.False(t, useLong(int64(len(data)), beyond))
	out, _, err := Compress(nil, data, CompressOptions{})
	require.NoError(t, err)
	d, err := Decompress(out, Limits{})
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, d.Data))

	var w bufWriterAt
	_, err = CompressTo(&w, bytes.NewReader(data[:1000]), int64(len(data)), CompressOptions{})
	require.ErrorContains(t, err, "read 1000 of")
}

// TestLocalMatchesGaps: matches found in the joined gaps map back to
// valid copies in the original positions.
func TestLocalMatchesGaps(t *testing.T) {
	data := nearPair(1<<20, 3)
	ms, _ := findLong(data, 1<<20)
	require.NotEmpty(t, ms)
	enc, err := newEncoder(3, 0)
	require.NoError(t, err)
	defer enc.Close()
	for _, skip := range []bool{true, false} {
		_, ks, err := localMatches(enc, data, 0, len(data), ms, skip, nil)
		require.NoError(t, err)
		require.NotEmpty(t, ks)
		prev := 0
		for _, k := range ks {
			require.GreaterOrEqual(t, k.pos, prev)
			require.GreaterOrEqual(t, k.n, 3)
			require.Greater(t, k.off, 0)
			require.LessOrEqual(t, k.off, k.pos)
			for i := 0; i < k.n; i++ {
				require.Equal(t, data[k.pos+i-k.off], data[k.pos+i], "match %+v byte %d", k, i)
			}
			prev = k.end()
		}
	}
}

// TestCompressHeldShortLate: an input that ends early after several
// chunks have been read, scanned and compressed is reported as short
// (and, under -race, the stages hand the failure over cleanly).
func TestCompressHeldShortLate(t *testing.T) {
	data := nearPair(3<<20, 1)
	var w bufWriterAt
	_, err := CompressTo(&w, bytes.NewReader(data[:5<<20]), int64(len(data)), CompressOptions{ChunkSize: 1 << 20, Concurrency: 2})
	require.ErrorContains(t, err, "read 5242880 of 6295427 bytes")
}

// FuzzCompressHeld: near-duplicate pairs behind arbitrary bytes, at any
// chunk size and the klauspost levels, round-trip through whichever way
// compressHeld chooses (independent frames, or one frame of spliced and
// re-encoded chunks).
func FuzzCompressHeld(f *testing.F) {
	f.Add([]byte("seed"), uint8(0), uint8(2))
	f.Add([]byte{}, uint8(200), uint8(4))
	f.Add(bytes.Repeat([]byte{0}, 5000), uint8(64), uint8(0))
	f.Fuzz(func(t *testing.T, prefix []byte, chunkKiB, level uint8) {
		var s uint64
		for _, b := range prefix {
			s = s*131 + uint64(b)
		}
		data := append(append([]byte(nil), prefix...), nearPair(160<<10, s)...)
		o := CompressOptions{ChunkSize: (64 + int(chunkKiB)) << 10, Level: 1 + int(level%5), Concurrency: 2}
		out, _, err := Compress(nil, data, o)
		require.NoError(t, err)
		d, err := Decompress(out, Limits{})
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, d.Data))
	})
}
