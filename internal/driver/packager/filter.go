package packager

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
)

// extractEntry is an entry of a bundle or fatbin that extract can write,
// with the name it gets: <file>.<bundle>.<entry ID> as llvm-objdump names
// bundle entries (file being the input's base name, or the archive
// member's), <file>.fatbin<i>.<j>.<arch>.<cubin|ptx> for fatbin entries.
type extractEntry struct {
	DumpEntry
	name string
}

// get is what an --image key other than kind, triple, arch and file
// matches: a bundle entry's id.
func (e extractEntry) get(key string) string {
	if key == "id" {
		return e.ID
	}
	return ""
}

// containerEntries lists the bundle and fatbin entries of an input: in the
// sections of an object or of an archive's member objects, or in an input
// that is itself a bundle or fatbin.
func containerEntries(env *Env, l *lister, input string) ([]extractEntry, error) {
	var out []extractEntry
	add := func(base string, c *DumpContents) {
		for _, b := range c.Bundles {
			for _, e := range b.Entries {
				out = append(out, extractEntry{e, safeName(fmt.Sprintf("%s.%d.%s", base, b.Index, e.ID))})
			}
		}
		for _, f := range c.Fatbins {
			for _, e := range f.Entries {
				ext := "cubin"
				if e.ImageKind == "ptx" {
					ext = "ptx"
				}
				out = append(out, extractEntry{e, safeName(fmt.Sprintf("%s.fatbin%d.%d.%s.%s", base, f.Index, e.Index, e.Arch, ext))})
			}
		}
	}
	object := func(base string, data []byte) error {
		eo, err := elfembed.Parse(data)
		if err != nil {
			return nil // not an object scan.Input reads either
		}
		var c DumpContents
		if err := l.sections(eo, &c); err != nil {
			return err
		}
		add(base, &c)
		return nil
	}
	base := safeName(filepath.Base(uriPath(input)))
	data := l.in.data
	switch format.Identify(data) {
	case format.KindELF, format.KindCOFF:
		return out, object(base, data)
	case format.KindArchive, format.KindThinArchive:
		a, err := ar.Parse(data)
		if err != nil {
			return nil, err
		}
		for _, m := range a.Members {
			md := m.Data
			if a.Thin {
				mf, err := mmapfile.Open(env.Path(thinMemberPath(uriPath(input), m.Name)))
				if err != nil {
					return nil, fmt.Errorf("%s(%s): %s", input, m.Name, ErrText(err))
				}
				defer mf.Close()
				md = mf.Data
			}
			if k := format.Identify(md); k == format.KindELF || k == format.KindCOFF {
				if err := object(safeName(m.Name), md); err != nil {
					return nil, fmt.Errorf("%s(%s): %w", input, m.Name, err)
				}
			}
		}
		return out, nil
	case format.KindBundle, format.KindCCOB, format.KindFatbin:
	default:
		if _, ok := textBundleComment(data); !ok {
			return nil, nil
		}
	}
	c, err := l.parse(data, 0)
	if err != nil {
		return nil, err
	}
	if c != nil {
		add(base, c)
	}
	return out, nil
}

// matchCompatible is the umbrella extract's filter. kind matches the
// offload kind by name (hipv4 is hip). triple matches when the triples are
// equal or compatible as llvm::Triple::isCompatibleWith decides
// (amdgcn-amd-amdhsa and amdgcn-amd-amdhsa-unknown are one). arch matches
// the same string, or a compatible target ID by clang-offload-bundler's
// rule (isCodeObjectCompatible): the filter names the target, the image is
// the code object, so the processor must be the same and every feature
// the image fixes must be fixed the same way in the filter.
// --arch=gfx90a:xnack- thus matches images for gfx90a:xnack- and for
// plain gfx90a (which run with either xnack setting), while --arch=gfx90a
// matches only images built for plain gfx90a. Other keys compare get's
// value.
func matchCompatible(kind, triple, arch string, get func(string) string, filter []offload.KV) bool {
	for _, kv := range filter {
		switch kv.Key {
		case "file":
		case "kind":
			if normKind(kind) != normKind(kv.Value) {
				return false
			}
		case "triple":
			if !tripleMatches(kv.Value, triple) {
				return false
			}
		case "arch":
			if !archMatches(kv.Value, arch) {
				return false
			}
		default:
			if get(kv.Key) != kv.Value {
				return false
			}
		}
	}
	return true
}

func normKind(k string) string {
	k = strings.ToLower(k)
	if k == "hipv4" {
		return "hip"
	}
	return k
}

// tripleMatches: the same text, or two triples with known architectures
// that llvm::Triple::isCompatibleWith accepts.
func tripleMatches(want, have string) bool {
	if want == have {
		return true
	}
	w, h := triple.Parse(want), triple.Parse(have)
	return w.KnownArch() && h.KnownArch() && h.IsCompatibleWith(w)
}

// archMatches: the same text, or AMDGPU target IDs where the image's (have)
// runs on the filter's (want), as clang-offload-bundler decides.
func archMatches(want, have string) bool {
	if want == have {
		return true
	}
	return triple.TargetIDCompatible(amdhsa, have, amdhsa, want)
}

var amdhsa = triple.Parse("amdgcn-amd-amdhsa")

// noMatch is the error for a filter that matches nothing: it names the
// filter as typed and says what the input holds.
func noMatch(input, arg string, filter []offload.KV, bins []*offload.Binary, entries []extractEntry) error {
	msg := fmt.Sprintf("'%s': no image matches %s", input, filterText(arg, filter))
	if len(bins)+len(entries) == 0 {
		return fmt.Errorf("%s (it holds no offload images)", msg)
	}
	var have []string
	for _, kv := range filter {
		if kv.Key != "kind" && kv.Key != "triple" && kv.Key != "arch" {
			continue
		}
		seen := map[string]bool{}
		var vals []string
		note := func(kind, triple, arch string) {
			v := map[string]string{"kind": normKind(kind), "triple": triple, "arch": arch}[kv.Key]
			if !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
		for _, b := range bins {
			note(b.Kind().String(), b.Get("triple"), b.Get("arch"))
		}
		for _, e := range entries {
			note(e.Kind, e.Triple, e.Arch)
		}
		sort.Strings(vals)
		if len(vals) > 12 {
			vals = append(vals[:12], "...")
		}
		for i, v := range vals {
			if v == "" {
				vals[i] = `""`
			}
		}
		have = append(have, fmt.Sprintf("%s %s", kv.Key, strings.Join(vals, ", ")))
		if kv.Key == "arch" && !strings.Contains(kv.Value, ":") {
			for _, v := range vals {
				if strings.HasPrefix(v, kv.Value+":") {
					have = append(have, "a target ID without features matches only images built without them, e.g. --arch="+v)
					break
				}
			}
		}
	}
	if len(have) > 0 {
		msg += " (images: " + strings.Join(have, "; ") + ")"
	}
	return fmt.Errorf("%s", msg)
}

// filterText spells a filter as typed: --triple/--arch/--kind when it uses
// only those keys (the shorthands), else --image=....
func filterText(arg string, filter []offload.KV) string {
	var parts []string
	for _, kv := range filter {
		switch kv.Key {
		case "triple", "arch", "kind":
			parts = append(parts, "--"+kv.Key+"="+kv.Value)
		default:
			return "--image=" + arg
		}
	}
	if len(parts) == 0 {
		return "--image=" + arg
	}
	return strings.Join(parts, " ")
}
