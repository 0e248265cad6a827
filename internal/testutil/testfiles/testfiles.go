// Package testfiles reads a package's test fixtures by glob pattern, for
// table tests and for seeding fuzz targets. A pattern that matches no file
// fails the test: a fixture directory that moved or emptied must not turn
// a test or a fuzz corpus into one that checks nothing.
package testfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// Read returns the contents of the files matching each pattern
// (filepath.Glob's order, pattern after pattern). The test fails when a
// pattern is malformed or matches no file, or a file cannot be read.
func Read(t testing.TB, patterns ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, pat := range patterns {
		names, err := filepath.Glob(pat)
		if err != nil {
			t.Fatalf("fixtures %s: %v", pat, err)
		}
		if len(names) == 0 {
			t.Fatalf("no fixtures match %s", pat)
		}
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

// Seed adds the contents of the files matching each pattern to f's seed
// corpus, failing as Read does.
func Seed(f *testing.F, patterns ...string) {
	f.Helper()
	for _, b := range Read(f, patterns...) {
		f.Add(b)
	}
}

// Executable returns path when it is an executable file; otherwise the
// test fails at once, naming what (e.g. "LLVM tool llc") and that
// scripts/install-deps.sh installs it. Oracles and fixtures from outside
// the repository are looked up this way: a differential test that cannot
// run is a defect, never a skip.
func Executable(t testing.TB, what, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		t.Fatalf("%s: %v (scripts/install-deps.sh installs it)", what, err)
	case fi.IsDir() || fi.Mode()&0o111 == 0:
		t.Fatalf("%s: %s is not an executable file (scripts/install-deps.sh installs it)", what, path)
	}
	return path
}
