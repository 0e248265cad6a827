// Package scan finds every OffloadBinary in a link input, the way LLVM's
// extractOffloadBinaries does: ELF sections of type SHT_LLVM_OFFLOADING,
// COFF sections named .llvm.offloading*, LLVM bitcode hosts (through the
// llvm.embedded.objects metadata), archive members (recursively, thin
// archives included) and raw packages. Anything else holds nothing: COFF
// short import members (format.KindCOFFImport, the members of Windows
// import libraries) are units with no images.
//
// It is shared by offload-packager (extract) and linker-wrapper (input
// scanning), so both read inputs identically.
package scan

import (
	"fmt"
	"path/filepath"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/bitcode"
	"github.com/offload-kit/offload-kit/format/offload"
)

// MaxDepth bounds archive nesting.
const MaxDepth = 16

// Unit is one object-like input: a file, or one archive member.
type Unit struct {
	Origin  string // "a.o", or "libx.a(m.o)" for members
	Archive string // archive path when the unit is a member
	Member  string // member name
	Kind    format.Kind
	Data    []byte // the unit's bytes (zero-copy)
	Images  []*offload.Binary
}

// Options tunes scanning.
type Options struct {
	// Align8 steps between concatenated binaries as newer LLVM does.
	Align8 bool
	// ReadFile reads thin-archive members (paths relative to the archive's
	// directory). Nil means thin archives are an error.
	ReadFile func(name string) ([]byte, error)
	// MaxInflated, when positive, caps the bytes that compressed (v3)
	// binaries inflate to over one Input or Images call: all sections,
	// members and binaries together. Zero leaves each section to
	// offload.ReadOptions' default.
	MaxInflated int64
}

// budget tracks Options.MaxInflated across one call.
type budget struct{ left int64 }

func newBudget(opt Options) *budget {
	if opt.MaxInflated <= 0 {
		return nil
	}
	return &budget{left: opt.MaxInflated}
}

// parseAll is offload.ParseAll under the shared inflation budget.
func parseAll(buf []byte, ro offload.ReadOptions, b *budget) ([]*offload.Binary, error) {
	if b == nil {
		return offload.ParseAll(buf, ro)
	}
	ro.MaxInflated = max(b.left, 1)
	bins, err := offload.ParseAll(buf, ro)
	if err != nil {
		return nil, err
	}
	// Charge every compressed binary's InflatedSize (header offset 32),
	// once per binary (its entries share the header).
	seen := map[int64]bool{}
	for _, bin := range bins {
		off := bin.Offset
		if bin.Version != 3 || seen[off] || off < 0 || off+40 > int64(len(buf)) {
			continue
		}
		seen[off] = true
		h := buf[off:]
		infl := int64(uint64(h[32]) | uint64(h[33])<<8 | uint64(h[34])<<16 | uint64(h[35])<<24 |
			uint64(h[36])<<32 | uint64(h[37])<<40 | uint64(h[38])<<48 | uint64(h[39]&0x7f)<<56)
		b.left -= infl
	}
	return bins, nil
}

// Input scans one input file whose bytes are data.
func Input(name string, data []byte, opt Options) ([]Unit, error) {
	return scanFile(name, "", "", data, opt, newBudget(opt), 0)
}

func scanFile(origin, archive, member string, data []byte, opt Options, b *budget, depth int) ([]Unit, error) {
	k := format.Identify(data)
	if k != format.KindArchive && k != format.KindThinArchive {
		imgs, err := images(data, k, opt, b)
		if err != nil {
			return nil, format.WithPath(origin, err)
		}
		return []Unit{{Origin: origin, Archive: archive, Member: member, Kind: k, Data: data, Images: imgs}}, nil
	}
	if depth >= MaxDepth {
		return nil, format.WithPath(origin, format.Errorf(0, format.ErrLimit, "archives nested more than %d deep", MaxDepth))
	}
	a, err := ar.Parse(data)
	if err != nil {
		return nil, format.WithPath(origin, err)
	}
	var units []Unit
	for _, m := range a.Members {
		mdata := m.Data
		if a.Thin {
			if opt.ReadFile == nil {
				return nil, format.WithPath(origin, fmt.Errorf("thin archive member %s: cannot read external members", m.Name))
			}
			p := m.Name
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(archiveFile(origin)), p)
			}
			mdata, err = opt.ReadFile(p)
			if err != nil {
				return nil, format.WithPath(origin, fmt.Errorf("thin archive member %s: %w", m.Name, err))
			}
		}
		sub, err := scanFile(fmt.Sprintf("%s(%s)", origin, m.Name), origin, m.Name, mdata, opt, b, depth+1)
		if err != nil {
			return nil, err
		}
		units = append(units, sub...)
	}
	return units, nil
}

// archiveFile strips member suffixes: "a.a(b.a)" → "a.a".
func archiveFile(origin string) string {
	for i := 0; i < len(origin); i++ {
		if origin[i] == '(' {
			return origin[:i]
		}
	}
	return origin
}

// Images returns the offload binaries held by one non-archive unit of kind k.
func Images(data []byte, k format.Kind, opt Options) ([]*offload.Binary, error) {
	return images(data, k, opt, newBudget(opt))
}

func images(data []byte, k format.Kind, opt Options, b *budget) ([]*offload.Binary, error) {
	ro := offload.ReadOptions{Align8: opt.Align8}
	switch k {
	case format.KindOffloadBinary:
		return parseAll(data, ro, b)
	case format.KindELF, format.KindCOFF:
		obj, err := elfembed.Parse(data)
		if err != nil {
			return nil, err
		}
		var out []*offload.Binary
		for _, s := range obj.OffloadSections() {
			bins, err := parseAll(s.Data, ro, b)
			if err != nil {
				return nil, fmt.Errorf("section %s: %w", s.Name, err)
			}
			for _, b := range bins {
				b.Offset += s.Offset
			}
			out = append(out, bins...)
		}
		return out, nil
	case format.KindBitcode:
		objs, err := bitcode.EmbeddedObjects(data)
		if err != nil {
			return nil, err
		}
		var out []*offload.Binary
		for _, o := range objs {
			bins, err := parseAll(o.Data, ro, b)
			if err != nil {
				return nil, fmt.Errorf("global %s: %w", o.Global, err)
			}
			for _, b := range bins {
				b.Offset = -1 // bytes were decoded from the bitstream
			}
			out = append(out, bins...)
		}
		return out, nil
	}
	return nil, nil
}
