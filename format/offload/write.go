package offload

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
)

// Image is one offload image to be written.
type Image struct {
	ImageKind   format.ImageKind
	OffloadKind format.OffloadKind
	Flags       uint32
	// Strings are written in this order. A repeated key behaves as in LLVM's
	// MapVector: it keeps the position of its first occurrence and the value
	// of its last.
	Strings []KV
	Image   []byte
}

// dedup applies MapVector semantics to kvs.
func dedup(kvs []KV) []KV {
	seen := make(map[string]int, len(kvs))
	out := make([]KV, 0, len(kvs))
	for _, kv := range kvs {
		if i, ok := seen[kv.Key]; ok {
			out[i].Value = kv.Value
			continue
		}
		seen[kv.Key] = len(out)
		out = append(out, kv)
	}
	return out
}

var le = binary.LittleEndian

func appendHeader(dst []byte, version uint32, size, off, count uint64) []byte {
	dst = append(dst, format.OffloadBinaryMagic...)
	dst = le.AppendUint32(dst, version)
	dst = le.AppendUint64(dst, size)
	dst = le.AppendUint64(dst, off)
	return le.AppendUint64(dst, count)
}

func appendEntry(dst []byte, img *Image, strOff, numStr, imgOff, imgSize uint64) []byte {
	dst = le.AppendUint16(dst, uint16(img.ImageKind))
	dst = le.AppendUint16(dst, uint16(img.OffloadKind))
	dst = le.AppendUint32(dst, img.Flags)
	dst = le.AppendUint64(dst, strOff)
	dst = le.AppendUint64(dst, numStr)
	dst = le.AppendUint64(dst, imgOff)
	return le.AppendUint64(dst, imgSize)
}

func appendZeros(dst []byte, n uint64) []byte {
	for ; n > 0; n-- {
		dst = append(dst, 0)
	}
	return dst
}

// HeaderV1 returns the bytes of a version 1 binary up to its ImageOffset
// (header, entry, string entries, string table and padding) for an image of
// imageSize bytes, so that callers can stream a large payload after it. The
// payload must then be followed by align8(imageSize)-imageSize zero bytes.
func HeaderV1(img *Image, imageSize uint64) []byte {
	kvs := dedup(img.Strings)
	strs := make([]string, 0, 2*len(kvs))
	for _, kv := range kvs {
		strs = append(strs, kv.Key, kv.Value)
	}
	table, off := format.StringTable(strs)
	n := uint64(len(kvs))
	strOff := uint64(headerSizeV1 + entrySize)
	tabOff := strOff + stringEntrySizeV1*n
	imgOff := binio.Align(tabOff+uint64(len(table)), 8)
	size := binio.Align(imgOff+imageSize, 8)

	b := make([]byte, 0, imgOff)
	b = appendHeader(b, 1, size, headerSizeV1, entrySize)
	b = appendEntry(b, img, strOff, n, imgOff, imageSize)
	for _, kv := range kvs {
		b = le.AppendUint64(b, tabOff+off[kv.Key])
		b = le.AppendUint64(b, tabOff+off[kv.Value])
	}
	b = append(b, table...)
	return appendZeros(b, imgOff-uint64(len(b)))
}

// AppendBinary appends img as a version 1 OffloadBinary, byte-identical to
// what llvm-offload-binary 22.1.8 (OffloadBinary::write) produces for the
// same image and string order.
func AppendBinary(dst []byte, img *Image) []byte {
	dst, _ = AppendBinaryImage(dst, img)
	return dst
}

// AppendBinaryImage is AppendBinary that also returns the ImageOffset it
// wrote: img.Image lies at [imageOffset, imageOffset+len(img.Image)) of
// the appended binary, which is what a registration object registers.
func AppendBinaryImage(dst []byte, img *Image) (b []byte, imageOffset uint64) {
	hdr := HeaderV1(img, uint64(len(img.Image)))
	dst = append(dst, hdr...)
	dst = append(dst, img.Image...)
	return appendZeros(dst, binio.Align(uint64(len(img.Image)), 8)-uint64(len(img.Image))), uint64(len(hdr))
}

// writeV1 writes a version 1 binary whose image is payloadSize bytes read
// from payload, without buffering the payload (img.Image is ignored). It
// returns the number of bytes written. A payload shorter than payloadSize is
// an error (io.ErrUnexpectedEOF).
func writeV1(w io.Writer, img *Image, payload io.Reader, payloadSize int64) (int64, error) {
	if payloadSize < 0 {
		return 0, fmt.Errorf("offload: negative payload size %d", payloadSize)
	}
	hdr := HeaderV1(img, uint64(payloadSize))
	n, err := w.Write(hdr)
	total := int64(n)
	if err != nil {
		return total, err
	}
	m, err := io.CopyN(w, payload, payloadSize)
	total += m
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return total, err
	}
	pad := int64(binio.Align(uint64(payloadSize), 8)) - payloadSize
	n, err = w.Write(make([]byte, pad))
	total += int64(n)
	return total, err
}

// appendMulti writes the newer-main multi-entry layout (versions 2 and 3,
// uncompressed): a header of hdrSize bytes, all entries, one shared array of
// 24-byte string entries, one string table, padding to 8, the images back to
// back, and padding to 8.
func appendMulti(dst []byte, imgs []*Image, version uint32, hdrSize uint64) ([]byte, error) {
	if len(imgs) == 0 {
		return dst, fmt.Errorf("offload: at least one image is required")
	}
	kvss := make([][]KV, len(imgs))
	var strs []string
	var nstr, imgTotal uint64
	for i, img := range imgs {
		kvss[i] = dedup(img.Strings)
		for _, kv := range kvss[i] {
			strs = append(strs, kv.Key, kv.Value)
		}
		nstr += uint64(len(kvss[i]))
		imgTotal += uint64(len(img.Image))
	}
	table, off := format.StringTable(strs)
	entriesSize := entrySize * uint64(len(imgs))
	tabOff := hdrSize + entriesSize + stringEntrySizeV2*nstr
	dataOff := binio.Align(tabOff+uint64(len(table)), 8)
	size := binio.Align(dataOff+imgTotal, 8)

	start := len(dst)
	dst = appendHeader(dst, version, size, hdrSize, uint64(len(imgs)))
	if hdrSize == headerSizeV3 {
		dst = le.AppendUint64(dst, 0) // InflatedSize: not compressed
	}
	strOff := hdrSize + entriesSize
	imgOff := dataOff
	for i, img := range imgs {
		dst = appendEntry(dst, img, strOff, uint64(len(kvss[i])), imgOff, uint64(len(img.Image)))
		strOff += stringEntrySizeV2 * uint64(len(kvss[i]))
		imgOff += uint64(len(img.Image))
	}
	for _, kvs := range kvss {
		for _, kv := range kvs {
			dst = le.AppendUint64(dst, tabOff+off[kv.Key])
			dst = le.AppendUint64(dst, tabOff+off[kv.Value])
			dst = le.AppendUint64(dst, uint64(len(kv.Value)))
		}
	}
	dst = append(dst, table...)
	dst = appendZeros(dst, dataOff-uint64(len(dst)-start))
	for _, img := range imgs {
		dst = append(dst, img.Image...)
	}
	return appendZeros(dst, size-uint64(len(dst)-start)), nil
}

// AppendBinaryV2 appends imgs as one version 2 binary (newer LLVM main: a
// 32-byte header whose words at 16 and 24 are EntriesOffset and
// EntriesCount, 24-byte string entries with value sizes). LLVM 22.1.8
// cannot read it; write it only on request.
func AppendBinaryV2(dst []byte, imgs []*Image) ([]byte, error) {
	return appendMulti(dst, imgs, 2, headerSizeV1)
}

// AppendBinaryV3 appends imgs as one version 3 binary (newer LLVM main,
// 40-byte header with InflatedSize). codec "zstd" or "zlib" compresses
// everything after the header; level 0 means the codec's default level
// (zlib: 6, zstd: klauspost's default), other levels are passed to the codec
// (zstd levels are mapped with zstd.EncoderLevelFromZstd). codec "" or
// "none" writes the uncompressed form (InflatedSize = 0) that main's
// OffloadBinary::write produces. Compressed bytes are not canonical:
// klauspost's zstd output differs from libzstd's, so compare payloads, not
// bytes. The header's Size is not rounded; the output is zero-padded to 8.
func AppendBinaryV3(dst []byte, imgs []*Image, codec string, level int) ([]byte, error) {
	plain, err := appendMulti(nil, imgs, 3, headerSizeV3)
	if err != nil {
		return dst, err
	}
	var body []byte
	switch codec {
	case "", "none":
		return append(dst, plain...), nil
	case "zstd":
		lvl := zstd.SpeedDefault
		if level != 0 {
			lvl = zstd.EncoderLevelFromZstd(level)
		}
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return dst, err
		}
		body = enc.EncodeAll(plain[headerSizeV3:], nil)
		enc.Close()
	case "zlib":
		if level == 0 {
			level = 6
		}
		var buf bytes.Buffer
		zw, err := zlib.NewWriterLevel(&buf, level)
		if err != nil {
			return dst, fmt.Errorf("offload: zlib level %d: %w", level, err)
		}
		if _, err := zw.Write(plain[headerSizeV3:]); err != nil {
			return dst, err
		}
		if err := zw.Close(); err != nil {
			return dst, err
		}
		body = buf.Bytes()
	default:
		return dst, fmt.Errorf("offload: unknown compression %q (want zstd or zlib)", codec)
	}
	size := headerSizeV3 + uint64(len(body))
	start := len(dst)
	dst = appendHeader(dst, 3, size, headerSizeV3, uint64(len(imgs)))
	dst = le.AppendUint64(dst, uint64(len(plain)))
	dst = append(dst, body...)
	return appendZeros(dst, binio.Align(size, 8)-uint64(len(dst)-start)), nil
}
