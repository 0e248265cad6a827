// Package hostlink is the one model of the host link line, as GNU ld 2.40
// and ld.lld 22 read it: what each argument means (inputs in order, -l/-L
// search with -Bstatic/-Bdynamic, the sysroot's "=" and "$SYSROOT"
// prefixes, --whole-archive regions, --start-lib, groups, every option that
// makes the link keep an archive member), linker scripts (INPUT, GROUP,
// AS_NEEDED, SEARCH_DIR, and the names a script references), version
// scripts and dynamic lists, and the walk over a link's inputs.
//
// linker-wrapper uses it twice: lazy archive extraction follows the host
// link (which members may be kept), and the device-link cache key finds
// the files a device linker reads. An option the model does not know may
// reference symbols, so a caller that must not miss a kept member treats
// it (Unsure) as "anything may be kept". The package reads files only
// where a walk or a search asks it to, and uses the standard library only.
package hostlink

import "strings"

// Kind is what one host-linker argument means.
type Kind int

const (
	Ignore         Kind = iota // no effect on which files are read or which members are kept
	File                       // an input file
	Lib                        // -l<name>
	LibPath                    // -L<dir>
	WholeArchive               // --whole-archive
	NoWholeArchive             // --no-whole-archive
	Static                     // -Bstatic, -static, -dn, -non_shared: -l finds only lib<name>.a
	Dynamic                    // -Bdynamic, -dy, -call_shared
	PushState                  // --push-state
	PopState                   // --pop-state
	StartLib                   // --start-lib: the objects up to --end-lib are lazy, like members
	EndLib                     // --end-lib
	Ref                        // a symbol the link must resolve: -u, --undefined, --require-defined, -e, --entry, -init, -fini
	RefGlob                    // a pattern of such symbols: --undefined-glob, --export-dynamic-symbol
	Expr                       // --defsym=<sym>=<expr>: the symbols named in <expr> are referenced
	Script                     // -T, --script, --default-script: a linker script
	SymFile                    // --version-script, --dynamic-list, --export-dynamic-symbol-list
	Wrap                       // --wrap=<sym>
	Unsure                     // an option this model cannot follow
	Sysroot                    // --sysroot=<dir> (ParseArgv only; a wrapper passes its --sysroot to Search)
)

// Arg is one host-linker argument with its meaning.
type Arg struct {
	Kind  Kind
	Value string
	Text  string // the argument(s) as given, for messages
	// Index and N are the argument's place in ParseArgv's argv (the
	// option and its separate value); unset elsewhere.
	Index, N int
}

// opt describes a GNU ld / ld.lld option: whether it takes a value (as
// "=<v>", joined to a short option, or as the next argument) and its kind.
type opt struct {
	value bool
	kind  Kind
}

// longOpts lists the long options (one or two dashes) of GNU ld 2.40 and
// ld.lld 22 that a clang link line may carry. Options that only take a
// value after '=' (--build-id=..., --hash-style=...) are listed as flags.
var longOpts = map[string]opt{
	// Options that make the link keep archive members.
	"undefined":                  {true, Ref},
	"require-defined":            {true, Ref},
	"entry":                      {true, Ref},
	"init":                       {true, Ref},
	"fini":                       {true, Ref},
	"undefined-glob":             {true, RefGlob},
	"export-dynamic-symbol":      {true, RefGlob},
	"export-dynamic-symbol-list": {true, SymFile},
	"version-script":             {true, SymFile},
	"dynamic-list":               {true, SymFile},
	"defsym":                     {true, Expr},
	"script":                     {true, Script},
	"default-script":             {true, Script},
	"dT":                         {true, Script},
	"wrap":                       {true, Wrap},
	"mri-script":                 {true, Unsure},
	// Input order and library search.
	"Bstatic":      {false, Static},
	"static":       {false, Static},
	"dn":           {false, Static},
	"non_shared":   {false, Static},
	"Bdynamic":     {false, Dynamic},
	"dy":           {false, Dynamic},
	"call_shared":  {false, Dynamic},
	"push-state":   {false, PushState},
	"pop-state":    {false, PopState},
	"start-lib":    {false, StartLib},
	"end-lib":      {false, EndLib},
	"start-group":  {false, Ignore}, // extraction is a fixed point over all archives
	"end-group":    {false, Ignore},
	"library-path": {true, LibPath},
	// Options with a value that names no symbol.
	"dynamic-linker": {true, Ignore}, "soname": {true, Ignore}, "rpath-link": {true, Ignore},
	"Map": {true, Ignore}, "trace-symbol": {true, Ignore}, "plugin": {true, Ignore},
	"plugin-opt": {true, Ignore}, "just-symbols": {true, Ignore}, "format": {true, Ignore},
	"oformat": {true, Ignore}, "hash-style": {true, Ignore}, "sysroot": {true, Ignore},
	"auxiliary": {true, Ignore}, "filter": {true, Ignore}, "audit": {true, Ignore},
	"depaudit": {true, Ignore}, "exclude-libs": {true, Ignore}, "image-base": {true, Ignore},
	"section-start": {true, Ignore}, "Ttext": {true, Ignore}, "Tdata": {true, Ignore},
	"Tbss": {true, Ignore}, "Ttext-segment": {true, Ignore}, "Trodata-segment": {true, Ignore},
	"Tldata-segment": {true, Ignore}, "dependency-file": {true, Ignore}, "threads": {true, Ignore},
	"retain-symbols-file": {true, Ignore}, "error-limit": {true, Ignore}, "reproduce": {true, Ignore},
	"why-extract": {true, Ignore}, "print-archive-stats": {true, Ignore}, "emulation": {true, Ignore},
	"architecture": {true, Ignore}, "z": {true, Ignore},
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

// longPrefixes are families of flags with joined values only
// (--lto-O3, --thinlto-jobs=4, --plugin-opt=...).
var longPrefixes = []string{"lto-", "thinlto-", "plugin-opt=", "no-lto-", "mllvm="}

// shortOpts lists the single-letter options.
var shortOpts = map[byte]opt{
	'u': {true, Ref}, 'e': {true, Ref},
	'y': {true, Ignore}, 'R': {true, Ignore}, 'm': {true, Ignore}, 'z': {true, Ignore},
	'h': {true, Ignore}, 'F': {true, Ignore}, 'f': {true, Ignore}, 'b': {true, Ignore},
	'A': {true, Ignore}, 'Y': {true, Ignore}, 'P': {true, Ignore}, 'G': {true, Ignore},
	'I': {true, Ignore}, 'O': {true, Ignore}, 'a': {true, Ignore},
	'c': {true, Unsure},
	's': {}, 'S': {}, 'x': {}, 'X': {}, 't': {}, 'M': {}, 'N': {}, 'n': {}, 'q': {}, 'E': {},
	'i': {}, 'd': {}, 'g': {}, 'V': {}, 'w': {}, '(': {}, ')': {},
}

// tSections are the -T<section>[=]<addr> spellings that set an address.
var tSections = []string{"text-segment", "rodata-segment", "ldata-segment", "text", "data", "bss"}

// ParseArgv reads a complete linker command line (the arguments after the
// program name, as a device linker is run), in order: besides what Classify
// reads, -l, -L, -o and --sysroot, which a wrapper's own option table
// otherwise reads, and --(no-)whole-archive; every other argument that is
// not an option is an input file. Each Arg records its place in argv (Index, N).
func ParseArgv(argv []string) []Arg {
	var out []Arg
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		start := i
		next := func() (string, bool) {
			if i+1 >= len(argv) {
				return "", false
			}
			i++
			return argv[i], true
		}
		var got []Arg
		if k, v, sep, ok := wrapperSpelling(a); ok {
			text := a
			if sep {
				if v, ok = next(); !ok {
					continue
				}
				text += " " + v
			}
			got = []Arg{{Kind: k, Value: v, Text: text}}
		} else if a != "" && a[0] != '-' {
			got = []Arg{{Kind: File, Value: a, Text: a}}
		} else if a == "--whole-archive" || a == "-whole-archive" {
			got = []Arg{{Kind: WholeArchive, Text: a}}
		} else if a == "--no-whole-archive" || a == "-no-whole-archive" {
			got = []Arg{{Kind: NoWholeArchive, Text: a}}
		} else {
			got = Classify(a, next, a)
		}
		for _, g := range got {
			g.Index, g.N = start, i-start+1
			out = append(out, g)
		}
	}
	return out
}

// wrapperSpelling reads the options a wrapper's table reads before the
// host-link model sees its arguments: -l, -L, -o, --sysroot (joined, after
// '=', or separate: sep).
func wrapperSpelling(a string) (k Kind, v string, sep, ok bool) {
	for _, s := range []struct {
		name string
		kind Kind
	}{{"--library", Lib}, {"--library-path", LibPath}, {"--output", Ignore}, {"--sysroot", Sysroot}} {
		if a == s.name {
			return s.kind, "", true, true
		}
		if v, ok := strings.CutPrefix(a, s.name+"="); ok {
			return s.kind, v, false, true
		}
	}
	for _, s := range []struct {
		name string
		kind Kind
	}{{"-l", Lib}, {"-L", LibPath}, {"-o", Ignore}} {
		if a == s.name {
			return s.kind, "", true, true
		}
		if v, ok := strings.CutPrefix(a, s.name); ok {
			return s.kind, v, false, true
		}
	}
	return 0, "", false, false
}

// Classify reads one argument s that a wrapper's own option table does
// not know, as GNU ld and ld.lld would: next gives the following argument
// when the option takes a separate value; text is s as given, for
// messages. Options without an effect give nothing; an option the model
// does not know gives Unsure.
func Classify(s string, next func() (string, bool), text string) []Arg {
	unsure := []Arg{{Kind: Unsure, Value: s, Text: text}}
	if s == "--" || s == "-" {
		return nil
	}
	dashes := 1
	if strings.HasPrefix(s, "--") {
		dashes = 2
	}
	body := s[dashes:]
	name, val, hasEq := strings.Cut(body, "=")
	take := func(o opt, v string, joined bool) []Arg {
		if o.value && !joined {
			var ok bool
			if v, ok = next(); !ok {
				return unsure
			}
			text += " " + v
		}
		return resultOf(o.kind, v, text)
	}
	if o, ok := longOpts[name]; ok {
		return take(o, val, hasEq)
	}
	for _, p := range longPrefixes {
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
				return []Arg{{Kind: Script, Value: rest, Text: text}}
			}
			if v, ok := next(); ok {
				return []Arg{{Kind: Script, Value: v, Text: text + " " + v}}
			}
			return unsure
		}
		if o, ok := shortOpts[body[0]]; ok {
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
			if lo, ok := uniqueLongPrefix(name); ok && hasEq && (lo.kind == Ref || lo.kind == RefGlob) {
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

func resultOf(k Kind, v, text string) []Arg {
	if k == Ignore {
		return nil
	}
	return []Arg{{Kind: k, Value: v, Text: text}}
}

// uniqueLongPrefix finds the one long option that name abbreviates.
func uniqueLongPrefix(name string) (opt, bool) {
	var found opt
	n := 0
	for k, o := range longOpts {
		if strings.HasPrefix(k, name) {
			found = o
			n++
		}
	}
	return found, n == 1 && name != ""
}
