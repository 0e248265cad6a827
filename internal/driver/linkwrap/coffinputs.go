package linkwrap

// Inputs of an MSVC-style host link (lld-link, link.exe): where lld-link
// finds a file or library that is named without a directory, and the
// libraries that /DEFAULTLIB: names on the command line and in objects'
// .drectve sections. Import libraries (kernel32.lib) are read like any
// archive: their short import members hold no device code (scan gives them
// no images) and are left to the host linker, which gets every argument
// unchanged.

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/hostlink"
)

// msvcLink reports a host link by lld-link or link.exe: the linker's name,
// else a Windows host triple of the MSVC environment (MinGW's ld and ld.lld
// search as GNU ld does).
func (d *driver) msvcLink() bool {
	base := strings.ToLower(d.opt.LinkerPath)
	base = strings.TrimSuffix(base[strings.LastIndexAny(base, `/\`)+1:], ".exe")
	switch base {
	case "lld-link", "link":
		return true
	case "ld", "ld.lld", "ld.bfd", "ld.gold", "ld.mold", "mold", "lld", "ld64.lld", "wasm-ld":
		return false
	}
	// The host triple as clang would read it (win32 and a bare "windows"
	// are Windows MSVC; mingw32, cygwin, -gnu and -itanium are not).
	return triple.Parse(triple.Normalize(d.host, triple.Any)).IsWindowsMSVC()
}

// msvcSearchDirs is lld-link's search path after the current directory:
// the /libpath: (and -L) directories, then those of the LIB environment
// variable.
func (d *driver) msvcSearchDirs() []string {
	dirs := d.opt.libraryPaths()
	for _, p := range strings.Split(d.getenv("LIB"), string(os.PathListSeparator)) {
		if p != "" {
			dirs = append(dirs, p)
		}
	}
	return dirs
}

// msvcFindFile is lld-link's doFindFile: a name with a directory part is
// used as given; otherwise the current directory and then each search
// directory are tried, with ".obj" added too when the name has no '.'.
// It returns the name unchanged when nothing is found.
func (d *driver) msvcFindFile(name string) string {
	if strings.ContainsAny(name, `/\`) {
		return name
	}
	hasExt := strings.Contains(name, ".")
	for _, dir := range append([]string{""}, d.msvcSearchDirs()...) {
		p := filepath.Join(dir, name)
		if isFile(p) {
			return p
		}
		if !hasExt && isFile(p+".obj") {
			return p + ".obj"
		}
	}
	return name
}

// msvcFindLib is lld-link's findLib: ".lib" is added to a name without a
// '.', which is then searched as msvcFindFile does.
func (d *driver) msvcFindLib(name string) (string, bool) {
	if !strings.Contains(name, ".") {
		name += ".lib"
	}
	p := d.msvcFindFile(name)
	return p, isFile(p)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// msvcArgs adapts the host link line to lld-link: -l<name>, which lld-link
// ignores ("ignoring unknown argument") and LLVM 22's wrapper searches as
// lib<name>.so/lib<name>.a (failing the link when neither exists), is read
// as the library lld-link would find for /DEFAULTLIB:<name> (<name>.lib),
// when there is one; otherwise the GNU search applies, as in LLVM 22.
// Files named without a directory are found as lld-link finds them.
func (d *driver) msvcArgs(args []hostlink.Arg) []hostlink.Arg {
	for i := range args {
		a := &args[i]
		switch a.Kind {
		case hostlink.Lib:
			if strings.HasPrefix(a.Value, ":") {
				continue
			}
			if p, ok := d.msvcFindLib(a.Value); ok {
				a.Kind, a.Value = hostlink.File, p
			}
		case hostlink.File:
			a.Value = d.msvcFindFile(a.Value)
		}
	}
	return args
}

// msvcDirectives returns the values of the /DEFAULTLIB: and /NODEFAULTLIB
// options in args (command-line words or .drectve tokens), either prefix
// ('/' or '-'), any case. nodefAll reports a bare /NODEFAULTLIB.
func msvcDirectives(args []string) (defaults, nodefaults []string, nodefAll bool) {
	for _, a := range args {
		if len(a) < 2 || (a[0] != '/' && a[0] != '-') {
			continue
		}
		name, val, hasVal := strings.Cut(a[1:], ":")
		switch strings.ToLower(name) {
		case "defaultlib":
			if hasVal && val != "" {
				defaults = append(defaults, val)
			}
		case "nodefaultlib":
			if hasVal && val != "" {
				nodefaults = append(nodefaults, val)
			} else if !hasVal {
				nodefAll = true
			}
		}
	}
	return defaults, nodefaults, nodefAll
}

// drectveWords splits a .drectve section as lld-link's directive parser
// does (Windows command-line rules, simplified: whitespace separates,
// double quotes group and are removed).
func drectveWords(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, have := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			inQuote, have = !inQuote, true
		case !inQuote && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0):
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}

// drectve returns the directives of a COFF object's .drectve section.
func drectve(u *unit) []string {
	if u.kind != format.KindCOFF {
		return nil
	}
	o, err := elfembed.Parse(u.data)
	if err != nil {
		return nil
	}
	var words []string
	for _, s := range o.Sections {
		if s.Name == ".drectve" {
			d := s.Data
			// A UTF-8 byte order mark may start the section.
			d = []byte(strings.TrimPrefix(string(d), "\xEF\xBB\xBF"))
			words = append(words, drectveWords(string(d))...)
		}
	}
	return words
}

// msvcDefaultLibs reads, after the command line's inputs, the libraries
// that /DEFAULTLIB: names (-defaultlib: on the command line, clang's
// "--dependent-lib"/#pragma comment(lib) in objects' .drectve sections),
// as lld-link does: each name once (case-insensitive), found by
// msvcFindLib, not when /NODEFAULTLIB names it or is given bare, and not a
// file already read. A library that is not found is left to the host
// linker (lld-link ignores it too). The directives of every COFF unit read
// are followed, members included: archive members that the link may not
// keep can only add libraries, whose members are then selected as any
// other's.
func (d *driver) msvcDefaultLibs(w *hostlink.Walker, res *scanResult, count *int) error {
	var words []string
	for i := range d.opt.Args {
		if a := &d.opt.Args[i]; a.Opt == nil {
			words = append(words, a.Raw...)
		}
	}
	seen := map[string]bool{}
	var nodef []string
	nodefAll := false
	done := 0 // units whose directives were read
	for {
		units := append(append([]*unit{}, res.objects...), res.members...)
		for _, u := range units[done:] {
			words = append(words, drectve(u)...)
		}
		done = len(units)
		defaults, nd, all := msvcDirectives(words)
		words = nil
		nodef = append(nodef, nd...)
		nodefAll = nodefAll || all
		var todo []string
		for _, n := range defaults {
			if l := strings.ToLower(n); !seen[l] {
				seen[l] = true
				todo = append(todo, n)
			}
		}
		if len(todo) == 0 || nodefAll {
			return nil
		}
	libs:
		for _, n := range todo {
			p, ok := d.msvcFindLib(n)
			if !ok {
				if d.opt.Verbose {
					d.notef("/DEFAULTLIB:%s: not found; left to the host linker", n)
				}
				continue
			}
			for _, x := range nodef {
				if xp, ok := d.msvcFindLib(x); strings.EqualFold(x, n) || ok && sameFile(xp, p) {
					continue libs
				}
			}
			if res.read(p) {
				continue
			}
			if d.opt.Verbose {
				d.notef("/DEFAULTLIB:%s: reading %s", n, p)
			}
			if _, _, err := d.visit(w, res, count, hostlink.Input{Path: p}); err != nil {
				return err
			}
		}
		if len(res.objects)+len(res.members) == done {
			return nil
		}
	}
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// read reports whether the file at p was already read by the walk.
func (s *scanResult) read(p string) bool {
	st, err := os.Stat(p)
	if err != nil {
		return false
	}
	for _, f := range s.visited {
		if os.SameFile(f, st) {
			return true
		}
	}
	return false
}
