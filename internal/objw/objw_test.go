package objw

import (
	"bytes"
	"debug/elf"
	"debug/pe"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// sample builds a small object exercising every feature of the writer.
func sample() (*Object, []byte) {
	o := NewELF(format.EM_X86_64)
	o.FileName = "sample"
	text := o.AddSection(".text.startup", format.SHT_PROGBITS, format.SHF_ALLOC|format.SHF_EXECINSTR, 16, []byte{0xe8, 0, 0, 0, 0, 0xc3})
	big := bytes.Repeat([]byte{0xab}, 1000)
	img := o.AddSection(".llvm.offloading", format.SHT_LLVM_OFFLOADING, format.SHF_ALLOC, 8, big)
	data := o.AddSection(".data.rel.ro", format.SHT_PROGBITS, format.SHF_WRITE|format.SHF_ALLOC, 16, nil)
	data.Append(make([]byte, 8))
	data.Pad(16)
	bss := o.AddSection(".bss", format.SHT_NOBITS, format.SHF_WRITE|format.SHF_ALLOC, 8, nil)
	bss.Reserve(24)
	o.AddSection(".note.GNU-stack", format.SHT_PROGBITS, 0, 1, nil)
	ext := o.AddSymbol("ext_fn", nil, 0, 0, format.STB_GLOBAL, format.STT_NOTYPE, format.STV_DEFAULT)
	hid := o.AddSymbol("__start_x", nil, 0, 0, format.STB_GLOBAL, format.STT_NOTYPE, format.STV_HIDDEN)
	o.AddSymbol("fn", text, 0, 6, format.STB_LOCAL, format.STT_FUNC, format.STV_DEFAULT)
	o.AddSymbol("weak_obj", data, 0, 8, format.STB_WEAK, format.STT_OBJECT, format.STV_DEFAULT)
	o.AddSymbol("img", img, 0, 1000, format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)
	o.AddReloc(text, 1, R_X86_64_PLT32, ext, -4)
	o.AddReloc(data, 0, R_X86_64_64, o.SectionSymbol(img), 0x10)
	o.AddReloc(data, 8, R_X86_64_64, hid, 0)
	return o, big
}

func TestWriteReadBack(t *testing.T) {
	o, big := sample()
	b, err := o.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != elf.ET_REL || f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		t.Fatalf("header: %v %v %v", f.Type, f.Machine, f.Class)
	}
	var names []string
	for _, s := range f.Sections {
		names = append(names, s.Name)
		if s.Addralign > 1 && s.Offset%s.Addralign != 0 {
			t.Errorf("section %s at 0x%x not aligned to %d", s.Name, s.Offset, s.Addralign)
		}
	}
	want := ",.text.startup,.rela.text.startup,.llvm.offloading,.data.rel.ro,.rela.data.rel.ro,.bss,.note.GNU-stack,.symtab,.strtab,.shstrtab"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("sections:\n got %s\nwant %s", got, want)
	}
	img := f.Section(".llvm.offloading")
	if format.SectionType(img.Type) != format.SHT_LLVM_OFFLOADING || img.Flags != elf.SHF_ALLOC {
		t.Errorf(".llvm.offloading: %v %v", img.Type, img.Flags)
	}
	if d, _ := img.Data(); !bytes.Equal(d, big) {
		t.Error(".llvm.offloading contents differ")
	}
	if s := f.Section(".bss"); s.Size != 24 || s.Type != elf.SHT_NOBITS {
		t.Errorf(".bss: %+v", s.SectionHeader)
	}
	rela := f.Section(".rela.data.rel.ro")
	if rela.Link != uint32(len(f.Sections)-3) || rela.Info != 4 || rela.Flags != elf.SHF_INFO_LINK || rela.Entsize != 24 {
		t.Errorf(".rela.data.rel.ro header: %+v", rela.SectionHeader)
	}

	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	symtab := f.Section(".symtab")
	firstGlobal := int(symtab.Info)
	for i, s := range syms { // syms omits the null symbol: index i+1
		local := elf.ST_BIND(s.Info) == elf.STB_LOCAL
		if local != (i+1 < firstGlobal) {
			t.Errorf("symbol %d %q: local=%v but sh_info=%d", i+1, s.Name, local, firstGlobal)
		}
	}
	if syms[0].Name != "sample" || elf.ST_TYPE(syms[0].Info) != elf.STT_FILE || syms[0].Section != elf.SHN_ABS {
		t.Errorf("first symbol: %+v", syms[0])
	}
	byName := map[string]elf.Symbol{}
	for _, s := range syms {
		byName[s.Name] = s
	}
	if s := byName["__start_x"]; elf.ST_VISIBILITY(s.Other) != elf.STV_HIDDEN || s.Section != elf.SHN_UNDEF {
		t.Errorf("__start_x: %+v", s)
	}
	if s := byName["weak_obj"]; elf.ST_BIND(s.Info) != elf.STB_WEAK || f.Sections[s.Section].Name != ".data.rel.ro" {
		t.Errorf("weak_obj: %+v", s)
	}

	// Relocations: decode .rela.data.rel.ro by hand.
	rd, _ := rela.Data()
	if len(rd) != 48 {
		t.Fatalf("rela size %d", len(rd))
	}
	info := binary.LittleEndian.Uint64(rd[8:])
	if sym := syms[info>>32-1]; elf.ST_TYPE(sym.Info) != elf.STT_SECTION || f.Sections[sym.Section].Name != ".llvm.offloading" {
		t.Errorf("reloc 0 symbol: %+v", sym)
	}
	if add := binary.LittleEndian.Uint64(rd[16:]); add != 0x10 || uint32(info) != R_X86_64_64 {
		t.Errorf("reloc 0: type %d addend %d", uint32(info), add)
	}
	if name := syms[binary.LittleEndian.Uint64(rd[24+8:])>>32-1].Name; name != "__start_x" {
		t.Errorf("reloc 1 symbol %q", name)
	}

	// Deterministic, and WriteTo agrees with Bytes.
	o2, _ := sample()
	var w bytes.Buffer
	n, err := o2.WriteTo(&w)
	if err != nil || n != int64(len(b)) || !bytes.Equal(w.Bytes(), b) {
		t.Errorf("WriteTo: n=%d err=%v equal=%v", n, err, bytes.Equal(w.Bytes(), b))
	}
}

// TestNoCopy: section data appended by the caller is referenced, not copied.
func TestNoCopy(t *testing.T) {
	o := NewELF(format.EM_X86_64)
	buf := []byte("abcd")
	s := o.AddSection(".x", format.SHT_PROGBITS, format.SHF_ALLOC, 1, buf)
	buf[0] = 'z'
	if got := string(s.Bytes()); got != "zbcd" {
		t.Errorf("got %q", got)
	}
}

func TestInvalid(t *testing.T) {
	for name, build := range map[string]func(o *Object){
		"foreign symbol": func(o *Object) {
			s := o.AddSection(".a", format.SHT_PROGBITS, format.SHF_ALLOC, 1, []byte{1, 2, 3, 4})
			o.AddReloc(s, 0, R_X86_64_64, NewELF(format.EM_X86_64).AddSymbol("x", nil, 0, 0, format.STB_GLOBAL, 0, 0), 0)
		},
		"reloc past end": func(o *Object) {
			s := o.AddSection(".a", format.SHT_PROGBITS, format.SHF_ALLOC, 1, []byte{1})
			o.AddReloc(s, 4, R_X86_64_64, o.AddSymbol("x", nil, 0, 0, format.STB_GLOBAL, 0, 0), 0)
		},
		"bad align":      func(o *Object) { o.AddSection(".a", format.SHT_PROGBITS, 0, 3, nil) },
		"nobits content": func(o *Object) { o.AddSection(".bss", format.SHT_NOBITS, 0, 8, []byte{1}) },
		"foreign section": func(o *Object) {
			o.AddSymbol("x", NewELF(format.EM_X86_64).AddSection(".b", format.SHT_PROGBITS, 0, 1, nil), 0, 0, format.STB_LOCAL, 0, 0)
		},
	} {
		o := NewELF(format.EM_X86_64)
		build(o)
		if _, err := o.WriteTo(io.Discard); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(b []byte) (int, error) {
	if f.n -= len(b); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(b), nil
}

func TestWriteError(t *testing.T) {
	o, _ := sample()
	if _, err := o.WriteTo(&failWriter{n: 100}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("err = %v", err)
	}
}

// TestReadelfAccepts cross-checks the output with llvm-readelf when present.
func TestReadelfAccepts(t *testing.T) {
	if testing.Short() {
		t.Skip("external tool")
	}
	readelf, err := exec.LookPath(llvmtools.Path("llvm-readelf"))
	if err != nil {
		t.Skip("llvm-readelf not found")
	}
	o, _ := sample()
	b, err := o.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(readelf, "-S", "-s", "-r", "--elf-output-style=LLVM", "-")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "warning") {
		t.Fatalf("llvm-readelf: %v\n%s", err, out)
	}
	for _, want := range []string{"SHT_LLVM_OFFLOADING", "R_X86_64_PLT32 ext_fn", "R_X86_64_64 __start_x"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%q not in llvm-readelf output:\n%s", want, out)
		}
	}
}

func TestCOFF(t *testing.T) {
	o := NewCOFF(IMAGE_FILE_MACHINE_AMD64)
	text := o.AddSection(".text.startup", format.SHT_PROGBITS, format.SHF_ALLOC|format.SHF_EXECINSTR, 16, []byte{0xe8, 0, 0, 0, 0, 0xc3})
	data := o.AddSection(".rdata", format.SHT_PROGBITS, format.SHF_ALLOC, 16, make([]byte, 16))
	o.AddSection(".bss", format.SHT_NOBITS, format.SHF_ALLOC|format.SHF_WRITE, 8, nil).Reserve(8)
	ent := o.AddSection("llvm_offload_entries$OA", format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
	fn := o.AddSymbol("fn", text, 0, 6, format.STB_LOCAL, format.STT_FUNC, format.STV_DEFAULT)
	ext := o.AddSymbol("ext", nil, 0, 0, format.STB_GLOBAL, format.STT_NOTYPE, format.STV_DEFAULT)
	o.AddSymbol("__start_llvm_offload_entries", ent, 0, 0, format.STB_WEAK, format.STT_OBJECT, format.STV_HIDDEN)
	o.AddReloc(text, 1, IMAGE_REL_AMD64_REL32, ext, 0)
	o.AddReloc(data, 0, IMAGE_REL_AMD64_ADDR64, o.SectionSymbol(text), 0x1234)
	o.AddReloc(data, 8, IMAGE_REL_AMD64_ADDR64, fn, 0)
	b, err := o.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	f, err := pe.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range f.Sections {
		names = append(names, fmt.Sprintf("%s:%#x", s.Name, s.Characteristics))
	}
	want := ".text.startup:0x60500020 .rdata:0x40500040 .bss:0xc0400080 llvm_offload_entries$OA:0x40400040"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("sections:\n got %s\nwant %s", got, want)
	}
	d, _ := f.Sections[1].Data()
	if binary.LittleEndian.Uint64(d) != 0x1234 {
		t.Errorf("in-place addend: % x", d)
	}
	if len(f.Sections[1].Relocs) != 2 || f.Sections[1].Relocs[0].Type != 1 {
		t.Errorf("relocs: %+v", f.Sections[1].Relocs)
	}
	var syms []string
	for _, s := range f.Symbols {
		syms = append(syms, fmt.Sprintf("%s/%d/%d", s.Name, s.SectionNumber, s.StorageClass))
	}
	wantSyms := ".text.startup/1/3 .rdata/2/3 .bss/3/3 llvm_offload_entries$OA/4/3 fn/1/3 ext/0/2 __start_llvm_offload_entries/0/105 .weak.__start_llvm_offload_entries.default/4/2"
	if got := strings.Join(syms, " "); got != wantSyms {
		t.Errorf("symbols:\n got %s\nwant %s", got, wantSyms)
	}
}

// TestCOFFSymbolRecords checks the records LLVM's COFF writer makes and
// lld-link relies on: each weak definition's AuxWeakExternal names its own
// ".weak.<name>.default" (two weak definitions in a row used to point the
// first at the second, so that lld-link put __start_ and __stop_ of the
// offload entries at one address), the section checksums (JamCRC with
// initial value 0, as in every LLVM section definition), the ".file" record
// at the end, and OrderSymbols.
func TestCOFFSymbolRecords(t *testing.T) {
	o := NewCOFF(IMAGE_FILE_MACHINE_AMD64)
	o.FileName = "offload.wrapper.module"
	xdata := o.AddSection(".xdata", format.SHT_PROGBITS, format.SHF_ALLOC, 4,
		[]byte{1, 4, 1, 0, 4, 0x42, 0, 0, 1, 4, 1, 0, 4, 0x42, 0, 0})
	names := o.AddSection(".llvm.rodata.offloading", format.SHT_PROGBITS, format.SHF_ALLOC, 1, []byte("k1\x00k2\x00"))
	ctor := o.AddSection(".CRT$XCA00101", format.SHT_PROGBITS, format.SHF_ALLOC, 8, make([]byte, 8))
	oa := o.AddSection("llvm_offload_entries$OA", format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
	oz := o.AddSection("llvm_offload_entries$OZ", format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
	o.AddReloc(ctor, 0, IMAGE_REL_AMD64_ADDR64, o.SectionSymbol(xdata), 0)
	after := o.AddSymbol("after", names, 3, 0, format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)
	stop := o.AddSymbol("__stop_llvm_offload_entries", oz, 0, 0, format.STB_WEAK, format.STT_OBJECT, format.STV_HIDDEN)
	start := o.AddSymbol("__start_llvm_offload_entries", oa, 0, 0, format.STB_WEAK, format.STT_OBJECT, format.STV_HIDDEN)
	if err := o.OrderSymbols([]*Symbol{start, stop}); err != nil {
		t.Fatal(err)
	}
	if err := o.OrderSymbols([]*Symbol{start, start}); !errors.Is(err, ErrInvalid) {
		t.Errorf("OrderSymbols with a repeated symbol: %v", err)
	}
	if err := o.OrderSymbols([]*Symbol{{Name: "stranger"}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("OrderSymbols with a foreign symbol: %v", err)
	}
	_ = after
	b, err := o.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	f, err := pe.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// Walk the raw records: name, then its aux records.
	le := binary.LittleEndian
	var got []string
	checksums := map[string]uint32{}
	for i := 0; i < len(f.COFFSymbols); i++ {
		s := f.COFFSymbols[i]
		name, err := s.FullName(f.StringTable)
		if err != nil {
			t.Fatal(err)
		}
		rec := fmt.Sprintf("%d:%s/%d/%#x", i, name, s.SectionNumber, s.StorageClass)
		raw := b[int(f.PointerToSymbolTable)+(i+1)*18:]
		switch {
		case s.StorageClass == 0x69:
			rec += fmt.Sprintf("->%d/%d", le.Uint32(raw), le.Uint32(raw[4:]))
		case s.StorageClass == 0x67:
			rec += "=" + strings.TrimRight(string(raw[:18*int(s.NumberOfAuxSymbols)]), "\x00")
		case s.StorageClass == 3 && s.NumberOfAuxSymbols == 1:
			checksums[name] = le.Uint32(raw[8:])
		}
		got = append(got, rec)
		i += int(s.NumberOfAuxSymbols)
	}
	want := "0:.xdata/1/0x3 2:.llvm.rodata.offloading/2/0x3 4:.CRT$XCA00101/3/0x3 6:llvm_offload_entries$OA/4/0x3 8:llvm_offload_entries$OZ/5/0x3 " +
		"10:__start_llvm_offload_entries/0/0x69->12/3 12:.weak.__start_llvm_offload_entries.default/4/0x2 " +
		"13:__stop_llvm_offload_entries/0/0x69->15/3 15:.weak.__stop_llvm_offload_entries.default/5/0x2 " +
		"16:after/2/0x3 17:.file/-2/0x67=offload.wrapper.module"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("symbol records:\n got %s\nwant %s", g, want)
	}
	// The values llc 22 writes for these contents (openmp and sycl wrapper
	// objects); an empty section and 8 zero bytes have checksum 0.
	for name, crc := range map[string]uint32{".xdata": 0x3BFCB704, ".llvm.rodata.offloading": 0x57801E1F, ".CRT$XCA00101": 0, "llvm_offload_entries$OA": 0} {
		if checksums[name] != crc {
			t.Errorf("%s checksum %#x, want %#x", name, checksums[name], crc)
		}
	}
}
