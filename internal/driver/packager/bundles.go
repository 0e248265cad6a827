package packager

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
)

// extractBundles is what llvm-objdump --offloading does after listing an
// ELF or COFF object's images: every section that starts with a bundle
// or CCOB magic is read, and each entry of each bundle is written to
// <base>.<bundle number>.<entry ID> (relative to the current directory;
// base is the path the object was named by, or the archive member's name),
// printing "Extracting offload bundle: <file>" after each. Bundles are
// numbered across the object's sections in order. All of them are read
// before anything is written, so a malformed one writes nothing.
//
// Differences from llvm-objdump 22.1.8, all on inputs it mishandles: the
// next bundle in a section is looked for after the end of the previous
// one (never inside its payload), several CCOB blobs in one section are
// all decompressed, entries outside their section are an error (the
// reference reads past its buffer and crashes), entry IDs with a path
// separator are refused, and compressed entries get their decompressed
// bytes (the reference copies bytes of the object at the entry's offset).
func extractBundles(env *Env, base string, data []byte) error {
	obj, err := elfembed.Parse(data)
	if err != nil {
		return nil // objectImages has already reported it
	}
	var found []*bundle.Bundle
	for _, s := range obj.Sections {
		if s.Data == nil || !hasBundleMagic(s.Data) {
			continue
		}
		if obj.Format == elfembed.COFF {
			return errors.New("while extracting offload FatBin bundles: COFF object files not supported")
		}
		bs, err := sectionBundles(s.Data, true)
		if err != nil {
			return fmt.Errorf("while extracting offload FatBin bundles: section %s: %v", s.Name, err)
		}
		found = append(found, bs...)
	}
	for i, b := range found {
		for _, e := range b.Entries {
			name := fmt.Sprintf("%s.%d.%s", base, i, e.ID)
			if strings.ContainsAny(e.ID, "/\\\x00") {
				return fmt.Errorf("while extracting offload Bundle Entries: entry ID %q would name a file outside %s's directory", e.ID, base)
			}
			if err := atomicfile.WriteFile(env.path(name), env.Stdout, func(w io.Writer) error {
				_, err := w.Write(e.Data)
				return err
			}); err != nil {
				return fmt.Errorf("while extracting offload Bundle Entries: %s", errText(err))
			}
			fmt.Fprintf(env.Stdout, "Extracting offload bundle: %s\n", name)
		}
	}
	return nil
}

func hasBundleMagic(p []byte) bool {
	return bytes.HasPrefix(p, bundle.Magic) || bytes.HasPrefix(p, bundle.CCOBMagic)
}

// sectionBundles reads the bundles of one section: binary bundles and
// CCOB blobs back to back, each one's end taken from its own header, with
// whatever lies between them (alignment padding) skipped up to the next
// magic. A CCOB blob's decompressed contents are read the same way, for
// binary bundles only (as the reference does; a CCOB inside one is not
// opened, so nesting cannot recurse). The stored hash is not checked, as
// the reference does not check it.
func sectionBundles(sec []byte, ccob bool) ([]*bundle.Bundle, error) {
	var out []*bundle.Bundle
	for pos := 0; pos < len(sec); {
		rest := sec[pos:]
		if !bytes.HasPrefix(rest, bundle.Magic) && !(ccob && bytes.HasPrefix(rest, bundle.CCOBMagic)) {
			next := nextMagic(rest[1:], ccob)
			if next < 0 {
				break
			}
			pos += 1 + next
			continue
		}
		if bytes.HasPrefix(rest, bundle.CCOBMagic) {
			d, err := bundle.Decompress(rest, bundle.Limits{Hash: bundle.HashSkip})
			if err != nil {
				return nil, fmt.Errorf("failed to decompress input at offset %#x: %v", pos, err)
			}
			inner, err := sectionBundles(d.Data, false)
			if err != nil {
				return nil, fmt.Errorf("in the compressed bundle at offset %#x: %v", pos, err)
			}
			out = append(out, inner...)
			pos += d.Header.Len(rest)
			continue
		}
		b, err := bundle.Parse(rest)
		if err != nil {
			return nil, fmt.Errorf("bundle at offset %#x: %v", pos, err)
		}
		out = append(out, b)
		pos += int(b.End)
	}
	return out, nil
}

// nextMagic is the offset of the first bundle magic in p (or CCOB magic,
// if ccob), or -1.
func nextMagic(p []byte, ccob bool) int {
	i, j := bytes.Index(p, bundle.Magic), -1
	if ccob {
		j = bytes.Index(p, bundle.CCOBMagic)
	}
	switch {
	case i < 0:
		return j
	case j < 0:
		return i
	}
	return min(i, j)
}
