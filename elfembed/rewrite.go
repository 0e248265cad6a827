package elfembed

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/bits"

	"github.com/offload-kit/offload-kit/format"
)

// NewSection describes a section to add. Type is the ELF sh_type (ignored
// for COFF); Flags is sh_flags or the COFF Characteristics (for COFF, when
// Flags carries no IMAGE_SCN_ALIGN_* bits and Align is not 0, they are
// derived from Align). Align is a power of two (0 means 1). The Size bytes of contents are read
// from Data while the output is written, never buffered whole.
type NewSection struct {
	Name  string
	Type  format.SectionType
	Flags uint64
	Align uint64
	Data  io.ReaderAt
	Size  int64
}

// Edit lists the changes Rewrite applies. Removals and renames take effect
// before additions, so Add and Concat see the renamed sections.
type Edit struct {
	// Add lists sections to add. When Concat is set and the output already
	// has a section with the same name and type (on COFF: the same name),
	// the data is appended to it after zero padding to the new piece's
	// alignment, as a linker would, and the section's alignment becomes the
	// larger of the two. Otherwise a new section is appended to the section
	// table; several Adds of one name with Concat set form one section.
	Add    []NewSection
	Concat bool
	// Remove lists section names to drop. Relocation sections that apply
	// to a dropped section are dropped with it, as are symbols defined in
	// it (section symbols included), groups left empty and (COFF) sections
	// associated with a dropped COMDAT section; a dropped symbol still referenced by
	// a kept relocation, a kept section linking to a dropped one, or a
	// group signature in a dropped section is an error (ErrUnsupported),
	// which is what llvm-objcopy --remove-section does. Names that do not
	// exist are ignored.
	Remove []string
	// RenameSection maps old to new section names; on ELF a relocation
	// section named ".rela"+old or ".rel"+old is renamed to match.
	RenameSection map[string]string
	// RenameSymbol maps old to new symbol names (every symbol-table entry
	// with that name).
	RenameSymbol map[string]string
	// ObjcopyCompat (ELF) reproduces what llvm-objcopy does beyond the
	// edits themselves, so that the output is byte-identical to its own:
	// the string tables that section and symbol names live in are rebuilt
	// in LLVM's StringTableBuilder layout (names sorted from their last
	// byte, tail-merged) instead of appended to, with sh_name and st_name
	// rewritten to match; and GRP_COMDAT is cleared on groups whose
	// signature symbol is local (llvm-objcopy does so to keep a localized
	// group from being deduplicated).
	ObjcopyCompat bool
}

// Rewrite writes in, a relocatable ELF (ET_REL, 32/64-bit, either byte
// order) or COFF object, with the edits applied. Every other section,
// symbol, relocation, group and string table is kept. Output is
// deterministic: kept sections are laid out in their original file order,
// new sections after them, then (ELF) the section header table or (COFF)
// the symbol and string tables. Strings for new or renamed names are
// appended to the existing string tables, so existing offsets stay valid.
func Rewrite(w io.Writer, in []byte, e Edit) error {
	if err := checkAdds(e.Add); err != nil {
		return err
	}
	switch {
	case bytes.HasPrefix(in, []byte("\x7fELF")):
		f, err := parseELF(in)
		if err != nil {
			return err
		}
		return rewriteELF(w, f, e)
	case format.Identify(in) == format.KindCOFF:
		f, err := parseCOFF(in)
		if err != nil {
			return err
		}
		return rewriteCOFF(w, f, e)
	}
	return format.Errorf(0, format.ErrMagic, "not an ELF or COFF object")
}

// Embed adds the payloads to host as clang's -fembed-offload-object does:
// one ".llvm.offloading" section (ELF: SHT_LLVM_OFFLOADING, SHF_EXCLUDE,
// align 8; COFF: Characteristics 0x02400800) holding the payloads
// concatenated with 8-byte alignment, appended to an existing such section
// if the host already has one.
func Embed(w io.Writer, host []byte, payloads []io.ReaderAt, sizes []int64) error {
	if len(payloads) != len(sizes) {
		return fmt.Errorf("elfembed: %d payloads but %d sizes", len(payloads), len(sizes))
	}
	isCOFF := format.Identify(host) == format.KindCOFF
	var add []NewSection
	for i, p := range payloads {
		s := NewSection{Name: format.OffloadingSection, Type: format.SHT_LLVM_OFFLOADING, Flags: shfExclude, Align: 8, Data: p, Size: sizes[i]}
		if isCOFF {
			s.Type, s.Flags = 0, coffOffloadingChars
		}
		add = append(add, s)
	}
	return Rewrite(w, host, Edit{Add: add, Concat: true})
}

const coffOffloadingChars = COFFOffloadingFlags

// unsupported is the error both rewriters return for input they cannot
// rewrite: a *format.FormatError at off wrapping format.ErrUnsupported.
func unsupported(off int64, f string, args ...any) error {
	return format.Errorf(off, format.ErrUnsupported, f, args...)
}

func checkAdds(adds []NewSection) error {
	for i, a := range adds {
		switch {
		case a.Name == "":
			return fmt.Errorf("elfembed: added section %d has no name", i)
		case a.Size < 0:
			return fmt.Errorf("elfembed: added section %q has negative size %d", a.Name, a.Size)
		case a.Size > 0 && a.Data == nil:
			return fmt.Errorf("elfembed: added section %q has no data reader", a.Name)
		case a.Align != 0 && bits.OnesCount64(a.Align) != 1:
			return fmt.Errorf("elfembed: added section %q: alignment %d is not a power of two", a.Name, a.Align)
		case a.Align > maxAlign:
			return fmt.Errorf("elfembed: added section %q: alignment %d exceeds %d", a.Name, a.Align, maxAlign)
		}
	}
	return nil
}

// piece is one contiguous run of an output section's contents: pad zero
// bytes, then either b or n bytes read from r.
type piece struct {
	pad int64
	b   []byte
	r   io.ReaderAt
	n   int64
}

func (p piece) size() int64 {
	if p.r != nil {
		return p.pad + p.n
	}
	return p.pad + int64(len(p.b))
}

// sectionData is the contents of one output section (ELF or COFF): its
// pieces, written one after another.
type sectionData []piece

func (d sectionData) size() int64 {
	var n int64
	for _, p := range d {
		n += p.size()
	}
	return n
}

// appendSection appends a's contents after zero padding to a's alignment,
// as Edit.Concat does.
func (d *sectionData) appendSection(a NewSection) {
	cur := d.size()
	*d = append(*d, piece{pad: alignUp(cur, int64(max(a.Align, 1))) - cur, r: a.Data, n: a.Size})
}

// runPhases runs a rewriter's phases in order, stopping at the first
// error.
func runPhases(phases ...func() error) error {
	for _, phase := range phases {
		if err := phase(); err != nil {
			return err
		}
	}
	return nil
}

// removeSet is Edit.Remove as a set.
func (e Edit) removeSet() map[string]bool {
	rm := map[string]bool{}
	for _, name := range e.Remove {
		rm[name] = true
	}
	return rm
}

// writer is a bufio.Writer that tracks the output offset and streams
// pieces.
type writer struct {
	bw  *bufio.Writer
	off int64
	err error
}

func newWriter(w io.Writer) *writer { return &writer{bw: bufio.NewWriterSize(w, 64<<10)} }

func (w *writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.bw.Write(b)
	w.off += int64(n)
	w.err = err
}

var zeros [4096]byte

func (w *writer) zero(n int64) {
	for n > 0 && w.err == nil {
		k := min(n, int64(len(zeros)))
		w.write(zeros[:k])
		n -= k
	}
}

func (w *writer) padTo(off int64) {
	if off < w.off {
		if w.err == nil {
			w.err = fmt.Errorf("elfembed: internal layout error: offset 0x%x behind 0x%x", off, w.off)
		}
		return
	}
	w.zero(off - w.off)
}

// copyFrom streams exactly n bytes from r, optionally hashing them.
func (w *writer) copyFrom(r io.ReaderAt, n int64, name string, h io.Writer) {
	if w.err != nil {
		return
	}
	var dst io.Writer = w.bw
	if h != nil {
		dst = io.MultiWriter(w.bw, h)
	}
	buf := make([]byte, 64<<10)
	done, err := io.CopyBuffer(onlyWriter{dst}, io.NewSectionReader(r, 0, n), buf)
	w.off += done
	if err == nil && done != n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		w.err = fmt.Errorf("elfembed: section %s: reading %d bytes of contents: %w", name, n, err)
	}
}

// onlyWriter hides ReadFrom so CopyBuffer uses the given buffer.
type onlyWriter struct{ io.Writer }

func (w *writer) pieces(ps []piece, name string, h io.Writer) {
	for _, p := range ps {
		if h != nil && p.pad > 0 {
			h.Write(zeros[:0])
			for n := p.pad; n > 0; {
				k := min(n, int64(len(zeros)))
				h.Write(zeros[:k])
				n -= k
			}
		}
		w.zero(p.pad)
		if p.r != nil {
			w.copyFrom(p.r, p.n, name, h)
		} else {
			if h != nil {
				h.Write(p.b)
			}
			w.write(p.b)
		}
	}
}

func (w *writer) flush() error {
	if w.err != nil {
		return w.err
	}
	return w.bw.Flush()
}

// strtabAppender adds strings to an existing string table without
// disturbing existing offsets.
type strtabAppender struct {
	base  []byte
	extra []byte
	idx   map[string]uint32
	min   int // existing strings are reused only at offsets >= min (COFF: 4)
}

func (s *strtabAppender) add(name string) uint32 {
	if name == "" && s.min == 0 && len(s.base) > 0 && s.base[0] == 0 {
		return 0
	}
	if i, ok := s.idx[name]; ok {
		return i
	}
	if s.idx == nil {
		s.idx = map[string]uint32{}
	}
	needle := append([]byte(name), 0)
	var off uint32
	if s.min == 0 && bytes.HasPrefix(s.base, needle) {
		off = 0
	} else if i := indexFrom(s.base, append([]byte{0}, needle...), max(s.min-1, 0)); i >= 0 {
		off = uint32(i + 1)
	} else {
		if len(s.extra) == 0 && (len(s.base) == 0 || s.base[len(s.base)-1] != 0) {
			s.extra = append(s.extra, 0)
		}
		off = uint32(len(s.base) + len(s.extra))
		s.extra = append(s.extra, needle...)
	}
	s.idx[name] = off
	return off
}

func (s *strtabAppender) pieces() []piece {
	if len(s.extra) == 0 {
		return []piece{{b: s.base}}
	}
	return []piece{{b: s.base}, {b: s.extra}}
}

func (s *strtabAppender) size() int64 { return int64(len(s.base) + len(s.extra)) }

func alignUp(v, a int64) int64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) &^ (a - 1)
}

func indexFrom(b, sep []byte, from int) int {
	if from > len(b) {
		return -1
	}
	i := bytes.Index(b[from:], sep)
	if i < 0 {
		return -1
	}
	return i + from
}
