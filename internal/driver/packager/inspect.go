package packager

import (
	"bytes"
	"fmt"
	"github.com/offload-kit/offload-kit/internal/binio"
	"io"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/fatbin"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/hcf"
)

// DumpNode is one container found inside another: a bundle and its
// entries, a compressed bundle, a fatbin and its entries, an HCF object, a
// nested OffloadBinary, or an object-file section holding any of these.
type DumpNode struct {
	Type     string       `json:"type"`           // section, offload-binary, bundle, compressed-bundle, bundle-entry, fatbin, fatbin-entry, hcf
	Name     string       `json:"name,omitempty"` // section name, bundle entry ID, HCF root name
	Offset   int64        `json:"offset"`         // in the file; -1 when the bytes are not stored plainly there (decompressed)
	Size     int64        `json:"size"`
	Attrs    []offload.KV `json:"attrs,omitempty"`
	Children []DumpNode   `json:"children,omitempty"`
	Error    string       `json:"error,omitempty"` // this level could not be decoded

	data []byte // the node's bytes, for extraction
}

// Bounds on what the inspector expands, so hostile nesting cannot make a
// dump slow or large.
const (
	maxDepth        = 16
	maxNodes        = 100000
	maxInspectBytes = 4 << 30 // largest decompressed bundle the inspector expands
)

type inspector struct {
	file  []byte // the whole input, to turn sub-slices into file offsets
	nodes int
}

func (in *inspector) off(b []byte) int64 {
	if o, ok := binio.OffsetIn(in.file, b); ok {
		return o
	}
	if len(b) == 0 {
		return 0
	}
	return -1
}

func attr(k string, v any) offload.KV { return offload.KV{Key: k, Value: fmt.Sprint(v)} }

// contents describes the containers data is made of; nil if it is none of
// the formats the inspector knows.
func (in *inspector) contents(data []byte, depth int) []DumpNode {
	if depth >= maxDepth || in.nodes >= maxNodes || len(data) == 0 {
		return nil
	}
	switch format.Identify(data) {
	case format.KindOffloadBinary:
		bins, err := offload.ParseAll(data, offload.ReadOptions{Align8: true})
		if err != nil {
			return []DumpNode{{Type: "offload-binary", Offset: in.off(data), Size: int64(len(data)), Error: err.Error()}}
		}
		var out []DumpNode
		for _, b := range bins {
			in.nodes++
			n := DumpNode{Type: "offload-binary", Offset: in.off(b.Image) - int64(b.ImageOffset), Size: int64(b.Size),
				Attrs: append([]offload.KV{attr("image-kind", b.ImageKind), attr("offload-kind", b.OffloadKind)}, b.Strings...)}
			if n.Offset < -1 {
				n.Offset = -1
			}
			n.Children = in.contents(b.Image, depth+1)
			out = append(out, n)
		}
		return out
	case format.KindBundle, format.KindCCOB:
		return in.bundles(data, depth)
	case format.KindFatbin:
		return in.fatbins(data, depth)
	case format.KindELF, format.KindCOFF:
		obj, err := elfembed.Parse(data)
		if err != nil {
			return nil
		}
		return in.sections(obj, depth)
	}
	if looksLikeHCF(data) {
		if f, err := hcf.Parse(data); err == nil && f.Root != nil && len(f.Root.Values)+len(f.Root.Children) > 0 {
			return []DumpNode{in.hcfNode(f, data, int64(len(data)))}
		}
	}
	return nil
}

// looksLikeHCF is a cheap test before parsing: HCF has no magic, but it
// starts with a printable "key=value" line (AdaptiveCpp writes
// "object-id=..." first). It keeps the inspector from scanning every large
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

func (in *inspector) bundles(data []byte, depth int) []DumpNode {
	items, err := bundle.Scan(data, bundle.Limits{MaxSize: maxInspectBytes})
	if err != nil {
		return []DumpNode{{Type: "bundle", Offset: in.off(data), Size: int64(len(data)), Error: err.Error()}}
	}
	var out []DumpNode
	for _, it := range items {
		in.nodes++
		base := in.off(data[it.Offset:])
		n := DumpNode{Type: "bundle", Offset: base, Size: it.Size}
		if it.Compressed {
			h := it.Header
			n.Type = "compressed-bundle"
			n.Attrs = []offload.KV{attr("version", h.Version), attr("method", methodName(h.Method)),
				attr("total-size", h.TotalFileSize), attr("uncompressed-size", h.UncompressedSize), attr("hash", fmt.Sprintf("0x%x", h.Hash))}
		}
		for _, e := range it.Bundle.Entries {
			in.nodes++
			c := DumpNode{Type: "bundle-entry", Name: e.ID, Offset: in.off(e.Data), Size: e.Size, data: e.Data}
			if !it.Compressed && base >= 0 && in.off(data) >= 0 {
				c.Offset = in.off(data) + e.Offset // exact even for empty entries
			}
			c.Children = in.contents(e.Data, depth+1)
			n.Children = append(n.Children, c)
		}
		out = append(out, n)
	}
	return out
}

func methodName(m bundle.Method) string {
	switch m {
	case 0:
		return "zlib"
	case 1:
		return "zstd"
	}
	return fmt.Sprintf("method(%d)", m)
}

func (in *inspector) fatbins(data []byte, depth int) []DumpNode {
	files, err := fatbin.Parse(data)
	if err != nil {
		return []DumpNode{{Type: "fatbin", Offset: in.off(data), Size: int64(len(data)), Error: err.Error()}}
	}
	var out []DumpNode
	for _, f := range files {
		in.nodes++
		n := DumpNode{Type: "fatbin", Offset: in.off(data[f.Offset:]), Size: 16 + f.Size, Attrs: []offload.KV{attr("version", f.Version)}}
		for _, e := range f.Entries {
			in.nodes++
			c := DumpNode{Type: "fatbin-entry", Offset: in.off(e.Data), Size: e.Size, data: e.Data, Attrs: []offload.KV{
				attr("kind", e.Kind), attr("arch", fmt.Sprintf("sm_%d", e.SM)), attr("version", fmt.Sprintf("%d.%d", e.Major, e.Minor)),
				attr("compression", e.Compression)}}
			if e.Compressed {
				c.Attrs = append(c.Attrs, attr("uncompressed-size", e.UncompressedSize))
			}
			if e.Ident != "" {
				c.Attrs = append(c.Attrs, attr("ident", e.Ident))
			}
			n.Children = append(n.Children, c)
		}
		out = append(out, n)
	}
	return out
}

func (in *inspector) hcfNode(f *hcf.File, data []byte, size int64) DumpNode {
	in.nodes++
	return DumpNode{Type: "hcf", Name: f.Root.Name, Offset: in.off(data), Size: size,
		Attrs: []offload.KV{{Key: "tree", Value: f.Tree()}}}
}

// sections reports the non-offloading sections of an object that hold
// containers: bundles (object bundles, .hip_fatbin), fatbins (.nv_fatbin),
// and HCF objects (in read-only data).
func (in *inspector) sections(obj *elfembed.Object, depth int) []DumpNode {
	var out []DumpNode
	for _, s := range obj.Sections {
		if s.Type == elfembed.SHT_LLVM_OFFLOADING || len(s.Data) == 0 || (obj.Format == elfembed.COFF && strings.HasPrefix(s.Name, ".llvm.offloading")) {
			continue
		}
		var kids []DumpNode
		switch k := format.Identify(s.Data); {
		case k == format.KindBundle || k == format.KindCCOB:
			kids = in.bundles(s.Data, depth+1)
		case k == format.KindFatbin:
			kids = in.fatbins(s.Data, depth+1)
		case strings.HasPrefix(s.Name, ".rodata") || s.Name == ".rdata" || s.Name == ".data.rel.ro":
			for _, loc := range hcf.Find(s.Data) {
				kids = append(kids, in.hcfNode(loc.File, s.Data[loc.Offset:loc.Offset+loc.Size], loc.Size))
			}
		}
		if len(kids) > 0 {
			in.nodes++
			out = append(out, DumpNode{Type: "section", Name: s.Name, Offset: in.off(s.Data), Size: s.Size, Children: kids})
		}
	}
	return out
}

// printNodes renders a tree for dump --all.
func printNodes(w io.Writer, nodes []DumpNode, indent string) {
	for _, n := range nodes {
		var b bytes.Buffer
		fmt.Fprintf(&b, "%s%s", indent, n.Type)
		if n.Name != "" {
			fmt.Fprintf(&b, " %s", n.Name)
		}
		fmt.Fprintf(&b, " @%s size %d", hexOrNA(n.Offset), n.Size)
		for _, a := range n.Attrs {
			if a.Key == "tree" {
				continue
			}
			fmt.Fprintf(&b, " %s=%s", a.Key, quoteIfNeeded(a.Value))
		}
		if n.Error != "" {
			fmt.Fprintf(&b, " error: %s", n.Error)
		}
		b.WriteByte('\n')
		for _, a := range n.Attrs {
			if a.Key == "tree" {
				for _, l := range strings.Split(strings.TrimRight(a.Value, "\n"), "\n") {
					fmt.Fprintf(&b, "%s  | %s\n", indent, l)
				}
			}
		}
		w.Write(b.Bytes())
		printNodes(w, n.Children, indent+"  ")
	}
}

// containerFiles lists the entries of bundles and fatbins in nodes (not
// looking inside OffloadBinary images, which are extracted as images) with
// the file names extract gives them: <base>.<bundle>.<entry-id> as
// llvm-objdump names bundle entries, and <base>.fatbin<i>.<j>.<arch>.<kind>.
func containerFiles(base string, nodes []DumpNode) (names []string, data [][]byte) {
	bundles, fatbins := 0, 0
	var walk func([]DumpNode)
	walk = func(ns []DumpNode) {
		for _, n := range ns {
			switch n.Type {
			case "bundle", "compressed-bundle":
				for _, e := range n.Children {
					names = append(names, safeName(fmt.Sprintf("%s.%d.%s", base, bundles, e.Name)))
					data = append(data, e.data)
				}
				bundles++
			case "fatbin":
				for j, e := range n.Children {
					var arch, kind string
					for _, a := range e.Attrs {
						switch a.Key {
						case "arch":
							arch = a.Value
						case "kind":
							kind = a.Value
						}
					}
					ext := "cubin"
					if kind == "ptx" {
						ext = "ptx"
					}
					names = append(names, safeName(fmt.Sprintf("%s.fatbin%d.%d.%s.%s", base, fatbins, j, arch, ext)))
					data = append(data, e.data)
				}
				fatbins++
			case "section":
				walk(n.Children)
			}
		}
	}
	walk(nodes)
	return names, data
}
