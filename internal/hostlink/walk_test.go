package hostlink

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// walkOf walks argv (ParseArgv) over dir with -L dirs and returns the
// inputs visited ("path[ whole][ lazy] depth") and the model. Files whose
// content starts with "SCRIPT " are linker scripts.
func walkOf(t *testing.T, dir string, argv ...string) ([]string, Model, error) {
	t.Helper()
	var visited []string
	args := ParseArgv(argv)
	var dirs []string
	for _, a := range args {
		if a.Kind == LibPath {
			dirs = append(dirs, a.Value)
		}
	}
	w := &Walker{Search: Search{Dirs: dirs}}
	w.Visit = func(in Input) (string, bool, error) {
		rel, _ := filepath.Rel(dir, in.Path)
		s := rel
		if in.Whole {
			s += " whole"
		}
		if in.Lazy {
			s += " lazy"
		}
		visited = append(visited, fmt.Sprintf("%s %d", s, in.Depth))
		data, err := os.ReadFile(in.Path)
		if err != nil {
			return "", false, nil
		}
		if text, ok := strings.CutPrefix(string(data), "SCRIPT "); ok {
			return text, true, nil
		}
		return "", false, nil
	}
	err := w.Walk(args)
	return visited, w.Model, err
}

func TestWalk(t *testing.T) {
	dir := tree(t, map[string]string{
		"a.o": "", "d1/libS.a": "", "d2/libS.so": "", "d2/libT.so": "", "d2/libT.a": "",
		"d1/libG.so":    "SCRIPT /* like libc.so */ GROUP ( libGreal.a AS_NEEDED ( -lT ) ) SEARCH_DIR(@D@/d3) INPUT(libU.a) EXTERN(ext_sym)",
		"d1/libGreal.a": "", "d3/libU.a": "",
		"t.ld": "ENTRY(start) INPUT(libGreal.a)", "v.map": "{ global: f*; local: *; };",
	})
	// SEARCH_DIR names an absolute directory.
	g := filepath.Join(dir, "d1/libG.so")
	data, _ := os.ReadFile(g)
	require.NoError(t, os.WriteFile(g, []byte(strings.ReplaceAll(string(data), "@D@", dir)), 0o644))

	got, m, err := walkOf(t, dir, "-L"+dir+"/d1", "-L", dir+"/d2", dir+"/a.o", "--whole-archive", "-lS", "--no-whole-archive",
		"--push-state", "-Bstatic", "-lT", "--pop-state", "-lT", "--start-lib", dir+"/a.o", "--end-lib",
		"-lG", "-T", dir+"/t.ld", "--version-script="+dir+"/v.map", "-u", "u1", "--defsym=x=y+z", "--wrap=malloc", "--frobnicate")
	require.NoError(t, err)
	assert.Equal(t, []string{"a.o 0", "d1/libS.a whole 0", "d2/libT.a 0", "d2/libT.so 0", "a.o lazy 0",
		"d1/libG.so 0", "d1/libGreal.a 1", "d2/libT.so 1", "d3/libU.a 1", "d1/libGreal.a 1"}, got)
	// Every name in a script statement counts, keywords too (harmless).
	var refs, globs []string
	for _, r := range m.Refs {
		refs = append(refs, r.Name)
	}
	for _, r := range m.Globs {
		globs = append(globs, r.Name)
	}
	assert.Equal(t, []string{"EXTERN", "ext_sym", "ENTRY", "start", "u1", "y", "z"}, refs)
	assert.Equal(t, []string{"f*"}, globs)
	assert.True(t, m.Wraps["malloc"])
	assert.Equal(t, []string{"the host linker option '--frobnicate' is not understood"}, m.Unsure)

	_, _, err = walkOf(t, dir, "-lmissing")
	assert.EqualError(t, err, "unable to find library -lmissing")
	_, m, err = walkOf(t, dir, "-T", dir+"/nope.ld")
	require.NoError(t, err)
	require.Len(t, m.Unsure, 1)
	assert.Contains(t, m.Unsure[0], "linker script "+dir+"/nope.ld (-T "+dir+"/nope.ld) cannot be read")
}
