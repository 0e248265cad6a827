package linkwrap

// The host link as GNU ld and ld.lld read their arguments: which files and
// libraries it reads, in order, and every option that can make it keep an
// archive member. Lazy archive extraction (inputs.go) follows this model;
// an option the model does not know may reference symbols, so it makes the
// selection conservative (every member is taken) rather than risk a
// program whose target regions have no device code.

import (
	"strings"

	"github.com/offload-kit/offload-kit/internal/cli/optable"
)

// ldKind is what one host-linker argument means for archive extraction.
type ldKind int

const (
	ldIgnore         ldKind = iota // no effect on which members are kept
	ldFile                         // an input file
	ldLib                          // -l<name>
	ldLibPath                      // -L<dir>
	ldWholeArchive                 // --whole-archive
	ldNoWholeArchive               // --no-whole-archive
	ldStatic                       // -Bstatic, -static, -dn, -non_shared: -l finds only lib<name>.a
	ldDynamic                      // -Bdynamic, -dy, -call_shared
	ldPushState                    // --push-state
	ldPopState                     // --pop-state
	ldStartLib                     // --start-lib: the objects up to --end-lib are lazy, like members
	ldEndLib                       // --end-lib
	ldRef                          // a symbol the link must resolve: -u, --undefined, --require-defined, -e, --entry, -init, -fini
	ldRefGlob                      // a pattern of such symbols: --undefined-glob, --export-dynamic-symbol
	ldExpr                         // --defsym=<sym>=<expr>: the symbols named in <expr> are referenced
	ldScript                       // -T, --script, --default-script: a linker script
	ldSymFile                      // --version-script, --dynamic-list, --export-dynamic-symbol-list
	ldWrap                         // --wrap=<sym>
	ldUnsure                       // an option this model cannot follow
)

// ldArg is one host-linker argument with its meaning.
type ldArg struct {
	kind  ldKind
	value string
	text  string // the argument(s) as given, for messages
}

// ldOpt describes a GNU ld / ld.lld option: whether it takes a value (as
// "=<v>", joined to a short option, or as the next argument) and its kind.
type ldOpt struct {
	value bool
	kind  ldKind
}

// ldLong lists the long options (one or two dashes) of GNU ld 2.40 and
// ld.lld 22 that a clang link line may carry. Options that only take a
// value after '=' (--build-id=..., --hash-style=...) are listed as flags.
var ldLong = map[string]ldOpt{
	// Options that make the link keep archive members.
	"undefined":                  {true, ldRef},
	"require-defined":            {true, ldRef},
	"entry":                      {true, ldRef},
	"init":                       {true, ldRef},
	"fini":                       {true, ldRef},
	"undefined-glob":             {true, ldRefGlob},
	"export-dynamic-symbol":      {true, ldRefGlob},
	"export-dynamic-symbol-list": {true, ldSymFile},
	"version-script":             {true, ldSymFile},
	"dynamic-list":               {true, ldSymFile},
	"defsym":                     {true, ldExpr},
	"script":                     {true, ldScript},
	"default-script":             {true, ldScript},
	"dT":                         {true, ldScript},
	"wrap":                       {true, ldWrap},
	"mri-script":                 {true, ldUnsure},
	// Input order and library search.
	"Bstatic":      {false, ldStatic},
	"static":       {false, ldStatic},
	"dn":           {false, ldStatic},
	"non_shared":   {false, ldStatic},
	"Bdynamic":     {false, ldDynamic},
	"dy":           {false, ldDynamic},
	"call_shared":  {false, ldDynamic},
	"push-state":   {false, ldPushState},
	"pop-state":    {false, ldPopState},
	"start-lib":    {false, ldStartLib},
	"end-lib":      {false, ldEndLib},
	"start-group":  {false, ldIgnore}, // extraction is a fixed point over all archives
	"end-group":    {false, ldIgnore},
	"library-path": {true, ldLibPath},
	// Options with a value that names no symbol.
	"dynamic-linker": {true, ldIgnore}, "soname": {true, ldIgnore}, "rpath-link": {true, ldIgnore},
	"Map": {true, ldIgnore}, "trace-symbol": {true, ldIgnore}, "plugin": {true, ldIgnore},
	"plugin-opt": {true, ldIgnore}, "just-symbols": {true, ldIgnore}, "format": {true, ldIgnore},
	"oformat": {true, ldIgnore}, "hash-style": {true, ldIgnore}, "sysroot": {true, ldIgnore},
	"auxiliary": {true, ldIgnore}, "filter": {true, ldIgnore}, "audit": {true, ldIgnore},
	"depaudit": {true, ldIgnore}, "exclude-libs": {true, ldIgnore}, "image-base": {true, ldIgnore},
	"section-start": {true, ldIgnore}, "Ttext": {true, ldIgnore}, "Tdata": {true, ldIgnore},
	"Tbss": {true, ldIgnore}, "Ttext-segment": {true, ldIgnore}, "Trodata-segment": {true, ldIgnore},
	"Tldata-segment": {true, ldIgnore}, "dependency-file": {true, ldIgnore}, "threads": {true, ldIgnore},
	"retain-symbols-file": {true, ldIgnore}, "error-limit": {true, ldIgnore}, "reproduce": {true, ldIgnore},
	"why-extract": {true, ldIgnore}, "print-archive-stats": {true, ldIgnore}, "emulation": {true, ldIgnore},
	"architecture": {true, ldIgnore}, "z": {true, ldIgnore},
	// Flags.
	"pie": {}, "no-pie": {}, "static-pie": {}, "shared": {}, "Bshareable": {}, "Bsymbolic": {},
	"Bsymbolic-functions": {}, "Bsymbolic-non-weak": {}, "Bsymbolic-non-weak-functions": {},
	"Bno-symbolic": {}, "export-dynamic": {}, "no-export-dynamic": {}, "as-needed": {},
	"no-as-needed": {}, "add-needed": {}, "no-add-needed": {}, "copy-dt-needed-entries": {},
	"no-copy-dt-needed-entries": {}, "eh-frame-hdr": {}, "no-eh-frame-hdr": {}, "gc-sections": {},
	"no-gc-sections": {}, "print-gc-sections": {}, "no-print-gc-sections": {}, "gc-keep-exported": {},
	"enable-new-dtags": {}, "disable-new-dtags": {}, "no-undefined": {}, "allow-shlib-undefined": {},
	"no-allow-shlib-undefined": {}, "fatal-warnings": {}, "no-fatal-warnings": {}, "warn-common": {},
	"warn-once": {}, "warn-backrefs": {}, "no-warn-mismatch": {}, "strip-all": {}, "strip-debug": {},
	"discard-all": {}, "discard-locals": {}, "discard-none": {}, "verbose": {}, "demangle": {},
	"no-demangle": {}, "relax": {}, "no-relax": {}, "nostdlib": {}, "no-dynamic-linker": {},
	"omagic": {}, "nmagic": {}, "no-omagic": {}, "trace": {}, "print-map": {}, "cref": {}, "stats": {},
	"print-memory-usage": {}, "emit-relocs": {}, "allow-multiple-definition": {},
	"no-allow-multiple-definition": {}, "noinhibit-exec": {}, "no-keep-memory": {}, "rosegment": {},
	"no-rosegment": {}, "build-id": {}, "undefined-version": {}, "no-undefined-version": {},
	"compress-debug-sections": {}, "gdb-index": {}, "no-gdb-index": {}, "icf": {},
	"error-unresolved-symbols": {}, "warn-unresolved-symbols": {}, "unresolved-symbols": {},
	"check-sections": {}, "no-check-sections": {}, "sort-common": {}, "sort-section": {},
	"color-diagnostics": {}, "no-color-diagnostics": {}, "fortran-common": {}, "no-fortran-common": {},
	"dynamic-list-data": {}, "dynamic-list-cpp-new": {}, "dynamic-list-cpp-typeinfo": {},
	"default-symver": {}, "no-warnings": {}, "pack-dyn-relocs": {}, "apply-dynamic-relocs": {},
	"orphan-handling": {}, "error-handling-script": {}, "package-metadata": {}, "nmagic-no": {},
	"ld-generated-unwind-info": {}, "no-ld-generated-unwind-info": {}, "Qy": {}, "EL": {}, "EB": {},
	"no-whole-archive": {}, "print-icf-sections": {}, "no-print-icf-sections": {}, "strip-discarded": {},
	"no-strip-discarded": {}, "time-trace": {}, "time-trace-granularity": {}, "Bgroup": {},
	"no-undefined-version-warning": {}, "relocatable": {}, "version": {}, "help": {}, "v": {},
}

// ldLongPrefixes are families of flags with joined values only
// (--lto-O3, --thinlto-jobs=4, --plugin-opt=...).
var ldLongPrefixes = []string{"lto-", "thinlto-", "plugin-opt=", "no-lto-", "mllvm="}

// ldShort lists the single-letter options.
var ldShort = map[byte]ldOpt{
	'u': {true, ldRef}, 'e': {true, ldRef},
	'y': {true, ldIgnore}, 'R': {true, ldIgnore}, 'm': {true, ldIgnore}, 'z': {true, ldIgnore},
	'h': {true, ldIgnore}, 'F': {true, ldIgnore}, 'f': {true, ldIgnore}, 'b': {true, ldIgnore},
	'A': {true, ldIgnore}, 'Y': {true, ldIgnore}, 'P': {true, ldIgnore}, 'G': {true, ldIgnore},
	'I': {true, ldIgnore}, 'O': {true, ldIgnore}, 'a': {true, ldIgnore},
	'c': {true, ldUnsure},
	's': {}, 'S': {}, 'x': {}, 'X': {}, 't': {}, 'M': {}, 'N': {}, 'n': {}, 'q': {}, 'E': {},
	'i': {}, 'd': {}, 'g': {}, 'V': {}, 'w': {}, '(': {}, ')': {},
}

// tSections are the -T<section>[=]<addr> spellings that set an address.
var tSections = []string{"text-segment", "rodata-segment", "ldata-segment", "text", "data", "bss"}

// parseLdArgs gives the host-linker meaning of the wrapper's parsed
// arguments, in order. The wrapper's own options are left out; inputs,
// -l, -L and --(no-)whole-archive come from the wrapper's table; every
// argument the table does not know is read as GNU ld and ld.lld would,
// taking a separate value from the next argument where the option has one.
func parseLdArgs(args []optable.Arg) []ldArg {
	var out []ldArg
	for i := 0; i < len(args); i++ {
		a := &args[i]
		text := strings.Join(a.Raw, " ")
		if a.Opt != nil {
			switch {
			case a.Opt.Flags&(WrapperOnly|DeviceOnly) != 0:
			case a.Is(optLibrary):
				out = append(out, ldArg{ldLib, a.Value(), text})
			case a.Is(optLibraryPath) || a.Is(optLibpath):
				out = append(out, ldArg{ldLibPath, a.Value(), text})
			case a.Is(optWholeArchive):
				out = append(out, ldArg{ldWholeArchive, "", text})
			case a.Is(optNoWholeArchive):
				out = append(out, ldArg{ldNoWholeArchive, "", text})
			}
			continue
		}
		if a.IsInput() {
			out = append(out, ldArg{ldFile, a.Value(), text})
			continue
		}
		// The next argument, when the option takes a separate value.
		next := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			n := &args[i]
			if len(n.Raw) != 1 {
				return "", false
			}
			return n.Raw[0], true
		}
		out = append(out, classifyLd(a.Value(), next, text)...)
	}
	return out
}

// classifyLd reads one unknown argument s.
func classifyLd(s string, next func() (string, bool), text string) []ldArg {
	unsure := []ldArg{{ldUnsure, s, text}}
	if s == "--" || s == "-" {
		return nil
	}
	dashes := 1
	if strings.HasPrefix(s, "--") {
		dashes = 2
	}
	body := s[dashes:]
	name, val, hasEq := strings.Cut(body, "=")
	take := func(o ldOpt, v string, joined bool) []ldArg {
		if o.value && !joined {
			var ok bool
			if v, ok = next(); !ok {
				return unsure
			}
			text += " " + v
		}
		return resultOf(o.kind, v, text)
	}
	if o, ok := ldLong[name]; ok {
		return take(o, val, hasEq)
	}
	for _, p := range ldLongPrefixes {
		if strings.HasPrefix(body, p) {
			return nil
		}
	}
	if dashes == 1 && len(body) > 0 {
		if body[0] == 'T' {
			rest := body[1:]
			for _, sec := range tSections {
				if r, ok := strings.CutPrefix(rest, sec); ok && (r == "" || r[0] == '=') {
					if r == "" {
						if _, ok := next(); !ok {
							return unsure
						}
					}
					return nil
				}
			}
			if rest != "" {
				return []ldArg{{ldScript, rest, text}}
			}
			if v, ok := next(); ok {
				return []ldArg{{ldScript, v, text + " " + v}}
			}
			return unsure
		}
		if o, ok := ldShort[body[0]]; ok {
			rest := body[1:]
			if !o.value {
				if rest != "" {
					return unsure
				}
				return resultOf(o.kind, "", text)
			}
			res := take(o, rest, rest != "")
			// GNU ld also reads "-<prefix>=v" as an abbreviated long option
			// (getopt_long_only): add that reading's references too.
			if lo, ok := uniqueLongPrefix(name); ok && hasEq && (lo.kind == ldRef || lo.kind == ldRefGlob) {
				res = append(res, resultOf(lo.kind, val, text)...)
			}
			return res
		}
	}
	// GNU ld accepts unambiguous abbreviations of long options.
	if o, ok := uniqueLongPrefix(name); ok && len(name) >= 2 {
		return take(o, val, hasEq)
	}
	return unsure
}

func resultOf(k ldKind, v, text string) []ldArg {
	if k == ldIgnore {
		return nil
	}
	return []ldArg{{k, v, text}}
}

// uniqueLongPrefix finds the one long option that name abbreviates.
func uniqueLongPrefix(name string) (ldOpt, bool) {
	var found ldOpt
	n := 0
	for k, o := range ldLong {
		if strings.HasPrefix(k, name) {
			found = o
			n++
		}
	}
	return found, n == 1 && name != ""
}
