package bundle

import (
	"strings"

	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/release"
)

// Entry IDs as the clang-offload-bundler of each release reads and writes
// them (release.Profile.BundleIDs; docs/bundle.md, "Releases").

// ParseTargetAs parses an entry ID under rule. BundleIDStrict is
// ParseTarget (LLVM 20 and later). The older rules are LLVM 16-19's
// OffloadTargetInfo, which accepts any text: the part before the first ':'
// is split at its last '-'; when what follows is an offload arch it starts
// the target ID (which runs to the end, features included) and the rest
// is "<kind>-<triple>", otherwise everything before ':' is
// "<kind>-<triple>" and there is no target ID. BundleIDStandardized
// (18, 19) rebuilds the triple from its four components, so that a
// missing environment becomes an empty one ("amdgcn-amd-amdhsa-");
// BundleIDVerbatim (16, 17) keeps the triple as written. ok is false only
// for a strict ID without 5 or 6 components.
func ParseTargetAs(s string, rule release.BundleIDRule) (Target, bool) {
	if rule == release.BundleIDStrict {
		return ParseTarget(s)
	}
	first, _, _ := strings.Cut(s, ":")
	kindTriple := first
	var t Target
	// An empty last component counts as an offload arch too (the arch
	// table's UNUSED entry has the empty name), and the target ID is then
	// the whole ID, where find("") points (checked with 19: -targets=
	// openmp-x86_64-unknown-linux-gnu- is kept as
	// "openmp-x86_64-unknown-linux-gnu-openmp-x86_64-unknown-linux-gnu-").
	if i := strings.LastIndexByte(first, '-'); i >= 0 && (i == len(first)-1 || isOffloadArchBefore20(first[i+1:])) {
		kindTriple = first[:i]
		t.TargetID = s[strings.Index(s, first[i+1:]):]
	}
	kind, tr, _ := strings.Cut(kindTriple, "-")
	t.Kind = kind
	p := triple.Parse(tr)
	if rule == release.BundleIDStandardized {
		p = triple.FromParts(p.ArchName(), p.VendorName(), p.OSName(), p.EnvironmentName())
	}
	t.Triple = p
	return t, true
}

// IDAs is the ID the release's bundler writes for the -targets value raw,
// parsed as t: raw itself (16, 17), "<kind>-<triple>-<target id>" with the
// four-component triple (18, 19; "host-x86_64-unknown-linux--"), or
// t.String() (20 and later).
func IDAs(raw string, t Target, rule release.BundleIDRule) string {
	switch rule {
	case release.BundleIDVerbatim:
		return raw
	case release.BundleIDStandardized:
		return t.Kind + "-" + t.Triple.String() + "-" + t.TargetID
	}
	return t.String()
}

// CompatibleAs is Compatible for a release, given the IDs as the file
// holds them (codeID) and as the release keeps the requested target
// (targetID, IDAs). hipv4 says whether "hip" and "hipv4" entries match
// each other (release.Profile.BundleHIPv4IsHIP; LLVM 16 and 17 compare
// kinds exactly). Under the older rules an ID without a target ID matches
// only an ID without one, and only "exactly" (checked with the 16 and 19
// bundlers): 19 wants the file's ID text to equal the standardised
// request ("host-x86_64-unknown-linux-gnu" in a 16 bundle is not found for
// host-x86_64-unknown-linux-gnu, which 19 keeps as "...-gnu-"); 16 wants
// equal kinds, equal parsed triples and equal environment text
// ("openmp-x86_64--linux-gnu" finds "openmp-x86_64-unknown-linux-gnu",
// "...-linux-gnu-" does not).
func CompatibleAs(codeID, targetID string, code, target Target, rule release.BundleIDRule, hipOpenMP, hipv4 bool) bool {
	if rule != release.BundleIDStrict && (code.TargetID == "" || target.TargetID == "") {
		if code.TargetID != target.TargetID {
			return false
		}
		if rule == release.BundleIDStandardized {
			return codeID == targetID
		}
		return code.Kind == target.Kind && code.Triple.Equal(target.Triple) &&
			code.Triple.EnvironmentName() == target.Triple.EnvironmentName()
	}
	if !hipv4 {
		hip := func(k string) bool { return k == "hip" || k == "hipv4" }
		if hip(code.Kind) && hip(target.Kind) && code.Kind != target.Kind {
			return false
		}
	}
	return Compatible(code, target, hipOpenMP)
}

// isOffloadArchBefore20 is clang 16-19's offload arch table as far as it
// differs from 22's: gfx940 and gfx941 were folded into gfx942 in LLVM 21.
// (Checked: 19 keeps "gfx940" as a target ID.)
func isOffloadArchBefore20(s string) bool {
	return s == "gfx940" || s == "gfx941" || triple.IsOffloadArch(s)
}
