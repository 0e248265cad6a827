package bundle

import (
	"io"
	"os"
	"strconv"
	"testing"
	"time"
)

// patternReader yields n bytes of code-like data without holding them.
type patternReader struct {
	n, off int64
	block  []byte
}

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(b) && p.off < p.n {
		i := int(p.off % int64(len(p.block)))
		c := copy(b[k:], p.block[i:])
		if rem := p.n - p.off; int64(c) > rem {
			c = int(rem)
		}
		// Vary each block a little so frames are not trivially repetitive.
		if i == 0 && c >= 8 {
			b[k] ^= byte(p.off >> 20)
		}
		k += c
		p.off += int64(c)
	}
	return k, nil
}

// TestHugeStreaming compresses and decompresses a payload larger than
// 4 GiB through the streaming API (CCOB v3 with 64-bit sizes). It only
// runs with BUNDLE_HUGE_GIB set (e.g. 5), as it needs memory, disk and
// cores.
func TestHugeStreaming(t *testing.T) {
	gib, _ := strconv.Atoi(os.Getenv("BUNDLE_HUGE_GIB"))
	if gib == 0 {
		t.Skip("set BUNDLE_HUGE_GIB to run")
	}
	size := int64(gib) << 30
	block := make([]byte, 1<<20)
	copy(block, []byte{})
	for i := range block {
		block[i] = "mov add s_load_dword v_mad_f32 ret call r0 r1\n"[i%46] ^ byte(i>>14)
	}
	f, err := os.CreateTemp(t.TempDir(), "huge-*.ccob")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	h, err := CompressTo(f, &patternReader{n: size, block: block}, size, CompressOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ct := time.Since(start)
	t.Logf("compressed %d GiB to %d bytes in %v (%.0f MB/s)", gib, h.TotalFileSize, ct, float64(size)/ct.Seconds()/1e6)
	if h.Version != 3 || h.UncompressedSize != uint64(size) {
		t.Fatalf("header %+v", h)
	}
	buf, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	r, err := NewReader(buf, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		t.Fatal(err)
	}
	dt := time.Since(start)
	t.Logf("decompressed and verified %d bytes in %v (%.0f MB/s)", n, dt, float64(n)/dt.Seconds()/1e6)
	if n != size {
		t.Fatalf("got %d bytes", n)
	}
}
