package hostlink

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Rooted applies the sysroot rule of GNU ld and ld.lld to a search
// directory or script path: "=<p>" and "$SYSROOT<p>" are <sysroot><p>;
// anything else is unchanged.
func Rooted(p, sysroot string) string {
	if rest, ok := strings.CutPrefix(p, "="); ok {
		return sysroot + rest
	}
	if rest, ok := strings.CutPrefix(p, "$SYSROOT"); ok {
		return sysroot + rest
	}
	return p
}

// Search is the host link's library search: its -L directories (and a
// script's SEARCH_DIRs) in order, and --sysroot.
type Search struct {
	Dirs    []string
	Sysroot string
}

// FindIn returns dir/name when it is an existing file that is not a
// directory (dir rooted first).
func (s Search) FindIn(dir, name string) (string, bool) {
	p := filepath.Join(Rooted(dir, s.Sysroot), name)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, true
	}
	return "", false
}

// Find returns the first search directory's name (a -T script, a version
// script, a script's INPUT that is not where it was named).
func (s Search) Find(name string) (string, bool) {
	for _, d := range s.Dirs {
		if p, ok := s.FindIn(d, name); ok {
			return p, true
		}
	}
	return "", false
}

// Library resolves -l<name> as GNU ld and ld.lld do: "-l:file" is a file
// name searched for in every directory; otherwise each directory in turn
// is searched for lib<name>.so (unless static: after -Bstatic) and then
// lib<name>.a, so a static library in an earlier directory wins over a
// shared one in a later directory (LLVM 22's clang-linker-wrapper tries
// .so in every directory first).
func (s Search) Library(name string, static bool) (string, bool) {
	if rest, ok := strings.CutPrefix(name, ":"); ok {
		return s.Find(rest)
	}
	for _, d := range s.Dirs {
		if !static {
			if p, ok := s.FindIn(d, "lib"+name+".so"); ok {
				return p, true
			}
		}
		if p, ok := s.FindIn(d, "lib"+name+".a"); ok {
			return p, true
		}
	}
	return "", false
}

// Candidates lists every path a search for name may open, whichever
// -Bstatic/-Bdynamic state it runs in, existing or not, in search order:
// lib<name>.so and lib<name>.a in each directory for a library, the name
// itself in each directory for ":<name>" (-l:file, scripts).
func (s Search) Candidates(name string) []string {
	try := []string{"lib" + name + ".so", "lib" + name + ".a"}
	if exact, ok := strings.CutPrefix(name, ":"); ok {
		try = []string{exact}
	}
	var out []string
	for _, d := range s.Dirs {
		for _, f := range try {
			out = append(out, filepath.Join(Rooted(d, s.Sysroot), f))
		}
	}
	return out
}

// ReadText reads a small text file named on the link line (a -T script or
// a version script) where the linker finds it: as named, else in the
// search directories when the name is relative. Only regular files up to
// MaxScriptSize bytes are read.
func (s Search) ReadText(name string) (string, error) {
	p := name
	if _, err := os.Stat(p); err != nil && !filepath.IsAbs(name) {
		if q, ok := s.Find(name); ok {
			p = q
		}
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("not a regular file (%s)", FileType(st.Mode()))
	}
	if st.Size() > MaxScriptSize {
		return "", fmt.Errorf("larger than %d bytes", MaxScriptSize)
	}
	data, err := os.ReadFile(p)
	return string(data), err
}

// FileType names the type of a file that is not a regular file, for
// messages.
func FileType(m fs.FileMode) string {
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
