package bundler

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/offload-kit/offload-kit/format/bundle"
)

func withCommas(v uint64) string {
	s := strconv.FormatUint(v, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func cfloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

func hex16(v uint64) string { return fmt.Sprintf("0x%014x", v) }

func (c *config) printCompressStats(env *Env, h bundle.Header, compressed int64, d time.Duration) {
	rate := float64(h.UncompressedSize) / float64(compressed)
	speed := float64(h.UncompressedSize) / (1024 * 1024) / d.Seconds()
	w := env.Stderr
	fmt.Fprintf(w, "Compressed bundle format version: %d\n", h.Version)
	fmt.Fprintf(w, "Total file size (including headers): %s bytes\n", withCommas(h.TotalFileSize))
	fmt.Fprintf(w, "Compression method used: %s\n", h.Method)
	fmt.Fprintf(w, "Compression level: %d\n", c.level)
	fmt.Fprintf(w, "Binary size before compression: %s bytes\n", withCommas(h.UncompressedSize))
	fmt.Fprintf(w, "Binary size after compression: %s bytes\n", withCommas(uint64(compressed)))
	fmt.Fprintf(w, "Compression rate: %s\n", cfloat(rate))
	fmt.Fprintf(w, "Compression ratio: %s%%\n", cfloat(100/rate))
	fmt.Fprintf(w, "Compression speed: %s MB/s\n", cfloat(speed))
	fmt.Fprintf(w, "Truncated MD5 hash: %s\n", hex16(h.Hash))
}

func (c *config) printDecompressStats(env *Env, d *bundle.Decompressed, dur time.Duration) {
	h := d.Header
	rate := float64(h.UncompressedSize) / float64(d.Compressed)
	speed := float64(h.UncompressedSize) / (1024 * 1024) / dur.Seconds()
	w := env.Stderr
	fmt.Fprintf(w, "Compressed bundle format version: %d\n", h.Version)
	if h.Version >= 2 {
		fmt.Fprintf(w, "Total file size (from header): %s bytes\n", withCommas(h.TotalFileSize))
	}
	fmt.Fprintf(w, "Decompression method: %s\n", h.Method)
	fmt.Fprintf(w, "Size before decompression: %s bytes\n", withCommas(uint64(d.Compressed)))
	fmt.Fprintf(w, "Size after decompression: %s bytes\n", withCommas(h.UncompressedSize))
	fmt.Fprintf(w, "Compression rate: %s\n", cfloat(rate))
	fmt.Fprintf(w, "Compression ratio: %s%%\n", cfloat(100/rate))
	fmt.Fprintf(w, "Decompression speed: %s MB/s\n", cfloat(speed))
	fmt.Fprintf(w, "Stored hash: %s\n", hex16(h.Hash))
	fmt.Fprintf(w, "Recalculated hash: %s\n", hex16(d.Hash))
	match := "No"
	if d.Hash == h.Hash {
		match = "Yes"
	}
	fmt.Fprintf(w, "Hashes match: %s\n", match)
}
