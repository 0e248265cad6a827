package bundler

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"os"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
)

// -list of a compressed bundle streams it: nothing the size of the
// decompressed bundle is ever held, however large it is (a 125 KB CCOB of
// RLE blocks expands to 4 GiB).
//
//   - A binary bundle (what -compress writes) is decoded only until its
//     header is complete; the IDs come from that prefix. Damage further on
//     goes unnoticed, where the reference, which decompresses first,
//     fails.
//   - A text bundle (-type=ll, s, i...) is scanned as it is decoded
//     (bundle.TextScanner): all of it, keeping only the IDs.
//   - An object (-type=o whose contents are ELF, COFF or Mach-O) is
//     decoded into an unlinked temporary file, zeros left as holes, which
//     is mapped and listed like an uncompressed input.
//   - With -verbose, everything is decoded (the statistics need the MD5),
//     still piece by piece.
//
// Blobs that expand to less than streamListMin are decompressed whole as
// before: that memory is bounded, and damage anywhere in them fails as
// with the reference.

// streamListMin is the smallest UncompressedSize -list streams.
const streamListMin = 16 << 20

// listHeadMax bounds the decoded prefix kept for a binary bundle's
// header; a longer header is listed through a temporary file.
const listHeadMax = 64 << 20

// listData lists the IDs of one decompressed bundled file as the
// reference's -list prints them.
func (c *config) listData(data []byte) ([]string, error) {
	h, cm, err := c.handlerFor(data)
	if err != nil {
		return nil, err
	}
	if h == binaryHandler {
		// Only the first bundle's header is read, as clang-offload-bundler
		// 22 reads it: bundles back to back after it (as a linked
		// .hip_fatbin holds them) are not listed. dump lists them all.
		b, _ := bundle.ParseLenient(data)
		return c.idsOf(b), nil
	}
	es, err := c.readEntries(h, cm, data)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.id
	}
	return ids, nil
}

type listMode int

const (
	listUndecided listMode = iota
	listHead               // binary: keep the prefix until the header is complete
	listText               // text: scan
	listFile               // object, or a huge header: into a temporary file
	listDone               // the IDs are known; the rest is only hashed (-verbose)
)

// listCompressed lists the CCOB blob at the start of blob (at offset base
// in the input) while decoding it. ok is false for blobs it leaves to the
// whole-buffer path (not CCOB, a bad header, small). Errors are final.
func (c *config) listCompressed(env *Env, in *input, blob []byte, base int64) (ids []string, ok bool, err error) {
	if !bytes.HasPrefix(blob, bundle.CCOBMagic) {
		return nil, false, nil
	}
	h, err := bundle.ParseHeader(blob)
	if err != nil || h.UncompressedSize < streamListMin || h.UncompressedSize > 1<<62 {
		return nil, false, nil // the whole-buffer path reports what is wrong
	}
	total := int64(h.UncompressedSize)
	handler, cm, err := c.handlerFor(nil)
	if err != nil {
		return nil, true, err
	}
	var (
		mode = listUndecided
		head []byte
		scan *bundle.TextScanner
		tmp  *os.File
		sink bundle.Sink
		md   hash.Hash
	)
	defer func() {
		if tmp != nil {
			tmp.Close()
		}
	}()
	if c.verbose {
		md = md5.New()
	}
	toFile := func() error {
		f, err := os.CreateTemp("", "offload-bundle-*.dec")
		if err != nil {
			return outputError{err}
		}
		os.Remove(f.Name()) // unlinked: nothing is left behind, whatever happens
		tmp, sink, mode = f, bundle.WriteAtSink(f), listFile
		err = sink(0, head)
		head = nil
		if err != nil {
			return outputError{err}
		}
		return nil
	}
	start := c.now()
	_, derr := bundle.DecodeTo(blob, bundle.DecodeOptions{InputMapped: in.m.Mapped(), Limits: bundle.Limits{Hash: bundle.HashSkip}}, func(off int64, p []byte) error {
		if c.ctx != nil && c.ctx.Err() != nil {
			return c.ctx.Err()
		}
		if md != nil {
			md.Write(p)
		}
		switch mode {
		case listText:
			scan.Write(p)
			return nil
		case listFile:
			if err := sink(off, p); err != nil {
				return outputError{err}
			}
			return nil
		case listDone:
			return nil
		}
		head = append(head, p...)
		if mode == listUndecided {
			if len(head) < 4096 {
				return nil
			}
			switch k := format.Identify(head); {
			case handler == textHandler:
				scan, mode = bundle.NewTextScanner(cm), listText
				scan.Write(head)
				head = nil
				return nil
			case c.Type == "o" || c.Type == "a":
				if k == format.KindELF || k == format.KindCOFF || k == format.KindMachO {
					return toFile() // the object handler needs all of it
				}
			}
			mode = listHead
		}
		if _, done := bundle.HeaderLen(head, total); done {
			b, _ := bundle.ParseHead(head, total, true)
			ids, mode, head = c.idsOf(b), listDone, nil
			if md == nil {
				return bundle.ErrStop
			}
			return nil
		}
		if len(head) >= listHeadMax {
			return toFile()
		}
		return nil
	})
	var oe outputError
	switch {
	case errors.As(derr, &oe):
		return nil, true, oe.err
	case derr != nil && !errors.Is(derr, bundle.ErrStop):
		return nil, true, decompressError(in.name, base, derr)
	}
	if md != nil {
		d := &bundle.Decompressed{Header: h, Compressed: int64(h.Len(blob) - h.Size()), Hash: binary.LittleEndian.Uint64(md.Sum(nil))}
		c.printDecompressStats(env, d, c.now().Sub(start))
	}
	switch mode {
	case listText:
		b, err := scan.Close()
		if err != nil {
			return nil, true, err
		}
		ids = make([]string, len(b.Entries))
		for i, e := range b.Entries {
			ids[i] = e.ID
		}
	case listFile:
		if err := tmp.Truncate(total); err != nil {
			return nil, true, err
		}
		m, err := mmapfile.FromFile(tmp, in.name)
		if err != nil {
			return nil, true, err
		}
		defer m.Close()
		ids, err = c.listData(m.Data)
		if err != nil {
			return nil, true, err
		}
	}
	return ids, true, nil
}

func (c *config) list(env *Env, name string) error {
	in, err := openInput(env, name)
	if err != nil {
		return err
	}
	defer in.Close()
	buf := in.data
	var out bytes.Buffer
	defer func() { env.Stdout.Write(out.Bytes()) }()
	for pos := 0; pos < len(buf); {
		rest := buf[pos:]
		next := len(buf)
		if bytes.HasPrefix(rest, bundle.CCOBMagic) && len(rest) >= 8 {
			if hdr, err := bundle.ParseHeader(rest); err == nil {
				next = pos + hdr.Len(rest)
			}
		}
		if ids, ok, err := c.listCompressed(env, in, buf[pos:next], int64(pos)); err != nil {
			return err
		} else if ok {
			for _, id := range ids {
				fmt.Fprintln(&out, id)
			}
			if next <= pos {
				break
			}
			pos = next
			continue
		}
		data, _, err := c.decompressInput(env, buf[pos:next])
		if err != nil {
			return decompressError(name, int64(pos), err)
		}
		ids, err := c.listData(data)
		if err != nil {
			return err
		}
		for _, id := range ids {
			fmt.Fprintln(&out, id)
		}
		if next <= pos {
			break
		}
		pos = next
	}
	return nil
}
