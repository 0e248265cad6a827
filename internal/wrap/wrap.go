// Package wrap builds the host-side registration ("wrapper") objects that
// clang-linker-wrapper generates as LLVM IR and compiles: relocatable
// objects that carry the linked device images and a constructor that
// registers them with the offload runtime (libomptarget, the CUDA or HIP
// runtime, or the SYCL runtime).
//
// The objects are emitted directly as machine code templates plus
// relocations (see docs/wrapper-objects.md); no LLVM is involved. The
// layouts follow docs/formats/linker-wrapper.md §9 (LLVM 22.1.8); "spec
// §N" in this package cites that page, "sycl.md §N" docs/formats/sycl.md.
package wrap

import (
	"fmt"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/objw"
	"github.com/offload-kit/offload-kit/internal/release"
)

// Options selects the host target of a wrapper object.
type Options struct {
	// Triple is the host triple. Supported: x86_64 and aarch64 ELF hosts
	// (Linux and other ELF systems) and x86_64 Windows MSVC (COFF). MinGW,
	// Cygwin, other Windows ABIs and Darwin hosts return an error wrapping
	// format.ErrUnsupported.
	Triple string
	// Relocatable puts OpenMP images into .llvm.offloading.relocatable
	// instead of .llvm.offloading (linker-wrapper -r, spec §8).
	Relocatable bool
	// Release is the LLVM release whose clang-linker-wrapper the object
	// stands in for: its entry layout and sections, flag decoding,
	// constructor priorities and OpenMP descriptor (legacy.go). The zero
	// value (Major 0) is LLVM 22. OpenMP, CUDA and HIP honour it; SYCL
	// objects are LLVM 22's for every release. Releases 16-19 are
	// implemented for ELF hosts only: a Windows host returns an error
	// wrapping format.ErrUnsupported.
	Release release.Profile

	// winABI (tests only) emits the Windows x64 code templates into an
	// x86-64 ELF object, so that they can be run on Linux against stubs
	// declared __attribute__((ms_abi)).
	winABI bool
}

// Entry layout (llvm::offloading::EntryTy, 56 bytes on 64-bit hosts).
const (
	entrySize      = 56
	entryVersion   = 8
	entryKind      = 10
	entryFlags     = 12
	entryAddr      = 16
	entryName      = 24
	entrySizeField = 32
	entryData      = 40
	entryAux       = 48
)

// Offload kinds as stored in entries.
const (
	kindOpenMP = 1
	kindCUDA   = 2
	kindHIP    = 4
	kindSYCL   = 8
)

const moduleName = "offload.wrapper.module"

// module is a wrapper object under construction, with the sections every
// kind shares created in the reference's order.
type module struct {
	o           *objw.Object
	text        *objw.Section // .text (empty, as llc emits it)
	startup     *objw.Section // .text.startup
	entries     *objw.Section // llvm_offload_entries (or the release's per-kind entry section)
	entSec      string        // the entry section's name
	start, stop *objw.Symbol  // __start_/__stop_<entSec>
	abi         regABI        // the release's registration ABI
	nMapping    int           // AArch64 mapping symbols made so far (LLVM 16 numbers them)
	ext         map[string]*objw.Symbol
	c           *code
	a64         bool          // AArch64 host (else x86-64)
	coff        bool          // Windows (COFF) host
	win         bool          // Windows x64 calling convention in the code templates
	abs64       uint32        // R_X86_64_64, R_AARCH64_ABS64 or IMAGE_REL_AMD64_ADDR64
	bss         *objw.Section // COFF: .bss, created up front as llc does
	xdata       *objw.Section // COFF: unwind information
	ctorSlots   []ctorSlot    // COFF: .CRT$X?A pointers to relocate against function symbols
}

func newModule(opts Options) (*module, error) {
	return newKindModule(opts, abiOf(Options{}), release.KindSYCL)
}

// newKindModule is newModule for a registration kind (release.KindOpenMP,
// ...) under ABI a: the entry section is the one a's release writes kind's
// entries into, and it is added now unless a adds it later (entriesLate).
func newKindModule(opts Options, a regABI, kind string) (*module, error) {
	return newKindModuleBounds(opts, a, kind, true)
}

// newKindModuleBounds is newKindModule; coffBounds false leaves out the
// llvm_offload_entries$OA/$OZ sections and their weak __start_/__stop_
// definitions on COFF, as LLVM 22's SYCL wrapper (which never walks the
// entry range) has none.
func newKindModuleBounds(opts Options, a regABI, kind string, coffBounds bool) (*module, error) {
	machine, coff, err := checkTriple(opts.Triple)
	if err != nil {
		return nil, err
	}
	if err := a.check(opts, coff); err != nil {
		return nil, err
	}
	if coff {
		m := newCOFFModule(coffBounds)
		m.abi, m.entSec = a, "llvm_offload_entries"
		return m, nil
	}
	if opts.winABI && machine != format.EM_X86_64 {
		return nil, fmt.Errorf("wrap: internal error: Windows ABI templates need an x86-64 host")
	}
	o := objw.NewELF(machine)
	o.FileName = moduleName
	m := &module{o: o, ext: map[string]*objw.Symbol{}, abi: a, entSec: a.entrySection(kind)}
	textAlign := uint64(16)
	if machine == format.EM_AARCH64 {
		m.a64, m.abs64, textAlign = true, objw.R_AARCH64_ABS64, 4
		m.c = newCode(4, 0)
	} else {
		m.abs64 = objw.R_X86_64_64
		m.c = newCode(16, 0xcc)
		m.win = opts.winABI
	}
	m.text = o.AddSection(".text", format.SHT_PROGBITS, format.SHF_ALLOC|format.SHF_EXECINSTR, 4, nil)
	m.startup = o.AddSection(".text.startup", format.SHT_PROGBITS, format.SHF_ALLOC|format.SHF_EXECINSTR, textAlign, nil)
	if !a.entriesLate || kind == release.KindOpenMP { // LLVM 16 adds the CUDA/HIP entry section after the fatbin's
		m.addEntrySection()
	}
	return m, nil
}

// addEntrySection adds the (empty) entry section with the release's dummy
// object in it, so that the section and hence __start_/__stop_ always
// exist: a local __dummy.<section> (LLVM 18 and later), or LLVM 16's
// GLOBAL HIDDEN __dummy.<kind>_offloading.entry.
func (m *module) addEntrySection() {
	m.entries = m.o.AddSection(m.entSec, format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
	if m.abi.dummyGlobal {
		m.o.AddSymbol(m.abi.dummyName(m.entSec), m.entries, 0, 0, format.STB_GLOBAL, format.STT_OBJECT, format.STV_HIDDEN)
		return
	}
	m.o.AddSymbol(m.abi.dummyName(m.entSec), m.entries, 0, 0, format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)
}

// newCOFFModule starts an x86-64 Windows (MSVC) object with the sections
// llc creates: .text, .data, .bss, .text.startup, .xdata, and the
// llvm_offload_entries$OA/$OZ sections holding the weak
// __start_/__stop_llvm_offload_entries definitions (spec §9.1) when bounds
// is set.
func newCOFFModule(bounds bool) *module {
	o := objw.NewCOFF(objw.IMAGE_FILE_MACHINE_AMD64)
	o.FileName = moduleName // the .file record, last in the symbol table as LLVM 22 writes it
	m := &module{o: o, ext: map[string]*objw.Symbol{}, coff: true, win: true, abs64: objw.IMAGE_REL_AMD64_ADDR64}
	m.c = newCode(16, 0xcc)
	m.c.coff = true
	o.AddSymbol("@feat.00", nil, 0, 0, format.STB_LOCAL, format.STT_NOTYPE, format.STV_DEFAULT).Abs = true
	m.text = o.AddSection(".text", format.SHT_PROGBITS, format.SHF_ALLOC|format.SHF_EXECINSTR, 4, nil)
	o.AddSection(".data", format.SHT_PROGBITS, format.SHF_ALLOC|format.SHF_WRITE, 4, nil)
	m.bss = o.AddSection(".bss", format.SHT_NOBITS, format.SHF_ALLOC|format.SHF_WRITE, 4, nil)
	m.startup = o.AddSection(".text.startup", format.SHT_PROGBITS, format.SHF_ALLOC|format.SHF_EXECINSTR, 16, nil)
	m.xdata = o.AddSection(".xdata", format.SHT_PROGBITS, format.SHF_ALLOC, 4, nil)
	if !bounds {
		return m
	}
	oa := o.AddSection("llvm_offload_entries$OA", format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
	oz := o.AddSection("llvm_offload_entries$OZ", format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
	m.start = o.AddSymbol("__start_llvm_offload_entries", oa, 0, 0, format.STB_WEAK, format.STT_OBJECT, format.STV_HIDDEN)
	m.stop = o.AddSymbol("__stop_llvm_offload_entries", oz, 0, 0, format.STB_WEAK, format.STT_OBJECT, format.STV_HIDDEN)
	return m
}

// checkTriple returns the object machine for the host triples this package
// can emit code for, and whether the object is COFF. The triple is read as
// clang would pass it, normalised (so mingw32 and cygwin are Windows GNU and
// Cygwin, win32 and a bare "windows" Windows MSVC), and decided by its
// architecture and object format: x86_64 and aarch64 ELF, and x86_64 COFF
// in the MSVC environment.
func checkTriple(s string) (machine uint16, coff bool, err error) {
	if s == "" {
		return 0, false, fmt.Errorf("wrap: no host triple: %w", format.ErrUnsupported)
	}
	t := triple.Parse(triple.Normalize(s, triple.Any))
	switch {
	case t.ObjectFormat == "coff" && t.Arch == "x86_64" && t.IsWindowsMSVC():
		return objw.IMAGE_FILE_MACHINE_AMD64, true, nil
	case t.ObjectFormat == "elf" && t.Arch == "x86_64":
		return format.EM_X86_64, false, nil
	case t.ObjectFormat == "elf" && t.Arch == "aarch64":
		return format.EM_AARCH64, false, nil
	}
	return 0, false, fmt.Errorf("wrap: host triple %q: %w (implemented: x86_64 and aarch64 ELF, x86_64 Windows MSVC COFF)",
		s, format.ErrUnsupported)
}

// dataRelRO adds the section for constant data with relocated pointers:
// .data.rel.ro on ELF (PIC), .rdata on COFF.
func (m *module) dataRelRO() *objw.Section {
	if m.coff {
		return m.o.AddSection(".rdata", format.SHT_PROGBITS, format.SHF_ALLOC, 16, nil)
	}
	return m.o.AddSection(".data.rel.ro", format.SHT_PROGBITS, format.SHF_WRITE|format.SHF_ALLOC, 16, nil)
}

// extern returns the undefined global symbol name, creating it on first use.
func (m *module) extern(name string) *objw.Symbol {
	return m.externVis(name, format.STV_DEFAULT)
}

func (m *module) externVis(name string, vis uint8) *objw.Symbol {
	if s, ok := m.ext[name]; ok {
		return s
	}
	s := m.o.AddSymbol(name, nil, 0, 0, format.STB_GLOBAL, format.STT_NOTYPE, vis)
	m.ext[name] = s
	return s
}

// entryBounds returns the hidden __start_/__stop_ symbols of the entry
// section (__start_llvm_offload_entries, or the release's
// __start_omp_offloading_entries etc.).
func (m *module) entryBounds() (start, stop *objw.Symbol) {
	if m.start == nil {
		m.start = m.externVis("__start_"+m.entSec, format.STV_HIDDEN)
		m.stop = m.externVis("__stop_"+m.entSec, format.STV_HIDDEN)
	}
	return m.start, m.stop
}

// secSym is a shorthand for the section symbol of s.
func (m *module) secSym(s *objw.Section) *objw.Symbol { return m.o.SectionSymbol(s) }

// ptr appends an 8-byte pointer slot to sec relocated against sym+addend
// (R_X86_64_64 / R_AARCH64_ABS64) and returns its offset. A nil sym writes a null pointer.
func (m *module) ptr(sec *objw.Section, sym *objw.Symbol, addend int64) uint64 {
	off := sec.Append(make([]byte, 8))
	if sym != nil {
		m.o.AddReloc(sec, off, m.abs64, sym, addend)
	}
	return off
}

// localPtr is ptr for a pointer at secSym+addend into the local object
// named: ELF relocates against the section symbol, as LLVM's ELF writer
// does for local symbols; COFF against named itself with the offset from
// it stored in place, as LLVM's COFF writer does for every non-temporary
// symbol (so the stored bytes, and the section's checksum, are LLVM's).
func (m *module) localPtr(sec *objw.Section, secSym, named *objw.Symbol, addend int64) uint64 {
	if m.coff {
		return m.ptr(sec, named, addend-int64(named.Value))
	}
	return m.ptr(sec, secSym, addend)
}

// ctorArray adds the section that makes the function at offset fnOff of
// .text.startup a constructor (or destructor) of priority prio:
// .init_array.<prio> / .fini_array.<prio> on ELF, .CRT$XCA<prio:05> /
// .CRT$XTA<prio:05> on COFF.
func (m *module) ctorArray(prio int, dtor bool, fnOff uint64) {
	var s *objw.Section
	switch {
	case m.coff && dtor:
		s = m.o.AddSection(fmt.Sprintf(".CRT$XTA%05d", prio), format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
	case m.coff:
		s = m.o.AddSection(fmt.Sprintf(".CRT$XCA%05d", prio), format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
	case dtor:
		s = m.o.AddSection(fmt.Sprintf(".fini_array.%d", prio), format.SHT_FINI_ARRAY, format.SHF_WRITE|format.SHF_ALLOC, 8, nil)
	default:
		s = m.o.AddSection(fmt.Sprintf(".init_array.%d", prio), format.SHT_INIT_ARRAY, format.SHF_WRITE|format.SHF_ALLOC, 8, nil)
	}
	if m.coff {
		// LLVM's COFF writer relocates against the function symbol
		// itself (nothing stored in place); those symbols exist once the
		// code is assembled, so finish adds the relocation.
		m.ctorSlots = append(m.ctorSlots, ctorSlot{s, s.Append(make([]byte, 8)), fnOff})
		return
	}
	m.ptr(s, m.secSym(m.startup), int64(fnOff))
}

// ctorSlot is a COFF constructor or destructor pointer waiting for its
// function's symbol.
type ctorSlot struct {
	sec        *objw.Section
	off, fnOff uint64
}

// finish assembles the code, adds .note.GNU-stack and returns the object.
func (m *module) finish() (map[string]*objw.Symbol, error) {
	fns, err := m.c.finish(m.o, m.startup)
	if err != nil {
		return nil, err
	}
	if m.coff {
		// .pdata: one RUNTIME_FUNCTION {begin, end, unwind info} per
		// function, all image-relative (ADDR32NB).
		pdata := m.o.AddSection(".pdata", format.SHT_PROGBITS, format.SHF_ALLOC, 4, nil)
		text, xdata := m.secSym(m.startup), m.secSym(m.xdata)
		rva := func(sym *objw.Symbol, off uint64) {
			at := pdata.Append(make([]byte, 4))
			m.o.AddReloc(pdata, at, objw.IMAGE_REL_AMD64_ADDR32NB, sym, int64(off))
		}
		for _, f := range m.c.funcs {
			if f.unwind == nil {
				return nil, fmt.Errorf("wrap: internal error: %s has no unwind information", f.name)
			}
			u := m.xdata.Pad(4)
			m.xdata.Append(f.unwind)
			rva(text, uint64(f.start))
			rva(text, uint64(f.end))
			rva(xdata, u)
		}
		for _, cs := range m.ctorSlots {
			var fn *objw.Symbol
			for _, f := range fns {
				if f.Section == m.startup && f.Value == cs.fnOff {
					fn = f
				}
			}
			if fn == nil {
				return nil, fmt.Errorf("wrap: internal error: no function at 0x%x for %s", cs.fnOff, cs.sec.Name)
			}
			m.o.AddReloc(cs.sec, cs.off, m.abs64, fn, 0)
		}
		if err := m.orderCOFFSymbols(); err != nil {
			return nil, err
		}
		return fns, nil
	}
	if m.a64 {
		// AArch64 ELF mapping symbols: $x where code starts, $d where
		// data starts (AAELF64 §5.5.4), as the LLVM assembler emits them.
		m.mappingSymbol("$x", m.startup)
		for _, s := range m.o.Sections() {
			if s.Flags&format.SHF_ALLOC != 0 && s.Flags&format.SHF_EXECINSTR == 0 && s.Size() > 0 {
				m.mappingSymbol("$d", s)
			}
		}
	}
	m.o.AddSection(".note.GNU-stack", format.SHT_PROGBITS, 0, 1, nil)
	if !m.win {
		m.ehFrame()
	}
	return fns, nil
}

// mappingSymbol adds the AArch64 mapping symbol name ($x or $d) at the
// start of sec. LLVM 16's assembler numbers them in the order it makes
// them ($x.0, $d.1, ...); later releases name them plainly.
func (m *module) mappingSymbol(name string, sec *objw.Section) {
	if m.abi.major != 0 && m.abi.major <= 16 {
		name = fmt.Sprintf("%s.%d", name, m.nMapping)
		m.nMapping++
	}
	m.o.AddSymbol(name, sec, 0, 0, format.STB_LOCAL, format.STT_NOTYPE, format.STV_DEFAULT)
}

// fnOff returns the offset of a function label in .text.startup.
func (m *module) fnOff(name string) uint64 { return uint64(m.c.labels[name]) }

// callAtexit emits atexit(fn) for a function fn of this section, passing
// its address in the first argument register of m's ABI: x0 (AArch64),
// %rcx (Windows x64) or %rdi (System V x86-64).
func (m *module) callAtexit(fn string) {
	c := m.c
	switch {
	case m.a64:
		c.a64Adr(0, fn)             // adr  x0, <fn>
		c.a64Bl(m.extern("atexit")) // bl   atexit
	case m.win:
		c.op(0x48, 0x8d, 0x0d)        // lea  <fn>(%rip),%rcx
		c.rel32(fn)                   //
		c.callExt(m.extern("atexit")) // call atexit
	default:
		c.op(0x48, 0x8d, 0x3d)        // lea  <fn>(%rip),%rdi
		c.rel32(fn)                   //
		c.callExt(m.extern("atexit")) // call atexit@PLT
	}
}

// encode is the []byte form shared by the exported functions.
func encode(o *objw.Object, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return o.Bytes()
}
