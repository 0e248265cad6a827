package packager

import (
	"fmt"
	"strings"

	"github.com/offload-kit/offload-kit/format"
)

// printContents renders what an object or payload holds for dump's text
// output. OffloadBinary images use llvm-objdump's exact block; entries of
// bundles, fatbins and HCF objects follow in the same layout (labels
// left-justified in 16 columns, a blank line before each block), headed
// "OFFLOAD BUNDLE [b] ENTRY [e]:" and so on, b counting the object's
// bundles as llvm-objdump numbers them in the files it writes. all adds
// sizes, offsets, headers and nested containers; entries false prints the
// OffloadBinary images only (llvm-objdump's listing, for
// --extract-bundles). Nested lines are prefixed with indent.
func printContents(sb *strings.Builder, c *DumpContents, all, entries bool, indent string) {
	line := func(label, format string, args ...any) {
		fmt.Fprintf(sb, "%s%-16s%s\n", indent, label, fmt.Sprintf(format, args...))
	}
	head := func(format string, args ...any) {
		fmt.Fprintf(sb, "\n%s%s\n", indent, fmt.Sprintf(format, args...))
	}
	nested := func(n *DumpContents) {
		if all && n != nil {
			fmt.Fprintf(sb, "%scontents:\n", indent)
			printContents(sb, n, all, true, indent+"  ")
		}
	}
	switch c.Truncated {
	case "depth":
		line("not expanded", "nested more than %d levels deep", maxDepth)
	case "nodes":
		line("not expanded", "the dump already lists %d entries", maxNodes)
	}
	for _, im := range c.Images {
		head("OFFLOADING IMAGE [%d]:", im.Index)
		line("kind", "%s", format.ImageKind(im.ImageKindValue).DumpName())
		line("arch", "%s", im.Arch)
		line("triple", "%s", im.Triple)
		line("producer", "%s", im.producerText())
		if all {
			line("version", "%d", im.Version)
			line("flags", "%d", im.Flags)
			line("offset", "%s", hexOrNA(im.Offset))
			line("size", "%d", im.Size)
			if im.InflatedSize != 0 {
				line("compressed", "inflated size %d", im.InflatedSize)
			}
			line("image offset", "%s", hexOrNA(im.ImageOffset))
			line("image size", "%d", im.ImageSize)
			for _, kv := range im.Strings {
				fmt.Fprintf(sb, "%s  %-14s%s\n", indent, kv.Key, quoteIfNeeded(kv.Value))
			}
			nested(im.Contents)
		}
	}
	if !entries {
		return
	}
	entry := func(what string, e DumpEntry) {
		head("%s ENTRY [%d]:", what, e.Index)
		line("kind", "%s", imageKindDumpName(e.ImageKind))
		line("arch", "%s", e.Arch)
		line("triple", "%s", e.Triple)
		line("producer", "%s", e.Kind)
		if e.ID != "" {
			line("id", "%s", quoteIfNeeded(e.ID))
		}
		if !all {
			return
		}
		if e.Section != "" {
			line("section", "%s", e.Section)
		}
		line("offset", "%s", hexOrNA(e.Offset))
		line("size", "%d", e.Size)
		if e.Version != "" {
			line("version", "%s", e.Version)
		}
		if e.Compression != "" {
			line("compression", "%s", e.Compression)
		}
		if e.UncompressedSize != 0 {
			line("uncompressed", "%d", e.UncompressedSize)
		}
		if e.Ident != "" {
			line("ident", "%s", quoteIfNeeded(e.Ident))
		}
		nested(e.Contents)
	}
	// container prints a container: with all, its heading and the lines
	// header prints; then its entries.
	container := func(what string, entries []DumpEntry, header func()) {
		if all {
			head("%s:", what)
			header()
		}
		for _, e := range entries {
			entry(what, e)
		}
	}
	// located prints where a container lies.
	located := func(section string, offset, size int64) {
		if section != "" {
			line("section", "%s", section)
		}
		line("offset", "%s", hexOrNA(offset))
		line("size", "%d", size)
	}
	for _, b := range c.Bundles {
		container(fmt.Sprintf("OFFLOAD BUNDLE [%d]", b.Index), b.Entries, func() {
			line("format", "%s", b.Format)
			located(b.Section, b.Offset, b.Size)
			if z := b.Compression; z != nil {
				line("compression", "%s, version %d, total size %d, uncompressed size %d, hash %s", z.Method, z.Version, z.TotalSize, z.UncompressedSize, z.Hash)
			}
			line("entries", "%d", len(b.Entries))
		})
	}
	for _, f := range c.Fatbins {
		container(fmt.Sprintf("OFFLOAD FATBIN [%d]", f.Index), f.Entries, func() {
			located(f.Section, f.Offset, f.Size)
			line("version", "%d", f.Version)
			line("entries", "%d", len(f.Entries))
		})
	}
	for _, h := range c.HCF {
		container(fmt.Sprintf("OFFLOAD HCF [%d]", h.Index), h.Entries, func() {
			located(h.Section, h.Offset, h.Size)
			if h.ObjectID != "" {
				line("object-id", "%s", quoteIfNeeded(h.ObjectID))
			}
			line("entries", "%d", len(h.Entries))
			for _, l := range strings.Split(strings.TrimRight(h.Tree, "\n"), "\n") {
				fmt.Fprintf(sb, "%s  | %s\n", indent, l)
			}
		})
	}
}

// imageKindDumpName is the name llvm-objdump prints for an image kind
// ("elf", "llvm ir", "<none>"...); kinds it has no name for (spirv, the
// formats HCF names) are printed as they are.
func imageKindDumpName(kind string) string {
	switch kind {
	case "object":
		return "elf"
	case "bitcode":
		return "llvm ir"
	case "cubin", "fatbinary", "ptx":
		return kind
	case "none", "":
		return "<none>"
	}
	return kind
}
