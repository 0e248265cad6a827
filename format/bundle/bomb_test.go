package bundle

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// rleFrame is a zstd frame of hand-made blocks: head as a raw block, n
// bytes of fill as 128 KiB RLE blocks (4 bytes each), tail as a raw block.
func rleFrame(head []byte, fill byte, n int, tail []byte) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3} // no content size, 128 KiB window
	type blk struct {
		rle bool
		n   int
		lit []byte
	}
	var bs []blk
	if len(head) > 0 {
		bs = append(bs, blk{n: len(head), lit: head})
	}
	for left := n; left > 0; left -= 128 << 10 {
		bs = append(bs, blk{rle: true, n: min(left, 128<<10)})
	}
	if len(tail) > 0 {
		bs = append(bs, blk{n: len(tail), lit: tail})
	}
	for i, k := range bs {
		h := uint32(k.n) << 3
		if i == len(bs)-1 {
			h |= 1
		}
		if k.rle {
			b = append(b, byte(h|2), byte(h>>8), byte(h>>16), fill)
		} else {
			b = append(append(b, byte(h), byte(h>>8), byte(h>>16)), k.lit...)
		}
	}
	return b
}

func rleCCOB(head []byte, fill byte, n int, tail []byte) []byte {
	p := rleFrame(head, fill, n, tail)
	h := Header{Version: 3, Method: Zstd, UncompressedSize: uint64(len(head) + n + len(tail))}
	h.TotalFileSize = uint64(h.Size() + len(p))
	return append(h.AppendHeader(nil), p...)
}

// vmRSS is this process's resident set, from /proc/self/status.
func vmRSS(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// TestDecodeToSlowSinkBounded: an RLE bomb (1 GiB from 32 KB) decoded
// into a slow sink. The decoder waits for the sink (decodeLag), so what is
// decoded and not yet handed over never becomes resident GiBs: the
// process's RSS stays far below the output's size.
func TestDecodeToSlowSinkBounded(t *testing.T) {
	const n = 1 << 30
	blob := rleCCOB([]byte("HEAD"), 7, n, []byte("TAIL"))
	base := vmRSS(t)
	var peak, got int64
	calls := 0
	_, err := DecodeTo(blob, DecodeOptions{Limits: Limits{Hash: HashSkip}}, func(off int64, p []byte) error {
		if off != got {
			t.Fatalf("piece at %d, want %d", off, got)
		}
		got += int64(len(p))
		calls++
		time.Sleep(5 * time.Millisecond) // far slower than the decoder
		peak = max(peak, vmRSS(t)-base)
		return nil
	})
	require.NoError(t, err)
	require.EqualValues(t, n+8, got)
	t.Logf("peak RSS growth %d MiB for a %d MiB output", peak>>20, int64(n)>>20)
	if peak > 96<<20 {
		t.Errorf("RSS grew by %d MiB while a slow sink took a %d MiB output: the decoder must wait for the sink", peak>>20, n>>20)
	}
}

// TestWriteAtSinkHoles: zeros become holes, everything else is written
// at its offset, and the file reads back as the decoded bytes.
func TestWriteAtSinkHoles(t *testing.T) {
	const n = 256 << 20
	head := bytes.Repeat([]byte("H"), 100<<10) // spans a 64 KiB boundary
	blob := rleCCOB(head, 0, n, []byte("TAIL"))
	f, err := os.CreateTemp(t.TempDir(), "sink")
	require.NoError(t, err)
	defer f.Close()
	h, err := DecodeTo(blob, DecodeOptions{Limits: Limits{Hash: HashSkip}}, WriteAtSink(f))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(int64(h.UncompressedSize)))
	st, err := f.Stat()
	require.NoError(t, err)
	require.EqualValues(t, len(head)+n+4, st.Size())
	if used := st.Sys().(*syscall.Stat_t).Blocks * 512; used > 1<<20 {
		t.Errorf("%d bytes allocated for %d bytes that are nearly all zeros", used, st.Size())
	}
	got := make([]byte, len(head)+8)
	_, err = f.ReadAt(got, 0)
	require.NoError(t, err)
	require.Equal(t, append(append([]byte(nil), head...), 0, 0, 0, 0, 0, 0, 0, 0), got)
	tail := make([]byte, 8)
	_, err = f.ReadAt(tail, st.Size()-8)
	require.NoError(t, err)
	require.Equal(t, []byte("\x00\x00\x00\x00TAIL"), tail)
}
