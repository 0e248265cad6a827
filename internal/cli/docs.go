package cli

import (
	"os"
	"path/filepath"
	"sync"
)

// DocDir is where the documents the help texts cite are: the installed
// share/doc/offload-kit beside the binary's bin/ directory (make install,
// the .deb), or docs/ beside the bin/ of a source tree (make build); ""
// when neither is found. SetDocDir overrides it (the man pages name the
// installation's directory).
func DocDir() string {
	if docOverride != nil {
		return *docOverride
	}
	return foundDocDir()
}

var docOverride *string

// SetDocDir makes DocDir return d (before the help texts are built).
func SetDocDir(d string) { docOverride = &d }

var foundDocDir = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	bin := filepath.Dir(exe)
	for _, d := range []string{filepath.Join(bin, "..", "share", "doc", "offload-kit"), filepath.Join(bin, "..", "docs")} {
		if st, err := os.Stat(filepath.Join(d, "dump-json.md")); err == nil && st.Mode().IsRegular() {
			return filepath.Clean(d)
		}
	}
	return ""
})

// DocRef names a document (a file of docs/, "" for the directory) for a
// help text: its path where DocDir found it, else where an installation
// keeps it.
func DocRef(name string) string {
	if d := DocDir(); d != "" {
		return filepath.Join(d, name)
	}
	return "share/doc/offload-kit/" + name + " of the installation"
}
