// Command bench compares offload-kit's tools with the LLVM 22 tools they
// replace, in one run: wall time and peak RSS (median of -runs runs each),
// ratios, and each issue's target, checked. It rewrites docs/performance.md.
//
//	go run ./bench -bin ./bin -llvm /usr/lib/llvm-22/bin -out docs/performance.md
//
// Inputs are generated deterministically in -work (default: a temporary
// directory) and removed afterwards.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
)

type config struct {
	bin, llvm, work string
	runs            int
	size            int64
	only            string
}

// measurement is the median over runs of one command.
type measurement struct {
	wall time.Duration
	rss  int64 // bytes
}

// side is one tool's command in a comparison.
type side struct {
	argv []string
	dir  string
}

// target is an issue's acceptance bound for a case.
type target struct {
	maxWallRatio float64       // ours/ref wall, 0 = none
	maxWall      time.Duration // absolute, 0 = none
	maxRSS       int64         // absolute bytes, 0 = none
	maxRSSRatio  float64
	text         string
}

type benchCase struct {
	name    string
	issue   int
	setup   func(c *config) error
	ours    func(c *config) side
	ref     func(c *config) side
	target  target
	refDesc string
}

type result struct {
	bc        benchCase
	ours, ref measurement
	ok        bool
	notes     []string
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "bin", "directory with offload-kit binaries")
	flag.StringVar(&c.llvm, "llvm", "/usr/lib/llvm-22/bin", "directory with the LLVM 22 tools")
	flag.StringVar(&c.work, "work", "", "scratch directory (default: a new temporary one)")
	flag.IntVar(&c.runs, "runs", 5, "runs per command (the median is reported)")
	flag.Int64Var(&c.size, "size", 1<<30, "payload size for the large-file cases")
	flag.StringVar(&c.only, "only", "", "run only cases whose name contains this")
	out := flag.String("out", "", "write the markdown report here")
	flag.Parse()
	var err error
	c.bin, _ = filepath.Abs(c.bin)
	if c.work == "" {
		c.work, err = os.MkdirTemp("", "offload-kit-bench-")
		must(err)
		defer os.RemoveAll(c.work)
	}
	var results []result
	for _, bc := range cases() {
		if c.only != "" && !strings.Contains(bc.name, c.only) {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: %s ...\n", bc.name)
		if err := bc.setup(&c); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: setup: %v\n", bc.name, err)
			os.Exit(1)
		}
		r := result{bc: bc}
		r.ours, r.ref = compare(&c, bc.ours(&c), bc.ref(&c))
		r.ok, r.notes = check(bc.target, r.ours, r.ref)
		results = append(results, r)
		fmt.Fprintf(os.Stderr, "bench: %s: ours %s / %s, llvm %s / %s\n", bc.name, fmtDur(r.ours.wall), fmtBytes(r.ours.rss), fmtDur(r.ref.wall), fmtBytes(r.ref.rss))
	}
	report := render(&c, results)
	fmt.Print(report)
	if *out != "" {
		must(os.WriteFile(*out, []byte(report), 0o644))
	}
	for _, r := range results {
		if !r.ok {
			os.Exit(3) // a miss is reported, and visible in the exit status
		}
	}
}

// compare runs both sides alternately, so drift affects both equally.
func compare(c *config, ours, ref side) (measurement, measurement) {
	var ow, rw []time.Duration
	var orss, rrss []int64
	for i := 0; i < c.runs; i++ {
		w, r := run(ours)
		ow, orss = append(ow, w), append(orss, r)
		w, r = run(ref)
		rw, rrss = append(rw, w), append(rrss, r)
	}
	return measurement{median(ow), medianI(orss)}, measurement{median(rw), medianI(rrss)}
}

func run(s side) (time.Duration, int64) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir = s.dir
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %s: %v\n%s", strings.Join(s.argv, " "), err, errb.String())
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return d, ru.Maxrss * 1024
}

func check(t target, ours, ref measurement) (bool, []string) {
	ok := true
	var notes []string
	if t.maxWallRatio > 0 && float64(ours.wall) > t.maxWallRatio*float64(ref.wall) {
		ok = false
		notes = append(notes, fmt.Sprintf("wall ratio %.2f > %.2f", ratio(ours.wall, ref.wall), t.maxWallRatio))
	}
	if t.maxWall > 0 && ours.wall > t.maxWall {
		ok = false
		notes = append(notes, fmt.Sprintf("wall %s > %s", fmtDur(ours.wall), fmtDur(t.maxWall)))
	}
	if t.maxRSS > 0 && ours.rss > t.maxRSS {
		ok = false
		notes = append(notes, fmt.Sprintf("RSS %s > %s", fmtBytes(ours.rss), fmtBytes(t.maxRSS)))
	}
	if t.maxRSSRatio > 0 && float64(ours.rss) > t.maxRSSRatio*float64(ref.rss) {
		ok = false
		notes = append(notes, fmt.Sprintf("RSS ratio %.2f > %.2f", float64(ours.rss)/float64(ref.rss), t.maxRSSRatio))
	}
	return ok, notes
}

func render(c *config, rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Performance\n\nMeasured by `make bench` (`go run ./bench -bin bin -llvm %s -runs %d -size %d -out docs/performance.md`) on %s, %d CPUs, %s. Each figure is the median of %d runs; the two tools run alternately. RSS is the peak resident set size reported by the kernel (`getrusage`).\n\n",
		c.llvm, c.runs, c.size, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, c.runs)
	b.WriteString("| case | issue | offload-kit wall | offload-kit RSS | LLVM 22 tool | LLVM wall | LLVM RSS | wall ratio | RSS ratio | target | met |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		met := "yes"
		if !r.ok {
			met = "**MISS**: " + strings.Join(r.notes, "; ")
		}
		fmt.Fprintf(&b, "| %s | #%d | %s | %s | %s | %s | %s | %.3f | %.3f | %s | %s |\n",
			r.bc.name, r.bc.issue, fmtDur(r.ours.wall), fmtBytes(r.ours.rss), r.bc.refDesc, fmtDur(r.ref.wall), fmtBytes(r.ref.rss),
			ratio(r.ours.wall, r.ref.wall), float64(r.ours.rss)/float64(max(r.ref.rss, 1)), r.bc.target.text, met)
	}
	b.WriteString("\nCommands (paths relative to the scratch directory):\n\n")
	for _, r := range rs {
		o, l := r.bc.ours(c), r.bc.ref(c)
		fmt.Fprintf(&b, "- **%s**\n  - ours: `%s`\n  - LLVM: `%s`\n", r.bc.name, shorten(c, o.argv), shorten(c, l.argv))
	}
	return b.String()
}

func shorten(c *config, argv []string) string {
	s := strings.Join(argv, " ")
	s = strings.ReplaceAll(s, c.work+"/", "")
	s = strings.ReplaceAll(s, c.bin+"/", "bin/")
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
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}

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
	return nil
}

func sh(dir string, argv ...string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return nil
}
