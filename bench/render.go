package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// command is the command line that reproduces this run from the
// repository's root, as recorded in the report: the harness as make bench
// builds it (bench/ is a module of its own, so "go run ./bench" is not).
func (c *config) command() string {
	var b strings.Builder
	b.WriteString("bin/bench-harness")
	wd, _ := os.Getwd()
	for _, a := range os.Args[1:] {
		if wd != "" {
			a = strings.ReplaceAll(a, wd+"/", "")
		}
		if strings.ContainsAny(a, " \t'\"*?$|&;<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		b.WriteString(" " + a)
	}
	return b.String()
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if i := strings.Index(l, ":"); i >= 0 {
				return strings.TrimSpace(l[i+1:])
			}
		}
	}
	return runtime.GOARCH
}

func toolVersion(c *config) string {
	out, err := exec.Command(c.tool("clang"), "--version").Output()
	if err != nil {
		return "LLVM 22"
	}
	return strings.SplitN(string(out), "\n", 2)[0]
}

func render(c *config, rs []result, cs []curveResult, prevDesc string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Performance\n\n")
	fmt.Fprintf(&b, "offload-kit's tools against the LLVM 22 tools they replace (%s). Regenerate with `make bench`; this file was written by:\n\n", toolVersion(c))
	fmt.Fprintf(&b, "```\n%s\n```\n\n", c.command())
	fmt.Fprintf(&b, "- **When, where**: %s, %d CPUs (%s), %s; load average %s at the start and %s at the end (the machine was shared: expect noise, most in the short rows). The run took %s.\n",
		c.started.UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), cpuModel(), runtime.GOOS+"/"+runtime.GOARCH, startLoad, loadavg(), time.Since(c.started).Round(time.Second))
	fmt.Fprintf(&b, "- **Method**: each headline figure is the median of %d runs (more where a row's method says so; 3 for a command whose first run takes over %s; the table says so), each curve point the median of %d; the two tools run alternately, so drift hits both. Wall time is measured around the child process; RSS is its peak resident set size from `getrusage`/`wait4` (Linux reports the maximum over the child and the descendants it waited for, so a tool that runs `llvm-dis` or `clang` is charged for them). %s Ratios are offload-kit / LLVM: below 1 is better. Inputs are made by the LLVM tools, in a scratch directory that is deleted afterwards; the tools' temporary files go there too (`TMPDIR`).\n", c.runs, c.slow, c.curveRuns, launcherNote(c))
	fmt.Fprintf(&b, "- **Validation**: every row checks what each side's last timed run wrote or printed (round trips against the inputs, LLVM's tools reading our outputs, `opt -passes=verify`, counts; each row's method says how). A side whose output fails is a failure, marked **INVALID**, never a figure.\n")
	if prevDesc != "" {
		fmt.Fprintf(&b, "- **Regressions**: each row's offload-kit wall is compared with the row of the same name in %s; more than %.0f%% slower is a regression (the \"vs last report\" column: this run's wall over that one, with that figure).\n", prevDesc, (slower-1)*100)
	} else {
		fmt.Fprintf(&b, "- **Regressions**: no earlier report to compare with (`-baseline`).\n")
	}
	fmt.Fprintf(&b, "- **Exit status**: 0 when every target is met, 3 when any is missed, a tool failed, an output was invalid or a row regressed (a miss is never hidden), 1 when the harness fails. Subsets: `-only <substring>`, `-quick` (small sizes), `-curves=false`.\n\n")

	misses, regressed := 0, 0
	for _, r := range rs {
		if !r.ok {
			misses++
		}
		if r.regressed {
			regressed++
		}
	}
	fmt.Fprintf(&b, "## Headline rows\n\n")
	if misses > 0 {
		fmt.Fprintf(&b, "**%d of %d rows miss their target** (marked **MISS**):\n\n", misses, len(rs))
		for _, r := range rs {
			if !r.ok {
				fmt.Fprintf(&b, "- %s (#%d): %s\n", r.bc.name, r.bc.issue, escape(strings.Join(r.notes, "; ")))
			}
		}
		b.WriteString("\n")
	} else if len(rs) > 0 {
		fmt.Fprintf(&b, "All %d rows meet their targets.\n\n", len(rs))
	}
	if regressed > 0 {
		fmt.Fprintf(&b, "**%s more than %.0f%% slower than in the last report**:\n\n", rowsAre(regressed), (slower-1)*100)
		for _, r := range rs {
			if r.regressed {
				fmt.Fprintf(&b, "- %s (#%d): %s\n", r.bc.name, r.bc.issue, fmtPrev(r))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| case | issue | offload-kit wall | offload-kit RSS | vs last report | compared with | its wall | its RSS | wall ratio | RSS ratio | target | met |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		met := "yes"
		switch {
		case r.invalid():
			met = "**INVALID**"
		case !r.ok:
			met = "**MISS**"
		}
		if len(r.notes) > 0 {
			met += ": " + strings.Join(r.notes, "; ")
		}
		tgt := r.tgt.text
		if tgt == "" {
			tgt = "–"
			if r.ok {
				met = "–"
				if len(r.notes) > 0 {
					met = strings.Join(r.notes, "; ")
				}
			}
		}
		fmt.Fprintf(&b, "| %s | #%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.bc.name, r.bc.issue, c.fmtM(r.ours, false), c.fmtM(r.ours, true), fmtPrev(r), r.bc.refDesc, c.fmtM(r.ref, false), c.fmtM(r.ref, true),
			fmtRatio(r.ours, r.ref, false), fmtRatio(r.ours, r.ref, true), tgt, escape(met))
	}
	renderRev(c, &b, rs)
	b.WriteString("\n### How each row is measured\n\nPaths are relative to the scratch directory; `bin/` is offload-kit's, bare LLVM tool names are in the LLVM directory.\n\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "- **%s**", r.bc.name)
		if r.bc.method != "" {
			fmt.Fprintf(&b, ": %s", r.bc.method)
		}
		b.WriteString("\n")
		if r.argv[0] != "" {
			fmt.Fprintf(&b, "  - offload-kit: `%s`\n", shortTool(c, r.argv[0]))
		}
		if r.argv[1] != "" {
			fmt.Fprintf(&b, "  - compared with: `%s`\n", shortTool(c, r.argv[1]))
		}
		var spread []string
		for i, m := range []measurement{r.ours, r.ref} {
			if m.ok() && m.runs > 1 && m.hi > 0 {
				spread = append(spread, fmt.Sprintf("%s %s–%s", []string{"offload-kit", "compared"}[i], fmtDur(m.lo), fmtDur(m.hi)))
			}
		}
		if len(spread) > 0 {
			fmt.Fprintf(&b, "  - fastest–slowest run: %s\n", strings.Join(spread, "; "))
		}
		for _, m := range []measurement{r.ours, r.ref} {
			if m.err != "" {
				fmt.Fprintf(&b, "  - failure: `%s`\n", escape(firstLines(m.err, 2)))
			}
		}
	}
	c.shown = c.curveRuns
	defer func() { c.shown = c.runs }()
	for _, cr := range cs {
		fmt.Fprintf(&b, "\n## %s (issue %d)\n\n", strings.TrimPrefix(cr.cv.name, "curve: "), cr.cv.issue)
		if cr.cv.note != "" {
			fmt.Fprintf(&b, "%s\n\n", cr.cv.note)
		}
		for _, n := range cr.notes {
			fmt.Fprintf(&b, "- **%s**\n", escape(n))
		}
		for i, op := range cr.cv.ops {
			fmt.Fprintf(&b, "### %s\n\n![%s: offload-kit vs %s](%s)\n\n", op.name, op.name, op.refDesc, op.file)
			fmt.Fprintf(&b, "| %s | offload-kit wall | offload-kit RSS | %s wall | its RSS | wall ratio | RSS ratio |\n|---|---|---|---|---|---|---|\n", strings.SplitN(cr.cv.xlabel, " (", 2)[0], op.refDesc)
			for _, p := range cr.points[i] {
				rw, rr := c.fmtM(p.ref, false), c.fmtM(p.ref, true)
				if p.skipped {
					rw, rr = "not run (earlier timeout)", "–"
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", cr.cv.xfmt(p.x), c.fmtM(p.ours, false), c.fmtM(p.ours, true), rw, rr,
					fmtRatio(p.ours, p.ref, false), fmtRatio(p.ours, p.ref, true))
			}
			b.WriteString("\n")
			if len(cr.points[i]) > 0 {
				p := cr.points[i][0]
				fmt.Fprintf(&b, "Commands at %s: `%s` and `%s`.\n\n", cr.cv.xfmt(p.x), shortTool(c, c.shorten(op.ours(c, p.x).argv)), shortTool(c, c.shorten(op.ref(c, p.x).argv)))
			}
		}
	}
	return b.String()
}

var startLoad = loadavg()

func launcherNote(c *config) string {
	if c.launcher == "" {
		return "**No C compiler was found for the launcher, so RSS figures are floored at the harness's own peak RSS** (Go starts children with a CLONE_VM vfork, and exec charges the old address space's peak to the new program)."
	}
	return "Every command is started through a tiny C launcher that forks, execs and reads `wait4`'s rusage: Go starts children with a CLONE_VM vfork, and exec would charge the harness's own peak RSS to the tool. The launcher adds about a millisecond to both sides' wall times."
}

func shortTool(c *config, s string) string {
	return strings.ReplaceAll(s, c.llvm+"/", "")
}

func fmtRatio(o, r measurement, rss bool) string {
	if !o.ok() || !r.ok() {
		if o.ok() && r.timedOut && !rss {
			return fmt.Sprintf("< %.3f", ratio(o.wall, r.wall))
		}
		return "–"
	}
	if rss {
		return fmt.Sprintf("%.3f", float64(o.rss)/float64(max(r.rss, 1)))
	}
	return fmt.Sprintf("%.3f", ratio(o.wall, r.wall))
}

func escape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
