// Command bench compares offload-kit's tools with the LLVM 22 tools they
// replace, in one run: wall time and peak RSS (median of -runs runs each),
// ratios, and each issue's target, checked; then the scaling curves of
// issue 7 (payload size, object count, kernel count), plotted as PNGs next
// to the report. It rewrites docs/performance.md. bench/ is a module of
// its own (its plotting library is no dependency of the tools); from the
// repository's root, as make bench does:
//
//	go build -C bench -o ../bin/bench-harness .
//	bin/bench-harness -bin ./bin -llvm /usr/lib/llvm-22/bin -compare HEAD~1 -out docs/performance.md
//	bin/bench-harness -quick -only bundle        # small sizes, a subset
//
// Inputs are generated deterministically in -work (default: a temporary
// directory) and removed afterwards. A tool that fails is reported as a
// failing row, never skipped; only a row whose optional input cannot be
// installed (librocsparse0, issue 12) is skipped, with a note. Every row
// validates what each side's last timed run wrote or printed (validate.go):
// an invalid output is a failure, never a figure. Each offload-kit wall
// time is checked against the last committed report and, with -compare
// REV, against REV's build run alongside (regress.go). The exit status is
// 3 when any target is missed, any tool failed, any output was invalid or
// any row got more than 20% slower; 1 when the harness itself fails.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type config struct {
	bin, llvm, work, tmp string
	docs                 string // where plots go (the directory of -out)
	runs, curveRuns      int
	size, bundleSize     int64
	objects, kernels     int
	splitTimeout         time.Duration
	runLimit             time.Duration // -run-timeout: any one measured run
	slow                 time.Duration // a command slower than this gets 3 runs, not -runs
	shown                int           // wall times measured with fewer runs than this say so
	fast                 string        // a directory on a memory file system, or ""
	only                 string
	quick, curves        bool
	started              time.Time

	launcher string // see launcherSource; "" = measure directly

	memo map[string]measurement // by key: a side measured once serves every row and curve that needs it

	// The last timed run's output, for the validators (printed).
	stdoutFile, lastStderr string

	baseline   string // -baseline
	compareRev string // -compare: the revision as given
	rev        *revBuild
	revDone    map[string]*revResult // by command line: compared once
}

// measurement is the median over runs of one command.
type measurement struct {
	wall     time.Duration
	rss      int64 // bytes, peak RSS of the child and its waited-for descendants
	runs     int
	lo, hi   time.Duration // the fastest and slowest run
	err      string        // the tool failed: first lines of its error
	timedOut bool          // stopped at the time limit (the wall is the limit)
	// invalid is the validator's verdict on the last run's output ("" =
	// valid). It travels with the measurement through the memo, so a
	// side shared by rows and curve points is validated once.
	invalid string
}

// ok: the measurement is a figure: the tool ran to the end every time and
// its output passed the validator.
func (m measurement) ok() bool {
	return m.err == "" && !m.timedOut && m.runs > 0 && m.invalid == ""
}

// side is one tool's command in a comparison.
type side struct {
	argv  []string
	dir   string
	fresh []string // directories emptied (and re-created) before each run, untimed
	// prep, when set, runs before each run, untimed (e.g. restoring a
	// cache to the state the measured relink starts from)
	prep func() error
}

// target is an issue's acceptance bound for a case.
type target struct {
	maxWallRatio float64       // ours/ref wall, 0 = none
	maxWall      time.Duration // absolute, 0 = none
	maxRSS       int64         // absolute bytes, 0 = none
	maxRSSRatio  float64       // ours/ref RSS, 0 = none
	text         string
}

func (t target) none() bool {
	return t.maxWallRatio == 0 && t.maxWall == 0 && t.maxRSS == 0 && t.maxRSSRatio == 0
}

type benchCase struct {
	name    string
	issue   int
	refDesc string
	setup   func(c *config) error
	ours    func(c *config) side
	ref     func(c *config) side
	// keys name the measurements in c.memo, so rows (and curve points)
	// that need the same command share one measurement; "" = not shared.
	oursKey, refKey func(c *config) string
	target          func(c *config) target
	// check adds case-specific checks after the measurement (e.g. the
	// compressed size); it returns notes and whether they pass.
	check func(c *config, r *result) ([]string, bool)
	// custom replaces the measurement entirely (e.g. the cache proof).
	custom func(c *config, r *result) error
	// validate checks what one side's last timed run wrote or printed
	// (who is "ours" or "ref"; s is the side as measured), before
	// anything removes it: images pass spirv-val or opt's verifier,
	// outputs round-trip, counts match. An error makes the row a failure
	// ("invalid output"), never a figure. Every row that times a tool
	// has one (issue 24).
	validate func(c *config, who string, s side) error
	method   string // how it is measured, for the report
	// runs, when larger than -runs, is this row's number of runs: rows
	// whose difference is small next to run-to-run noise get a steadier
	// median (not with -quick).
	runs int
}

type result struct {
	bc        benchCase
	ours, ref measurement
	tgt       target
	ok        bool
	notes     []string
	argv      [2]string
	miss      bool // set by a custom measurement or check
	// prev is this row's offload-kit wall in the last committed report
	// (0 = none comparable); regressed says ours is more than 20% slower.
	prev      time.Duration
	regressed bool
	// rev is the -compare measurement: ours at this tree (now) and at
	// the compared revision (old), paired.
	rev *revResult
}

// invalid says whether either side's output failed its validator.
func (r result) invalid() bool { return r.ours.invalid != "" || r.ref.invalid != "" }

func main() {
	c := config{memo: map[string]measurement{}, started: time.Now()}
	flag.StringVar(&c.bin, "bin", "bin", "directory with offload-kit binaries (and their LLVM-named symlinks)")
	flag.StringVar(&c.llvm, "llvm", "/usr/lib/llvm-22/bin", "directory with the LLVM 22 tools")
	flag.StringVar(&c.work, "work", "", "scratch directory (default: a new temporary one, removed afterwards)")
	flag.IntVar(&c.runs, "runs", 5, "runs per command for the headline rows (the median is reported)")
	flag.IntVar(&c.curveRuns, "curve-runs", 3, "runs per command for each curve point")
	flag.Int64Var(&c.size, "size", 1<<30, "payload size for the issue 2 rows (pack, extract, dump, embed, wrapper --dry-run)")
	flag.Int64Var(&c.bundleSize, "bundle-size", 256<<20, "payload size for the issue 3 bundler rows")
	flag.IntVar(&c.objects, "objects", 1000, "fat objects (and archive members) for the wrapper overhead row")
	flag.IntVar(&c.kernels, "kernels", 4000, "kernels in the module of the split rows (the scaling row compares with a quarter of it)")
	flag.DurationVar(&c.runLimit, "run-timeout", 10*time.Minute, "time limit of any one measured run (a hung tool fails its row instead of stopping the bench)")
	flag.DurationVar(&c.splitTimeout, "split-timeout", 90*time.Second, "time limit per llvm-split run on the kernel-count curve (points after a timeout are skipped)")
	flag.DurationVar(&c.slow, "slow", 30*time.Second, "a command whose first run takes longer than this is run 3 times instead of -runs (0 = never)")
	flag.StringVar(&c.only, "only", "", "run only cases and curves whose name contains this (case-insensitive)")
	flag.BoolVar(&c.quick, "quick", false, "small sizes, 3 runs, 1 run per curve point: a smoke test in a minute or two")
	flag.BoolVar(&c.curves, "curves", true, "run the issue 7 scaling curves")
	out := flag.String("out", "", "write the markdown report here (plots go next to it)")
	flag.StringVar(&c.baseline, "baseline", "", "the report whose offload-kit wall times this run is checked against (default: -out as committed at HEAD; \"none\": no check)")
	flag.StringVar(&c.compareRev, "compare", "", "also run each selected row's offload-kit side built at this git revision, paired with this tree's (e.g. HEAD~1)")
	flag.Parse()
	if c.quick {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		def := func(name string, apply func()) {
			if !set[name] {
				apply()
			}
		}
		def("runs", func() { c.runs = 3 })
		def("curve-runs", func() { c.curveRuns = 1 })
		def("size", func() { c.size = 32 << 20 })
		def("bundle-size", func() { c.bundleSize = 16 << 20 })
		def("objects", func() { c.objects = 100 })
		def("kernels", func() { c.kernels = 400 })
		def("split-timeout", func() { c.splitTimeout = 20 * time.Second })
	}
	var err error
	c.bin, err = filepath.Abs(c.bin)
	must(err)
	c.docs = "docs"
	if *out != "" {
		c.docs = filepath.Dir(*out)
	}
	keep := c.work != ""
	if !keep {
		c.work, err = os.MkdirTemp("", "offload-kit-bench-")
		must(err)
	} else {
		c.work, err = filepath.Abs(c.work)
		must(err)
	}
	// The tools' own temporary files (clang-linker-wrapper's extracted
	// images, ...) go to the scratch directory too.
	c.tmp = filepath.Join(c.work, "tmp")
	must(os.MkdirAll(c.tmp, 0o755))

	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "offload-kit-bench-"); err == nil {
			c.fast = d
		}
	}
	buildLauncher(&c)
	c.shown = c.runs
	if c.fast != "" {
		c.stdoutFile = filepath.Join(c.fast, "stdout")
	} else {
		c.stdoutFile = filepath.Join(c.tmp, "stdout")
	}
	code := runAll(&c, *out)
	if c.fast != "" {
		os.RemoveAll(c.fast)
	}
	if keep {
		os.RemoveAll(c.tmp)
	} else {
		os.RemoveAll(c.work)
	}
	os.Exit(code)
}

func (c *config) selected(name string) bool {
	return c.only == "" || strings.Contains(strings.ToLower(name), strings.ToLower(c.only))
}

func runAll(c *config, out string) int {
	if err := checkValidators(c, cases(), curves(c)); err != nil {
		must(err)
	}
	prev, prevDesc := loadBaseline(c, out)
	if c.compareRev != "" {
		rb, err := buildRev(c, c.compareRev)
		if err != nil {
			must(fmt.Errorf("-compare %s: %v", c.compareRev, err))
		}
		c.rev = rb
		defer os.RemoveAll(rb.dir)
	}
	var results []result
	for _, bc := range cases() {
		bc.name = c.names(bc.name)
		bc.refDesc = c.names(bc.refDesc)
		if !c.selected(bc.name) {
			continue
		}
		logf("%s ...", bc.name)
		r := runCase(c, bc)
		flagRegression(&r, prev)
		results = append(results, r)
		status := "ok"
		if !r.ok {
			status = "MISS: " + strings.Join(r.notes, "; ")
		}
		if r.regressed {
			status += fmt.Sprintf("; REGRESSED: %.2f× the last report's %s", ratio(r.ours.wall, r.prev), fmtDur(r.prev))
		}
		if r.rev != nil {
			status += "; " + r.rev.summary(c)
		}
		logf("%s: ours %s / %s, ref %s / %s: %s", bc.name, c.fmtM(r.ours, false), c.fmtM(r.ours, true), c.fmtM(r.ref, false), c.fmtM(r.ref, true), status)
	}
	var cs []curveResult
	if c.curves {
		for _, cv := range curves(c) {
			if !c.selected(cv.name) {
				continue
			}
			logf("curve %s ...", cv.name)
			cs = append(cs, runCurve(c, cv))
		}
	}
	report := render(c, results, cs, prevDesc)
	fmt.Print(report)
	if out != "" {
		must(os.WriteFile(out, []byte(report), 0o644))
	}
	logf("done in %s", time.Since(c.started).Round(time.Second))
	return exitStatus(results, cs)
}

// exitStatus is 3 when a row missed its target, failed, timed an invalid
// output, or got more than 20% slower (against the last report or the
// -compare revision), or a curve failed; 0 otherwise.
func exitStatus(results []result, cs []curveResult) int {
	for _, r := range results {
		if !r.ok || r.regressed || (r.rev != nil && r.rev.regressed()) {
			return 3 // a miss is reported, and visible in the exit status
		}
	}
	for _, cr := range cs {
		if cr.failed {
			return 3
		}
	}
	return 0
}

// checkValidators refuses to start when a selected row times a tool
// without validating its output (issue 24: a row with an invalid output
// is a failure, never a figure), or a selected curve operation does.
func checkValidators(c *config, bcs []benchCase, cvs []curve) error {
	var missing []string
	for _, bc := range bcs {
		if c.selected(c.names(bc.name)) && bc.validate == nil && bc.custom == nil {
			missing = append(missing, fmt.Sprintf("row %q", c.names(bc.name)))
		}
	}
	for _, cv := range cvs {
		for _, op := range cv.ops {
			if c.curves && c.selected(cv.name) && op.validate == nil {
				missing = append(missing, fmt.Sprintf("curve %q, operation %q", cv.name, op.name))
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no validator (benchCase.validate) for %s: every row that times a tool checks its output", strings.Join(missing, ", "))
	}
	return nil
}

func runCase(c *config, bc benchCase) result {
	r := result{bc: bc}
	if bc.setup != nil {
		if err := bc.setup(c); err != nil {
			if errors.Is(err, errSkip) {
				// An optional input is missing: reported, not failed.
				r.ok = true
				r.ours.err, r.ref.err = "not run (see the note)", "not run (see the note)"
				r.notes = append(r.notes, err.Error())
				return r
			}
			r.ours.err = "setup: " + firstLines(err.Error(), 3)
			r.notes = append(r.notes, "setup failed: "+firstLines(err.Error(), 2))
			return r
		}
	}
	if bc.target != nil {
		r.tgt = bc.target(c)
	}
	if bc.custom != nil {
		if err := bc.custom(c, &r); err != nil {
			r.notes = append(r.notes, firstLines(err.Error(), 2))
			r.ok = false
			return r
		}
	} else {
		o, l := bc.ours(c), bc.ref(c)
		r.argv = [2]string{c.shorten(o.argv), c.shorten(l.argv)}
		ok, rk := "", ""
		if bc.oursKey != nil {
			ok = bc.oursKey(c)
		}
		if bc.refKey != nil {
			rk = bc.refKey(c)
		}
		r.ours, r.ref = c.compare(probe{ok, o, bc.validator(c, "ours")}, probe{rk, l, bc.validator(c, "ref")}, bc.runsFor(c), 0, 0)
	}
	r.ok, r.notes = check(r.tgt, r.ours, r.ref, r.notes)
	if bc.check != nil && r.ours.ok() {
		n, pass := bc.check(c, &r)
		r.notes = append(r.notes, n...)
		r.ok = r.ok && pass
	}
	r.ok = r.ok && !r.miss
	// After check, which may read the outputs the row's runs left (the
	// compressed sizes): the -compare runs overwrite them.
	if c.rev != nil && bc.custom == nil {
		r.rev = c.compareWithRev(bc)
	}
	return r
}

// runsFor is the number of runs of a row's commands.
func (bc benchCase) runsFor(c *config) int {
	if bc.runs > c.runs && !c.quick {
		return bc.runs
	}
	return c.runs
}

// validator binds a row's validate to one side ("ours" or "ref").
func (bc benchCase) validator(c *config, who string) func(side) error {
	if bc.validate == nil {
		return nil
	}
	return func(s side) error { return bc.validate(c, who, s) }
}

// probe is one command to measure: its memo key ("" = not shared), the
// side, and the check of what its last timed run wrote or printed.
type probe struct {
	key      string
	s        side
	validate func(side) error
}

// compare runs both sides alternately, so drift affects both equally:
// runs times each (refRuns for the reference, when > 0). A side whose key
// is already in the memo (with enough runs) is not run again. refLimit
// caps each reference run (0 = none); after a failure or a timeout that
// side stops. Right after a side's last run, before the other side's run
// or anything else can remove its outputs, its validator checks them; a
// failure marks the measurement invalid (the memo keeps the verdict).
func (c *config) compare(ours, ref probe, runs, refRuns int, refLimit time.Duration) (measurement, measurement) {
	type acc struct {
		probe
		runs    int
		limit   time.Duration
		walls   []time.Duration
		rss     []int64
		m       measurement
		done    bool
		invalid string
	}
	if refRuns <= 0 {
		refRuns = runs
	}
	if refLimit <= 0 {
		refLimit = c.runLimit
	}
	sides := []*acc{{probe: ours, runs: runs, limit: c.runLimit}, {probe: ref, runs: refRuns, limit: refLimit}}
	for _, a := range sides {
		if m, hit := c.memo[a.key]; hit && a.key != "" && (m.runs >= a.runs || !m.ok()) {
			a.m, a.done = m, true
		}
		if a.s.argv == nil {
			a.done = true
		}
	}
	for i := 0; i < max(runs, refRuns); i++ {
		for _, a := range sides {
			if a.done || i >= a.runs {
				continue
			}
			w, rss, err := c.run(a.s, a.limit)
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				a.m = measurement{wall: a.limit, timedOut: true, runs: len(a.walls)}
				a.done = true
			case err != nil:
				a.m = measurement{err: firstLines(err.Error(), 4), runs: len(a.walls)}
				a.done = true
			default:
				a.walls, a.rss = append(a.walls, w), append(a.rss, rss)
				if len(a.walls) == 1 && c.slow > 0 && w > c.slow && a.runs > 3 {
					a.runs = 3 // a very slow command: the median of 3
				}
				if len(a.walls) == a.runs {
					a.invalid = c.validateRun(a.validate, a.s)
				}
			}
		}
	}
	for _, a := range sides {
		if !a.done && len(a.walls) > 0 {
			a.m = measurement{wall: median(a.walls), rss: medianI(a.rss), runs: len(a.walls), lo: slices.Min(a.walls), hi: slices.Max(a.walls), invalid: a.invalid}
		}
		if a.key != "" && a.s.argv != nil {
			if m, hit := c.memo[a.key]; !hit || m.runs < a.m.runs {
				c.memo[a.key] = a.m
			}
		}
		for _, d := range a.s.fresh {
			os.RemoveAll(d)
		}
	}
	return sides[0].m, sides[1].m
}

// validateRun runs a side's validator on its last run; it returns the
// verdict ("" = valid).
func (c *config) validateRun(v func(side) error, s side) string {
	if v == nil {
		return "" // checkValidators refused to start without one
	}
	t := time.Now()
	err := v(s)
	// What it printed can be large (the kernels reference: 295 MB of
	// llvm-readelf output, on the memory file system when there is one).
	os.Truncate(c.stdoutFile, 0)
	if d := time.Since(t); d > 5*time.Second {
		logf("  validating %s took %s", filepath.Base(s.argv[0]), d.Round(100*time.Millisecond))
	}
	if err != nil {
		return firstLines(err.Error(), 3)
	}
	return ""
}

// run runs one command and returns its wall time and the peak RSS that
// getrusage reports for it (Linux: the maximum over the child and the
// descendants it waited for). Its stdout goes to c.stdoutFile and its
// stderr to c.lastStderr, for the validators (printed).
func (c *config) run(s side, limit time.Duration) (time.Duration, int64, error) {
	for _, d := range s.fresh {
		os.RemoveAll(d)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 0, 0, err
		}
	}
	if s.prep != nil {
		if err := s.prep(); err != nil {
			return 0, 0, err
		}
	}
	if len(s.fresh) > 0 || s.prep != nil {
		// Flush what earlier runs wrote and deleted (untimed): otherwise
		// the journal commit and writeback of, say, 12 000 deleted files
		// land in this run and decide its time (0.3–6 s for the same
		// split on this VM's disk).
		syscall.Sync()
	}
	ctx := context.Background()
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	argv := s.argv
	rssFile := filepath.Join(c.tmp, "maxrss")
	if c.launcher != "" {
		argv = append([]string{c.launcher, rssFile}, argv...)
		os.Remove(rssFile)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "TMPDIR="+c.tmp)
	// A timeout stops the whole process group (the launcher's child too);
	// the launcher reaps its child, or is killed 10 s later.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sig := syscall.SIGKILL
	if c.launcher != "" {
		sig = syscall.SIGTERM
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, sig) }
	cmd.WaitDelay = 10 * time.Second
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if c.stdoutFile != "" {
		f, err := os.Create(c.stdoutFile)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		cmd.Stdout = f
	}
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	c.lastStderr = errb.String()
	if ctx.Err() != nil {
		return d, 0, ctx.Err()
	}
	if err != nil {
		return d, 0, fmt.Errorf("%s: %v: %s", filepath.Base(s.argv[0]), err, c.shorten([]string{strings.TrimSpace(errb.String())}))
	}
	if c.launcher != "" {
		b, err := os.ReadFile(rssFile)
		if err != nil {
			return d, 0, fmt.Errorf("launcher: %v", err)
		}
		kib, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return d, kib * 1024, err
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return d, ru.Maxrss * 1024, nil
}

// launcherSource forks (a real fork, not Go's vfork) and waits for the
// measured command. On Linux, exec charges the replaced address space's
// peak RSS to the new program; after Go's CLONE_VM vfork that would be
// this harness's own peak, so every figure would be floored at it. The
// launcher's address space is tiny, so the floor is about 1 MiB.
//
// On a timeout the harness sends SIGTERM to the process group: the
// command dies, and the launcher (whose handler does nothing) reaps it.
const launcherSource = `#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/resource.h>
static void on_term(int s) { (void)s; }
int main(int argc, char **argv) {
  if (argc < 3) return 125;
  struct sigaction sa = {0};
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, 0);
  pid_t pid = fork();
  if (pid < 0) { perror("fork"); return 126; }
  if (pid == 0) { execvp(argv[2], argv + 2); perror(argv[2]); _exit(127); }
  int st; struct rusage ru;
  while (wait4(pid, &st, 0, &ru) < 0) {
    if (errno != EINTR) { perror("wait4"); return 126; }
  }
  FILE *f = fopen(argv[1], "w");
  if (f) { fprintf(f, "%ld\n", ru.ru_maxrss); fclose(f); }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return 128 + WTERMSIG(st);
}
`

// buildLauncher compiles the launcher with LLVM's clang (or cc); without
// it, RSS is read from Go's own wait4 and the report says so.
func buildLauncher(c *config) {
	src := filepath.Join(c.work, "launcher.c")
	exe := filepath.Join(c.work, "launcher")
	if err := os.WriteFile(src, []byte(launcherSource), 0o644); err != nil {
		return
	}
	for _, cc := range []string{c.tool("clang"), "cc", "gcc"} {
		if err := exec.Command(cc, "-O2", "-o", exe, src).Run(); err == nil {
			c.launcher = exe
			return
		}
	}
	logf("warning: no C compiler for the RSS launcher; RSS figures are floored at the harness's own peak RSS")
}

func check(t target, ours, ref measurement, notes []string) (bool, []string) {
	if ours.err != "" {
		return false, append(notes, "offload-kit failed: "+firstLines(ours.err, 1))
	}
	if ours.timedOut {
		return false, append(notes, "offload-kit timed out after "+fmtDur(ours.wall))
	}
	if ours.runs == 0 {
		return false, append(notes, "offload-kit not measured")
	}
	ok := true
	// An invalid output is a failure, whichever side wrote it: the
	// figures of a run that did not do the work compare nothing.
	if ours.invalid != "" {
		ok = false
		notes = append(notes, "invalid output (ours): "+ours.invalid)
	}
	if ref.invalid != "" {
		ok = false
		notes = append(notes, "invalid output (reference): "+ref.invalid)
	}
	if !ok {
		return false, notes
	}
	needRef := t.maxWallRatio > 0 || t.maxRSSRatio > 0
	if ref.err != "" {
		notes = append(notes, "reference failed: "+firstLines(ref.err, 1))
		ok = ok && !needRef
	}
	if t.maxWallRatio > 0 && ref.ok() && float64(ours.wall) > t.maxWallRatio*float64(ref.wall) {
		ok = false
		notes = append(notes, fmt.Sprintf("wall ratio %.3f > %.3g", ratio(ours.wall, ref.wall), t.maxWallRatio))
	}
	if t.maxWall > 0 && ours.wall > t.maxWall {
		ok = false
		notes = append(notes, fmt.Sprintf("wall %s > %s", fmtDur(ours.wall), fmtDur(t.maxWall)))
	}
	if t.maxRSS > 0 && ours.rss > t.maxRSS {
		ok = false
		notes = append(notes, fmt.Sprintf("RSS %s > %s", fmtBytes(ours.rss), fmtBytes(t.maxRSS)))
	}
	if t.maxRSSRatio > 0 && ref.ok() && float64(ours.rss) > t.maxRSSRatio*float64(ref.rss) {
		ok = false
		notes = append(notes, fmt.Sprintf("RSS ratio %.3f > %.3g", float64(ours.rss)/float64(ref.rss), t.maxRSSRatio))
	}
	return ok, notes
}

// shorten is argv as the report prints it: long lists cut, the scratch
// and bin directories shortened, and an environment setting that extends
// PATH (env PATH=<dir>:<the harness's PATH>) with the machine's own PATH
// written as $PATH.
func (c *config) shorten(argv []string) string {
	var parts []string
	path := os.Getenv("PATH")
	for i, a := range argv {
		if rest, ok := strings.CutPrefix(a, "PATH="); ok && path != "" && strings.HasSuffix(rest, ":"+path) {
			a = "PATH=" + strings.TrimSuffix(rest, path) + "$PATH"
		}
		if i == 20 && len(argv) > 24 {
			parts = append(parts, fmt.Sprintf("… (%d more arguments)", len(argv)-21))
			parts = append(parts, argv[len(argv)-1])
			break
		}
		parts = append(parts, a)
	}
	s := strings.Join(parts, " ")
	s = strings.ReplaceAll(s, c.work+"/", "")
	if c.bin != "" {
		s = strings.ReplaceAll(s, c.bin, "bin")
	}
	return s
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(max(b, 1)) }

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func medianI(d []int64) int64 {
	s := append([]int64(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
}

// fmtM formats a measurement's wall time (rss=false) or peak RSS.
func (c *config) fmtM(m measurement, rss bool) string {
	switch {
	case m.err != "":
		return "FAILED"
	case m.invalid != "":
		if rss {
			return "–"
		}
		return "invalid"
	case m.timedOut:
		if rss {
			return "–"
		}
		return "> " + fmtDur(m.wall) + " (timeout)"
	case m.runs == 0:
		return "–"
	case rss:
		return fmtBytes(m.rss)
	case m.runs < c.shown:
		return fmt.Sprintf("%s (%d runs)", fmtDur(m.wall), m.runs)
	default:
		return fmtDur(m.wall)
	}
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " / ")
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench [%6s]: %s\n", time.Since(start).Round(time.Second), fmt.Sprintf(format, args...))
}

var start = time.Now()

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// writeData writes n deterministic bytes that look like machine code: a
// mix of repeated instruction-like patterns and noise, so compressors see
// realistic redundancy.
func writeData(path string, n int64, seed uint64) error {
	if st, err := os.Stat(path); err == nil && st.Size() == n {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	buf := make([]byte, 1<<20)
	var dict [256][16]byte
	for i := range dict {
		for j := range dict[i] {
			dict[i][j] = byte(r.Uint32())
		}
	}
	for done := int64(0); done < n; {
		for i := 0; i < len(buf); {
			if r.IntN(4) == 0 {
				buf[i] = byte(r.Uint32())
				i++
				continue
			}
			i += copy(buf[i:], dict[r.IntN(64)][:4+r.IntN(12)])
		}
		m := min(int64(len(buf)), n-done)
		if _, err := f.Write(buf[:m]); err != nil {
			return err
		}
		done += m
	}
	return f.Close()
}

// sh runs a setup command (not measured).
func (c *config) sh(dir string, argv ...string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+c.tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", c.shorten(argv), err, out)
	}
	return nil
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

var _ = runtime.NumCPU
