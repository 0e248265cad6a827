package main

// The regression guard (issue 24): each row's offload-kit wall time is
// checked against the last committed report, and, with -compare REV,
// against the tools built at REV, paired with this tree's in one run.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// slower is the factor above which an offload-kit wall time is reported
// as a regression.
const slower = 1.2

// loadBaseline reads the report this run is checked against: -baseline,
// or else -out as committed at HEAD. It returns the offload-kit wall time
// of each headline row by name, and a description for the report ("" when
// there is none).
func loadBaseline(c *config, out string) (map[string]time.Duration, string) {
	switch {
	case c.baseline == "none":
		return nil, ""
	case c.baseline != "":
		b, err := os.ReadFile(c.baseline)
		if err != nil {
			must(fmt.Errorf("-baseline: %v", err))
		}
		return parseReport(string(b)), "`" + c.baseline + "`"
	case out == "":
		return nil, ""
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, ""
	}
	dir := filepath.Dir(abs)
	b, err := exec.Command("git", "-C", dir, "show", "HEAD:./"+filepath.Base(abs)).Output()
	if err != nil {
		logf("no committed %s to compare with: the regression check is off", out)
		return nil, ""
	}
	commit, _ := exec.Command("git", "-C", dir, "rev-parse", "--short", "HEAD").Output()
	return parseReport(string(b)), fmt.Sprintf("`%s` as committed at HEAD (%s)", out, strings.TrimSpace(string(commit)))
}

// parseReport reads the headline table of a report that render wrote: the
// offload-kit wall time of each row, by case name. Rows without a figure
// (failed, timed out, invalid, not run) are left out.
func parseReport(md string) map[string]time.Duration {
	rows := map[string]time.Duration{}
	col := -1
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "|") {
			col = -1
			continue
		}
		cells := tableCells(l)
		switch {
		case col < 0:
			if len(cells) > 0 && cells[0] == "case" {
				for i, h := range cells {
					if h == "offload-kit wall" {
						col = i
					}
				}
			}
		case strings.HasPrefix(cells[0], "---"):
		case col < len(cells):
			if d, ok := parseWall(cells[col]); ok {
				rows[cells[0]] = d
			}
		}
	}
	return rows
}

// tableCells splits a markdown table row into its trimmed cells (an
// escaped \| stays in its cell).
func tableCells(l string) []string {
	l = strings.ReplaceAll(strings.Trim(strings.TrimSpace(l), "|"), `\|`, "\x00")
	cells := strings.Split(l, "|")
	for i, s := range cells {
		cells[i] = strings.ReplaceAll(strings.TrimSpace(s), "\x00", `\|`)
	}
	return cells
}

// parseWall reads a wall time as fmtM writes it: "554.1 ms", "1.88 s",
// "68.28 s (3 runs)". A timeout ("> 90 s (timeout)") or a failure is no
// figure.
func parseWall(s string) (time.Duration, bool) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return 0, false
	}
	switch f[1] {
	case "ms":
		return time.Duration(v * float64(time.Millisecond)), true
	case "s":
		return time.Duration(v * float64(time.Second)), true
	}
	return 0, false
}

// flagRegression sets r.prev and r.regressed from the last report's
// figure for a row of exactly the same name (so -quick rows, whose names
// carry smaller sizes, are compared only with -quick rows).
func flagRegression(r *result, prev map[string]time.Duration) {
	p, ok := prev[r.bc.name]
	if !ok || p <= 0 || !r.ours.ok() {
		return
	}
	r.prev = p
	r.regressed = float64(r.ours.wall) > slower*float64(p)
}

// revBuild is offload-kit built at the -compare revision.
type revBuild struct {
	rev, commit string // as given; the short commit
	dirty       bool   // this tree has uncommitted changes to tracked files
	dir, bin    string // removed at the end; bin holds the tools
}

// buildRev builds the tools at rev: a detached git worktree in a
// temporary directory, `make build` there into a temporary bin, and the
// worktree removed again.
func buildRev(c *config, rev string) (*revBuild, error) {
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", args...).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, firstLines(string(out), 2))
		}
		return strings.TrimSpace(string(out)), nil
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	commit, err := git("rev-parse", "--verify", "--short", rev+"^{commit}")
	if err != nil {
		return nil, err
	}
	status, err := git("-C", top, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(c.work, "rev-")
	if err != nil {
		return nil, err
	}
	rb := &revBuild{rev: rev, commit: commit, dirty: status != "", dir: dir, bin: filepath.Join(dir, "bin")}
	wt := filepath.Join(dir, "src")
	logf("building offload-kit at %s (%s) in a temporary worktree ...", rev, commit)
	if _, err := git("-C", top, "worktree", "add", "--detach", wt, commit); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer func() {
		if _, err := git("-C", top, "worktree", "remove", "--force", wt); err != nil {
			os.RemoveAll(wt)
			git("-C", top, "worktree", "prune")
		}
	}()
	cmd := exec.Command("make", "-C", wt, "--no-print-directory", "build", "BIN="+rb.bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("make build at %s: %v: %s", commit, err, firstLines(string(out), 4))
	}
	return rb, nil
}

// revResult is a row's offload-kit side at this tree (now) and at the
// -compare revision (old), measured alternately.
type revResult struct{ now, old measurement }

func (rr *revResult) ratio() (float64, bool) {
	if !rr.now.ok() || !rr.old.ok() {
		return 0, false
	}
	return ratio(rr.now.wall, rr.old.wall), true
}

func (rr *revResult) regressed() bool {
	q, ok := rr.ratio()
	return ok && q > slower
}

// summary is the log line's account of the comparison.
func (rr *revResult) summary(c *config) string {
	s := fmt.Sprintf("vs %s: %s against %s", c.rev.commit, c.fmtM(rr.now, false), c.fmtM(rr.old, false))
	if q, ok := rr.ratio(); ok {
		s += fmt.Sprintf(" = %.3f×", q)
	}
	if rr.regressed() {
		s += " REGRESSED"
	}
	return s
}

// compareWithRev runs a row's offload-kit side built at this tree and at
// the -compare revision, alternately (A B A B), each run validated as the
// row's. A side that an earlier row compared (the same command) is not
// run again.
func (c *config) compareWithRev(bc benchCase) *revResult {
	old := *c
	old.bin = c.rev.bin
	now, then := bc.ours(c), bc.ours(&old)
	if now.argv == nil {
		return nil
	}
	k := strings.Join(now.argv, "\x00")
	if rr, ok := c.revDone[k]; ok {
		return rr
	}
	v := bc.validator(c, "ours")
	rr := &revResult{}
	rr.now, rr.old = c.compare(probe{"", now, v}, probe{"", then, v}, bc.runsFor(c), 0, 0)
	if c.revDone == nil {
		c.revDone = map[string]*revResult{}
	}
	c.revDone[k] = rr
	return rr
}

// renderRev writes the -compare section of the report.
func renderRev(c *config, b *strings.Builder, rs []result) {
	if c.rev == nil {
		return
	}
	tree := "this tree (HEAD)"
	if c.rev.dirty {
		tree = "this tree (HEAD and uncommitted changes)"
	}
	n, compared := 0, 0
	for _, r := range rs {
		if r.rev != nil {
			compared++
			if r.rev.regressed() {
				n++
			}
		}
	}
	fmt.Fprintf(b, "\n### Against %s (%s)\n\n", c.rev.rev, c.rev.commit)
	if compared == 0 {
		fmt.Fprintf(b, "No selected row has an offload-kit command to compare (a custom measurement, such as the cache proof, is not compared).\n")
		return
	}
	fmt.Fprintf(b, "Each row's offload-kit command, built from %s and from %s (`git worktree` plus `make build`), run alternately (A B A B), each median of the row's runs, each output validated as the row's; a ratio above %.1f is a regression (exit status 3). ", tree, c.rev.commit, slower)
	if n > 0 {
		fmt.Fprintf(b, "**%s more than %.0f%% slower than at %s.**\n\n", rowsAre(n), (slower-1)*100, c.rev.commit)
	} else {
		fmt.Fprintf(b, "No row is more than %.0f%% slower than at %s.\n\n", (slower-1)*100, c.rev.commit)
	}
	b.WriteString("| case | this tree wall | its RSS | " + c.rev.commit + " wall | its RSS | wall ratio | regressed |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		if r.rev == nil {
			continue
		}
		q, ok := r.rev.ratio()
		qs, flag := "–", "–"
		if ok {
			qs, flag = fmt.Sprintf("%.3f", q), "no"
		}
		if r.rev.regressed() {
			flag = "**yes**"
		}
		var why []string
		for _, m := range []struct {
			who string
			m   measurement
		}{{"this tree", r.rev.now}, {c.rev.commit, r.rev.old}} {
			switch {
			case m.m.err != "":
				why = append(why, m.who+" failed: "+firstLines(m.m.err, 1))
			case m.m.invalid != "":
				why = append(why, "invalid output ("+m.who+"): "+m.m.invalid)
			}
		}
		if len(why) > 0 {
			flag = escape(strings.Join(why, "; "))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.bc.name, c.fmtM(r.rev.now, false), c.fmtM(r.rev.now, true),
			c.fmtM(r.rev.old, false), c.fmtM(r.rev.old, true), qs, flag)
	}
}

// fmtPrev formats the "vs last report" cell of a row.
func fmtPrev(r result) string {
	if r.prev == 0 {
		return "–"
	}
	s := fmt.Sprintf("%.2f× (%s)", ratio(r.ours.wall, r.prev), fmtDur(r.prev))
	if r.regressed {
		return "**" + s + ": regressed**"
	}
	return s
}

// rowsAre is "1 row is" or "N rows are".
func rowsAre(n int) string {
	if n == 1 {
		return "1 row is"
	}
	return fmt.Sprintf("%d rows are", n)
}
