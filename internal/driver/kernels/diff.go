package kernels

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/format/codeobj"
	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
)

// DiffOptions selects what kernels diff compares and reports.
type DiffOptions struct {
	A, B   string
	Format string // text (default), json or md
	Top    int    // rows of the change table; 0 = all
	// FailOn and BudgetFile hold budget rules (docs/kernels-json.md): a
	// change that breaks one makes the exit status 1.
	FailOn     string
	BudgetFile string
}

// The metrics kernels diff compares, in output order.
const (
	mSize = iota
	mRegs
	mSGPRs
	mVGPRs
	mAGPRs
	mSpills
	mLDS
	mScratch
	nMetrics
)

// metricNames are the metrics' names in JSON, text and budget rules.
var metricNames = [nMetrics]string{"size", "regs", "sgprs", "vgprs", "agprs", "spills", "lds", "scratch"}

// Metrics are a function's values; a metric the code object does not
// record is unknown (not in JSON, "-" in text, never in a budget).
type Metrics struct {
	v     [nMetrics]int64
	known uint16
}

func (m *Metrics) has(i int) bool { return m != nil && m.known&(1<<i) != 0 }
func (m *Metrics) set(i int, v int64) {
	m.v[i] = v
	m.known |= 1 << i
}

// MarshalJSON writes the known metrics by name.
func (m Metrics) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i := range nMetrics {
		if !m.has(i) {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, metricNames[i])
		b = append(b, ':')
		b = strconv.AppendInt(b, m.v[i], 10)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes: the metrics present are
// known, the others unknown; a name it does not know is an error.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	var vs map[string]int64
	if err := json.Unmarshal(b, &vs); err != nil {
		return err
	}
	*m = Metrics{}
	for name, v := range vs {
		i := slices.Index(metricNames[:], name)
		if i < 0 {
			return fmt.Errorf("unknown metric %q", name)
		}
		m.set(i, v)
	}
	return nil
}

// metricsOf are a function's metrics: regs is NVIDIA's register count or
// AMDGPU's vector registers (VGPRs + AGPRs: what sets occupancy), spills
// AMDGPU's SGPR + VGPR spills (cubins record none).
func metricsOf(fn *Function) Metrics {
	var m Metrics
	if fn.sizeKnown() {
		m.set(mSize, fn.Size)
	}
	r := fn.Resources
	if r.Has(codeobj.ResRegisters) {
		m.set(mRegs, r.Registers)
	}
	if r.Has(codeobj.ResVGPRs) {
		m.set(mRegs, r.VGPRs+r.AGPRs)
		m.set(mVGPRs, r.VGPRs)
	}
	if r.Has(codeobj.ResSGPRs) {
		m.set(mSGPRs, r.SGPRs)
	}
	if r.Has(codeobj.ResAGPRs) {
		m.set(mAGPRs, r.AGPRs)
	}
	if r.Has(codeobj.ResSGPRSpills) || r.Has(codeobj.ResVGPRSpills) {
		m.set(mSpills, r.SGPRSpills+r.VGPRSpills)
	}
	if r.Has(codeobj.ResLDS) {
		m.set(mLDS, r.LDS)
	}
	if r.Has(codeobj.ResScratch) {
		m.set(mScratch, r.Scratch)
	}
	return m
}

// merge adds another copy of a function in the same arch (several
// objects of a library carry it): sizes add up, resources take the
// largest.
func (m *Metrics) merge(o Metrics) {
	for i := range nMetrics {
		if !o.has(i) {
			continue
		}
		switch {
		case !m.has(i):
			m.set(i, o.v[i])
		case i == mSize:
			m.v[i] += o.v[i]
		default:
			m.v[i] = max(m.v[i], o.v[i])
		}
	}
}

// BudgetRule is one rule of --fail-on or a budget file.
//
//	METRIC>N     the function's value in B is over N (every function of B)
//	METRIC+N     it grew by more than N from A to B (functions in both)
//	METRIC+N%    it grew by more than N percent of its value in A
//
// METRIC is size, regs, sgprs, vgprs, agprs, spills, lds or scratch.
type BudgetRule struct {
	Text    string
	Metric  int
	Op      byte // '>' or '+'
	N       int64
	Percent bool
}

// ParseBudget reads comma-separated budget rules; "" is no rule. Errors
// name the rule and what is wrong with it.
func ParseBudget(s string) ([]BudgetRule, error) {
	var out []BudgetRule
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		r, err := parseRule(part)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func parseRule(s string) (BudgetRule, error) {
	i := strings.IndexAny(s, ">+")
	if i < 0 {
		return BudgetRule{}, fmt.Errorf("budget rule %q: want METRIC>N, METRIC+N or METRIC+N%% (e.g. spills>0, regs+8, size+5%%)", s)
	}
	r := BudgetRule{Text: s, Metric: -1, Op: s[i]}
	name := strings.TrimSpace(s[:i])
	for j, n := range metricNames {
		if n == name {
			r.Metric = j
		}
	}
	if r.Metric < 0 {
		return BudgetRule{}, fmt.Errorf("budget rule %q: unknown metric %q (one of %s)", s, name, strings.Join(metricNames[:], ", "))
	}
	num := strings.TrimSpace(s[i+1:])
	if r.Op == '+' && strings.HasSuffix(num, "%") {
		r.Percent, num = true, strings.TrimSpace(strings.TrimSuffix(num, "%"))
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return BudgetRule{}, fmt.Errorf("budget rule %q: %q is not a whole number of 0 or more", s, num)
	}
	r.N = n
	return r, nil
}

// readBudgetFile reads rules from a file: one or more comma-separated
// rules a line; '#' starts a comment.
func readBudgetFile(env *Env, name string) ([]BudgetRule, error) {
	data, err := os.ReadFile(env.Path(name))
	if err != nil {
		return nil, fmt.Errorf("'%s': %s", name, packager.ErrText(err))
	}
	var out []BudgetRule
	for i, l := range strings.Split(string(data), "\n") {
		if j := strings.IndexByte(l, '#'); j >= 0 {
			l = l[:j]
		}
		rs, err := ParseBudget(l)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, i+1, err)
		}
		out = append(out, rs...)
	}
	return out, nil
}

// breaks reports whether the change breaks the rule and how.
func (r *BudgetRule) breaks(c *Change) (string, bool) {
	name := metricNames[r.Metric]
	switch r.Op {
	case '>':
		if c.After == nil || !c.After.has(r.Metric) {
			return "", false
		}
		if v := c.After.v[r.Metric]; v > r.N {
			return fmt.Sprintf("%s is %d", name, v), true
		}
	case '+':
		if c.Before == nil || c.After == nil || !c.Before.has(r.Metric) || !c.After.has(r.Metric) {
			return "", false
		}
		a, b := c.Before.v[r.Metric], c.After.v[r.Metric]
		switch {
		case r.Percent && a > 0 && (b-a)*100 > r.N*a:
			return fmt.Sprintf("%s %d -> %d (%+.1f%%)", name, a, b, float64(b-a)*100/float64(a)), true
		case r.Percent && a == 0 && b > 0:
			return fmt.Sprintf("%s 0 -> %d", name, b), true
		case !r.Percent && b-a > r.N:
			return fmt.Sprintf("%s %d -> %d (%+d)", name, a, b, b-a), true
		}
	}
	return "", false
}

// Change is one function that differs between A and B.
type Change struct {
	Arch     string   `json:"arch"`     // the processor (gfx90a, sm_90)
	TargetA  string   `json:"target_a"` // the target ID in A ("" when added)
	TargetB  string   `json:"target_b"` // and in B ("" when removed)
	Class    string   `json:"class"`    // machine or ir
	Name     string   `json:"name"`     // demangled
	Mangled  string   `json:"mangled"`
	Status   string   `json:"status"`           // added, removed, changed
	Before   *Metrics `json:"before,omitempty"` // absent when added
	After    *Metrics `json:"after,omitempty"`  // absent when removed
	Delta    Metrics  `json:"delta"`            // the metrics known on both sides
	Breaks   []string `json:"breaks,omitempty"`
	sizeDiff int64
}

// ArchDiff is one pair of matched targets (or an unmatched one).
type ArchDiff struct {
	Arch     string `json:"arch"`
	Class    string `json:"class"`
	TargetA  string `json:"target_a"`
	TargetB  string `json:"target_b"`
	FuncsA   int    `json:"functions_a"`
	FuncsB   int    `json:"functions_b"`
	Before   int64  `json:"before"` // code bytes
	After    int64  `json:"after"`
	Delta    int64  `json:"delta"`
	Added    int    `json:"added"`
	Removed  int    `json:"removed"`
	Changed  int    `json:"changed"`
	Features string `json:"features,omitempty"` // "xnack- -> (none)" when the target IDs differ
}

// DiffReport is the kernels diff --format=json document.
type DiffReport struct {
	Schema     int        `json:"schema"`
	A          string     `json:"a"`
	B          string     `json:"b"`
	Archs      []ArchDiff `json:"archs"`
	Changes    []Change   `json:"changes"`
	Budget     []string   `json:"budget"`     // the rules applied
	Violations int        `json:"violations"` // functions that break a rule
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// processor is a target ID without its features: gfx90a:xnack+ ->
// gfx90a; for CUDA, an arch without its arch- or family-specific suffix:
// sm_100f -> sm_100.
func processor(targetID string) string {
	p, _, _ := strings.Cut(targetID, ":")
	if strings.HasPrefix(p, "sm_") && len(p) > 4 && (strings.HasSuffix(p, "a") || strings.HasSuffix(p, "f")) && isDigit(p[len(p)-2]) {
		p = p[:len(p)-1]
	}
	return p
}

// diffSide is one input's functions, by code class and target ID.
type diffSide map[[2]string]map[string]*diffFn

type diffFn struct {
	name, demangled string
	m               Metrics
}

func sideOf(rep *Report) diffSide {
	s := diffSide{}
	for _, r := range rows(rep) {
		k := [2]string{orDefault(r.img.CodeClass, classMachine), arch(r.img)}
		if s[k] == nil {
			s[k] = map[string]*diffFn{}
		}
		if f := s[k][r.fn.Name]; f != nil {
			f.m.merge(metricsOf(r.fn))
			continue
		}
		s[k][r.fn.Name] = &diffFn{r.fn.Name, r.fn.Demangled, metricsOf(r.fn)}
	}
	// Images without functions still name their target.
	for _, f := range rep.Files {
		for i := range f.Images {
			img := &f.Images[i]
			if img.CodeClass == "" {
				continue
			}
			k := [2]string{img.CodeClass, arch(img)}
			if s[k] == nil {
				s[k] = map[string]*diffFn{}
			}
		}
	}
	return s
}

// pairTargets matches A's targets with B's: the same class and target
// ID, then what is left of one class and processor in sorted order
// (gfx900:xnack- with gfx900). Unmatched targets pair with "".
func pairTargets(a, b diffSide) [][2][2]string {
	var out [][2][2]string
	left := map[[2]string][2][]string{} // class, processor → A's and B's leftovers
	for k := range a {
		if _, ok := b[k]; ok {
			out = append(out, [2][2]string{k, k})
			continue
		}
		p := [2]string{k[0], processor(k[1])}
		l := left[p]
		l[0] = append(l[0], k[1])
		left[p] = l
	}
	for k := range b {
		if _, ok := a[k]; ok {
			continue
		}
		p := [2]string{k[0], processor(k[1])}
		l := left[p]
		l[1] = append(l[1], k[1])
		left[p] = l
	}
	for p, l := range left {
		sort.Strings(l[0])
		sort.Strings(l[1])
		for i := 0; i < max(len(l[0]), len(l[1])); i++ {
			var pa, pb [2]string
			if i < len(l[0]) {
				pa = [2]string{p[0], l[0][i]}
			}
			if i < len(l[1]) {
				pb = [2]string{p[0], l[1][i]}
			}
			out = append(out, [2][2]string{pa, pb})
		}
	}
	return out
}

// features says how two target IDs of one processor differ.
func features(a, b string) string {
	if a == b || a == "" || b == "" {
		return ""
	}
	fa, fb := strings.TrimPrefix(a, processor(a)), strings.TrimPrefix(b, processor(b))
	fa, fb = strings.TrimPrefix(fa, ":"), strings.TrimPrefix(fb, ":")
	if fa == "" {
		fa = "(none)"
	}
	if fb == "" {
		fb = "(none)"
	}
	return fa + " -> " + fb
}

// diffKernels compares two reports.
func diffKernels(ra, rb *Report, rules []BudgetRule) *DiffReport {
	a, b := sideOf(ra), sideOf(rb)
	out := &DiffReport{Schema: Schema, Archs: []ArchDiff{}, Changes: []Change{}, Budget: []string{}}
	for _, r := range rules {
		out.Budget = append(out.Budget, r.Text)
	}
	for _, pr := range pairTargets(a, b) {
		ka, kb := pr[0], pr[1]
		class := ka[0] + kb[0]
		if ka[0] != "" {
			class = ka[0]
		}
		ad := ArchDiff{Arch: processor(ka[1] + kb[1]), Class: class, TargetA: ka[1], TargetB: kb[1], Features: features(ka[1], kb[1])}
		if ka[1] != "" {
			ad.Arch = processor(ka[1])
		}
		fa, fb := a[ka], b[kb]
		ad.FuncsA, ad.FuncsB = len(fa), len(fb)
		for _, f := range fa {
			ad.Before += f.m.v[mSize]
		}
		for _, f := range fb {
			ad.After += f.m.v[mSize]
		}
		ad.Delta = ad.After - ad.Before
		add := func(c Change) {
			c.Arch, c.TargetA, c.TargetB, c.Class = ad.Arch, ka[1], kb[1], class
			for i := range nMetrics {
				if c.Before.has(i) && c.After.has(i) {
					c.Delta.set(i, c.After.v[i]-c.Before.v[i])
				}
			}
			if c.Before != nil {
				c.sizeDiff -= c.Before.v[mSize]
			}
			if c.After != nil {
				c.sizeDiff += c.After.v[mSize]
			}
			for i := range rules {
				if why, bad := rules[i].breaks(&c); bad {
					c.Breaks = append(c.Breaks, rules[i].Text+": "+why)
				}
			}
			if len(c.Breaks) > 0 {
				out.Violations++
			}
			out.Changes = append(out.Changes, c)
		}
		for name, f := range fa {
			g, ok := fb[name]
			switch {
			case !ok:
				m := f.m
				ad.Removed++
				add(Change{Name: f.demangled, Mangled: name, Status: "removed", Before: &m})
			case f.m != g.m:
				m, n := f.m, g.m
				ad.Changed++
				add(Change{Name: f.demangled, Mangled: name, Status: "changed", Before: &m, After: &n})
			default:
				// Unchanged, but a B>N rule still applies.
				n := g.m
				c := Change{Before: &n, After: &n}
				for i := range rules {
					if rules[i].Op == '>' {
						if _, bad := rules[i].breaks(&c); bad {
							m := f.m
							add(Change{Name: f.demangled, Mangled: name, Status: "unchanged", Before: &m, After: &n})
							break
						}
					}
				}
			}
		}
		for name, g := range fb {
			if _, ok := fa[name]; !ok {
				n := g.m
				ad.Added++
				add(Change{Name: g.demangled, Mangled: name, Status: "added", After: &n})
			}
		}
		out.Archs = append(out.Archs, ad)
	}
	sort.Slice(out.Archs, func(i, j int) bool {
		x, y := out.Archs[i], out.Archs[j]
		if x.Arch != y.Arch {
			return x.Arch < y.Arch
		}
		if x.Class != y.Class {
			return x.Class < y.Class
		}
		return x.TargetA+"\x00"+x.TargetB < y.TargetA+"\x00"+y.TargetB
	})
	sort.Slice(out.Changes, func(i, j int) bool {
		x, y := &out.Changes[i], &out.Changes[j]
		if (len(x.Breaks) > 0) != (len(y.Breaks) > 0) {
			return len(x.Breaks) > 0
		}
		if abs(x.sizeDiff) != abs(y.sizeDiff) {
			return abs(x.sizeDiff) > abs(y.sizeDiff)
		}
		if x.Arch != y.Arch {
			return x.Arch < y.Arch
		}
		if x.Name != y.Name {
			return x.Name < y.Name
		}
		return x.TargetA+x.TargetB+x.Class < y.TargetA+y.TargetB+y.Class
	})
	return out
}

// KernelsDiff compares the kernels of two inputs: targets matched by
// processor, functions by mangled name, and the budget rules applied.
// A broken rule makes the error; the report is printed first.
func Diff(ctx context.Context, env *Env, opt DiffOptions) error {
	rules, err := ParseBudget(opt.FailOn)
	if err != nil {
		return &diag.FlagError{Err: fmt.Errorf("--fail-on: %v", err)}
	}
	if opt.BudgetFile != "" {
		more, err := readBudgetFile(env, opt.BudgetFile)
		if err != nil {
			return &diag.FlagError{Err: fmt.Errorf("--budget-file: %v", err)}
		}
		rules = append(rules, more...)
	}
	switch opt.Format {
	case "", "text", "json", "md":
	default:
		return &diag.FlagError{Err: fmt.Errorf("--format: %q is not one of text, json, md", opt.Format)}
	}
	ctx = withProgress(ctx, env)
	ra, err := kernelsReport(ctx, env, []string{opt.A}, false)
	if err == nil {
		err = imageErrors(ra)
	}
	if err != nil {
		return err
	}
	rb, err := kernelsReport(ctx, env, []string{opt.B}, false)
	if err == nil {
		err = imageErrors(rb)
	}
	if err != nil {
		return err
	}
	d := diffKernels(ra, rb, rules)
	d.A, d.B = opt.A, opt.B
	switch opt.Format {
	case "json":
		if err := writeJSON(env.Stdout, d); err != nil {
			return err
		}
	case "md":
		printDiffMarkdown(env.Stdout, d, opt.Top)
	default:
		printDiff(env.Stdout, d, opt.Top)
	}
	if d.Violations > 0 {
		for _, c := range d.Changes {
			if len(c.Breaks) > 0 {
				return fmt.Errorf("budget: %d function(s) over budget; the first: %s %s: %s", d.Violations, c.Arch, c.Name, c.Breaks[0])
			}
		}
	}
	return nil
}

// cell is a metric as "before->after", the value when it did not change
// or one side only has it (added, removed), "-" when neither records it.
func cell(c *Change, i int) string {
	b, a := c.Before.has(i), c.After.has(i)
	switch {
	case b && a && c.Before.v[i] == c.After.v[i]:
		return fmt.Sprint(c.After.v[i])
	case b && a:
		return fmt.Sprintf("%d->%d", c.Before.v[i], c.After.v[i])
	case a:
		return fmt.Sprint(c.After.v[i])
	case b:
		return fmt.Sprint(c.Before.v[i])
	}
	return dash
}

func archLabel(ad ArchDiff) string {
	switch {
	case ad.TargetA == ad.TargetB:
		return ad.TargetA
	case ad.TargetA == "":
		return "(none) -> " + ad.TargetB
	case ad.TargetB == "":
		return ad.TargetA + " -> (none)"
	}
	return ad.TargetA + " -> " + ad.TargetB
}

func targetLabel(c *Change) string {
	if c.TargetA == c.TargetB || c.TargetB == "" {
		return c.TargetA
	}
	if c.TargetA == "" {
		return c.TargetB
	}
	return c.TargetA + " -> " + c.TargetB
}

// archRows are the rows of the target table.
func archRows(d *DiffReport) [][]string {
	var r [][]string
	for _, a := range d.Archs {
		r = append(r, []string{fmt.Sprintf("%+d", a.Delta), fmt.Sprint(a.Before), fmt.Sprint(a.After), fmt.Sprint(a.Added), fmt.Sprint(a.Removed), fmt.Sprint(a.Changed), a.Class, archLabel(a)})
	}
	return r
}

// diffRows are the change table's header and rows.
func diffRows(d *DiffReport, top int) ([]string, [][]string, int) {
	cs := d.Changes
	if top > 0 && len(cs) > top {
		cs = cs[:top]
	}
	var rs [][]string
	for i := range cs {
		c := &cs[i]
		status := c.Status
		if len(c.Breaks) > 0 {
			status = "FAIL " + status
		}
		rs = append(rs, []string{fmt.Sprintf("%+d", c.sizeDiff), status, targetLabel(c), c.Class, cell(c, mSize), cell(c, mRegs),
			cell(c, mSGPRs), cell(c, mSpills), cell(c, mLDS), cell(c, mScratch), c.Name})
	}
	return []string{"DELTA", "STATUS", "ARCH", "CODE", "SIZE", "REGS", "SGPRS", "SPILLS", "LDS", "SCRATCH", "NAME"}, rs, len(cs)
}

func printDiff(w io.Writer, d *DiffReport, top int) {
	fmt.Fprintf(w, "--- %s\n+++ %s\n\nARCHS\n", d.A, d.B)
	table(w, []string{"DELTA", "BEFORE", "AFTER", "ADDED", "REMOVED", "CHANGED", "CODE", "TARGET"}, archRows(d))
	h, rs, shown := diffRows(d, top)
	fmt.Fprintf(w, "\nCHANGES (%d", len(d.Changes))
	if shown < len(d.Changes) {
		fmt.Fprintf(w, ", top %d", shown)
	}
	fmt.Fprintln(w, ")")
	table(w, h, rs)
	if shown < len(d.Changes) {
		fmt.Fprintf(w, "%d of %d changes; --all for all\n", shown, len(d.Changes))
	}
	printBudget(w, d, "")
	fmt.Fprint(w, diffLegend)
}

const diffLegend = `
SIZE: code bytes (CODE machine: ISA/SASS; ir: PTX text, SPIR-V, bitcode). REGS: NVIDIA registers per
thread, AMDGPU VGPRs+AGPRs; SGPRS: AMDGPU scalar registers; SPILLS: AMDGPU SGPR+VGPR spills; LDS:
group segment / shared memory; SCRATCH: private segment / local frame. "a->b": changed;
"-": not recorded by the code object. Targets are matched by processor (gfx900:xnack- with gfx900).
`

func printBudget(w io.Writer, d *DiffReport, bullet string) {
	if len(d.Budget) == 0 {
		return
	}
	if d.Violations == 0 {
		fmt.Fprintf(w, "\n%sBUDGET (%s): ok\n", bullet, strings.Join(d.Budget, ", "))
		return
	}
	fmt.Fprintf(w, "\n%sBUDGET (%s): %d function(s) over\n", bullet, strings.Join(d.Budget, ", "), d.Violations)
	for _, c := range d.Changes {
		for _, b := range c.Breaks {
			fmt.Fprintf(w, "%s%s %s: %s\n", bulletOr(bullet), targetLabel(&c), c.Name, b)
		}
	}
}

func bulletOr(b string) string {
	if b == "" {
		return "  "
	}
	return "- "
}

// mdCell escapes a Markdown table cell: the pipe, and what GitHub would
// read as emphasis or code in a C++ name ("float*, double*").
func mdCell(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "*", `\*`)
	s = strings.ReplaceAll(s, "`", "\\`")
	s = strings.ReplaceAll(s, "<", "&lt;")
	return strings.ReplaceAll(s, "\n", " ")
}

func mdTable(w io.Writer, h []string, rs [][]string) {
	fmt.Fprintln(w, "| "+strings.Join(h, " | ")+" |")
	sep := make([]string, len(h))
	for i := range sep {
		sep[i] = "---"
		if i < len(h)-1 {
			sep[i] = "---:"
		}
	}
	fmt.Fprintln(w, "|"+strings.Join(sep, "|")+"|")
	for _, r := range rs {
		cs := make([]string, len(r))
		for i, c := range r {
			cs[i] = mdCell(c)
		}
		fmt.Fprintln(w, "| "+strings.Join(cs, " | ")+" |")
	}
}

// printDiffMarkdown writes the report as GitHub-flavoured Markdown, for a
// pull-request comment.
func printDiffMarkdown(w io.Writer, d *DiffReport, top int) {
	fmt.Fprintf(w, "### Kernel changes: `%s` → `%s`\n\n", mdCell(d.A), mdCell(d.B))
	if len(d.Budget) > 0 {
		if d.Violations == 0 {
			fmt.Fprintf(w, "**Budget** (`%s`): ok\n\n", strings.Join(d.Budget, ", "))
		} else {
			fmt.Fprintf(w, "**Budget** (`%s`): **%d function(s) over**\n\n", strings.Join(d.Budget, ", "), d.Violations)
		}
	}
	mdTable(w, []string{"Δ bytes", "before", "after", "added", "removed", "changed", "code", "target"}, archRows(d))
	h, rs, shown := diffRows(d, top)
	fmt.Fprintf(w, "\n%d changed function(s)", len(d.Changes))
	if shown < len(d.Changes) {
		fmt.Fprintf(w, ", the first %d", shown)
	}
	fmt.Fprint(w, ":\n\n")
	if len(rs) > 0 {
		mdTable(w, h, rs)
	}
	if d.Violations > 0 {
		fmt.Fprint(w, "\n<details><summary>Over budget</summary>\n\n")
		for _, c := range d.Changes {
			for _, b := range c.Breaks {
				fmt.Fprintf(w, "- `%s` %s: %s\n", targetLabel(&c), mdCell(c.Name), mdCell(b))
			}
		}
		fmt.Fprintln(w, "\n</details>")
	}
}
