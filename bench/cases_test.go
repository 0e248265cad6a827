package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/bench/kernelgen"
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
		fmt.Fprintf(&b, "case %q issue %d ref %q runs %d\n", c.names(bc.name), bc.issue, bc.refDesc, bc.runs)
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
		fmt.Fprintf(&b, " setup %t check %t custom %t validate %t\n", bc.setup != nil, bc.check != nil, bc.custom != nil, bc.validate != nil)
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

// TestEveryRowValidates: every row that times a tool checks its output
// (issue 24), every curve operation too, and the harness refuses to start
// with a selected row that does not.
func TestEveryRowValidates(t *testing.T) {
	c := testConfig(t)
	c.curves = true
	for _, bc := range cases() {
		if bc.validate == nil && bc.custom == nil {
			t.Errorf("row %q has no validator", c.names(bc.name))
		}
	}
	if err := checkValidators(c, cases(), curves(c)); err != nil {
		t.Error(err)
	}
	bare := []benchCase{{name: "unchecked row", ours: func(*config) side { return side{} }}, {name: "other row"}}
	err := checkValidators(c, bare, nil)
	if err == nil || !strings.Contains(err.Error(), `row "unchecked row"`) {
		t.Errorf("a row without a validator: %v", err)
	}
	c.only = "other"
	if err := checkValidators(c, bare[:1], nil); err != nil {
		t.Errorf("an unselected row: %v", err)
	}
	c.only = ""
	cv := []curve{{name: "curve: x", ops: []curveOp{{name: "op"}}}}
	if err := checkValidators(c, nil, cv); err == nil || !strings.Contains(err.Error(), `operation "op"`) {
		t.Errorf("a curve operation without a validator: %v", err)
	}
}

// runConfig is a config that really runs commands, in a temporary
// scratch directory, without the launcher.
func runConfig(t *testing.T) *config {
	work := t.TempDir()
	return &config{work: work, tmp: work, stdoutFile: filepath.Join(work, "stdout"), runs: 2, quick: true,
		memo: map[string]measurement{}}
}

// shSide runs a shell script in c.work; out/ is emptied before each run.
func shSide(c *config, script string) func(*config) side {
	return func(*config) side {
		return side{argv: []string{"sh", "-c", script}, dir: c.work, fresh: []string{c.p("out")}}
	}
}

// TestInvalidOutputFails: a side whose output fails its validator makes
// the row a failure, with no figure, and the exit status 3; the verdict
// travels with a memoized measurement. Both sides empty the same out/
// before each run, so the check must run right after each side's last
// run: the other side's next run removes the file.
func TestInvalidOutputFails(t *testing.T) {
	c := runConfig(t)
	wantFile := func(c *config, who string, s side) error {
		b, err := os.ReadFile(c.p("out", who+".txt"))
		if err != nil {
			return err
		}
		if string(b) != "right\n" {
			return fmt.Errorf("%s.txt says %q", who, b)
		}
		return nil
	}
	bc := benchCase{name: "fake", validate: wantFile,
		ours:    shSide(c, "echo wrong > out/ours.txt"),
		ref:     shSide(c, "echo right > out/ref.txt"),
		oursKey: key("fake/ours"), refKey: key("fake/ref"),
		target: fixed(target{maxWallRatio: 100, text: "anything"})}
	r := runCase(c, bc)
	if r.ok || r.ours.invalid == "" || r.ref.invalid != "" {
		t.Fatalf("ok %t, ours %+v, ref %+v", r.ok, r.ours, r.ref)
	}
	if len(r.notes) != 1 || r.notes[0] != `invalid output (ours): ours.txt says "wrong\n"` {
		t.Errorf("notes %q", r.notes)
	}
	if got := c.fmtM(r.ours, false); got != "invalid" {
		t.Errorf("wall column %q", got)
	}
	if got := fmtRatio(r.ours, r.ref, false); got != "–" {
		t.Errorf("ratio column %q", got)
	}
	if exitStatus([]result{r}, nil) != 3 {
		t.Error("exit status is not 3")
	}
	report := render(c, []result{r}, nil, "")
	if !strings.Contains(report, "| fake | #0 | invalid | – |") || !strings.Contains(report, "**INVALID**") {
		t.Errorf("report:\n%s", report)
	}
	// The memo keeps the verdict: a row sharing the key is not rerun.
	bc.ours = shSide(c, "echo right > out/ours.txt")
	if r2 := runCase(c, bc); r2.ok || r2.ours.invalid == "" {
		t.Errorf("memoized: ok %t, ours %+v", r2.ok, r2.ours)
	}
	// Fixed, and not memoized: valid, a figure, exit status 0.
	bc.oursKey, bc.refKey = nil, nil
	r3 := runCase(c, bc)
	if !r3.ok || r3.ours.invalid != "" || r3.ours.runs != 2 || exitStatus([]result{r3}, nil) != 0 {
		t.Errorf("valid: ok %t, ours %+v, notes %q", r3.ok, r3.ours, r3.notes)
	}
	// An invalid reference fails the row too.
	bc.ref = shSide(c, "echo wrong > out/ref.txt")
	if r4 := runCase(c, bc); r4.ok || len(r4.notes) != 1 || !strings.HasPrefix(r4.notes[0], "invalid output (reference): ") {
		t.Errorf("invalid reference: ok %t, notes %q", r4.ok, r4.notes)
	}
}

// TestPrinted: a validator reads what the side's last run printed, stdout
// then stderr.
func TestPrinted(t *testing.T) {
	c := runConfig(t)
	var got []string
	bc := benchCase{name: "printed",
		ours: shSide(c, "echo out; echo err >&2"), ref: shSide(c, "echo ref"),
		validate: func(c *config, who string, s side) error {
			p, err := c.printed()
			got = append(got, who+":"+p)
			return err
		}}
	if r := runCase(c, bc); !r.ok {
		t.Fatalf("notes %q", r.notes)
	}
	if want := []string{"ours:out\nerr\n", "ref:ref\n"}; !slices.Equal(got, want) {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// sampleReport is a report's headline table as render writes it, with a
// curve table below (which has no "case" column and is not read).
const sampleReport = `## Headline rows

| case | issue | offload-kit wall | offload-kit RSS | vs last report | compared with | its wall | its RSS | wall ratio | RSS ratio | target | met |
|---|---|---|---|---|---|---|---|---|---|---|---|
| pack a 1 GiB image | #2 | 554.1 ms | 5.8 MiB | – | llvm-offload-binary | 9.20 s | 3.05 GiB | 0.060 | 0.002 | ≤ 0.5× | yes |
| in-process split + codegen | #15 | 39.47 s (3 runs) | 69.5 MiB | – | llvm-split | 46.78 s (3 runs) | 66.8 MiB | 0.844 | 1.041 | ≤ 0.1× | **MISS**: a \| b |
| failed row | #3 | FAILED | FAILED | – | x | 1.0 ms | 1 MiB | – | – | – | **MISS** |
| invalid row | #3 | invalid | – | – | x | 1.0 ms | 1 MiB | – | – | – | **INVALID** |
| slow split | #6 | > 90.00 s (timeout) | – | – | x | 1.0 ms | 1 MiB | – | – | – | – |

| payload size | offload-kit wall | offload-kit RSS | llvm-offload-binary wall | its RSS | wall ratio | RSS ratio |
|---|---|---|---|---|---|---|
| 1 MiB | 2.0 ms | 5 MiB | 3.0 ms | 6 MiB | 0.6 | 0.8 |
`

// TestParseReport reads the offload-kit wall of each headline row of a
// committed report; the older table without the "vs last report" column
// reads the same.
func TestParseReport(t *testing.T) {
	want := map[string]time.Duration{"pack a 1 GiB image": 554100 * time.Microsecond, "in-process split + codegen": 39470 * time.Millisecond}
	for _, md := range []string{sampleReport, strings.NewReplacer(" vs last report |", "", " – | llvm", " llvm", "|---|---|---|---|---|---|---|---|---|---|---|---|", "|---|---|---|---|---|---|---|---|---|---|---|").Replace(sampleReport)} {
		got := parseReport(md)
		if len(got) != len(want) {
			t.Errorf("got %v, want %v", got, want)
		}
		for k, v := range want {
			if d := got[k] - v; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("%q: %v, want %v", k, got[k], v)
			}
		}
	}
}

// TestFlagRegression: more than 20% slower than the same-named row of the
// last report is a regression (exit status 3); a name that differs (a
// -quick size), or a run without a figure, is not compared.
func TestFlagRegression(t *testing.T) {
	prev := parseReport(sampleReport)
	for _, f := range []struct {
		name      string
		wall      time.Duration
		invalid   string
		compared  bool
		regressed bool
	}{
		{"pack a 1 GiB image", 664900 * time.Microsecond, "", true, false}, // 1.19996×
		{"pack a 1 GiB image", 665 * time.Millisecond, "", true, true},     // 1.2001×
		{"pack a 1 GiB image", 400 * time.Millisecond, "", true, false},
		{"pack a 32 MiB image", 5 * time.Second, "", false, false},
		{"pack a 1 GiB image", 5 * time.Second, "wrong bytes", false, false},
		{"failed row", 5 * time.Second, "", false, false},
	} {
		r := result{bc: benchCase{name: f.name}, ok: true, ours: measurement{wall: f.wall, runs: 3, invalid: f.invalid}}
		flagRegression(&r, prev)
		if (r.prev != 0) != f.compared || r.regressed != f.regressed {
			t.Errorf("%s at %v: prev %v, regressed %t; want compared %t, regressed %t", f.name, f.wall, r.prev, r.regressed, f.compared, f.regressed)
		}
		if want := map[bool]int{true: 3, false: 0}[f.regressed]; f.invalid == "" && exitStatus([]result{r}, nil) != want {
			t.Errorf("%s at %v: exit status %d, want %d", f.name, f.wall, exitStatus([]result{r}, nil), want)
		}
	}
	rr := &revResult{now: measurement{wall: 121, runs: 3}, old: measurement{wall: 100, runs: 3}}
	if !rr.regressed() || exitStatus([]result{{ok: true, rev: rr}}, nil) != 3 {
		t.Error("-compare: 1.21× is not a regression")
	}
	rr.now.wall = 120
	if rr.regressed() {
		t.Error("-compare: 1.2× is a regression")
	}
}

// TestDryRunImages reads the device link's images from a --dry-run output
// (clang-linker-wrapper's, paths shortened).
func TestDryRunImages(t *testing.T) {
	out := ` "/usr/lib/llvm-22/bin/clang" --no-default-config -o /tmp/app.x86_64.-7567e5.img --target=x86_64-unknown-linux-gnu -Wl,--no-undefined /tmp/b-x86_64-unknown-linux-gnu-generic-412844.o /tmp/k000001-x86_64-unknown-linux-gnu-generic-405dcb.o -O2
 "/usr/bin/ld" -o app /tmp/app.openmp.image.wrapper-374cff.o b.o k000001.o -lomp
`
	if n, err := dryRunImages(out); n != 2 || err != nil {
		t.Errorf("%d, %v; want 2 images", n, err)
	}
	if _, err := dryRunImages(strings.SplitN(out, "\n", 2)[0]); err == nil {
		t.Error("no host link: no error")
	}
	if _, err := dryRunImages(strings.SplitN(out, "\n", 2)[1]); err == nil {
		t.Error("no device link: no error")
	}
}

// TestStratified: one index from each stratum, the same on every call.
func TestStratified(t *testing.T) {
	got := stratified(4000, 32, 4000)
	if len(got) != 32 || !slices.Equal(got, stratified(4000, 32, 4000)) {
		t.Fatalf("%v", got)
	}
	for i, x := range got {
		if x < i*125 || x >= (i+1)*125 {
			t.Errorf("sample %d is %d, outside [%d, %d)", i, x, i*125, (i+1)*125)
		}
	}
	if got := stratified(5, 32, 1); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("5 modules: %v", got)
	}
}

// TestSameFile finds the first differing byte, a length difference too.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	big := make([]byte, 3<<20)
	os.WriteFile(a, big, 0o644)
	os.WriteFile(b, big, 0o644)
	if err := sameFile(a, b); err != nil {
		t.Error(err)
	}
	big[2<<20+5] = 1
	os.WriteFile(b, big, 0o644)
	if err := sameFile(a, b); err == nil || !strings.Contains(err.Error(), "at byte 2097157") {
		t.Errorf("changed byte: %v", err)
	}
	os.WriteFile(b, big[:1<<20], 0o644)
	if err := sameFile(a, b); err == nil || !strings.Contains(err.Error(), "at byte 1048576") {
		t.Errorf("shorter: %v", err)
	}
}

// TestValidateSplit validates llvm-split's per-kernel split of a small
// synthetic module, then breaks it: a module missing, a module defining a
// second kernel, a module the verifier rejects.
func TestValidateSplit(t *testing.T) {
	c := runConfig(t)
	c.llvm = "/usr/lib/llvm-22/bin"
	const n = 6
	if err := os.WriteFile(c.p("in.ll"), kernelgen.Module(n), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(c.p("out"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := side{argv: []string{c.tool("llvm-split"), "--split-by-category=kernel", "-S", "in.ll", "-o", "out/part"}, dir: c.work}
	if err := c.sh(c.work, s.argv...); err != nil {
		t.Fatal(err)
	}
	if err := validateSplit(c, s, n); err != nil {
		t.Fatalf("llvm-split's modules: %v", err)
	}
	if err := validateSplit(c, s, n+1); err == nil || err.Error() != "6 modules, want 7 (one per kernel)" {
		t.Errorf("one module short: %v", err)
	}
	part := c.p("out", "part_3.ll")
	text, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	second := "define spir_kernel void @kernel_99(ptr addrspace(1) %out) {\n  ret void\n}\n"
	os.WriteFile(part, append(text, second...), 0o644)
	if err := validateSplit(c, s, n); err == nil || err.Error() != "part_3.ll defines 2 kernels, want 1" {
		t.Errorf("two kernels in a module: %v", err)
	}
	// A kernel whose block has no terminator: opt's verifier rejects it.
	broken := strings.Replace(string(text), "  ret void\n", "", 1)
	os.WriteFile(part, []byte(broken), 0o644)
	if err := validateSplit(c, s, n); err == nil || !strings.Contains(err.Error(), "opt -passes=verify") {
		t.Errorf("an invalid module: %v", err)
	}
}

// TestRunTimeout: a hung tool fails its row at -run-timeout instead of
// stopping the bench.
func TestRunTimeout(t *testing.T) {
	c := runConfig(t)
	c.runLimit = 300 * time.Millisecond
	bc := benchCase{name: "hung", ours: shSide(c, "sleep 30"), ref: shSide(c, "true"),
		validate: func(*config, string, side) error { return nil }}
	start := time.Now()
	r := runCase(c, bc)
	if r.ok || !r.ours.timedOut || len(r.notes) != 1 || r.notes[0] != "offload-kit timed out after 300.0 ms" {
		t.Errorf("ok %t, ours %+v, notes %q", r.ok, r.ours, r.notes)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %s", d)
	}
}

// TestBuildRev builds a revision of a small repository as -compare does:
// a worktree at the revision, `make build BIN=...` there, the worktree
// removed again; the tree's own state is left alone.
func TestBuildRev(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write := func(version string) {
		mk := "build:\n\tmkdir -p $(BIN) && cp version $(BIN)/offload-packager\n"
		os.WriteFile(filepath.Join(repo, "Makefile"), []byte(mk), 0o644)
		os.WriteFile(filepath.Join(repo, "version"), []byte(version), 0o644)
	}
	git("init", "-q")
	write("one")
	git("add", "Makefile", "version")
	git("commit", "-q", "-m", "one")
	write("two")
	git("commit", "-q", "-a", "-m", "two")
	t.Chdir(repo)
	c := runConfig(t)
	rb, err := buildRev(c, "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(rb.bin, "offload-packager")); err != nil || string(b) != "one" {
		t.Errorf("built %q, %v; want the first commit's", b, err)
	}
	if rb.dirty || rb.rev != "HEAD~1" || len(rb.commit) < 7 {
		t.Errorf("%+v", rb)
	}
	out, _ := exec.Command("git", "worktree", "list").Output()
	if n := strings.Count(string(out), "\n"); n != 1 {
		t.Errorf("worktrees left:\n%s", out)
	}
	write("three")
	if rb, err := buildRev(c, "HEAD"); err != nil || !rb.dirty {
		t.Errorf("uncommitted change: %+v, %v", rb, err)
	}
	if _, err := buildRev(c, "no-such-rev"); err == nil {
		t.Error("an unknown revision builds")
	}
}

// TestRenderRegressions: the report lists a regressed row at the top and
// in its "vs last report" column, and the -compare section flags a row
// more than 20% slower than at the revision.
func TestRenderRegressions(t *testing.T) {
	c := runConfig(t)
	c.rev = &revBuild{rev: "HEAD~1", commit: "abc1234"}
	r := result{bc: benchCase{name: "pack a 1 GiB image", issue: 2}, ok: true, ours: measurement{wall: 700 * time.Millisecond, runs: 3},
		rev: &revResult{now: measurement{wall: 130, runs: 3}, old: measurement{wall: 100, runs: 3}}}
	flagRegression(&r, parseReport(sampleReport))
	report := render(c, []result{r}, nil, "`docs/performance.md` as committed at HEAD (abc1234)")
	for _, want := range []string{
		"**1 row is more than 20% slower than in the last report**:",
		"| pack a 1 GiB image | #2 | 700.0 ms | 0 KiB | **1.26× (554.1 ms): regressed** |",
		"### Against HEAD~1 (abc1234)",
		"| pack a 1 GiB image | 0.0 ms | 0 KiB | 0.0 ms | 0 KiB | 1.300 | **yes** |",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if got := parseReport(report); got["pack a 1 GiB image"] != 700*time.Millisecond {
		t.Errorf("the new report reads back as %v", got)
	}
}
