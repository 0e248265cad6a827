package bundle

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
)

// longRange returns n bytes whose second part copies earlier parts from
// up to dist bytes back, so a decoder that lost any of its last dist
// bytes of history produces different output.
func longRange(n, dist int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := 0; i < n; {
		if i > dist && r.IntN(3) == 0 {
			back := dist - r.IntN(dist/4)
			l := min(4096+r.IntN(65536), n-i)
			copy(b[i:i+l], b[i-back:])
			i += l
			continue
		}
		l := min(256+r.IntN(4096), n-i)
		for j := 0; j < l; j++ {
			b[i+j] = byte(r.IntN(16)) // compressible, but not trivially
		}
		i += l
	}
	return b
}

// ccob wraps zstd frames made with opts in a version-3 CCOB header.
func ccob(t *testing.T, data []byte, frames int, opts ...zstd.EOption) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, opts...)
	require.NoError(t, err)
	var payload []byte
	step := (len(data) + frames - 1) / frames
	for off := 0; off < len(data); off += step {
		payload = enc.EncodeAll(data[off:min(off+step, len(data))], payload)
	}
	sum := md5.Sum(data)
	h := Header{Version: 3, Method: Zstd, UncompressedSize: uint64(len(data)), Hash: binary.LittleEndian.Uint64(sum[:8])}
	h.TotalFileSize = uint64(h.Size() + len(payload))
	return append(h.AppendHeader(nil), payload...)
}

// collect runs DecodeTo and checks that chunks arrive in order, back to
// back.
func collect(t *testing.T, blob []byte, o DecodeOptions) ([]byte, error) {
	t.Helper()
	var out []byte
	_, err := DecodeTo(blob, o, func(off int64, p []byte) error {
		if off != int64(len(out)) {
			t.Fatalf("chunk at %d, expected %d", off, len(out))
		}
		out = append(out, p...)
		return nil
	})
	return out, err
}

// TestDecodeToWindowed decodes outputs larger than their window, whose
// matches reach back nearly a whole window: releasing history too early
// would change the output (and fail the hash).
func TestDecodeToWindowed(t *testing.T) {
	data := longRange(40<<20, 6<<20, 1)
	for _, tc := range []struct {
		name   string
		frames int
		opts   []zstd.EOption
	}{
		{"one frame, 8 MiB window", 1, []zstd.EOption{zstd.WithWindowSize(8 << 20), zstd.WithEncoderCRC(false)}},
		{"three frames", 3, []zstd.EOption{zstd.WithWindowSize(8 << 20), zstd.WithEncoderCRC(false)}},
		{"single-segment frames", 4, []zstd.EOption{zstd.WithSingleSegment(true), zstd.WithEncoderCRC(false)}},
		{"with checksums (kept resident)", 2, []zstd.EOption{zstd.WithWindowSize(8 << 20), zstd.WithEncoderCRC(true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blob := ccob(t, data, tc.frames, tc.opts...)
			before := released.Load()
			got, err := collect(t, blob, DecodeOptions{})
			require.NoError(t, err)
			require.True(t, bytes.Equal(data, got), "output differs")
			// (With checksums, klauspost re-reads each frame's output to check
			// it: history released early would fail that check, so the
			// correct output above shows that it was kept.)
			if runtime.GOOS == "linux" {
				require.Greater(t, released.Load(), before+8<<20, "history was not released")
			}
		})
	}
}

func TestDecodeToErrors(t *testing.T) {
	data := longRange(20<<20, 1<<20, 2)
	good := ccob(t, data, 1, zstd.WithWindowSize(4<<20), zstd.WithEncoderCRC(false))

	t.Run("hash", func(t *testing.T) {
		bad := bytes.Clone(good)
		bad[24] ^= 1
		_, err := collect(t, bad, DecodeOptions{})
		require.ErrorIs(t, err, ErrChecksum)
	})
	t.Run("corrupt payload", func(t *testing.T) {
		for _, at := range []int{40, len(good) / 3, len(good) - 10} {
			bad := bytes.Clone(good)
			for i := at; i < at+8 && i < len(bad); i++ {
				bad[i] ^= 0x5a
			}
			_, err := collect(t, bad, DecodeOptions{})
			require.Error(t, err, "corruption at %d", at)
			var fe *format.FormatError
			require.True(t, errors.As(err, &fe), "%v", err)
		}
	})
	t.Run("size", func(t *testing.T) {
		bad := bytes.Clone(good)
		binary.LittleEndian.PutUint64(bad[16:], uint64(len(data)-1))
		_, err := collect(t, bad, DecodeOptions{})
		require.Error(t, err)
	})
	t.Run("sink error", func(t *testing.T) {
		stop := errors.New("stop")
		_, err := DecodeTo(good, DecodeOptions{}, func(off int64, p []byte) error { return stop })
		require.ErrorIs(t, err, stop)
	})
	t.Run("skip verify takes the reader", func(t *testing.T) {
		got, err := collect(t, good, DecodeOptions{Limits: Limits{SkipVerify: true}})
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, got))
	})
}

// TestHeaderLen checks that HeaderLen, on every prefix, either waits or
// gives exactly the bytes ParseLenient reads from the whole bundle.
func TestHeaderLen(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 300; iter++ {
		var ins []Input
		for i := r.IntN(5); i > 0; i-- {
			d := make([]byte, r.IntN(300))
			ins = append(ins, Input{ID: "hip-amdgcn-amd-amdhsa--gfx" + string(rune('a'+r.IntN(26))), Size: int64(len(d)), Data: bytes.NewReader(d)})
		}
		var buf bytes.Buffer
		_, err := WriteBinary(&buf, ins, uint64(1+r.IntN(64)))
		require.NoError(t, err)
		b := buf.Bytes()
		if iter%3 == 1 && len(b) > 40 { // damage the table
			b[32+r.IntN(min(len(b)-32, 60))] ^= byte(1 + r.IntN(255))
		}
		if iter%5 == 2 {
			b = b[:r.IntN(len(b)+1)]
		}
		full, _ := ParseLenient(b)
		want, ok := HeaderLen(b, int64(len(b)))
		require.True(t, ok)
		for l := 0; l <= len(b); l++ {
			n, ok := HeaderLen(b[:l], int64(len(b)))
			if !ok {
				continue
			}
			require.Equal(t, want, n, "prefix %d of %d", l, len(b))
			// The prefix holds everything the parse reads.
			view := make([]byte, len(b))
			copy(view, b[:l])
			got, _ := ParseLenient(view)
			require.Equal(t, len(full.Entries), len(got.Entries), "prefix %d", l)
			for i := range got.Entries {
				require.Equal(t, full.Entries[i].ID, got.Entries[i].ID)
				require.Equal(t, full.Entries[i].Offset, got.Entries[i].Offset)
				require.Equal(t, full.Entries[i].Size, got.Entries[i].Size)
			}
			break
		}
	}
}

// TestDecompressLarge: Decompress takes the zstdpipe path for large zstd
// payloads; output, hash modes and errors are those of the reader path.
func TestDecompressLarge(t *testing.T) {
	data := longRange(20<<20, 1<<20, 5)
	blob := ccob(t, data, 2, zstd.WithWindowSize(1<<20))
	require.LessOrEqual(t, uint64(len(data))/pipedMaxRatio, uint64(len(blob)-32), "the test must take the piped path")
	sum := md5.Sum(data)
	for _, hc := range []HashCheck{HashVerify, HashCompute, HashSkip} {
		d, err := Decompress(blob, Limits{Hash: hc})
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, d.Data))
		want := binary.LittleEndian.Uint64(sum[:8])
		if hc == HashSkip {
			want = 0
		}
		require.Equal(t, want, d.Hash)
		require.Equal(t, int64(len(blob)-32), d.Compressed)
	}
	bad := append([]byte(nil), blob...)
	bad[24] ^= 1 // stored hash
	_, err := Decompress(bad, Limits{})
	require.ErrorIs(t, err, ErrChecksum)
	d, err := Decompress(bad, Limits{Hash: HashCompute})
	require.NoError(t, err)
	require.NotEqual(t, d.Header.Hash, d.Hash)
	bad = append([]byte(nil), blob...)
	bad[16]++ // uncompressed size
	_, err = Decompress(bad, Limits{Hash: HashSkip})
	require.ErrorIs(t, err, ErrChecksum)
	bad = append([]byte(nil), blob...)
	bad[len(bad)/2] ^= 0xff
	_, err = Decompress(bad, Limits{})
	require.Error(t, err)
}
