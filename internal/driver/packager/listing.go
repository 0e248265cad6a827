package packager

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/fatbin"
	"github.com/offload-kit/offload-kit/format/hcf"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/binio"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
	"github.com/offload-kit/offload-kit/internal/release"
)

// DumpContents is what one object (or one image's payload) holds: its
// OffloadBinary images and the entries of every other offload container.
// The same shape describes an object and, nested, an image's contents, so
// there is one schema (docs/dump-json.md).
type DumpContents struct {
	Images  []DumpImage  `json:"images"`  // OffloadBinary entries
	Bundles []DumpBundle `json:"bundles"` // clang-offload-bundler bundles (binary, text, compressed, object sections)
	Fatbins []DumpFatbin `json:"fatbins"` // NVIDIA fat binaries
	HCF     []DumpHCF    `json:"hcf"`     // AdaptiveCpp HCF objects
	// Truncated says why a nested container was not expanded: "depth"
	// (nested more than maxDepth levels) or "nodes" (the dump already
	// holds maxNodes entries). The lists are then empty.
	Truncated string `json:"truncated,omitempty"`
}

func (c *DumpContents) empty() bool {
	return len(c.Images)+len(c.Bundles)+len(c.Fatbins)+len(c.HCF) == 0
}

// fill turns nil lists into empty ones, so JSON always has arrays.
func (c *DumpContents) fill() {
	if c.Images == nil {
		c.Images = []DumpImage{}
	}
	if c.Bundles == nil {
		c.Bundles = []DumpBundle{}
	}
	if c.Fatbins == nil {
		c.Fatbins = []DumpFatbin{}
	}
	if c.HCF == nil {
		c.HCF = []DumpHCF{}
	}
}

// DumpBundle is one clang-offload-bundler bundle.
type DumpBundle struct {
	// Index numbers the bundles of an object in section order, as
	// llvm-objdump does in the FILE.<index>.<entry ID> names it writes.
	Index int `json:"index"`
	// Format is "binary" (__CLANG_OFFLOAD_BUNDLE__ header), "text"
	// (comment-delimited, -type=s/ll/i), or "object": the entries of a
	// clang-offload-bundler -type=o object (HIP's old driver), one
	// __CLANG_OFFLOAD_BUNDLE__<entry ID> section each.
	Format  string `json:"format"`
	Section string `json:"section,omitempty"` // the section holding it; absent for whole files, nested and "object" bundles
	Offset  int64  `json:"offset"`            // in the file; -1 when not stored there as such ("object", inside compressed data)
	Size    int64  `json:"size"`              // bytes it occupies there (the compressed blob for CCOB)
	// Compression is the CCOB header of a compressed bundle.
	Compression *DumpCompression `json:"compression,omitempty"`
	Entries     []DumpEntry      `json:"entries"`
}

// DumpCompression is a CCOB header.
type DumpCompression struct {
	Version          uint16 `json:"version"`
	Method           string `json:"method"` // zlib, zstd
	TotalSize        uint64 `json:"total_size"`
	UncompressedSize uint64 `json:"uncompressed_size"`
	Hash             string `json:"hash"` // truncated MD5 as stored, 0x-hex
}

// DumpEntry is one image inside a bundle, fatbin or HCF object.
type DumpEntry struct {
	Index int    `json:"index"`
	ID    string `json:"id,omitempty"` // bundle entry ID as stored
	// Kind is the offload kind, as --kind matches it: hip (also for
	// hipv4 IDs), openmp, host, cuda, sycl.
	Kind      string `json:"kind"`
	Triple    string `json:"triple"`
	Arch      string `json:"arch"`       // the target ID (gfx90a:xnack-), sm_90; "" for host entries
	ImageKind string `json:"image_kind"` // object, bitcode, cubin, ptx, spirv, fatbinary, bundle, offload-binary, text, none, unknown
	Section   string `json:"section,omitempty"`
	Offset    int64  `json:"offset"` // in the file; -1 when not stored there plainly (compressed)
	Size      int64  `json:"size"`
	// Fatbin entries only.
	Version          string `json:"version,omitempty"`     // PTX ISA or cubin version
	Compression      string `json:"compression,omitempty"` // none, lz4, zstd
	UncompressedSize int64  `json:"uncompressed_size,omitempty"`
	Ident            string `json:"ident,omitempty"`
	// Contents describes a payload that is itself a container (--all,
	// --json).
	Contents *DumpContents `json:"contents,omitempty"`

	data []byte        // the payload (nil when only the header was decoded)
	fat  *fatbin.Entry // a fatbin entry's header, for extract to decode it
}

// DumpFatbin is one NVIDIA fat binary.
type DumpFatbin struct {
	Index   int         `json:"index"`
	Section string      `json:"section,omitempty"`
	Offset  int64       `json:"offset"`
	Size    int64       `json:"size"`
	Version uint16      `json:"version"`
	Entries []DumpEntry `json:"entries"`
}

// DumpHCF is one AdaptiveCpp HCF object; its entries are the nodes under
// /images.
type DumpHCF struct {
	Index    int         `json:"index"`
	Section  string      `json:"section,omitempty"`
	Offset   int64       `json:"offset"`
	Size     int64       `json:"size"`
	ObjectID string      `json:"object_id,omitempty"`
	Entries  []DumpEntry `json:"entries"`
	Tree     string      `json:"tree"` // the header as an indented tree
}

// Bounds on what the lister expands, so hostile nesting cannot make a
// dump slow or large.
const (
	maxDepth        = 16
	maxNodes        = 100000
	maxInspectBytes = 4 << 30 // largest compressed bundle decompressed to list it
	// Compressed bundles up to this size are decompressed whole to list
	// them (and to name their entries' image kinds); larger ones only up
	// to the end of the bundle header, as bundle -list does.
	smallCCOB = 16 << 20
)

// lister finds offload containers in an input. It reads headers only:
// structures are parsed from the mapped input, payload bytes it needs (the
// magic that names an entry's image kind) are read with pread, and the
// mapping is dropped from memory after each bundle, so listing a
// gigabyte-sized library costs neither time nor resident memory that grow
// with its payload.
type lister struct {
	in    *input
	pf    *os.File // the input, for pread; nil reads the mapping
	deep  bool     // describe nested containers (--all, --json)
	full  bool     // decompress every compressed bundle (extraction needs the bytes)
	nodes int
	prof  release.Profile // whose llvm-objdump the text output follows (describe)
	// decoded holds large compressed bundles' contents (decoded.go).
	decoded []decoded
}

func newLister(env *Env, in *input, deep bool) *lister {
	l := &lister{in: in, deep: deep, prof: release.Default()}
	if in.m.Mapped() {
		if f, err := os.Open(env.Path(uriPath(in.name))); err == nil {
			if st, err := f.Stat(); err == nil && st.Size() == int64(len(in.m.Data)) {
				l.pf = f
			} else {
				f.Close()
			}
		}
	}
	return l
}

func (l *lister) close() {
	if l.pf != nil {
		l.pf.Close()
	}
	l.closeDecoded()
}

// off is the offset of b in the input file, or -1.
func (l *lister) off(b []byte) int64 {
	if l.in.m != nil {
		if o, ok := binio.OffsetIn(l.in.m.Data, b); ok {
			return o
		}
	} else if o, ok := binio.OffsetIn(l.in.data, b); ok {
		return o
	}
	return -1
}

// peek returns up to n leading bytes of b, read from the file when b lies
// in the mapping (so its page is never mapped in).
func (l *lister) peek(b []byte, n int) []byte {
	n = min(n, len(b))
	if n == 0 {
		return nil
	}
	if l.pf != nil {
		if o, ok := binio.OffsetIn(l.in.m.Data, b); ok {
			buf := make([]byte, n)
			if _, err := l.pf.ReadAt(buf, o); err == nil {
				return buf
			}
		}
	}
	return b[:n]
}

// release drops the pages of the mapping that parsing touched; they fault
// back in from the file if needed again.
func (l *lister) release() {
	if l.in.m.Mapped() {
		mmapfile.Release(l.in.m.Data)
	}
}

// imageKind names what a payload is from its first bytes.
func imageKind(head []byte, size int64) string {
	if size == 0 {
		return "none"
	}
	switch format.Identify(head) {
	case format.KindELF:
		return "object"
	case format.KindBitcode:
		return "bitcode"
	case format.KindSPIRV:
		return "spirv"
	case format.KindFatbin:
		return "fatbinary"
	case format.KindOffloadBinary:
		return "offload-binary"
	case format.KindBundle, format.KindCCOB:
		return "bundle"
	}
	if _, ok := textBundleComment(head); ok {
		return "bundle"
	}
	if isText(head) {
		return "text"
	}
	return "unknown"
}

func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return len(b) > 0
}

// textBundleComment reports whether data starts like a text bundle and
// returns its comment marker.
func textBundleComment(data []byte) (string, bool) {
	for _, c := range []string{";", "#", "//"} {
		if bytes.HasPrefix(data, []byte("\n"+c+" __CLANG_OFFLOAD_BUNDLE____START__ ")) {
			return c, true
		}
	}
	return "", false
}

// EntryTarget splits a bundle entry ID into the offload kind (hipv4 is
// reported as hip), the triple and the target ID. IDs of 5 or 6 parts are
// read as clang-offload-bundler 22 reads them. Older producers' IDs are
// accepted too: ROCm 5's four-part host IDs (host-x86_64-unknown-linux),
// and five-part IDs whose last part is a processor
// (hip-amdgcn-amd-amdhsa-gfx906, ROCm 3).
func EntryTarget(id string) (kind, tr, arch string) {
	parts := strings.SplitN(id, "-", 6)
	kind = parts[0]
	if kind == "hipv4" {
		kind = "hip"
	}
	switch {
	case len(parts) == 6:
		tr, arch = strings.Join(parts[1:5], "-"), parts[5]
	case len(parts) == 5:
		if proc, _, _ := strings.Cut(parts[4], ":"); triple.IsOffloadArch(proc) {
			tr, arch = strings.Join(parts[1:4], "-"), parts[4]
		} else {
			tr = strings.Join(parts[1:5], "-")
		}
	case len(parts) > 1:
		tr = strings.Join(parts[1:], "-")
	}
	return kind, strings.TrimRight(tr, "-"), arch
}

// bundleEntries describes the entries of a parsed bundle. base is the
// file offset of the bundle's buffer (-1 if not in the file).
func (l *lister) bundleEntries(b *bundle.Bundle, base int64) []DumpEntry {
	out := make([]DumpEntry, 0, len(b.Entries))
	for i, e := range b.Entries {
		l.nodes++
		kind, triple, arch := EntryTarget(e.ID)
		de := DumpEntry{Index: i, ID: e.ID, Kind: kind, Triple: triple, Arch: arch, Offset: -1, Size: e.Size, data: e.Data}
		if base >= 0 {
			de.Offset = base + e.Offset
		}
		if e.Data != nil || e.Size == 0 {
			head := l.peek(e.Data, 256)
			de.ImageKind = imageKind(head, e.Size)
			if l.deep && IsContainer(head) {
				de.Contents = l.contents(e.Data, 1)
			}
		} else {
			de.ImageKind = "unknown"
		}
		out = append(out, de)
	}
	return out
}

// IsContainer reports whether a payload's head is a container format the
// lister looks into (not plain code objects).
func IsContainer(head []byte) bool {
	switch format.Identify(head) {
	case format.KindOffloadBinary, format.KindBundle, format.KindCCOB, format.KindFatbin:
		return true
	}
	if _, ok := textBundleComment(head); ok {
		return true
	}
	return looksLikeHCF(head)
}

// strictSection reports whether a container that fails to parse in the
// named section is an error. Elsewhere (.rodata that merely starts with
// the string "__CLANG_OFFLOAD_BUNDLE__" or "CCOB") it is not a container.
func strictSection(name string) bool {
	return name == ".hip_fatbin" || name == ".hipfb" || name == ".nv_fatbin" || name == "__nv_relfatbin"
}

// oldDriverPrefix names the sections of a clang-offload-bundler -type=o
// object: one per entry, named after its ID.
const oldDriverPrefix = "__CLANG_OFFLOAD_BUNDLE__"

// sections lists the containers in an object's sections other than its
// OffloadBinary sections, appending to c. Bundles are numbered in section
// order as llvm-objdump numbers them; the entries of old-driver sections
// form one more bundle after them.
func (l *lister) sections(obj *elfembed.Object, c *DumpContents) error {
	var old []DumpEntry
	for _, s := range obj.Sections {
		if s.Type == format.SHT_LLVM_OFFLOADING || (obj.Format == elfembed.COFF && strings.HasPrefix(s.Name, format.OffloadingSection)) {
			continue
		}
		if id, ok := strings.CutPrefix(s.Name, oldDriverPrefix); ok && id != "" {
			kind, triple, arch := EntryTarget(id)
			head := l.peek(s.Data, 256)
			e := DumpEntry{Index: len(old), ID: id, Kind: kind, Triple: triple, Arch: arch, ImageKind: imageKind(head, int64(len(s.Data))),
				Section: s.Name, Offset: l.off(s.Data), Size: int64(len(s.Data)), data: s.Data}
			old = append(old, e)
			continue
		}
		if len(s.Data) == 0 {
			continue
		}
		head := l.peek(s.Data, 256)
		switch k := format.Identify(head); {
		case k == format.KindBundle || k == format.KindCCOB || k == format.KindFatbin:
			err := l.addContainers(c, k, s.Data, s.Name)
			l.release()
			if err != nil && strictSection(s.Name) {
				return fmt.Errorf("section %s: %w", s.Name, err)
			}
		case strings.HasPrefix(s.Name, ".rodata") || s.Name == ".rdata" || s.Name == ".data.rel.ro":
			for _, loc := range hcf.Find(s.Data) {
				h := l.hcf(loc.File, s.Data[loc.Offset:loc.Offset+loc.Size])
				h.Index, h.Section = len(c.HCF), s.Name
				c.HCF = append(c.HCF, h)
			}
			l.release()
		}
	}
	if len(old) > 0 {
		c.Bundles = append(c.Bundles, DumpBundle{Index: len(c.Bundles), Format: "object", Offset: -1, Entries: old})
	}
	return nil
}

// addContainers appends to c the bundles (k is KindBundle or KindCCOB) or
// fatbins (KindFatbin) that data holds, numbered after those already in c
// and placed in section sec ("" for a whole input or payload). On error
// nothing is appended.
func (l *lister) addContainers(c *DumpContents, k format.Kind, data []byte, sec string) error {
	if k == format.KindFatbin {
		fs, err := l.fatbins(data)
		c.Fatbins = appendPlaced(c.Fatbins, fs, sec)
		return err
	}
	bs, err := l.sectionBundles(data)
	c.Bundles = appendPlaced(c.Bundles, bs, sec)
	return err
}

// placed is a container that a DumpContents lists by index and section:
// *DumpBundle or *DumpFatbin.
type placed[T any] interface {
	*T
	place(index int, section string)
}

func (b *DumpBundle) place(index int, section string) { b.Index, b.Section = index, section }
func (f *DumpFatbin) place(index int, section string) { f.Index, f.Section = index, section }

// appendPlaced appends found to list, each numbered by its position in
// list and placed in section.
func appendPlaced[T any, P placed[T]](list, found []T, section string) []T {
	for _, x := range found {
		P(&x).place(len(list), section)
		list = append(list, x)
	}
	return list
}

// sectionBundles reads the bundles of one section: binary bundles and
// CCOB blobs back to back, each one's end taken from its own header, with
// whatever lies between them (alignment padding) skipped up to the next
// magic. A CCOB blob's decompressed contents are read the same way, for
// binary bundles only (as llvm-objdump does; a CCOB inside one is not
// opened, so nesting cannot recurse), or as one text bundle. The stored
// hash is not checked, as the reference does not check it.
func (l *lister) sectionBundles(sec []byte) ([]DumpBundle, error) {
	var out []DumpBundle
	for pos := 0; pos < len(sec); {
		rest := sec[pos:]
		if !bytes.HasPrefix(rest, bundle.Magic) && !bytes.HasPrefix(rest, bundle.CCOBMagic) {
			next := nextMagic(rest[1:], true)
			if next < 0 {
				break
			}
			pos += 1 + next
			continue
		}
		if l.nodes >= maxNodes {
			return nil, fmt.Errorf("more than %d entries", maxNodes)
		}
		if bytes.HasPrefix(rest, bundle.CCOBMagic) {
			bs, n, err := l.compressed(rest)
			if err != nil {
				return nil, fmt.Errorf("failed to decompress input at offset %#x: %w", pos, err)
			}
			out = append(out, bs...)
			pos += n
			continue
		}
		b, err := bundle.Parse(rest)
		if err != nil {
			return nil, fmt.Errorf("bundle at offset %#x: %w", pos, err)
		}
		out = append(out, DumpBundle{Format: "binary", Offset: l.off(rest), Size: b.End, Entries: l.bundleEntries(b, l.off(rest))})
		pos += int(b.End)
		l.release()
	}
	return out, nil
}

// compressed lists the CCOB blob at the start of blob, returning its
// bundles and its length. Small blobs (and every blob when l.full) are
// decompressed; larger ones only up to the end of the bundle header.
func (l *lister) compressed(blob []byte) ([]DumpBundle, int, error) {
	h, err := bundle.ParseHeader(blob)
	if err != nil {
		return nil, 0, err
	}
	n := h.Len(blob)
	comp := &DumpCompression{Version: h.Version, Method: methodName(h.Method), TotalSize: h.TotalFileSize,
		UncompressedSize: h.UncompressedSize, Hash: fmt.Sprintf("0x%x", h.Hash)}
	mk := func(format string, entries []DumpEntry) DumpBundle {
		return DumpBundle{Format: format, Offset: l.off(blob), Size: int64(n), Compression: comp, Entries: entries}
	}
	large := h.UncompressedSize > smallCCOB
	if !l.full && large {
		if b, text, ok, err := peekHead(blob[:n], h); err != nil {
			return nil, 0, err
		} else if ok && text {
			return []DumpBundle{mk("text", l.bundleEntries(b, -1))}, n, nil
		} else if ok {
			return []DumpBundle{mk("binary", l.bundleEntries(b, -1))}, n, nil
		}
	}
	var data []byte
	if large {
		// Never in memory: a temporary file, mapped (decoded.go).
		data, err = l.decodeToFile(blob[:n], h)
		if err != nil {
			return nil, 0, err
		}
		defer l.releaseDecoded()
	} else {
		d, err := bundle.Decompress(blob[:n], bundle.Limits{MaxSize: maxInspectBytes, Hash: bundle.HashSkip})
		if err != nil {
			return nil, 0, err
		}
		data = d.Data
	}
	l.release()
	if c, ok := textBundleComment(data); ok {
		parse := bundle.ParseText
		if large {
			parse = scanText
		}
		b, err := parse(data, c)
		if err != nil {
			return nil, 0, err
		}
		return []DumpBundle{mk("text", l.bundleEntries(b, -1))}, n, nil
	}
	var out []DumpBundle
	for p := 0; p < len(data); {
		if !bytes.HasPrefix(data[p:], bundle.Magic) {
			find := nextMagic
			if large {
				find = func(p []byte, _ bool) int { return l.nextMagicIn(p) }
			}
			next := find(data[p+1:], false)
			if next < 0 {
				break
			}
			p += 1 + next
			continue
		}
		b, err := bundle.Parse(data[p:])
		if err != nil {
			return nil, 0, fmt.Errorf("bundle at offset %#x of the decompressed data: %w", p, err)
		}
		out = append(out, mk("binary", l.bundleEntries(b, -1)))
		p += int(b.End)
	}
	if len(out) == 0 {
		return nil, 0, errors.New("no bundle in the decompressed data")
	}
	return out, n, nil
}

func methodName(m bundle.Method) string {
	if s, ok := m.Name(); ok {
		return s
	}
	return fmt.Sprintf("method(%d)", m)
}

// fatbins lists the fat binaries back to back in data.
func (l *lister) fatbins(data []byte) ([]DumpFatbin, error) {
	files, err := fatbin.Parse(data)
	if err != nil {
		return nil, err
	}
	var out []DumpFatbin
	for _, f := range files {
		l.nodes++
		fb := DumpFatbin{Offset: l.off(data[f.Offset:]), Size: 16 + f.Size, Version: f.Version, Entries: []DumpEntry{}}
		for j, e := range f.Entries {
			l.nodes++
			ik := "cubin"
			if e.Kind == fatbin.KindPTX {
				ik = "ptx"
			}
			de := DumpEntry{Index: j, Kind: "cuda", Triple: "nvptx64-nvidia-cuda", Arch: e.Arch(), ImageKind: ik,
				Offset: l.off(e.Data), Size: e.Size, Version: fmt.Sprintf("%d.%d", e.Major, e.Minor),
				Compression: e.Compression.String(), Ident: e.Ident, data: e.Data, fat: &f.Entries[j]}
			if e.Compressed {
				de.UncompressedSize = e.UncompressedSize
			}
			fb.Entries = append(fb.Entries, de)
		}
		out = append(out, fb)
	}
	return out, nil
}

// hcf describes one HCF object whose bytes are data.
func (l *lister) hcf(f *hcf.File, data []byte) DumpHCF {
	l.nodes++
	h := DumpHCF{Offset: l.off(data), Size: int64(len(data)), Tree: f.Tree(), Entries: []DumpEntry{}}
	h.ObjectID, _ = f.Root.Get("object-id")
	if imgs := f.Root.Child("images"); imgs != nil {
		for j, n := range imgs.Children {
			l.nodes++
			e := DumpEntry{Index: j, Kind: "sycl", Offset: -1}
			e.Arch, _ = n.Get("target")
			e.ImageKind, _ = n.Get("format")
			if hcf.HasAttachment(n) {
				if a, err := f.Attachment(n); err == nil {
					e.Offset, e.Size, e.data = l.off(a), int64(len(a)), a
					if len(a) == 0 {
						e.Offset = -1
					}
				}
			}
			h.Entries = append(h.Entries, e)
		}
	}
	return h
}

// contents describes the containers data is made of; nil if it is none
// of the formats the lister knows or cannot be read (nested payloads are
// described as far as they can be).
func (l *lister) contents(data []byte, depth int) *DumpContents {
	c, _ := l.parse(data, depth)
	return c
}

// parse describes the containers data is made of: (nil, nil) if it is
// none of the formats the lister knows. Entries are numbered from 0 within
// it.
func (l *lister) parse(data []byte, depth int) (*DumpContents, error) {
	switch {
	case len(data) == 0:
		return nil, nil
	case depth >= maxDepth, l.nodes >= maxNodes:
		// Said in the output (docs/dump-json.md), never silently dropped.
		c := &DumpContents{Truncated: "depth"}
		if depth < maxDepth {
			c.Truncated = "nodes"
		}
		c.fill()
		return c, nil
	}
	c := &DumpContents{}
	head := l.peek(data, 256)
	switch k := format.Identify(head); k {
	case format.KindOffloadBinary:
		bins, err := offload.ParseAll(data, offload.ReadOptions{Align8: true})
		if err != nil {
			return nil, err
		}
		c.Images = describe(l.in.data, bins, l.prof)
		for i, b := range bins {
			l.nodes++
			if d, ok := imageData(b); ok && l.deep && IsContainer(l.peek(d, 256)) {
				c.Images[i].Contents = l.contents(d, depth+1)
			}
		}
	case format.KindBundle, format.KindCCOB, format.KindFatbin:
		if err := l.addContainers(c, k, data, ""); err != nil {
			return nil, err
		}
	default:
		if cm, ok := textBundleComment(head); ok {
			b, err := bundle.ParseText(data, cm)
			if err != nil {
				return nil, err
			}
			c.Bundles = []DumpBundle{{Format: "text", Offset: l.off(data), Size: int64(len(data)), Entries: l.bundleEntries(b, l.off(data))}}
			break
		}
		if looksLikeHCF(head) {
			// Text that does not parse as HCF is just not a container.
			if f, err := hcf.Parse(data); err == nil && f.Root != nil && len(f.Root.Values)+len(f.Root.Children) > 0 {
				c.HCF = []DumpHCF{l.hcf(f, data)}
			}
		}
	}
	if c.empty() {
		return nil, nil
	}
	c.fill()
	return c, nil
}

// imageData is an OffloadBinary's payload.
func imageData(b *offload.Binary) ([]byte, bool) { return b.Image, len(b.Image) > 0 }

// looksLikeHCF is a cheap test before parsing: HCF has no magic, but it
// starts with a printable "key=value" line (AdaptiveCpp writes
// "object-id=..." first). It keeps the lister from scanning every large
// binary image as text.
func looksLikeHCF(data []byte) bool {
	head := data[:min(len(data), 256)]
	nl := bytes.IndexByte(head, '\n')
	if nl <= 0 {
		return false
	}
	eq := bytes.IndexByte(head[:nl], '=')
	if eq <= 0 {
		return false
	}
	for _, c := range head[:nl] {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// nextMagic is the offset of the first bundle magic in p (or CCOB magic,
// if ccob), or -1. The second search stops where the first hit is, so
// skipping the padding between back-to-back bundles does not scan the
// rest of a large section.
func nextMagic(p []byte, ccob bool) int {
	i := bytes.Index(p, bundle.Magic)
	if !ccob {
		return i
	}
	q := p
	if i >= 0 {
		q = p[:min(len(p), i+len(bundle.CCOBMagic)-1)]
	}
	if j := bytes.Index(q, bundle.CCOBMagic); j >= 0 {
		return j
	}
	return i
}
