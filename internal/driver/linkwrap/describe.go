package linkwrap

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"strings"

	"github.com/offload-kit/offload-kit/format/offload"
)

// describeObject prints --print-wrapped-module output. LLVM prints the
// registration module's IR; offload-kit never builds IR, so it prints the
// object it generated instead: sections with their relocations, symbols,
// constructor priorities and the embedded device images. The format is
// documented in docs/linker-wrapper.md.
func describeObject(w io.Writer, kind string, obj []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("describing the %s wrapper object: %v", kind, r)
		}
	}()
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return fmt.Errorf("describing the %s wrapper object: %w", kind, err)
	}
	syms, _ := f.Symbols()
	fmt.Fprintf(w, "; offload-kit registration object for %s (%s %s, %d bytes)\n", kind, f.Class, f.Machine, len(obj))
	fmt.Fprintf(w, "; ModuleID = 'offload.wrapper.module' (machine code, not LLVM IR)\n")
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NULL || s.Type == elf.SHT_SYMTAB || s.Type == elf.SHT_STRTAB || s.Type == elf.SHT_RELA || s.Type == elf.SHT_REL {
			continue
		}
		fmt.Fprintf(w, "\nsection %s: type %s, flags %s, size 0x%x, align %d\n", s.Name, typeName(s.Type), flagString(s.Flags), s.Size, s.Addralign)
		if p, ok := strings.CutPrefix(s.Name, ".init_array."); ok {
			fmt.Fprintf(w, "  constructor priority %s\n", p)
		}
		if s.Type == shtLLVMOffloading || strings.HasPrefix(s.Name, ".llvm.offloading") {
			if data, err := s.Data(); err == nil {
				describeImages(w, data)
			}
		}
		for _, r := range f.Sections {
			if r.Type != elf.SHT_RELA || int(r.Info) >= len(f.Sections) || f.Sections[r.Info] != s {
				continue
			}
			data, err := r.Data()
			if err != nil {
				continue
			}
			for i := 0; i+24 <= len(data); i += 24 {
				off := f.ByteOrder.Uint64(data[i:])
				info := f.ByteOrder.Uint64(data[i+8:])
				add := int64(f.ByteOrder.Uint64(data[i+16:]))
				name := fmt.Sprintf("sym#%d", info>>32)
				if idx := int(info >> 32); idx >= 1 && idx <= len(syms) {
					name = syms[idx-1].Name
					if name == "" && int(syms[idx-1].Section) < len(f.Sections) {
						name = f.Sections[syms[idx-1].Section].Name
					}
				}
				fmt.Fprintf(w, "  reloc +0x%04x %-20s %s%+d\n", off, relocName(f.Machine, uint32(info)), name, add)
			}
		}
	}
	fmt.Fprintf(w, "\nsymbols:\n")
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_SECTION || elf.ST_TYPE(s.Info) == elf.STT_FILE {
			continue
		}
		where := "undefined"
		if s.Section != elf.SHN_UNDEF && int(s.Section) < len(f.Sections) {
			where = fmt.Sprintf("%s+0x%x", f.Sections[s.Section].Name, s.Value)
		}
		fmt.Fprintf(w, "  %-6s %-6s %-8s %s size %d: %s\n", strings.TrimPrefix(elf.ST_BIND(s.Info).String(), "STB_"),
			strings.TrimPrefix(elf.ST_TYPE(s.Info).String(), "STT_"), strings.TrimPrefix(elf.ST_VISIBILITY(s.Other).String(), "STV_"), where, s.Size, s.Name)
	}
	return nil
}

func typeName(t elf.SectionType) string {
	if t == shtLLVMOffloading {
		return "SHT_LLVM_OFFLOADING"
	}
	return t.String()
}

func relocName(m elf.Machine, t uint32) string {
	if m == elf.EM_X86_64 {
		return elf.R_X86_64(t).String()
	}
	if m == elf.EM_AARCH64 {
		return elf.R_AARCH64(t).String()
	}
	return fmt.Sprintf("type%d", t)
}

func flagString(f elf.SectionFlag) string {
	var b strings.Builder
	for _, x := range []struct {
		f elf.SectionFlag
		c byte
	}{{elf.SHF_WRITE, 'W'}, {elf.SHF_ALLOC, 'A'}, {elf.SHF_EXECINSTR, 'X'}, {elf.SHF_MERGE, 'M'}, {elf.SHF_STRINGS, 'S'}, {elf.SHF_GROUP, 'G'}, {elf.SHF_TLS, 'T'}} {
		if f&x.f != 0 {
			b.WriteByte(x.c)
		}
	}
	if f&0x80000000 != 0 {
		b.WriteByte('E')
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

func describeImages(w io.Writer, data []byte) {
	bins, err := offload.ParseAll(data, offload.ReadOptions{})
	if err != nil {
		fmt.Fprintf(w, "  %d bytes of image data (not an OffloadBinary: %v)\n", len(data), err)
		return
	}
	for i, b := range bins {
		fmt.Fprintf(w, "  image %d: kind %s, %s, triple %q, arch %q, %d bytes at +0x%x (registered range [0x%x, 0x%x))\n",
			i, b.OffloadKind, b.ImageKind, b.Triple(), b.Arch(), len(b.Image), b.Offset,
			uint64(b.Offset)+b.ImageOffset, uint64(b.Offset)+b.ImageOffset+uint64(len(b.Image)))
	}
}

// shtLLVMOffloading is SHT_LLVM_OFFLOADING (debug/elf does not name it).
const shtLLVMOffloading = elf.SectionType(0x6fff4c0b)
