package zstdpipe

import (
	"bytes"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reencode parses frame (klauspost's output for data) and writes its
// matches again as one frame with Encoder.
func reencode(t testing.TB, data, frame []byte) []byte {
	t.Helper()
	e := NewEncoder()
	out := AppendFrameHeader(nil, uint64(len(data)))
	pos := 0
	var blocks []struct {
		size int
		seqs []Seq
	}
	err := Sequences(frame, len(data), func(size int, seqs []Seq) error {
		blocks = append(blocks, struct {
			size int
			seqs []Seq
		}{size, append([]Seq(nil), seqs...)})
		return nil
	})
	require.NoError(t, err)
	for i, b := range blocks {
		var lits []byte
		p := pos
		for _, s := range b.seqs {
			lits = append(lits, data[p:p+int(s.LL)]...)
			p += int(s.LL + s.ML)
		}
		lits = append(lits, data[p:pos+b.size]...)
		out, err = e.AppendBlock(out, data[pos:pos+b.size], lits, b.seqs, i == len(blocks)-1)
		require.NoError(t, err)
		pos += b.size
	}
	require.Equal(t, len(data), pos)
	return out
}

func decodeAll(t testing.TB, frame []byte, size int) []byte {
	t.Helper()
	dst := make([]byte, size+Slack)
	n, err := Decode(dst, frame, size, Options{})
	require.NoError(t, err)
	return dst[:n]
}

func testInputs() map[string][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog; "), 9000)
	mixed := make([]byte, 0, 1<<20)
	for len(mixed) < 1<<20 {
		switch r.IntN(4) {
		case 0:
			mixed = append(mixed, random[:r.IntN(200)]...)
		case 1:
			mixed = append(mixed, make([]byte, r.IntN(5000))...)
		default:
			off := r.IntN(len(text) - 300)
			mixed = append(mixed, text[off:off+r.IntN(300)]...)
		}
	}
	return map[string][]byte{"random": random, "text": text, "mixed": mixed, "tiny": []byte("abcabcabcabcabcabcabcabcabc"), "zeros": make([]byte, 200<<10)}
}

// TestEncoderRoundTrip re-encodes klauspost's matches at every level and
// checks that zstdpipe, klauspost and the zstd program decode the result.
func TestEncoderRoundTrip(t *testing.T) {
	zstdProg, err := exec.LookPath("zstd")
	require.NoError(t, err, "the zstd program (scripts/install-deps.sh)")
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	for name, data := range testInputs() {
		for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression} {
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderCRC(false))
			require.NoError(t, err)
			frame := enc.EncodeAll(data, nil)
			ours := reencode(t, data, frame)
			assert.Equal(t, data, decodeAll(t, ours, len(data)), "%s %v zstdpipe", name, l)
			got, err := dec.DecodeAll(ours, nil)
			require.NoError(t, err, "%s %v klauspost", name, l)
			assert.Equal(t, data, got, "%s %v klauspost", name, l)
			cmd := exec.Command(zstdProg, "-d", "-c", "-q")
			cmd.Stdin = bytes.NewReader(ours)
			got, err = cmd.Output()
			require.NoError(t, err, "%s %v zstd -d", name, l)
			assert.Equal(t, data, got, "%s %v zstd -d", name, l)
			// The entropy stage is as good as klauspost's own.
			assert.LessOrEqual(t, len(ours), len(frame)*103/100+64, "%s %v size", name, l)
		}
	}
}

// TestEncoderRepeatOffsets writes sequences that exercise every repeat
// code, including the zero-literal-length ones, and long distances.
func TestEncoderRepeatOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 1<<20)
	for i := range data[:64<<10] {
		data[i] = byte(r.Uint32())
	}
	var seqs []Seq
	pos := 64 << 10
	offs := []uint32{1000, 2000, 3000, 999, 60000}
	for pos < len(data)-300 {
		ll := uint32(r.IntN(3))
		off := offs[r.IntN(len(offs))]
		if r.IntN(8) == 0 {
			off = uint32(1 + r.IntN(pos+int(ll)))
		}
		ml := uint32(3 + r.IntN(200))
		for i := 0; i < int(ll); i++ {
			data[pos+i] = byte(r.Uint32())
		}
		for i := 0; i < int(ml); i++ {
			data[pos+int(ll)+i] = data[pos+int(ll)+i-int(off)]
		}
		seqs = append(seqs, Seq{LL: ll, ML: ml, Off: off})
		pos += int(ll + ml)
	}
	data = data[:pos]
	e := NewEncoder()
	out := AppendFrameHeader(nil, uint64(len(data)))
	// Cut into blocks of at most MaxBlock, with the first 64 KiB as
	// literals.
	start, cur := 0, 0
	var bs []Seq
	var lits []byte
	flush := func(end int, last bool) {
		lits = append(lits, data[cur:end]...)
		var err error
		out, err = e.AppendBlock(out, data[start:end], lits, bs, last)
		require.NoError(t, err)
		start, cur, bs, lits = end, end, nil, nil
	}
	flush(64<<10, false)
	p := 64 << 10
	for _, s := range seqs {
		if p+int(s.LL+s.ML)-start > MaxBlock {
			flush(p, false)
		}
		lits = append(lits, data[p:p+int(s.LL)]...)
		bs = append(bs, s)
		p += int(s.LL + s.ML)
		cur = p
	}
	flush(p, true)
	assert.Equal(t, data, decodeAll(t, out, len(data)))
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	got, err := dec.DecodeAll(out, nil)
	require.NoError(t, err)
	assert.Equal(t, data, got)
}

func TestNCountRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 2000; i++ {
		f := field(r.IntN(3))
		n := 2 + r.IntN(5000)
		var cnt [64]uint32
		maxSym := 1 + r.IntN(maxCode[f])
		for j := 0; j < n; j++ {
			s := r.IntN(maxSym + 1)
			if r.IntN(3) == 0 {
				s = r.IntN(3)
			}
			cnt[s]++
		}
		top := 0
		for s := range cnt {
			if cnt[s] > 0 {
				top = s
			}
		}
		log := tableLog(n, top, maxLog[f])
		norm := normalize(cnt[:top+1], n, log, nil)
		sum := 0
		for s, v := range norm {
			require.Equal(t, cnt[s] > 0, v > 0)
			sum += int(v)
		}
		require.Equal(t, 1<<log, sum)
		desc := writeNCount(nil, norm, log)
		got, glog, used, ok := readNCount(f, append(desc, 0, 0, 0), nil)
		require.True(t, ok)
		assert.Equal(t, len(desc), used)
		assert.Equal(t, log, glog)
		assert.Equal(t, norm, got)
	}
}

// FuzzSequences: Sequences never panics, accepts what Decode accepts, and
// re-encoding its sequences with Encoder reproduces Decode's output.
func FuzzSequences(f *testing.F) {
	e, _ := zstd.NewWriter(nil, zstd.WithWindowSize(1<<12), zstd.WithEncoderCRC(true))
	for ki, kind := range kinds {
		f.Add(e.EncodeAll(sample(kind, 3000, uint64(ki)), nil))
	}
	f.Add([]byte{})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd})
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 16
		dst := make([]byte, limit+Slack)
		n, derr := Decode(dst, in, limit, Options{MaxWindow: 1 << 20})
		total := 0
		var blocks [][]Seq
		var sizes []int
		err := Sequences(in, limit, func(size int, seqs []Seq) error {
			total += size
			blocks = append(blocks, append([]Seq(nil), seqs...))
			sizes = append(sizes, size)
			return nil
		})
		if derr != nil {
			return
		}
		if err != nil {
			t.Fatalf("Decode accepts what Sequences refuses: %v", err)
		}
		if total != n {
			t.Fatalf("Sequences covers %d bytes, Decode wrote %d", total, n)
		}
		out := dst[:n]
		if n == 0 {
			return
		}
		enc := NewEncoder()
		frame := AppendFrameHeader(nil, uint64(n))
		pos := 0
		for i, seqs := range blocks {
			var lits []byte
			p := pos
			for _, s := range seqs {
				lits = append(lits, out[p:p+int(s.LL)]...)
				p += int(s.LL + s.ML)
			}
			lits = append(lits, out[p:pos+sizes[i]]...)
			if frame, err = enc.AppendBlock(frame, out[pos:pos+sizes[i]], lits, seqs, i == len(blocks)-1); err != nil {
				t.Fatalf("block %d: %v", i, err)
			}
			pos += sizes[i]
		}
		got := make([]byte, n+Slack)
		m, err := Decode(got, frame, n, Options{})
		if err != nil {
			t.Fatalf("re-encoded frame does not decode: %v", err)
		}
		if !bytes.Equal(got[:m], out) {
			t.Fatalf("re-encoded frame decodes differently")
		}
	})
}
