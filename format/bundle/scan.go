package bundle

import (
	"bytes"

	"github.com/offload-kit/offload-kit/format"
)

// Item is one bundle found by Scan.
type Item struct {
	Offset     int64   // where the bundle starts in the scanned buffer
	Size       int64   // bytes it occupies there (compressed size for CCOB)
	Compressed bool    // it was a CCOB blob
	Header     *Header // the CCOB header when Compressed
	Data       []byte  // the uncompressed bundle (aliases the input if not compressed)
	Bundle     *Bundle // the parsed binary bundle inside Data
}

// Scan walks a buffer holding one or more bundles back to back (as an
// object section may), binary or CCOB-compressed. Each bundle's end comes
// from its own header: the end of its furthest entry for a binary bundle,
// TotalFileSize for CCOB v2/v3 (a v1 blob runs to the end of the
// buffer). Zero bytes between bundles (alignment padding) are skipped.
// Payloads are never searched for magic strings, so an entry containing
// "CCOB" or the bundle magic is harmless.
func Scan(buf []byte, lim Limits) ([]Item, error) {
	var items []Item
	pos := 0
	for pos < len(buf) {
		rest := buf[pos:]
		switch {
		case bytes.HasPrefix(rest, CCOBMagic):
			d, err := Decompress(rest, lim)
			if err != nil {
				return nil, shift(err, pos)
			}
			size := d.Header.Len(rest)
			b, err := Parse(d.Data)
			if err != nil {
				return nil, format.WithPath("compressed bundle at "+hexOff(pos), err)
			}
			h := d.Header
			items = append(items, Item{Offset: int64(pos), Size: int64(size), Compressed: true, Header: &h, Data: d.Data, Bundle: b})
			pos += size
		case bytes.HasPrefix(rest, Magic):
			b, err := Parse(rest)
			if err != nil {
				return nil, shift(err, pos)
			}
			// Shift entry offsets to be absolute in buf.
			for i := range b.Entries {
				b.Entries[i].Offset += int64(pos)
			}
			items = append(items, Item{Offset: int64(pos), Size: b.End, Data: rest[:b.End:b.End], Bundle: b})
			pos += int(b.End)
		default:
			// Padding between bundles.
			if rest[0] == 0 {
				pos++
				continue
			}
			return nil, format.Errorf(int64(pos), format.ErrMagic, "expected a bundle or CCOB magic")
		}
	}
	return items, nil
}

func hexOff(n int) string {
	const digits = "0123456789abcdef"
	if n == 0 {
		return "0x0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{digits[n&15]}, b...)
		n >>= 4
	}
	return "0x" + string(b)
}

// shift adds base to the offset of a *format.FormatError.
func shift(err error, base int) error {
	if fe, ok := err.(*format.FormatError); ok {
		c := *fe
		c.Off += int64(base)
		return &c
	}
	return err
}
