package wrap

import (
	"bytes"
	"debug/elf" // for its machine names only
	"debug/pe"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/syclprop"
)

// Describe returns a readable description of a registration object: what
// the linker-wrapper's --print-wrapped-module shows, but for the object
// itself instead of LLVM IR. It reads any wrapper object, ours or LLVM's
// (llvm-offload-wrapper + llc), ELF (x86-64, AArch64) or COFF (x86-64),
// resolving relocations so that pointers print as section+offset or as the
// name of an undefined symbol. The format is documented in
// docs/wrapper-objects.md.
func Describe(obj []byte) (desc string, err error) {
	var v *view
	if format.Identify(obj) == format.KindCOFF {
		v, err = coffView(obj)
	} else {
		v, err = elfView(obj)
	}
	if err != nil {
		return "", fmt.Errorf("wrap: describe: %w", err)
	}
	d := &describer{view: v}
	return d.describe(), nil
}

// view is the format-independent picture of an object that Describe needs.
type view struct {
	machine string
	secs    []vsec
	syms    []vsym
	byName  map[string]vsym
	bySec   map[string]int
}

type vsec struct {
	name, typ     string
	size, align   uint64
	flags         string // W, A, X, M, S
	list          bool   // listed under "sections:"
	ctor          string // "constructor"/"destructor" for init/fini arrays
	prio          string
	data          []byte
	relocs        map[uint64]reloc
	nobits, isELF bool
}

type vsym struct {
	name        string
	sec         string // "" if undefined or absolute
	value, size uint64
	fn          bool
	undefNote   string // " (hidden)" / " (weak)" for undefined symbols
	undefined   bool
}

type reloc struct {
	sym    string // section name (defined targets) or undefined symbol name
	addend int64
}

func newView(machine string) *view {
	return &view{machine: machine, byName: map[string]vsym{}, bySec: map[string]int{}}
}

func (v *view) addSec(s vsec) {
	if _, dup := v.bySec[s.name]; !dup {
		v.bySec[s.name] = len(v.secs)
	}
	v.secs = append(v.secs, s)
}

func (v *view) sec(name string) *vsec {
	if i, ok := v.bySec[name]; ok {
		return &v.secs[i]
	}
	return nil
}

// target normalises a relocation target: a defined symbol becomes its
// section plus offset.
func (v *view) target(s vsym, isSection bool, addend int64) reloc {
	if isSection || s.undefined || s.sec == "" {
		return reloc{sym: s.name, addend: addend}
	}
	return reloc{sym: s.sec, addend: addend + int64(s.value)}
}

func elfView(obj []byte) (*view, error) {
	f, err := format.ParseELF(obj)
	if err != nil {
		return nil, err
	}
	v := newView(elf.Machine(f.Machine).String())
	for _, s := range f.Sections {
		vs := vsec{name: s.Name, typ: s.Type.String(), size: s.Size, align: s.Addralign,
			flags: elfFlags(s.Flags), nobits: s.Type == format.SHT_NOBITS, isELF: true}
		vs.list = s.Flags&format.SHF_ALLOC != 0 && s.Flags&format.SHF_EXECINSTR == 0 && s.Type != format.SHT_X86_64_UNWIND &&
			s.Name != ".rodata" && s.Name != ".eh_frame"
		if s.Type == format.SHT_INIT_ARRAY || s.Type == format.SHT_FINI_ARRAY {
			vs.ctor = map[bool]string{true: "constructor", false: "destructor"}[s.Type == format.SHT_INIT_ARRAY]
			vs.prio = "65535"
			if i := strings.LastIndexByte(s.Name, '.'); i > 0 && strings.Count(s.Name, ".") > 1 {
				vs.prio = s.Name[i+1:]
			}
		}
		vs.data = s.Data
		v.addSec(vs)
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	if syms == nil {
		return nil, fmt.Errorf("no symbol section: %w", format.ErrCorrupt)
	}
	// vsyms[k] is symbol k, as relocations number them (0 is the null symbol).
	vsyms := make([]vsym, len(syms))
	isSec := make([]bool, len(syms))
	for i := 1; i < len(syms); i++ {
		s := &syms[i]
		vs := vsym{name: s.Name, value: s.Value, size: s.Size, fn: s.Type() == format.STT_FUNC}
		switch {
		case s.Section == format.SHN_UNDEF:
			vs.undefined = true
			if s.Visibility() == format.STV_HIDDEN {
				vs.undefNote = " (hidden)"
			}
		case uint64(s.Section) < uint64(len(f.Sections)):
			vs.sec = f.Sections[s.Section].Name
		}
		if s.Type() == format.STT_SECTION {
			isSec[i] = true
			vs.name = vs.sec
		} else if s.Name != "" && !isMappingSymbol(s.Name) {
			v.byName[s.Name] = vs
			v.syms = append(v.syms, vs)
			if vs.sec == ".rodata" { // SYCL property values: listed, unlike llc's jump tables
				if rs := v.sec(".rodata"); rs != nil {
					rs.list = true
				}
			}
		}
		vsyms[i] = vs
	}
	for _, s := range f.Sections {
		if s.Type != format.SHT_RELA || uint64(s.Info) >= uint64(len(f.Sections)) {
			continue
		}
		raw := s.Data
		m := map[uint64]reloc{}
		for i := 0; i+24 <= len(raw); i += 24 {
			off := binary.LittleEndian.Uint64(raw[i:])
			idx := binary.LittleEndian.Uint64(raw[i+8:]) >> 32
			add := int64(binary.LittleEndian.Uint64(raw[i+16:]))
			if idx >= 1 && idx < uint64(len(vsyms)) {
				m[off] = v.target(vsyms[idx], isSec[idx], add)
			} else {
				m[off] = reloc{sym: "?", addend: add}
			}
		}
		if t := v.sec(f.Sections[s.Info].Name); t != nil {
			t.relocs = m
		}
	}
	return v, nil
}

func elfFlags(f format.SectionFlag) string {
	var s []byte
	for _, x := range []struct {
		f format.SectionFlag
		c byte
	}{{format.SHF_WRITE, 'W'}, {format.SHF_ALLOC, 'A'}, {format.SHF_EXECINSTR, 'X'}, {format.SHF_MERGE, 'M'}, {format.SHF_STRINGS, 'S'}} {
		if f&x.f != 0 {
			s = append(s, x.c)
		}
	}
	return string(s)
}

// coffView reads a COFF object with debug/pe, which is not hardened
// against hostile input: a panic there is a malformed object. (ELF objects
// go through format.ParseELF, which never panics.)
func coffView(obj []byte) (v *view, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("malformed object: %v: %w", r, format.ErrCorrupt)
		}
	}()
	return coffViewPE(obj)
}

func coffViewPE(obj []byte) (*view, error) {
	f, err := pe.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil, err
	}
	v := newView(fmt.Sprintf("IMAGE_FILE_MACHINE_0x%04X", f.Machine))
	if f.Machine == pe.IMAGE_FILE_MACHINE_AMD64 {
		v.machine = "IMAGE_FILE_MACHINE_AMD64"
	}
	for _, s := range f.Sections {
		c := s.Characteristics
		vs := vsec{name: s.Name, size: uint64(s.Size), nobits: c&pe.IMAGE_SCN_CNT_UNINITIALIZED_DATA != 0}
		switch {
		case c&pe.IMAGE_SCN_CNT_CODE != 0:
			vs.typ, vs.flags = "CODE", "AX"
		case vs.nobits:
			vs.typ, vs.flags = "UNINITIALIZED_DATA", "A"
		default:
			vs.typ, vs.flags = "INITIALIZED_DATA", "A"
		}
		if c&pe.IMAGE_SCN_MEM_WRITE != 0 {
			vs.flags = "W" + vs.flags
		}
		if a := (c >> 20) & 0xf; a > 0 {
			vs.align = 1 << (a - 1)
		}
		// Unwind tables, the empty default sections and LLVM's switch
		// jump tables are not part of the description.
		vs.list = vs.typ != "CODE" && s.Name != ".xdata" && s.Name != ".pdata" &&
			!(s.Size == 0 && (s.Name == ".data" || s.Name == ".bss")) && !(s.Name == ".rdata" && vs.align == 4)
		if p, ok := strings.CutPrefix(s.Name, ".CRT$XCA"); ok {
			vs.ctor, vs.prio = "constructor", strings.TrimLeft(p, "0")
		} else if p, ok := strings.CutPrefix(s.Name, ".CRT$XTA"); ok {
			vs.ctor, vs.prio = "destructor", strings.TrimLeft(p, "0")
		}
		if !vs.nobits {
			if vs.data, err = s.Data(); err != nil {
				return nil, fmt.Errorf("section %s: %w", s.Name, err)
			}
		}
		v.addSec(vs)
	}
	// Symbols, indexed as relocations refer to them (aux records count).
	idx := map[int]vsym{}
	isSec := map[int]bool{}
	var defined []vsym
	for i := 0; i < len(f.COFFSymbols); i++ {
		s := f.COFFSymbols[i]
		name, err := s.FullName(f.StringTable)
		if err != nil {
			return nil, err
		}
		vs := vsym{name: name, value: uint64(s.Value), fn: s.Type == 0x20}
		switch {
		case s.SectionNumber == 0:
			vs.undefined = true
			if s.StorageClass == 0x69 {
				vs.undefNote = " (weak)"
			}
		case s.SectionNumber > 0 && int(s.SectionNumber) <= len(f.Sections):
			vs.sec = f.Sections[s.SectionNumber-1].Name
		}
		if s.StorageClass == 3 && s.NumberOfAuxSymbols > 0 && vs.sec == name && s.Value == 0 {
			isSec[i] = true
		} else if !strings.HasPrefix(name, ".weak.") && name != "@feat.00" && name != ".file" {
			if vs.sec != "" {
				defined = append(defined, vs)
			}
			v.byName[name] = vs
			v.syms = append(v.syms, vs)
		}
		idx[i] = vs
		i += int(s.NumberOfAuxSymbols)
	}
	// COFF symbols have no size: a defined symbol extends to the next one
	// in its section, or to the section end.
	sort.SliceStable(defined, func(a, b int) bool {
		if defined[a].sec != defined[b].sec {
			return defined[a].sec < defined[b].sec
		}
		return defined[a].value < defined[b].value
	})
	for i, s := range defined {
		end := uint64(0)
		if sec := v.sec(s.sec); sec != nil {
			end = sec.size
		}
		for j := i + 1; j < len(defined) && defined[j].sec == s.sec; j++ {
			if defined[j].value > s.value {
				end = defined[j].value
				break
			}
		}
		if end >= s.value {
			s.size = end - s.value
		}
		v.byName[s.name] = s
	}
	for si, s := range f.Sections {
		if len(s.Relocs) == 0 {
			continue
		}
		vs := &v.secs[si]
		m := map[uint64]reloc{}
		for _, r := range s.Relocs {
			off := uint64(r.VirtualAddress)
			var add int64
			switch r.Type {
			case 1: // IMAGE_REL_AMD64_ADDR64
				if off+8 <= uint64(len(vs.data)) {
					add = int64(binary.LittleEndian.Uint64(vs.data[off:]))
				}
			default:
				if off+4 <= uint64(len(vs.data)) {
					add = int64(int32(binary.LittleEndian.Uint32(vs.data[off:])))
				}
			}
			t, ok := idx[int(r.SymbolTableIndex)]
			if !ok {
				m[off] = reloc{sym: "?", addend: add}
				continue
			}
			m[off] = v.target(t, isSec[int(r.SymbolTableIndex)], add)
		}
		vs.relocs = m
	}
	return v, nil
}

type describer struct {
	*view
	b strings.Builder
}

func (d *describer) p(format string, args ...any) { fmt.Fprintf(&d.b, format, args...) }

// at returns the bytes of symbol name's object and the section it is in.
func (d *describer) at(name string) (sec string, off uint64, b []byte, ok bool) {
	s, ok := d.byName[name]
	if !ok || s.sec == "" {
		return "", 0, nil, false
	}
	data := d.sec(s.sec).data
	if s.value > uint64(len(data)) || s.size > uint64(len(data))-s.value {
		return s.sec, s.value, nil, true
	}
	return s.sec, s.value, data[s.value : s.value+s.size], true
}

// ptr renders the pointer stored at sec+off.
func (d *describer) ptr(sec string, off uint64) string {
	vs := d.sec(sec)
	if vs == nil {
		return "?"
	}
	r, ok := vs.relocs[off]
	if !ok {
		if off+8 <= uint64(len(vs.data)) && binary.LittleEndian.Uint64(vs.data[off:]) == 0 {
			return "null"
		}
		return "?"
	}
	if r.addend == 0 {
		return r.sym
	}
	return fmt.Sprintf("%s+0x%x", r.sym, r.addend)
}

// relocAt returns the relocation of the pointer stored at sec+off; ok is
// false when sec does not exist or the pointer is not relocated.
func (d *describer) relocAt(sec string, off uint64) (r reloc, ok bool) {
	vs := d.sec(sec)
	if vs == nil {
		return reloc{}, false
	}
	r, ok = vs.relocs[off]
	return r, ok
}

// cstring reads the NUL-terminated string a pointer at sec+off refers to.
func (d *describer) cstring(sec string, off uint64) (string, bool) {
	r, ok := d.relocAt(sec, off)
	if !ok {
		return "", false
	}
	t := d.sec(r.sym)
	if t == nil || r.addend < 0 || uint64(r.addend) > uint64(len(t.data)) {
		return "", false
	}
	rest := t.data[r.addend:]
	if n := bytes.IndexByte(rest, 0); n >= 0 {
		return string(rest[:n]), true
	}
	return "", false
}

func (d *describer) has(name string) bool { _, ok := d.byName[name]; return ok }

func (d *describer) describe() string {
	kind := "unknown"
	switch {
	case d.has(".omp_offloading.descriptor"):
		kind = "openmp"
	case d.has(".cuda.fatbin_reg"):
		kind = "cuda"
	case d.has(".hip.fatbin_reg"):
		kind = "hip"
	case d.has(".sycl_offloading.descriptor"):
		kind = "sycl"
	}
	d.p("registration object: kind=%s machine=%s\n", kind, d.machine)
	d.p("sections:\n")
	for _, s := range d.secs {
		if s.list {
			d.p("  %-28s %-22s size=%-6d align=%d %s\n", s.name, s.typ, s.size, s.align, s.flags)
		}
	}
	d.ctors()
	switch kind {
	case "openmp":
		d.openmp()
	case "cuda", "hip":
		d.gpu(kind)
	case "sycl":
		d.sycl()
	}
	var und []string
	for _, s := range d.syms {
		if s.undefined {
			und = append(und, s.name+s.undefNote)
		}
	}
	sort.Strings(und)
	d.p("undefined:\n")
	for _, u := range und {
		d.p("  %s\n", u)
	}
	return d.b.String()
}

// ctors prints the constructor and destructor arrays.
func (d *describer) ctors() {
	for _, s := range d.secs {
		if s.ctor == "" {
			continue
		}
		for off := uint64(0); off+8 <= uint64(len(s.data)) && off < 8<<10; off += 8 {
			d.p("%s: priority %s %s\n", s.ctor, s.prio, d.funcAt(s.name, off))
		}
	}
}

// funcAt names the function a pointer at sec+off refers to.
func (d *describer) funcAt(sec string, off uint64) string {
	r, ok := d.relocAt(sec, off)
	if !ok {
		return "?"
	}
	for _, s := range d.syms {
		if s.fn && s.sec == r.sym && s.value == uint64(r.addend) {
			return s.name
		}
	}
	if r.addend == 0 {
		return r.sym
	}
	return fmt.Sprintf("%s+0x%x", r.sym, r.addend)
}

func (d *describer) openmp() {
	sec, off, b, ok := d.at(".omp_offloading.descriptor")
	if !ok || len(b) < 32 {
		d.p("descriptor: missing\n")
		return
	}
	n := binary.LittleEndian.Uint32(b)
	d.p("descriptor .omp_offloading.descriptor: images=%d array=%s entries=[%s, %s)\n",
		n, d.ptr(sec, off+8), d.ptr(sec, off+16), d.ptr(sec, off+24))
	asec, aoff, _, ok := d.at(".omp_offloading.device_images")
	if !ok {
		return
	}
	for i := uint64(0); i < uint64(n) && i < 1<<16; i++ {
		o := aoff + 32*i
		d.p("  image %d: [%s, %s) entries=[%s, %s)\n", i, d.ptr(asec, o), d.ptr(asec, o+8), d.ptr(asec, o+16), d.ptr(asec, o+24))
	}
	var names []string
	for name := range d.byName {
		if strings.HasPrefix(name, ".omp_offloading.device_image") && name != ".omp_offloading.device_images" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		_, _, img, _ := d.at(name)
		d.p("  %s: %d bytes%s\n", name, len(img), binaryInfo(img))
	}
}

// binaryInfo summarises an OffloadBinary's header, or says it is raw.
func binaryInfo(img []byte) string {
	if !bytes.HasPrefix(img, format.OffloadBinaryMagic) {
		return ", raw image"
	}
	bin, err := parseV1(img)
	if err != nil {
		return ", invalid offload binary: " + err.Error()
	}
	info := fmt.Sprintf(", offload binary, payload [0x%x, 0x%x)", bin.ImageOffset, bin.ImageOffset+uint64(len(bin.Image)))
	if t := bin.Triple(); t != "" {
		info += " triple=" + t
	}
	return info
}

func (d *describer) gpu(kind string) {
	sec, off, b, ok := d.at(".fatbin_wrapper")
	if !ok || len(b) < 24 {
		d.p("fatbin wrapper: missing\n")
		return
	}
	d.p("fatbin wrapper .fatbin_wrapper (%s): magic=0x%08x version=%d image=%s reserved=%s\n", sec,
		binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), d.ptr(sec, off+8), d.ptr(sec, off+16))
	if _, _, img, ok := d.at(".fatbin_image"); ok {
		d.p("  .fatbin_image: %d bytes\n", len(img))
	}
	// LLVM 16-19 objects walk their kind's own section of 32-byte
	// __tgt_offload_entry records (legacy.go); the bound symbols say which.
	for _, s := range d.syms {
		sec, ok := strings.CutPrefix(s.name, "__start_")
		if !ok || !s.undefined || !strings.HasSuffix(sec, "_offloading_entries") {
			continue
		}
		d.p("entries: [__start_%s, __stop_%s), 32-byte __tgt_offload_entry records (LLVM 16-19), all registered (no kind field)\n", sec, sec)
		if d.ctorPrio("1") {
			d.p("  decoded as LLVM 16 (priority-1 constructor): size 0 a kernel, else a variable only when flags == 0\n")
		} else {
			d.p("  decoded as LLVM 19: size 0 a kernel, else type = flags & 7 (0 variable with extern/constant bits 3/4%s)\n",
				map[bool]string{true: "; 2 surface, 3 texture with reserved as dimension", false: ""}[kind == "hip" && d.has("__hipRegisterSurface")])
		}
		return
	}
	k := kindCUDA
	if kind == "hip" {
		k = kindHIP
	}
	d.p("entries: [__start_llvm_offload_entries, __stop_llvm_offload_entries), registering kind %d\n", k)
}

// ctorPrio reports whether the object has a constructor of priority prio.
func (d *describer) ctorPrio(prio string) bool {
	for _, s := range d.secs {
		if s.ctor == "constructor" && s.prio == prio {
			return true
		}
	}
	return false
}

func (d *describer) sycl() {
	sec, off, b, ok := d.at(".sycl_offloading.descriptor")
	if !ok || len(b) < 32 {
		d.p("descriptor: missing\n")
		return
	}
	n := binary.LittleEndian.Uint16(b[2:])
	d.p("descriptor .sycl_offloading.descriptor: version=%d images=%d array=%s\n",
		binary.LittleEndian.Uint16(b), n, d.ptr(sec, off+8))
	asec, aoff, arr, ok := d.at(".sycl_offloading.device_images")
	if !ok {
		return
	}
	for i := uint64(0); i < uint64(n) && (i+1)*80 <= uint64(len(arr)); i++ {
		o := aoff + 80*i
		im := arr[80*i:]
		target, _ := d.cstring(asec, o+8)
		copts, _ := d.cstring(asec, o+16)
		lopts, _ := d.cstring(asec, o+24)
		d.p("  image %d: version=%d kind=%d format=%d target=%q compile=%q link=%q\n", i,
			binary.LittleEndian.Uint16(im), im[2], im[3], target, copts, lopts)
		d.p("    image=[%s, %s) entries=[%s, %s) properties=[%s, %s)\n", d.ptr(asec, o+32), d.ptr(asec, o+40),
			d.ptr(asec, o+48), d.ptr(asec, o+56), d.ptr(asec, o+64), d.ptr(asec, o+72))
		d.syclProps(asec, o+64)
	}
	var entries []string
	for _, s := range d.syms {
		if e, ok := strings.CutPrefix(s.name, ".offloading.entry."); ok {
			entries = append(entries, e)
		}
	}
	d.p("offload entries: %s\n", strings.Join(entries, " "))
}

// syclProps prints the property sets (intel's layout, spec sycl.md §9.1) of
// the image whose PropertiesBegin/End are at sec+off: each set's name and
// property range, then each property's name, type and value (byte arrays
// in hex, at most 64 bytes shown).
func (d *describer) syclProps(sec string, off uint64) {
	begin, end, ok := d.span(sec, off)
	if !ok {
		return
	}
	for o, n := begin.addend, 0; o+syclPropSetSize <= end.addend && n < 1<<12; o, n = o+syclPropSetSize, n+1 {
		name, _ := d.cstring(begin.sym, uint64(o))
		d.p("    property set %q: [%s, %s)\n", name, d.ptr(begin.sym, uint64(o)+8), d.ptr(begin.sym, uint64(o)+16))
		pb, pe, ok := d.span(begin.sym, uint64(o)+8)
		if !ok {
			continue
		}
		t := d.sec(pb.sym)
		for q, k := pb.addend, 0; q+syclPropSize <= pe.addend && q+syclPropSize <= int64(len(t.data)) && k < 1<<12; q, k = q+syclPropSize, k+1 {
			pname, _ := d.cstring(pb.sym, uint64(q))
			typ := binary.LittleEndian.Uint32(t.data[q+16:])
			size := binary.LittleEndian.Uint64(t.data[q+24:])
			switch syclprop.Type(typ) {
			case syclprop.Uint32:
				d.p("      %q uint32 %d value=%s\n", pname, size, d.ptr(pb.sym, uint64(q)+8))
			case syclprop.ByteArray:
				d.p("      %q bytes size=%d value=%s%s\n", pname, size, d.ptr(pb.sym, uint64(q)+8), d.bytesAt(pb.sym, uint64(q)+8, size))
			case syclprop.String:
				v, _ := d.cstring(pb.sym, uint64(q)+8)
				d.p("      %q string size=%d value=%s %q\n", pname, size, d.ptr(pb.sym, uint64(q)+8), v)
			default:
				d.p("      %q type=%d size=%d value=%s\n", pname, typ, size, d.ptr(pb.sym, uint64(q)+8))
			}
		}
	}
}

// span returns the relocations of a [begin, end) pointer pair at sec+off
// when both point into the same section, begin <= end.
func (d *describer) span(sec string, off uint64) (begin, end reloc, ok bool) {
	vs := d.sec(sec)
	if vs == nil {
		return reloc{}, reloc{}, false
	}
	begin, okb := vs.relocs[off]
	end, oke := vs.relocs[off+8]
	if !okb || !oke || begin.sym != end.sym || begin.addend < 0 || end.addend < begin.addend || d.sec(begin.sym) == nil {
		return reloc{}, reloc{}, false
	}
	return begin, end, true
}

// bytesAt renders in hex, after a space, the size bytes a pointer at
// sec+off refers to ("" when the pointer is not relocated).
func (d *describer) bytesAt(sec string, off, size uint64) string {
	r, ok := d.relocAt(sec, off)
	if !ok {
		return ""
	}
	t := d.sec(r.sym)
	if t == nil || r.addend < 0 || uint64(r.addend) > uint64(len(t.data)) || size > uint64(len(t.data))-uint64(r.addend) {
		return " ?"
	}
	b := t.data[r.addend : uint64(r.addend)+size]
	if len(b) > 64 {
		return fmt.Sprintf(" %x...", b[:64])
	}
	return fmt.Sprintf(" %x", b)
}

// isMappingSymbol reports whether name is an AArch64 mapping symbol: $x or
// $d, or LLVM 16's numbered $x.N / $d.N.
func isMappingSymbol(name string) bool {
	for _, p := range []string{"$x", "$d"} {
		if name == p || strings.HasPrefix(name, p+".") {
			return true
		}
	}
	return false
}
