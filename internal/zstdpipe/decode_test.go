package zstdpipe

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
)

// sample makes n bytes of one of several shapes: incompressible, runs,
// code-like (words from a small dictionary between random bytes, as the
// bench writes), text with long repeats, small periods.
func sample(kind string, n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, 0, n+64)
	switch kind {
	case "random":
		for len(b) < n {
			b = append(b, byte(r.Uint32()))
		}
	case "zeros":
		b = b[:n]
	case "runs":
		for len(b) < n {
			v := byte(r.IntN(3))
			for k := r.IntN(300); k > 0; k-- {
				b = append(b, v)
			}
		}
	case "code":
		var dict [64][16]byte
		for i := range dict {
			for j := range dict[i] {
				dict[i][j] = byte(r.Uint32())
			}
		}
		for len(b) < n {
			if r.IntN(4) == 0 {
				b = append(b, byte(r.Uint32()))
				continue
			}
			b = append(b, dict[r.IntN(64)][:4+r.IntN(12)]...)
		}
	case "periods":
		for len(b) < n {
			p := 1 + r.IntN(20)
			pat := make([]byte, p)
			for i := range pat {
				pat[i] = byte('a' + r.IntN(26))
			}
			for k := r.IntN(200); k > 0; k-- {
				b = append(b, pat...)
			}
		}
	case "far":
		// Long repeats of a random chunk far back, to exercise large offsets.
		chunk := make([]byte, 1<<16)
		for i := range chunk {
			chunk[i] = byte(r.Uint32())
		}
		for len(b) < n {
			if r.IntN(3) == 0 {
				b = append(b, chunk...)
			} else {
				for k := 0; k < 5000; k++ {
					b = append(b, byte(r.Uint32()))
				}
			}
		}
	}
	return b[:n]
}

var kinds = []string{"random", "zeros", "runs", "code", "periods", "far"}

func decodeBoth(t testing.TB, frame []byte, limit int) ([]byte, error, []byte, error) {
	t.Helper()
	dst := make([]byte, limit+Slack)
	n, err := Decode(dst, frame, limit, Options{MaxWindow: 1 << 30})
	d, derr := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(1<<30), zstd.WithDecoderMaxWindow(1<<30), zstd.WithDecoderConcurrency(1))
	require.NoError(t, derr)
	defer d.Close()
	want, werr := d.DecodeAll(frame, nil)
	return dst[:n], err, want, werr
}

func TestMatchesKlauspost(t *testing.T) {
	sizes := []int{0, 1, 17, 1000, 70000, 300000, 3 << 20}
	levels := []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression}
	for ki, kind := range kinds {
		for si, n := range sizes {
			data := sample(kind, n, uint64(ki*100+si))
			for _, lvl := range levels {
				for _, crc := range []bool{false, true} {
					for _, win := range []int{1 << 10, 1 << 17, 8 << 20} {
						name := fmt.Sprintf("%s/%d/%v/crc=%v/win=%d", kind, n, lvl, crc, win)
						e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderCRC(crc), zstd.WithWindowSize(win), zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(false))
						require.NoError(t, err)
						frame := e.EncodeAll(data, nil)
						got, err, _, _ := decodeBoth(t, frame, n)
						require.NoError(t, err, name)
						require.True(t, bytes.Equal(got, data), name)
					}
				}
			}
		}
	}
}

// TestZstdProgram decodes what libzstd itself writes (the zstd program):
// every strategy from fast to btultra2, long-distance matching, content
// checksums, multiple frames and skippable frames.
func TestZstdProgram(t *testing.T) {
	zp, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("zstd program not installed") // scripts/install-deps.sh installs it
	}
	dir := t.TempDir()
	for ki, kind := range kinds {
		data := sample(kind, 1<<20+12345, uint64(ki))
		in := dir + "/" + kind
		require.NoError(t, os.WriteFile(in, data, 0o644))
		for _, args := range [][]string{
			{"-1"}, {"-3"}, {"-3", "--no-check"}, {"-9"}, {"-15"}, {"-19"}, {"--ultra", "-22"},
			{"-3", "--long=24"}, {"-5", "-B65536"}, {"--fast=5"}, {"-3", "--no-check", "--stream-size=" + fmt.Sprint(len(data))},
		} {
			out := in + ".zst"
			cmd := exec.Command(zp, append(append([]string{"-q", "-f"}, args...), in, "-o", out)...)
			b, err := cmd.CombinedOutput()
			require.NoError(t, err, string(b))
			frame, err := os.ReadFile(out)
			require.NoError(t, err)
			got, err, _, _ := decodeBoth(t, frame, len(data))
			require.NoError(t, err, "%s %v", kind, args)
			require.True(t, bytes.Equal(got, data), "%s %v", kind, args)
		}
	}
}

func TestFramesAndSkippable(t *testing.T) {
	a, b := sample("code", 200000, 1), sample("periods", 150000, 2)
	e, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	skip := []byte{0x5A, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'x', 'y', 'z'}
	var frame []byte
	frame = append(frame, skip...)
	frame = e.EncodeAll(a, frame)
	frame = append(frame, skip...)
	frame = e.EncodeAll(nil, frame)
	frame = e.EncodeAll(b, frame)
	want := append(append([]byte{}, a...), b...)
	got, err, _, _ := decodeBoth(t, frame, len(want))
	require.NoError(t, err)
	require.True(t, bytes.Equal(got, want))

	// A frame may not reach into the previous frame's output.
	_, err, _, kerr := decodeBoth(t, frame, len(want)-1)
	var ze *Error
	require.ErrorAs(t, err, &ze)
	require.True(t, ze.TooLarge)
	_ = kerr
}

func TestChecksumMismatch(t *testing.T) {
	data := sample("code", 100000, 3)
	e, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	frame := e.EncodeAll(data, nil)
	frame[len(frame)-1] ^= 0x40
	_, err, _, kerr := decodeBoth(t, frame, len(data))
	require.Error(t, kerr)
	require.ErrorContains(t, err, "content checksum")
}

// TestCorruptNeverPanics flips, truncates and splices valid frames: the
// decoder must fail cleanly or, when it succeeds, agree with klauspost
// whenever klauspost also succeeds.
func TestCorruptNeverPanics(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for ki, kind := range kinds {
		data := sample(kind, 100000, uint64(ki))
		for _, lvl := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedBestCompression} {
			e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithWindowSize(1<<16))
			frame := e.EncodeAll(data, nil)
			for i := 0; i < 300; i++ {
				m := append([]byte{}, frame...)
				switch i % 3 {
				case 0:
					for k := 1 + r.IntN(3); k > 0; k-- {
						m[r.IntN(len(m))] ^= byte(1 << r.IntN(8))
					}
				case 1:
					m = m[:r.IntN(len(m))]
				case 2:
					p := r.IntN(len(m))
					m[p] = byte(r.Uint32())
				}
				got, err, want, kerr := decodeBoth(t, m, len(data)+1000)
				if err == nil && kerr == nil {
					require.True(t, bytes.Equal(got, want), "%s mutant %d", kind, i)
				}
				var ze *Error
				if err != nil {
					require.True(t, errors.As(err, &ze))
				}
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	e, _ := zstd.NewWriter(nil, zstd.WithWindowSize(1<<12), zstd.WithEncoderCRC(true))
	for ki, kind := range kinds {
		f.Add(e.EncodeAll(sample(kind, 3000, uint64(ki)), nil))
	}
	f.Add([]byte{})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd})
	d, _ := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(1<<20), zstd.WithDecoderConcurrency(1))
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 16
		dst := make([]byte, limit+Slack)
		n, err := Decode(dst, in, limit, Options{MaxWindow: 1 << 20})
		if err != nil {
			var ze *Error
			if !errors.As(err, &ze) {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if want, kerr := d.DecodeAll(in, nil); kerr == nil && !bytes.Equal(dst[:n], want) {
			t.Fatalf("output differs from klauspost's (%d vs %d bytes)", n, len(want))
		}
	})
}

// BenchmarkDecodeFile decodes the zstd file ZSTDPIPE_FILE (for example a
// CCOB payload cut out of a bundle) against klauspost's DecodeAll.
func BenchmarkDecodeFile(b *testing.B) {
	path := os.Getenv("ZSTDPIPE_FILE")
	if path == "" {
		b.Skip("set ZSTDPIPE_FILE")
	}
	src, err := os.ReadFile(path)
	require.NoError(b, err)
	d, _ := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(1<<31), zstd.WithDecoderConcurrency(1))
	want, err := d.DecodeAll(src, nil)
	require.NoError(b, err)
	dst := make([]byte, len(want)+Slack)
	b.Run("zstdpipe", func(b *testing.B) {
		b.SetBytes(int64(len(want)))
		for b.Loop() {
			if _, err := Decode(dst, src, len(want), Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	require.True(b, bytes.Equal(dst[:len(want)], want))
	b.Run("klauspost", func(b *testing.B) {
		b.SetBytes(int64(len(want)))
		for b.Loop() {
			if _, err := d.DecodeAll(src, dst[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
