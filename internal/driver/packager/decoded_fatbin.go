package packager

import (
	"fmt"

	"github.com/offload-kit/offload-kit/internal/zstdpipe"
)

// zstdDecode is the fatbin.Decompressor of every command that decodes
// fatbin entries (extract, kernels): internal/zstdpipe into one buffer of
// the stated size, refused over maxDecoded.
func zstdDecode(dst, src []byte, size int64) ([]byte, error) {
	if size < 0 || size > maxDecoded {
		return nil, fmt.Errorf("decoded size %d is over the %d-byte limit", size, int64(maxDecoded))
	}
	buf := make([]byte, int(size)+zstdpipe.Slack)
	n, err := zstdpipe.Decode(buf, src, int(size), zstdpipe.Options{MaxWindow: 1 << 30})
	if err != nil {
		return nil, err
	}
	if dst == nil {
		return buf[:n:n], nil
	}
	return append(dst, buf[:n]...), nil
}
