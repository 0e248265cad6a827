package linkwrap

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/internal/cache"
	"github.com/offload-kit/offload-kit/internal/phase"
)

// span opens one step of the run under its two names: the time-trace
// event ("" none) and the summary phase ("" none).
func (d *driver) span(event, name string) *phase.Span {
	return d.phases.Open(phase.Spec{Name: name, Event: event})
}

// on is the phase view of g's device link: its spans, the in-process SYCL
// link's included, run on the link's row of the trace.
func (d *driver) on(g *group) *phase.Timer {
	return d.phases.On("device link " + g.key.triple + " " + g.key.arch)
}

// printSummary writes the --wrapper-verbose phase table (issue 7 part 4),
// with the device links grouped before the bundle/wrap/host-link phases
// and their cache outcomes counted, each followed by the steps it ran in
// process (a SYCL link's link, split, codegen, ...), then the cache
// statistics.
func printSummary(w io.Writer, prog string, rows []phase.Row, c *cache.Cache) {
	var links, other []phase.Row
	var agg, total *phase.Row
	steps := map[string][]phase.Row{}
	for i := range rows {
		switch {
		case rows[i].Name == "device link":
			links = append(links, rows[i])
		case rows[i].Thread != "":
			steps[rows[i].Thread] = append(steps[rows[i].Thread], rows[i])
		case rows[i].Name == "device links":
			agg = &rows[i]
		case rows[i].Name == "total":
			total = &rows[i]
		default:
			other = append(other, rows[i])
		}
	}
	fmt.Fprintf(w, "%s: phase summary (wall time)\n", prog)
	emitLinks := func() {
		hits, misses := 0, 0
		for _, r := range links {
			note := ""
			switch {
			case strings.HasPrefix(r.Note, "hit"):
				hits++
				note = "cache " + r.Note
			case r.Note == "miss":
				misses++
				note = "cache miss"
			}
			phase.Line(w, "device link", r.Detail, r.Dur, note)
			for _, s := range steps[r.Thread] {
				phase.Line(w, "  "+s.Name, s.Detail, s.Dur, s.Note)
			}
		}
		if agg != nil {
			note := fmt.Sprintf("%d group(s)", len(links))
			if c != nil {
				note += fmt.Sprintf(", %d cache hit(s), %d miss(es)", hits, misses)
			}
			phase.Line(w, "device phase", "", agg.Dur, note)
		}
	}
	done := false
	for _, r := range other {
		if !done && (r.Name == "bundle" || r.Name == "wrap" || r.Name == "host link") {
			emitLinks()
			done = true
		}
		phase.Line(w, r.Name, r.Detail, r.Dur, "")
	}
	if !done {
		emitLinks()
	}
	if total != nil {
		phase.Line(w, "total", "", total.Dur, "")
	}
	if c != nil {
		fmt.Fprintf(w, "%s: %s\n", prog, c.Stats().String())
	}
}

// quoteOdd returns s, or s quoted (Go syntax) when it is empty or holds
// characters that do not belong in a triple, arch or file name: control
// characters, spaces, quotes, non-ASCII bytes.
func quoteOdd(s string) string {
	if s == "" {
		return `""`
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '\\' {
			return strconv.Quote(s)
		}
	}
	return s
}

// groupOrigins names the input files that carried a group's images.
func groupOrigins(g *group) string {
	var names []string
	seen := map[string]bool{}
	for _, in := range g.inputs {
		if o := in.unit.origin; !seen[o] {
			seen[o] = true
			names = append(names, o)
		}
	}
	if len(names) == 0 {
		return "<no input>"
	}
	return strings.Join(names, ", ")
}

// safeName turns a string built from triples and arches (which come from
// the inputs) into one file-name component: path separators, control and
// other unusual characters become '_', and the length is bounded, so a
// temporary name can never leave its directory. Ordinary triples, arches
// and AMDGPU target IDs ("gfx90a:xnack+") are unchanged.
func safeName(s string) string {
	out := sanitize(s)
	if out == "" || out == "." || out == ".." {
		out = "_" + out
	}
	return out
}

// sanitize maps every byte outside [A-Za-z0-9._+:,=@-] to '_' and bounds
// the length to 200 bytes.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '.', c == '-', c == '_', c == '+', c == ':', c == ',', c == '=', c == '@':
		default:
			b[i] = '_'
		}
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}

// oddArch reports whether a triple's arch component is not a plain word.
func oddArch(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return true
		}
	}
	return false
}
