package linkwrap

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/offload-kit/offload-kit/internal/cache"
)

// summary records phase durations for the --wrapper-verbose table
// (issue 7 part 4). With a nil clock nothing is recorded.
type summary struct {
	now  func() time.Time
	mu   sync.Mutex
	seq  int
	rows []phaseRow
}

type phaseRow struct {
	seq          int
	name, detail string
	dur          time.Duration
	note         string // cache outcome of a device link
}

func newSummary(now func() time.Time) *summary { return &summary{now: now} }

// begin opens a phase; the returned func closes it, with an optional note.
func (s *summary) begin(name, detail string) func(note ...string) {
	if s.now == nil {
		return func(...string) {}
	}
	s.mu.Lock()
	seq := s.seq
	s.seq++
	s.mu.Unlock()
	b := s.now()
	return func(note ...string) {
		r := phaseRow{seq: seq, name: name, detail: detail, dur: s.now().Sub(b)}
		if len(note) > 0 {
			r.note = note[0]
		}
		s.mu.Lock()
		s.rows = append(s.rows, r)
		s.mu.Unlock()
	}
}

// DevicePhase is the wall time of all device links (cache lookups
// included); 0 when not measured.
func (s *summary) devicePhase() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.rows {
		if r.name == "device links" {
			return r.dur
		}
	}
	return 0
}

// phase opens a time-trace scope and a summary phase together.
func (d *driver) phase(traceName, phaseName string) func() {
	endT := d.trace.begin(traceName, "")
	endS := d.sum.begin(phaseName, "")
	return func() { endS(); endT() }
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + " ms" }

// print writes the phase table and the cache statistics.
func (s *summary) print(w io.Writer, prog string, c *cache.Cache) {
	s.mu.Lock()
	rows := append([]phaseRow(nil), s.rows...)
	s.mu.Unlock()
	sort.Slice(rows, func(i, j int) bool { return rows[i].seq < rows[j].seq })
	var links []phaseRow
	var agg *phaseRow
	var other []phaseRow
	for i := range rows {
		switch rows[i].name {
		case "device link":
			links = append(links, rows[i])
		case "device links":
			agg = &rows[i]
		default:
			other = append(other, rows[i])
		}
	}
	fmt.Fprintf(w, "%s: phase summary (wall time)\n", prog)
	line := func(name, detail string, d time.Duration, note string) {
		label := name
		if detail != "" {
			label += " " + detail
		}
		l := fmt.Sprintf("  %-52s %12s", label, ms(d))
		if note != "" {
			l += "  " + note
		}
		fmt.Fprintln(w, l)
	}
	emitLinks := func() {
		hits, misses := 0, 0
		for _, r := range links {
			note := ""
			switch {
			case strings.HasPrefix(r.note, "hit"):
				hits++
				note = "cache " + r.note
			case r.note == "miss":
				misses++
				note = "cache miss"
			}
			line("device link", r.detail, r.dur, note)
		}
		if agg != nil {
			note := fmt.Sprintf("%d group(s)", len(links))
			if c != nil {
				note += fmt.Sprintf(", %d cache hit(s), %d miss(es)", hits, misses)
			}
			line("device phase", "", agg.dur, note)
		}
	}
	done := false
	var total *phaseRow
	for i, r := range other {
		if r.name == "total" {
			total = &other[i]
			continue
		}
		if !done && (r.name == "bundle" || r.name == "wrap" || r.name == "host link") {
			emitLinks()
			done = true
		}
		line(r.name, r.detail, r.dur, "")
	}
	if !done {
		emitLinks()
	}
	if total != nil {
		line("total", "", total.dur, "")
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
