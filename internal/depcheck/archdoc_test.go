package depcheck

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// tableNames returns the names in the first column of the "## Packages"
// table of docs/architecture.md: every `quoted` name, as written.
func tableNames(t *testing.T, doc string) []string {
	_, rest, ok := strings.Cut(doc, "\n## Packages\n")
	if !ok {
		t.Fatal("docs/architecture.md has no \"## Packages\" section")
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	quoted := regexp.MustCompile("`([^`]+)`")
	var names []string
	rows := 0
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| package ") {
			continue
		}
		rows++
		cell := strings.Split(line, "|")[1]
		for _, m := range quoted.FindAllStringSubmatch(cell, -1) {
			names = append(names, m[1])
		}
	}
	if rows < 10 {
		t.Fatalf("found only %d rows in the package table; has its layout changed?", rows)
	}
	return names
}

// TestArchitectureTable: the package table of docs/architecture.md is the
// tree's. Every package of the module (every directory holding Go files,
// test-only ones included; testdata and nested modules excluded) is named
// in the first column of a row, and every name there is a directory
// holding Go files (bench/ is a module of its own, still named).
func TestArchitectureTable(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, n := range tableNames(t, string(doc)) {
		if named[n] {
			t.Errorf("docs/architecture.md: %s has two rows", n)
		}
		named[n] = true
		ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(n)))
		hasGo := false
		for _, e := range ents {
			hasGo = hasGo || (!e.IsDir() && strings.HasSuffix(e.Name(), ".go"))
		}
		if err != nil || !hasGo {
			t.Errorf("docs/architecture.md has a row for %s, which is not a package directory of the tree", n)
		}
	}
	pkgs := map[string]bool{}
	for _, f := range load(t) {
		pkgs[f.pkg] = true
	}
	var missing []string
	for p := range pkgs {
		if p != "." && !named[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	for _, p := range missing {
		t.Errorf("package %s has no row in docs/architecture.md's package table", p)
	}
}
