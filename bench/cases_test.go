package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; ; i++ {
		if i == len(g) || i == len(w) || g[i] != w[i] {
			t.Errorf("%s changed (rerun with -update only for an intended change); line %d:\ngot  %q\nwant %q", path, i+1, g[min(i, len(g)-1)], w[min(i, len(w)-1)])
			return
		}
	}
}

// testConfig is a quick-sized config whose scratch directory cannot be
// created (it lies under a file), so that building a side never runs a
// setup command.
func testConfig(t *testing.T) *config {
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return &config{bin: "/BIN", llvm: "/LLVM", work: filepath.Join(f, "work"), tmp: "/TMP", fast: "/FAST",
		runs: 3, curveRuns: 1, size: 32 << 20, bundleSize: 16 << 20, objects: 100, kernels: 400,
		quick: true, memo: map[string]measurement{}}
}

func sideText(c *config, s side) string {
	r := strings.NewReplacer(c.work, "$WORK", os.Getenv("PATH"), "$PATH")
	return r.Replace(fmt.Sprintf("  argv %q\n  dir %q\n  fresh %q\n", s.argv, s.dir, s.fresh))
}

// TestCaseList pins every row's name, commands, keys, target and method:
// rows are compared across runs in docs/performance.md, so a refactoring
// must leave them as they are.
func TestCaseList(t *testing.T) {
	c := testConfig(t)
	var b strings.Builder
	for _, bc := range cases() {
		fmt.Fprintf(&b, "case %q issue %d ref %q runs %d expect %q\n", c.names(bc.name), bc.issue, bc.refDesc, bc.runs, bc.expect)
		fmt.Fprintf(&b, " method %q\n", bc.method)
		if bc.target != nil {
			fmt.Fprintf(&b, " target %+v\n", bc.target(c))
		}
		if bc.oursKey != nil {
			fmt.Fprintf(&b, " oursKey %q\n", bc.oursKey(c))
		}
		if bc.refKey != nil {
			fmt.Fprintf(&b, " refKey %q\n", bc.refKey(c))
		}
		fmt.Fprintf(&b, " setup %t check %t custom %t\n", bc.setup != nil, bc.check != nil, bc.custom != nil)
		if bc.ours != nil {
			b.WriteString(" ours\n" + sideText(c, bc.ours(c)))
		}
		if bc.ref != nil {
			b.WriteString(" ref\n" + sideText(c, bc.ref(c)))
		}
	}
	for _, cv := range curves(c) {
		fmt.Fprintf(&b, "curve %q xs %v note %q\n", cv.name, cv.xs, cv.note)
		for _, op := range cv.ops {
			fmt.Fprintf(&b, " op %q key %q ref %q\n", op.name, op.key, op.refDesc)
			b.WriteString(" ours\n" + sideText(c, op.ours(c, cv.xs[0])))
			b.WriteString(" ref\n" + sideText(c, op.ref(c, cv.xs[0])))
		}
	}
	golden(t, "cases.golden", b.String())
}

// fakeTool stands for every LLVM tool a setup runs: it logs its command
// line and writes its -o output (a copy of its first argument when that
// is a file, so llvm-as passes the module's text through).
const fakeTool = `#!/bin/sh
echo "${PWD#$BENCH_WORK} $(basename "$0") $*" >> "$BENCH_LOG"
out=; prev=
for a; do [ "$prev" = "-o" ] && out=$a; prev=$a; done
[ -n "$out" ] || exit 0
if [ -f "$1" ]; then cp "$1" "$out"; else echo "$(basename "$0")" > "$out"; fi
`

// TestSetupInputs runs the module and SYCL setups with fake LLVM tools and
// pins the commands they run and the bytes of every file they write.
func TestSetupInputs(t *testing.T) {
	llvm := t.TempDir()
	for _, n := range []string{"llvm-as", "clang", "clang++"} {
		if err := os.WriteFile(filepath.Join(llvm, n), []byte(fakeTool), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	work := t.TempDir()
	log := filepath.Join(t.TempDir(), "log")
	t.Setenv("BENCH_WORK", work)
	t.Setenv("BENCH_LOG", log)
	c := &config{bin: "/BIN", llvm: llvm, work: work, tmp: work, kernels: 8, bundleSize: 4096}
	steps := []struct {
		name string
		run  func() (string, error)
	}{
		{"kernelModule 8", func() (string, error) { return kernelModule(c, 8) }},
		{"inprocModule 6", func() (string, error) { return inprocModule(c, 6) }},
		{"bigKernelModule 3", func() (string, error) { return bigKernelModule(c, 3) }},
		{"twoTUs", func() (string, error) { return "", twoTUs(c) }},
		{"syclProgram", func() (string, error) { return "", syclProgram(c) }},
	}
	var b strings.Builder
	for range 2 { // the second round finds everything made
		for _, s := range steps {
			p, err := s.run()
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			fmt.Fprintf(&b, "%s: %q\n", s.name, strings.TrimPrefix(p, work))
		}
	}
	cmds, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(cmds), work, "$WORK")), "\n")
	slices.Sort(lines) // twoTUSources is a map
	b.WriteString(strings.Join(lines, "\n") + "\n")
	err = filepath.WalkDir(work, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		fmt.Fprintf(&b, "%s %d %x\n", strings.TrimPrefix(path, work), len(data), sha256.Sum256(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "inputs.golden", b.String())
}

// TestBundleSizeCheck runs the compressed-size check of the issue 3 row.
func TestBundleSizeCheck(t *testing.T) {
	c := &config{work: t.TempDir()}
	i := slices.IndexFunc(cases(), func(bc benchCase) bool { return strings.HasPrefix(bc.name, "bundle + compress BSIZE") })
	bc := cases()[i]
	for _, f := range []struct {
		ours, ref int
		ok        bool
		note      string
	}{
		{1050, 1000, true, "compressed size 1 KiB vs 1 KiB = 1.050×"},
		{1051, 1000, false, "compressed size 1 KiB vs 1 KiB = 1.051× > 1.05"},
	} {
		os.WriteFile(c.p("ours.cbundle"), make([]byte, f.ours), 0o644)
		os.WriteFile(c.p("ref.cbundle"), make([]byte, f.ref), 0o644)
		notes, ok := bc.check(c, nil)
		if ok != f.ok || len(notes) != 1 || notes[0] != f.note {
			t.Errorf("%d vs %d bytes: %q, %t; want %q, %t", f.ours, f.ref, notes, ok, f.note, f.ok)
		}
		if exists(c.p("ours.cbundle")) || exists(c.p("ref.cbundle")) {
			t.Error("the check left its outputs")
		}
	}
	if notes, ok := bc.check(c, nil); ok || len(notes) != 1 || !strings.Contains(notes[0], "no such file") {
		t.Errorf("missing outputs: %q, %t", notes, ok)
	}
}
