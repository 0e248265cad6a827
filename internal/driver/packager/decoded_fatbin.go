package packager

import (
	"fmt"

	"github.com/offload-kit/offload-kit/internal/zstdpipe"
)

// MaxDecoded caps the decoded size of one compressed image that a command
// decodes (a fatbin entry; for the kernels report, a compressed bundle's
// entry too): one image is decoded at a time per worker, into a buffer of
// its own size, and anything larger is an error on that image.
const MaxDecoded = 1 << 30

// DecodeZstd is the fatbin.Decompressor of every command that decodes
// fatbin entries (extract, kernels): internal/zstdpipe into one buffer of
// the stated size, refused over MaxDecoded.
func DecodeZstd(dst, src []byte, size int64) ([]byte, error) {
	if size < 0 || size > MaxDecoded {
		return nil, fmt.Errorf("decoded size %d is over the %d-byte limit", size, int64(MaxDecoded))
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
