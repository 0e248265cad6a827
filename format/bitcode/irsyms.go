package bitcode

import (
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/format"
)

// Module record codes used by the IR fallback of ArchiveSymbols.
const (
	modTriple     = 2
	modDataLayout = 3
	modASM        = 4
)

// Calling conventions the Microsoft x86 mangling decorates.
const (
	ccX86StdCall    = 64
	ccX86FastCall   = 65
	ccX86VectorCall = 80
)

// irGlobal is one global value of a module as the fallback sees it.
type irGlobal struct {
	name    string
	unnamed bool
	local   bool // internal or private linkage
	private bool
	decl    bool // declaration for the linker: no body/initializer, or available_externally
	section string
	kind    uint64 // module record code: modFunction, modGlobalVar, modAlias, modIFunc
	cc      uint64 // calling convention of a function
	rec     uint64 // bit position of the record, for errors
}

// decodeLinkage returns (local, private, availableExternally) for a
// bitcode linkage value (BitcodeReader's getDecodedLinkage; unknown values
// map to external).
func decodeLinkage(v uint64) (local, private, availExt bool) {
	switch v {
	case 3:
		return true, false, false
	case 9, 13, 14:
		return true, true, false
	case 12:
		return false, false, true
	}
	return false, false, false
}

// irArchiveSymbols computes the archive-symbol names from the module
// records, the way LLVM's archive writer does through IRObjectFile
// (ModuleSymbolTable flags + Mangler names), for files without a usable
// irsymtab. It handles each module of the file and returns ErrUnsupported
// for what it cannot reproduce: module-level inline asm (LLVM parses it
// with the target's assembler), bitcode before version 2 (no STRTAB),
// Microsoft x86 stdcall/fastcall/vectorcall name decoration, and the
// GOFF/XCOFF manglings.
func irArchiveSymbols(buf []byte) ([]string, error) {
	s, mods, err := topModules(buf)
	if err != nil {
		return nil, err
	}
	names := []string{}
	anon := 0 // the Mangler numbers unnamed globals in the order it prints them
	for _, m := range mods {
		globals, mangling, err := s.moduleGlobals(m.ref, m.at, m.strtab)
		if err != nil {
			return nil, err
		}
		var funcs, vars, aliases, ifuncs []irGlobal
		for _, g := range globals {
			switch g.kind {
			case modFunction:
				funcs = append(funcs, g)
			case modGlobalVar:
				vars = append(vars, g)
			case modAlias:
				aliases = append(aliases, g)
			default:
				ifuncs = append(ifuncs, g)
			}
		}
		// Module::global_values order: functions, variables, aliases, ifuncs.
		for _, list := range [][]irGlobal{funcs, vars, aliases, ifuncs} {
			for _, g := range list {
				// isArchiveSymbol: global, not undefined, not format-specific.
				if g.local || g.decl || g.private || strings.HasPrefix(g.name, "llvm.") || g.section == "llvm.metadata" {
					continue
				}
				// Mangler::getNameWithPrefix for a non-private global.
				ms := mangling == 'w' || mangling == 'x'
				name := g.name
				switch {
				case g.unnamed:
					anon++
					name = "__unnamed_" + strconv.Itoa(anon)
					if mangling == 'o' || mangling == 'x' {
						name = "_" + name
					}
				case strings.HasPrefix(name, "\x01"):
					name = name[1:]
				case ms && strings.HasPrefix(name, "?"):
				case ms && (g.kind == modAlias || g.kind == modIFunc):
					// Decorated by the aliasee's calling convention, which
					// this package does not resolve.
					return nil, s.errAt(g.rec, format.ErrUnsupported,
						"bitcode: no usable irsymtab, and the name of %s %q may need Microsoft decoration", map[uint64]string{modAlias: "alias", modIFunc: "ifunc"}[g.kind], name)
				case mangling == 'x' && (g.cc == ccX86StdCall || g.cc == ccX86FastCall) || ms && g.cc == ccX86VectorCall:
					return nil, s.errAt(g.rec, format.ErrUnsupported,
						"bitcode: no usable irsymtab, and %q needs Microsoft calling-convention decoration", name)
				case mangling == 'o' || mangling == 'x':
					name = "_" + name
				}
				names = append(names, name)
			}
		}
	}
	return names, nil
}

// moduleGlobals reads the global value records of the module block at
// ref, and the module's name mangling mode (the data layout's "m:" letter,
// 0 for none).
func (s *stream) moduleGlobals(ref blockRef, at uint64, strtab string) ([]irGlobal, byte, error) {
	s.pos, s.bi = ref.pos, nil
	parent := &block{id: topLevelID, end: ref.parentEnd}
	b, err := s.enter(parent, moduleID)
	if err != nil {
		return nil, 0, err
	}
	var (
		version    uint64
		triple, dl string
		sections   []string
		globals    []irGlobal
		ops        []uint64
	)
	errAt := func(bit uint64, sentinel error, msg string, args ...any) error {
		return s.errAt(bit, sentinel, msg, args...)
	}
	for {
		kind, id, err := s.next(b, nil)
		if err != nil {
			return nil, 0, err
		}
		if kind == entryEnd {
			break
		}
		if kind == entrySub {
			if id == blockInfoID {
				err = s.readBlockInfo(b)
			} else {
				err = s.skip(b, id)
			}
			if err != nil {
				return nil, 0, err
			}
			continue
		}
		rec := s.pos
		var code uint64
		if code, ops, _, err = s.record(b, id, ops, false); err != nil {
			return nil, 0, err
		}
		switch code {
		case modVersion:
			if len(ops) > 0 {
				version = ops[0]
			}
		case modTriple:
			triple = opString(ops)
		case modDataLayout:
			dl = opString(ops)
		case modASM:
			if len(ops) > 0 {
				return nil, 0, errAt(rec, format.ErrUnsupported, "bitcode: no usable irsymtab, and module-level asm needs an assembler to list its symbols")
			}
		case modSectionName:
			sections = append(sections, opString(ops))
		case modGlobalVar, modFunction, modAlias, modIFunc, modAliasOld:
			if version < 2 || code == modAliasOld {
				return nil, 0, errAt(rec, format.ErrUnsupported, "bitcode: no usable irsymtab, and version %d module records are not supported", version)
			}
			// v2 records start with [strtab offset, size]; then
			// GLOBALVAR: type, isconst, initid, linkage, align, section, ...
			// FUNCTION:  type, cc, isproto, linkage, ...
			// ALIAS/IFUNC: type, addrspace, value, linkage, ...
			need := 6
			if code == modGlobalVar {
				need = 8
			}
			if len(ops) < need {
				return nil, 0, errAt(rec, format.ErrCorrupt, "bitcode: module record %d with %d operands", code, len(ops))
			}
			off, n := ops[0], ops[1]
			if off > uint64(len(strtab)) || n > uint64(len(strtab))-off {
				return nil, 0, errAt(rec, format.ErrCorrupt, "bitcode: global name (offset %d, size %d) past the %d-byte string table", off, n, len(strtab))
			}
			g := irGlobal{name: strtab[off : off+n], unnamed: n == 0, kind: code, rec: rec}
			switch code {
			case modGlobalVar:
				g.local, g.private, g.decl = decodeLinkage(ops[5])
				g.decl = g.decl || ops[4] == 0
				if sec := ops[7]; sec != 0 {
					if sec-1 >= uint64(len(sections)) {
						return nil, 0, errAt(rec, format.ErrCorrupt, "bitcode: GLOBALVAR section index %d out of range (%d sections)", sec, len(sections))
					}
					g.section = sections[sec-1]
				}
			case modFunction:
				g.local, g.private, g.decl = decodeLinkage(ops[5])
				g.decl = g.decl || ops[4] != 0
				g.cc = ops[3]
			default:
				g.local, g.private, _ = decodeLinkage(ops[5])
				// Aliases and ifuncs are definitions (the alias's own
				// available_externally linkage is not valid IR).
			}
			globals = append(globals, g)
		}
	}
	mangling := byte(0)
	for _, item := range strings.Split(dl, "-") {
		if len(item) == 3 && strings.HasPrefix(item, "m:") {
			mangling = item[2]
		}
	}
	switch mangling {
	case 0:
		t := strings.ToLower(triple)
		for _, os := range []string{"apple", "darwin", "macos", "ios", "windows", "win32", "mingw", "cygwin", "aix", "zos"} {
			if strings.Contains(t, os) {
				return nil, 0, errAt(at, format.ErrUnsupported, "bitcode: no usable irsymtab, and no name mangling in the data layout for %q", triple)
			}
		}
	case 'e', 'm', 'o', 'w', 'x':
	default:
		return nil, 0, errAt(at, format.ErrUnsupported, "bitcode: no usable irsymtab, and name mangling %q is not supported", mangling)
	}
	return globals, mangling, nil
}
