package zstdpipe

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spliceFrame writes pieces as one frame: each piece is klauspost's frame
// of it, spliced (AppendBlocks) when RepeatFree allows, else its matches
// written again with Encoder (after ForgetRepeats, since the blocks
// before may be spliced ones). force splices every piece regardless.
func spliceFrame(t *testing.T, enc *zstd.Encoder, pieces [][]byte, force bool) (out []byte, spliced int) {
	t.Helper()
	total := 0
	for _, p := range pieces {
		total += len(p)
	}
	e := NewEncoder()
	out = AppendFrameHeader(nil, uint64(total))
	for i, p := range pieces {
		last := i == len(pieces)-1
		frame := enc.EncodeAll(p, nil)
		if bytes.Equal(p, repeatPiece()) {
			frame = repeatFrame(t, p)
		}
		free, err := RepeatFree(frame)
		require.NoError(t, err)
		if free || force {
			out, err = AppendBlocks(out, frame, last)
			require.NoError(t, err)
			e.ForgetRepeats()
			spliced++
			continue
		}
		var blocks []struct {
			size int
			seqs []Seq
		}
		require.NoError(t, Sequences(frame, len(p), func(size int, seqs []Seq) error {
			blocks = append(blocks, struct {
				size int
				seqs []Seq
			}{size, append([]Seq(nil), seqs...)})
			return nil
		}))
		pos := 0
		for j, b := range blocks {
			var lits []byte
			q := pos
			for _, s := range b.seqs {
				lits = append(lits, p[q:q+int(s.LL)]...)
				q += int(s.LL + s.ML)
			}
			lits = append(lits, p[q:pos+b.size]...)
			out, err = e.AppendBlock(out, p[pos:pos+b.size], lits, b.seqs, last && j == len(blocks)-1)
			require.NoError(t, err)
			pos += b.size
		}
	}
	return out, spliced
}

// repeatPrefix starts a piece whose frame repeatFrame writes: 100
// literals, then a copy from 4 bytes back, which Encoder codes with the
// initial repeat offset 4 (klauspost never uses the initial offsets).
var repeatPrefix = []byte("repeat-offset piece")

func repeatPiece() []byte {
	p := append([]byte(nil), repeatPrefix...)
	for len(p) < 100 {
		p = append(p, byte(len(p)*7))
	}
	for len(p) < 300 {
		p = append(p, p[len(p)-4])
	}
	return p
}

func repeatFrame(t *testing.T, p []byte) []byte {
	out := AppendFrameHeader(nil, uint64(len(p)))
	out, err := NewEncoder().AppendBlock(out, p, p[:100], []Seq{{LL: 100, ML: 200, Off: 4}}, true)
	require.NoError(t, err)
	return out
}

// TestSplice: frames of pieces spliced into one frame, next to blocks
// written by Encoder, decode to the pieces joined (zstdpipe, klauspost,
// the zstd program); a frame that uses the initial repeat offsets is
// caught by RepeatFree, and splicing it anyway breaks the output.
func TestSplice(t *testing.T) {
	zstdProg, err := exec.LookPath("zstd")
	require.NoError(t, err, "the zstd program (scripts/install-deps.sh)")
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	in := testInputs()
	pieces := [][]byte{in["mixed"], in["text"], repeatPiece(), in["random"], in["zeros"], in["tiny"]}
	for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression} {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderCRC(false), zstd.WithWindowSize(1<<20))
		require.NoError(t, err)
		want := bytes.Join(pieces, nil)
		out, spliced := spliceFrame(t, enc, pieces, false)
		assert.Greater(t, spliced, 2, "%v", l)
		assert.Equal(t, len(pieces)-1, spliced, "%v: all but the repeat-offset piece", l)
		assert.Equal(t, want, decodeAll(t, out, len(want)), "%v zstdpipe", l)
		got, err := dec.DecodeAll(out, nil)
		require.NoError(t, err, "%v klauspost", l)
		assert.Equal(t, want, got, "%v klauspost", l)
		cmd := exec.Command(zstdProg, "-d", "-c", "-q")
		cmd.Stdin = bytes.NewReader(out)
		got, err = cmd.Output()
		require.NoError(t, err, "%v zstd -d", l)
		assert.Equal(t, want, got, "%v zstd -d", l)

		// Without the check the piece with the run comes out wrong.
		out, _ = spliceFrame(t, enc, pieces, true)
		dst := make([]byte, len(want)+Slack)
		n, err := Decode(dst, out, len(want), Options{})
		assert.False(t, err == nil && bytes.Equal(dst[:n], want), "%v: splicing regardless decoded right", l)
	}
}

// TestSpliceMalformed: RepeatFree and AppendBlocks reject what is not one
// well-formed frame.
func TestSpliceMalformed(t *testing.T) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	require.NoError(t, err)
	frame := enc.EncodeAll(testInputs()["mixed"], nil)
	for name, b := range map[string][]byte{
		"empty":     nil,
		"magic":     []byte("not a frame at all"),
		"truncated": frame[:len(frame)/2],
		"header":    frame[:5],
	} {
		if name != "truncated" { // (RepeatFree reads only the start)
			_, err := RepeatFree(b)
			assert.Error(t, err, "%s RepeatFree", name)
		}
		_, err = AppendBlocks(nil, b, true)
		assert.Error(t, err, "%s AppendBlocks", name)
	}
	// A checksummed frame loses its checksum (the bigger frame has none).
	blocks, err := AppendBlocks(nil, frame, true)
	require.NoError(t, err)
	n, _, err := frameHeaderLen(frame)
	require.NoError(t, err)
	assert.Equal(t, len(frame)-n-4, len(blocks))
}

// FuzzSplice: RepeatFree and AppendBlocks never panic on arbitrary bytes,
// and two pieces (the second possibly a repeat-offset frame) spliced into
// one frame decode to the pieces joined.
func FuzzSplice(f *testing.F) {
	f.Add([]byte("the quick brown fox jumps over the lazy dog, the quick brown fox"), []byte("abcabcabcabcabcabcabc"))
	f.Add(testInputs()["tiny"], repeatPiece())
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		RepeatFree(a)
		AppendBlocks(nil, a, true)
		if len(a) == 0 || len(b) == 0 {
			return
		}
		want := append(append([]byte(nil), a...), b...)
		out, _ := spliceFrame(t, enc, [][]byte{a, b}, false)
		require.Equal(t, want, decodeAll(t, out, len(want)))
	})
}
