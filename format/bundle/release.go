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
	if i := strings.LastIndexByte(first, '-'); i >= 0 && triple.IsOffloadArch(first[i+1:]) {
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

// CompatibleAs is Compatible for a release: hipv4 says whether "hip" and
// "hipv4" entries match each other (release.Profile.BundleHIPv4IsHIP;
// LLVM 16 and 17 compare kinds exactly).
func CompatibleAs(code, target Target, hipOpenMP, hipv4 bool) bool {
	if hipv4 {
		return Compatible(code, target, hipOpenMP)
	}
	hip := func(k string) bool { return k == "hip" || k == "hipv4" }
	if hip(code.Kind) && hip(target.Kind) && code.Kind != target.Kind {
		return false
	}
	return Compatible(code, target, hipOpenMP)
}
