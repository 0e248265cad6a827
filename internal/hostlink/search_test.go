package hostlink

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree writes files (path -> content) under a new directory.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	return dir
}

func TestRooted(t *testing.T) {
	assert.Equal(t, "/sys/usr/lib", Rooted("=/usr/lib", "/sys"))
	assert.Equal(t, "/sys/lib", Rooted("$SYSROOT/lib", "/sys"))
	assert.Equal(t, "/usr/lib", Rooted("/usr/lib", "/sys"))
	assert.Equal(t, "/usr/lib", Rooted("=/usr/lib", ""))
}

// TestLibrary: -l searches each directory in turn for lib<n>.so, then
// lib<n>.a (only .a after -Bstatic); -l:file is a name; =/$SYSROOT
// directories are under the sysroot; a directory named like a library is
// not one.
func TestLibrary(t *testing.T) {
	dir := tree(t, map[string]string{"d1/libS.a": "a", "d2/libS.so": "so", "d2/libS.a": "a2", "d2/libD.so": "so",
		"sys/lib/libR.a": "r", "d3/libX.so/keep": ""})
	s := Search{Dirs: []string{dir + "/d3", dir + "/d1", dir + "/d2", "=/lib"}, Sysroot: dir + "/sys"}
	for _, tc := range []struct {
		name   string
		static bool
		want   string
	}{
		{"S", false, "d1/libS.a"}, // an earlier directory's .a wins over a later .so
		{"D", false, "d2/libD.so"},
		{"D", true, ""},
		{":libS.so", false, "d2/libS.so"},
		{"R", false, "sys/lib/libR.a"},
		{"X", false, ""},
	} {
		p, ok := s.Library(tc.name, tc.static)
		if tc.want == "" {
			assert.False(t, ok, "%s static=%v: %s", tc.name, tc.static, p)
			continue
		}
		assert.Equal(t, filepath.Join(dir, tc.want), p, "%s static=%v", tc.name, tc.static)
	}
	s.Dirs = s.Dirs[1:]
	assert.Equal(t, []string{dir + "/d1/libS.so", dir + "/d1/libS.a", dir + "/d2/libS.so", dir + "/d2/libS.a", dir + "/sys/lib/libS.so", dir + "/sys/lib/libS.a"},
		s.Candidates("S"))
	assert.Equal(t, []string{dir + "/d1/x.ld", dir + "/d2/x.ld", dir + "/sys/lib/x.ld"}, s.Candidates(":x.ld"))
}

func TestReadText(t *testing.T) {
	dir := tree(t, map[string]string{"d/v.map": "{ f; };"})
	s := Search{Dirs: []string{filepath.Join(dir, "d")}}
	got, err := s.ReadText("v.map")
	require.NoError(t, err)
	assert.Equal(t, "{ f; };", got)
	_, err = s.ReadText(dir)
	assert.ErrorContains(t, err, "not a regular file (a directory)")
	_, err = s.ReadText("missing.map")
	assert.Error(t, err)
}
