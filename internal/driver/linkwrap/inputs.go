package linkwrap

// Input scanning glue: walks the host link inputs, resolves -l, finds the
// OffloadBinaries (through internal/scan) and decides which archive members
// contribute device code. Kept in one file so it can move next to
// internal/scan later.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bitcode"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/hostlink"
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

	pos  int  // the input's place on the host link line (members: their archive's)
	lazy bool // an archive member or a --start-lib object: loaded only when needed

	symsDone bool
	symsOK   bool
	syms     symtab

	hostKept bool        // the host link may keep this member
	loaded   bool        // kept by the host link or needed by selected device code
	selected bool        // device code taken (lazy mode)
	targets  linkTargets // the link's device targets (lazy mode; createsLink)
	why      string      // reason it was taken
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
		if a := &o.Args[i]; a.Is(optLibraryPath) || a.Is(optLibpath) {
			out = append(out, a.Value())
		}
	}
	return out
}

// scanResult holds what scanning found.
type scanResult struct {
	objects []*unit // plain objects and --whole-archive members, in order
	members []*unit // other archive members and --start-lib objects, in order
	files   []*mmapfile.File
	visited []os.FileInfo // the input files read, for lld-link's once-only /DEFAULTLIB:
	host    hostModel
}

// hostModel is what decides, besides objects and archives, which members
// the host link keeps: what the link line asks (hostlink.Model: the
// symbols it is told to resolve, --wrap, the reasons it cannot be
// followed), and shared libraries' definitions and references.
type hostModel struct {
	hostlink.Model
	sharedDef map[string]int    // symbol -> place of the first shared library defining it
	sharedRef map[string]string // symbol -> shared library referencing it
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
		return nil, fmt.Errorf("not a regular file (%s)", hostlink.FileType(st.Mode()))
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
	return et == format.ET_DYN
}

// scanInputs walks the host link line in order (spec §2, extended; the
// walk is internal/hostlink's): inputs, -l (searched as the host linker
// does, honouring -Bstatic), --whole-archive regions, --start-lib objects,
// linker scripts (INPUT, GROUP, SEARCH_DIR) and shared libraries (their
// dynamic symbols), and records every option that makes the host link
// keep archive members.
func (d *driver) scanInputs() (*scanResult, error) {
	o := d.opt
	res := &scanResult{host: hostModel{sharedDef: map[string]int{}, sharedRef: map[string]string{}}}
	w := &hostlink.Walker{Search: hostlink.Search{Dirs: o.libraryPaths(), Sysroot: o.Sysroot}}
	pos := 0
	w.Visit = func(in hostlink.Input) (string, bool, error) { return d.visit(w, res, &pos, in) }
	args := parseLdArgs(o.Args)
	msvc := d.msvcLink()
	if msvc {
		args = d.msvcArgs(args)
	}
	err := w.Walk(args)
	if err == nil && msvc {
		err = d.msvcDefaultLibs(w, res, &pos)
	}
	res.host.Model = w.Model
	if err != nil {
		return nil, err
	}
	return res, nil
}

// visit reads one input file of the walk w; *count numbers the files
// read. It returns the text of a linker script for the walk to follow.
func (d *driver) visit(w *hostlink.Walker, res *scanResult, count *int, in hostlink.Input) (string, bool, error) {
	name := in.Path
	st, err := os.Stat(name)
	if err != nil || !st.Mode().IsRegular() {
		// Directories, devices, pipes and sockets are left to the
		// host linker: reading them could block or never end.
		return "", false, nil
	}
	f, err := mmapfile.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("%s: %w", name, err)
	}
	res.files = append(res.files, f)
	res.visited = append(res.visited, st)
	*count++
	pos := *count
	if isSharedObject(f.Data) {
		res.shared(w, name, f.Data, pos)
		return "", false, nil
	}
	k := format.Identify(f.Data)
	if k == format.KindUnknown {
		// The host linker reads any other file as a linker script.
		if len(f.Data) > hostlink.MaxScriptSize {
			w.AddUnsure("%s: not an object file, and too large to read as a linker script", name)
			return "", false, nil
		}
		return string(f.Data), true, nil
	}
	isArchive := k == format.KindArchive || k == format.KindThinArchive
	if d.inflate <= 0 {
		d.inflate = 1 // the budget is spent: any compressed image is over it
	}
	units, err := scan.Input(name, f.Data, scan.Options{ReadFile: res.readMember, MaxInflated: d.inflate})
	if err != nil {
		if errors.Is(err, format.ErrLimit) && strings.Contains(err.Error(), "inflated size") {
			return "", false, fmt.Errorf("%w (compressed offload images may inflate to %d bytes in all; raise the limit with --wrapper-max-inflated=<size>)", err, d.maxInflated())
		}
		return "", false, err
	}
	d.inflate -= inflatedBytes(units)
	for _, su := range units {
		u := &unit{origin: su.Origin, bufferID: name, data: su.Data, file: f, kind: su.Kind, images: d.dropPrelinked(su), pos: pos}
		if su.Member != "" {
			u.bufferID = su.Member
		}
		if (isArchive && !in.Whole) || (!isArchive && in.Lazy) {
			u.member, u.lazy = isArchive, true
			res.members = append(res.members, u)
		} else {
			res.objects = append(res.objects, u)
		}
	}
	return "", false, nil
}

// shared records a shared library's dynamic symbols: its strong
// definitions stop later archives from being searched for them, and its
// strong undefined references make the host link keep archive members
// that define them (GNU ld when the archive follows, ld.lld when it
// precedes).
func (res *scanResult) shared(w *hostlink.Walker, name string, data []byte, pos int) {
	defs, undefs, ok := dynamicSymbols(data)
	h := &res.host
	if !ok {
		w.AddUnsure("%s: the dynamic symbol table cannot be read", name)
		return
	}
	for _, n := range defs {
		if _, ok := h.sharedDef[n]; !ok {
			h.sharedDef[n] = pos
		}
	}
	for _, n := range undefs {
		if _, ok := h.sharedRef[n]; !ok {
			h.sharedRef[n] = "referenced by " + name
		}
	}
}

// dynamicSymbols reads a shared object's strong dynamic definitions and
// strong undefined references.
func dynamicSymbols(data []byte) (defs, undefs []string, ok bool) {
	f, err := format.ParseELF(data)
	if err != nil {
		return nil, nil, false
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return nil, nil, false
	}
	for _, s := range syms {
		if bind := s.Bind(); s.Name == "" || (bind != format.STB_GLOBAL && bind != format.STB_GNU_UNIQUE) {
			continue
		}
		if s.Section == format.SHN_UNDEF {
			undefs = append(undefs, s.Name)
		} else {
			defs = append(defs, s.Name)
		}
	}
	return defs, undefs, true
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

// symtab is what symbol resolution needs of an object.
type symtab struct {
	defs    []string // global, weak and unique definitions (not common)
	commons []string // common symbols
	undefs  []string // strong undefined references
}

// symbols reads the symbol table of an ELF relocatable object, an LLVM
// bitcode module (its irsymtab) or a COFF short import member. ok is false
// for anything else (COFF objects included) and for damaged files.
func symbols(data []byte) (st symtab, ok bool) {
	switch format.Identify(data) {
	case format.KindELF:
	case format.KindBitcode:
		return bitcodeSymbols(data)
	case format.KindCOFFImport:
		// A short import member (kernel32.lib's): it defines the
		// import's __imp_ pointer and, for code, the thunk. It holds no
		// device code and references nothing.
		imp, err := format.ParseCOFFImport(data)
		if err != nil {
			return st, false
		}
		st.defs = imp.Symbols()
		return st, true
	default:
		return st, false
	}
	f, err := format.ParseELF(data)
	if err != nil || f.Type != format.ET_REL {
		return st, false
	}
	syms, err := f.Symbols()
	if err != nil {
		return st, false
	}
	for _, s := range syms {
		bind := s.Bind()
		if s.Name == "" || (bind != format.STB_GLOBAL && bind != format.STB_WEAK && bind != format.STB_GNU_UNIQUE) {
			continue
		}
		switch s.Section {
		case format.SHN_UNDEF:
			if bind == format.STB_GLOBAL {
				st.undefs = append(st.undefs, s.Name)
			}
		case format.SHN_COMMON:
			st.commons = append(st.commons, s.Name)
		default:
			st.defs = append(st.defs, s.Name)
		}
	}
	return st, true
}

// bitcodeSymbols reads a bitcode module's irsymtab.
func bitcodeSymbols(data []byte) (st symtab, ok bool) {
	syms, err := bitcode.Symbols(data)
	if err != nil {
		return st, false
	}
	for i := range syms {
		s := &syms[i]
		if !s.IsGlobal() || s.IsFormatSpecific() || s.Name == "" {
			continue
		}
		switch {
		case s.IsUndefined():
			if !s.IsWeak() {
				st.undefs = append(st.undefs, s.Name)
			}
		case s.IsCommon():
			st.commons = append(st.commons, s.Name)
		default:
			st.defs = append(st.defs, s.Name)
		}
	}
	return st, true
}

func (u *unit) loadSymbols() bool {
	if !u.symsDone {
		u.syms, u.symsOK = symbols(u.data)
		u.symsDone = true
	}
	return u.symsOK
}

// hasHostSymbols reports a unit the host linker reads symbols from:
// objects (ELF, COFF, Mach-O), COFF short import members and bitcode; not
// raw offload files.
func hasHostSymbols(u *unit) bool {
	switch u.kind {
	case format.KindELF, format.KindBitcode, format.KindCOFF, format.KindMachO, format.KindCOFFImport:
		return true
	}
	return false
}

// symSet tracks definitions and undefined references of a set of objects.
type symSet struct {
	def, undef map[string]bool
}

func newSymSet() *symSet { return &symSet{def: map[string]bool{}, undef: map[string]bool{}} }

func (s *symSet) add(st symtab) {
	for _, n := range st.defs {
		s.def[n] = true
	}
	for _, n := range st.commons {
		s.def[n] = true
	}
	for _, n := range st.undefs {
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

// hostResolver follows the host link's symbol resolution closely enough to
// know every archive member it may keep. It errs toward keeping: a member
// is kept when it defines a symbol that is referenced anywhere (objects,
// kept members, shared libraries' undefined symbols, -u and the other
// options in hostModel) unless an object, kept member or shared library
// placed before its archive already defines that symbol. Both GNU ld (one
// pass in command-line order, --start-group rescans) and ld.lld (lazy
// symbols that a later reference still extracts) keep a subset of that.
// Weak undefined references keep nothing, as in both linkers.
type hostResolver struct {
	m        *hostModel
	blockPos map[string]int    // symbol -> first place a definition stops archive searches
	refs     map[string]string // referenced symbol -> why
}

func newHostResolver(m *hostModel) *hostResolver {
	r := &hostResolver{m: m, blockPos: map[string]int{}, refs: map[string]string{}}
	for n, p := range m.sharedDef {
		r.blockPos[n] = p
	}
	for _, ref := range m.Refs {
		r.ref(ref.Name, ref.Why)
	}
	for n, why := range m.sharedRef {
		r.ref(n, why)
	}
	return r
}

// ref records a strong reference, following --wrap: a reference to S is
// bound to __wrap_S, and __real_S to S.
func (r *hostResolver) ref(name, why string) {
	for range 2 {
		if _, ok := r.refs[name]; !ok {
			r.refs[name] = why
		}
		if r.m.Wraps[name] {
			name = "__wrap_" + name
		} else if real, ok := strings.CutPrefix(name, "__real_"); ok && r.m.Wraps[real] {
			name = real
		} else {
			return
		}
	}
	if _, ok := r.refs[name]; !ok {
		r.refs[name] = why
	}
}

// load adds a kept unit's symbols. Common symbols count as references
// too: GNU ld replaces a common symbol with an archive's definition.
func (r *hostResolver) load(u *unit) {
	for _, n := range u.syms.defs {
		if p, ok := r.blockPos[n]; !ok || u.pos < p {
			r.blockPos[n] = u.pos
		}
	}
	for _, n := range u.syms.undefs {
		r.ref(n, "referenced by "+u.origin)
	}
	for _, n := range u.syms.commons {
		r.ref(n, "common in "+u.origin)
	}
}

// keeps reports why the host link may keep member u, or "".
func (r *hostResolver) keeps(u *unit) string {
	for _, list := range [][]string{u.syms.defs, u.syms.commons} {
		for _, n := range list {
			if p, ok := r.blockPos[n]; ok && p <= u.pos {
				continue
			}
			if why, ok := r.refs[n]; ok {
				return fmt.Sprintf("the host link keeps it for %s (%s)", n, why)
			}
			for _, g := range r.m.Globs {
				if hostlink.MatchSymbol(g.Name, n) {
					return fmt.Sprintf("the host link keeps it for %s (%s)", n, g.Why)
				}
			}
		}
	}
	return ""
}

// serves reports whether a device image built for target k may be linked
// into the device link of target l: the same target, or one LLVM 22's
// areTargetsCompatible accepts (compatible: the same triple, and the same
// arch, or either is "generic", or for AMDGPU the same processor with no
// xnack/sramecc setting that contradicts the other's).
func serves(k, l groupKey) bool { return k == l || compatible(k, l) }

// createsLink reports whether member image b (of a selected member) may
// start its own device link: its target is one the link has (from its
// objects, from a member the host link keeps, from --should-extract). An
// image for any other target goes only into the links it serves.
func (u *unit) createsLink(b *offload.Binary) bool {
	return u.targets[groupKey{b.Triple(), b.Arch()}]
}

// linkTargets is the set of device-link targets a lazy selection works
// with, shared by the members it selects (unit.targets).
type linkTargets map[groupKey]bool

// selectMembers decides, in lazy mode, which archive members give device
// code: every member the host link may keep (hostResolver), those whose
// device images define a symbol that selected device code of a target
// they serve leaves undefined, and those with an arch named in
// --should-extract. Device symbols are resolved per target ID, not per
// triple: a gfx700 member of a multi-arch library neither satisfies nor
// pulls anything for a gfx90a link. It iterates to a fixed point, so the
// result does not depend on library order. When the host link cannot be
// followed (an unknown option, a linker script with SECTIONS, an object or
// member whose symbols cannot be read) every member with device code for
// a target the link already has from its objects is taken: device code the
// program does not use is harmless, a kept member without its device code
// fails at run time; members for targets the link does not have are not.
func selectMembers(sr *scanResult, shouldExtract map[string]bool) {
	objects, members := sr.objects, sr.members
	unsure := sr.host.Unsure
	for _, u := range objects {
		if hasHostSymbols(u) && !u.loadSymbols() {
			unsure = append(unsure, u.origin+": the symbol table cannot be read")
		}
	}
	targets := linkTargets{}
	var order []groupKey // targets in the order they were added
	addTarget := func(k groupKey) bool {
		if targets[k] {
			return false
		}
		targets[k] = true
		order = append(order, k)
		return true
	}
	for _, u := range objects {
		for _, b := range u.images {
			addTarget(groupKey{b.Triple(), b.Arch()})
		}
	}
	for _, u := range members {
		u.targets = targets
	}
	if len(unsure) > 0 {
		for _, u := range members {
			u.hostKept, u.loaded = true, true
			u.why = "the host link may keep it: " + unsure[0]
			for _, b := range u.images {
				k := groupKey{b.Triple(), b.Arch()}
				for _, l := range order {
					if serves(k, l) {
						u.selected = true
					}
				}
				if shouldExtract[b.Arch()] {
					u.selected = true
				}
			}
		}
		return
	}
	host := newHostResolver(&sr.host)
	dev := map[groupKey]*symSet{} // by device-link target
	devSyms := map[*offload.Binary]symtab{}
	imageSyms := func(b *offload.Binary) (symtab, bool) {
		if v, ok := devSyms[b]; ok {
			return v, true
		}
		st, ok := symbols(b.Image)
		if ok {
			devSyms[b] = st
		}
		return st, ok
	}
	var loadedImages []*offload.Binary // device code already given to the links it serves
	// target adds a device-link target: the device code loaded so far
	// that serves it is its code too.
	target := func(k groupKey) {
		if !addTarget(k) {
			return
		}
		set := newSymSet()
		dev[k] = set
		for _, b := range loadedImages {
			if serves(groupKey{b.Triple(), b.Arch()}, k) {
				if st, ok := imageSyms(b); ok {
					set.add(st)
				}
			}
		}
	}
	for _, k := range order {
		dev[k] = newSymSet()
	}
	loadDevice := func(u *unit) {
		for _, b := range u.images {
			loadedImages = append(loadedImages, b)
			st, ok := imageSyms(b)
			if !ok {
				continue
			}
			k := groupKey{b.Triple(), b.Arch()}
			for _, l := range order {
				if serves(k, l) {
					dev[l].add(st)
				}
			}
		}
	}
	for _, u := range objects {
		if u.loadSymbols() {
			host.load(u)
		}
		loadDevice(u)
	}
	take := func(u *unit, why string, kept bool) {
		if kept && !u.hostKept {
			u.hostKept = true
			host.load(u)
			// The host keeps its code, so its device code must be
			// linked for every target it was built for (a generic GPU
			// image joins the links of its triple instead).
			for _, b := range u.images {
				if !(triple.Parse(b.Triple()).IsGPU() && b.Arch() == "generic") {
					target(groupKey{b.Triple(), b.Arch()})
				}
			}
		}
		if !u.loaded {
			u.loaded, u.why = true, why
			u.selected = len(u.images) > 0
			loadDevice(u)
		}
	}
	for _, u := range members {
		for _, b := range u.images {
			if shouldExtract[b.Arch()] && !u.loaded {
				target(groupKey{b.Triple(), b.Arch()})
				take(u, "--should-extract="+b.Arch(), false)
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, u := range members {
			if u.hostKept {
				continue
			}
			if !u.loadSymbols() && hasHostSymbols(u) {
				take(u, "the host link may keep it: its symbol table cannot be read", true)
				changed = true
				continue
			}
			if why := host.keeps(u); why != "" {
				take(u, why, true)
				changed = true
				continue
			}
			if u.loaded {
				continue
			}
		images:
			for _, b := range u.images {
				st, ok := imageSyms(b)
				if !ok {
					continue
				}
				k := groupKey{b.Triple(), b.Arch()}
				for _, l := range order {
					if !serves(k, l) {
						continue
					}
					if sym, ok := dev[l].resolves(st.defs); ok {
						take(u, "device code for "+groupName(l)+" references "+sym, false)
						changed = true
						break images
					}
				}
			}
		}
	}
}
