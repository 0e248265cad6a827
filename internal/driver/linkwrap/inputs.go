package linkwrap

// Input scanning glue: walks the host link inputs, resolves -l, finds the
// OffloadBinaries (through internal/scan) and decides which archive members
// contribute device code. Kept in one file so it can move next to
// internal/scan later.

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
	"github.com/offload-kit/offload-kit/internal/scan"
)

// unit is one host object: an input file or an archive member.
type unit struct {
	origin   string // "a.o" or "libx.a(m.o)"
	bufferID string // the name LLVM uses for the temp file stem
	member   bool   // from a (non --whole-archive) archive
	data     []byte
	file     *mmapfile.File // the mapped input file data lies in (nil: read separately)
	kind     format.Kind
	images   []*offload.Binary

	symsDone     bool
	symsOK       bool
	defs, undefs []string

	loaded   bool   // the (lazy) host link takes this member
	selected bool   // device code taken (lazy mode)
	why      string // reason it was taken
}

// devInput is one extracted device image.
type devInput struct {
	bin  *offload.Binary
	unit *unit
	path string // extracted file (set when written)
}

func (d *devInput) key() groupKey {
	return groupKey{d.bin.Triple(), d.bin.Arch()}
}

// libraryPaths returns the -L directories in order.
func (o *Options) libraryPaths() []string {
	var out []string
	for i := range o.Args {
		if a := &o.Args[i]; a.Is("library_path") || a.Is("libpath") {
			out = append(out, a.Value())
		}
	}
	return out
}

func findIn(dir, sysroot, name string) (string, bool) {
	if rest, ok := strings.CutPrefix(dir, "="); ok {
		dir = sysroot + rest
	} else if rest, ok := strings.CutPrefix(dir, "$SYSROOT"); ok {
		dir = sysroot + rest
	}
	p := filepath.Join(dir, name)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, true
	}
	return "", false
}

func findFromPaths(name, sysroot string, dirs []string) (string, bool) {
	for _, d := range dirs {
		if p, ok := findIn(d, sysroot, name); ok {
			return p, true
		}
	}
	return "", false
}

// searchLibrary resolves -l<name> as LLVM 22 does: "-l:file" and names
// ending in ".lib" are file names; otherwise lib<name>.so, then lib<name>.a,
// each over all search directories.
func searchLibrary(name, sysroot string, dirs []string) (string, bool) {
	if rest, ok := strings.CutPrefix(name, ":"); ok {
		return findFromPaths(rest, sysroot, dirs)
	}
	if strings.HasSuffix(name, ".lib") {
		return findFromPaths(name, sysroot, dirs)
	}
	if p, ok := findFromPaths("lib"+name+".so", sysroot, dirs); ok {
		return p, true
	}
	return findFromPaths("lib"+name+".a", sysroot, dirs)
}

// scanResult holds what scanning found.
type scanResult struct {
	objects []*unit // plain objects and --whole-archive members, in order
	members []*unit // other archive members, in order
	files   []*mmapfile.File
}

func (s *scanResult) close() {
	for _, f := range s.files {
		f.Close()
	}
}

// readMember reads a thin archive's member: only regular files, mapped
// (never read whole), so a member naming /dev/zero or a FIFO cannot make
// the wrapper allocate without bound or block.
func (s *scanResult) readMember(name string) ([]byte, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fileType(st.Mode()))
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	m, err := mmapfile.FromFile(f, name)
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, m)
	return m.Data, nil
}

func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// inflatedBytes is what the compressed (v3) binaries among units inflated
// to: InflatedSize, read from each binary's header once.
func inflatedBytes(units []scan.Unit) int64 {
	var n int64
	for _, u := range units {
		seen := map[int64]bool{}
		for _, b := range u.Images {
			off := b.Offset
			if b.Version != 3 || off < 0 || seen[off] || off+40 > int64(len(u.Data)) {
				continue
			}
			seen[off] = true
			n += int64(binary.LittleEndian.Uint64(u.Data[off+32:]) &^ (1 << 63))
		}
	}
	return n
}

// DefaultMaxInflated is the default --wrapper-max-inflated: the bytes that
// compressed (v3) offload images may inflate to in memory, all inputs
// together.
const DefaultMaxInflated = 512 << 20

func (d *driver) maxInflated() int64 {
	if d.opt.MaxInflated > 0 {
		return d.opt.MaxInflated
	}
	return DefaultMaxInflated
}

// isSharedObject reports an ELF ET_DYN file.
func isSharedObject(data []byte) bool {
	if format.Identify(data) != format.KindELF || len(data) < 18 {
		return false
	}
	var et uint16
	if data[5] == 2 { // big-endian
		et = uint16(data[16])<<8 | uint16(data[17])
	} else {
		et = uint16(data[16]) | uint16(data[17])<<8
	}
	return et == uint16(elf.ET_DYN)
}

// scanInputs walks inputs, -l, --whole-archive and --no-whole-archive in
// command-line order (spec §2).
func (d *driver) scanInputs() (*scanResult, error) {
	o := d.opt
	res := &scanResult{}
	dirs := o.libraryPaths()
	whole := false
	for i := range o.Args {
		a := &o.Args[i]
		var name string
		switch {
		case a.Is("whole_archive"):
			whole = true
			continue
		case a.Is("no_whole_archive"):
			whole = false
			continue
		case a.Is("library"):
			p, ok := searchLibrary(a.Value(), o.Sysroot, dirs)
			if !ok {
				return nil, fmt.Errorf("unable to find library -l%s", a.Value())
			}
			name = p
		case a.IsInput():
			name = a.Value()
		default:
			continue
		}
		st, err := os.Stat(name)
		if err != nil || !st.Mode().IsRegular() {
			// Directories, devices, pipes and sockets are left to the
			// host linker: reading them could block or never end.
			continue
		}
		f, err := mmapfile.Open(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		res.files = append(res.files, f)
		if isSharedObject(f.Data) {
			continue
		}
		k := format.Identify(f.Data)
		isArchive := k == format.KindArchive || k == format.KindThinArchive
		if d.inflate <= 0 {
			d.inflate = 1 // the budget is spent: any compressed image is over it
		}
		units, err := scan.Input(name, f.Data, scan.Options{ReadFile: res.readMember, MaxInflated: d.inflate})
		if err != nil {
			if errors.Is(err, format.ErrLimit) && strings.Contains(err.Error(), "inflated size") {
				return nil, fmt.Errorf("%w (compressed offload images may inflate to %d bytes in all; raise the limit with --wrapper-max-inflated=<size>)", err, d.maxInflated())
			}
			return nil, err
		}
		d.inflate -= inflatedBytes(units)
		for _, su := range units {
			u := &unit{origin: su.Origin, bufferID: name, data: su.Data, file: f, kind: su.Kind, images: d.dropPrelinked(su)}
			if su.Member != "" {
				u.bufferID = su.Member
			}
			if isArchive && !whole {
				u.member = true
				res.members = append(res.members, u)
			} else {
				res.objects = append(res.objects, u)
			}
		}
	}
	return res, nil
}

// dropPrelinked removes images held in .llvm.offloading.relocatable
// sections. Those are device images already linked by an earlier -r link,
// whose registration object (linked into the same relocatable output)
// registers them at start-up. LLVM 22 extracts them again and links them as
// inputs of a new device image, which for CPU targets yields a shared
// object that needs the deleted temporary at run time (the program aborts).
func (d *driver) dropPrelinked(su scan.Unit) []*offload.Binary {
	if su.Kind != format.KindELF || len(su.Images) == 0 {
		return su.Images
	}
	obj, err := elfembed.Parse(su.Data)
	if err != nil {
		return su.Images
	}
	var ranges [][2]int64
	for _, s := range obj.OffloadSections() {
		if s.Name == ".llvm.offloading.relocatable" {
			ranges = append(ranges, [2]int64{s.Offset, s.Offset + s.Size})
		}
	}
	if len(ranges) == 0 {
		return su.Images
	}
	var out []*offload.Binary
	for _, b := range su.Images {
		pre := false
		for _, r := range ranges {
			if b.Offset >= r[0] && b.Offset < r[1] {
				pre = true
			}
		}
		if !pre {
			out = append(out, b)
		} else if d.opt.Verbose {
			d.notef("%s: not relinking the %s device image of an earlier -r link; its own constructor registers it", su.Origin, b.Triple())
		}
	}
	return out
}

// symbols reads the unit's ELF symbol table: global/weak definitions and
// strong undefined references. ok is false for anything that is not a
// readable ELF relocatable (bitcode, COFF, corrupt files).
func symbols(data []byte) (defs, undefs []string, ok bool) {
	defer func() {
		if recover() != nil {
			defs, undefs, ok = nil, nil, false
		}
	}()
	if format.Identify(data) != format.KindELF {
		return nil, nil, false
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, nil, false
	}
	syms, err := f.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, nil, false
	}
	for _, s := range syms {
		bind := elf.ST_BIND(s.Info)
		if s.Name == "" || (bind != elf.STB_GLOBAL && bind != elf.STB_WEAK) {
			continue
		}
		if s.Section == elf.SHN_UNDEF {
			if bind == elf.STB_GLOBAL {
				undefs = append(undefs, s.Name)
			}
			continue
		}
		defs = append(defs, s.Name)
	}
	return defs, undefs, true
}

func (u *unit) loadSymbols() bool {
	if !u.symsDone {
		u.defs, u.undefs, u.symsOK = symbols(u.data)
		u.symsDone = true
	}
	return u.symsOK
}

// symSet tracks definitions and undefined references of a set of objects.
type symSet struct {
	def, undef map[string]bool
}

func newSymSet() *symSet { return &symSet{def: map[string]bool{}, undef: map[string]bool{}} }

func (s *symSet) add(defs, undefs []string) {
	for _, n := range defs {
		s.def[n] = true
	}
	for _, n := range undefs {
		if !s.def[n] {
			s.undef[n] = true
		}
	}
}

// resolves reports the first name in defs that is referenced but not defined.
func (s *symSet) resolves(defs []string) (string, bool) {
	for _, n := range defs {
		if s.undef[n] && !s.def[n] {
			return n, true
		}
	}
	return "", false
}

// selectMembers decides, in lazy mode, which archive members give device
// code: those the host link pulls (a member defining a host symbol that
// loaded objects leave undefined), those whose device images define a
// symbol that selected device code leaves undefined, and those with an
// arch named in --should-extract. It iterates to a fixed point, so the
// result does not depend on library order.
func selectMembers(objects, members []*unit, shouldExtract map[string]bool) {
	host := newSymSet()
	dev := map[string]*symSet{} // by device triple
	devSet := func(triple string) *symSet {
		s := dev[triple]
		if s == nil {
			s = newSymSet()
			dev[triple] = s
		}
		return s
	}
	devSyms := map[*offload.Binary][2][]string{}
	imageSyms := func(b *offload.Binary) ([]string, []string, bool) {
		if v, ok := devSyms[b]; ok {
			return v[0], v[1], true
		}
		defs, undefs, ok := symbols(b.Image)
		if ok {
			devSyms[b] = [2][]string{defs, undefs}
		}
		return defs, undefs, ok
	}
	load := func(u *unit) {
		if u.loadSymbols() {
			host.add(u.defs, u.undefs)
		}
		for _, b := range u.images {
			if defs, undefs, ok := imageSyms(b); ok {
				devSet(b.Triple()).add(defs, undefs)
			}
		}
	}
	for _, u := range objects {
		load(u)
	}
	take := func(u *unit, why string) {
		u.loaded, u.why = true, why
		u.selected = len(u.images) > 0
		load(u)
	}
	for _, u := range members {
		for _, b := range u.images {
			if shouldExtract[b.Arch()] && !u.loaded {
				take(u, "--should-extract="+b.Arch())
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, u := range members {
			if u.loaded {
				continue
			}
			why := ""
			if u.loadSymbols() {
				if sym, ok := host.resolves(u.defs); ok {
					why = "the host link pulls it for " + sym
				}
			}
			for _, b := range u.images {
				if why != "" {
					break
				}
				if defs, _, ok := imageSyms(b); ok {
					if sym, ok := devSet(b.Triple()).resolves(defs); ok {
						why = "device code references " + sym
					}
				}
			}
			if why != "" {
				take(u, why)
				changed = true
			}
		}
	}
}
