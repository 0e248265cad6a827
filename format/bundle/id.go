package bundle

import (
	"sort"
	"strings"
)

// Target is a parsed bundle entry ID,
// "<kind>-<arch>-<vendor>-<os>-<env>[-<targetid>[:feature±...]]",
// as clang's OffloadTargetInfo reads it.
type Target struct {
	Kind     string // host, openmp, hip, hipv4 (others parse but are not Valid)
	Triple   Triple
	TargetID string // "" unless the processor before ':' is a known offload arch
}

// IDFormatMessage is the message for an ID without 5 or 6 '-'-separated parts.
const IDFormatMessage = "Targets need to follow the format '<offload kind>-<target triple>', where '<target triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'."

// CheckID reports whether s has 5 or 6 '-'-separated components
// (clang::checkOffloadBundleID).
func CheckID(s string) bool {
	n := strings.Count(s, "-") + 1
	return n >= 5
}

// ParseTarget parses an entry ID. ok is false when the ID does not have 5
// or 6 components.
func ParseTarget(s string) (t Target, ok bool) {
	parts := strings.SplitN(s, "-", 6)
	if len(parts) < 5 {
		return Target{}, false
	}
	t.Kind = parts[0]
	if len(parts) == 6 {
		proc, _, _ := strings.Cut(parts[5], ":")
		if proc != "" && IsOffloadArch(proc) {
			t.TargetID = parts[5]
		}
	}
	// llvm::Triple(join(parts[1:5])) then rebuilt from its four names: the
	// fourth name is everything after the third '-', which is parts[4].
	t.Triple = newTriple(parts[1], parts[2], parts[3], parts[4])
	return t, true
}

// KindValid reports whether the offload kind is one the bundler accepts.
func (t Target) KindValid() bool {
	switch t.Kind {
	case "host", "openmp", "hip", "hipv4":
		return true
	}
	return false
}

// IsHost reports whether the kind is "host".
func (t Target) IsHost() bool { return t.Kind == "host" }

// String is the normalised ID written into bundles: kind-triple-targetid,
// where amdhsa triples are written in 3-part form plus "-" and others in
// 4-part normalised form.
func (t Target) String() string {
	var tr string
	if t.Triple.IsAMDHSA() {
		tr = t.Triple.Normalize(3) + "-"
	} else {
		tr = t.Triple.Normalize(4)
	}
	return t.Kind + "-" + tr + "-" + t.TargetID
}

// NormalizeID parses and re-serialises an ID; ok is false if it is malformed.
func NormalizeID(s string) (string, bool) {
	t, ok := ParseTarget(s)
	if !ok {
		return "", false
	}
	return t.String(), true
}

func (t Target) kindCompatible(target string, hipOpenMP bool) bool {
	k := t.Kind
	if k == target || (k == "hip" && target == "hipv4") || (k == "hipv4" && target == "hip") {
		return true
	}
	if hipOpenMP {
		return (hasPrefixFold(k, "hip") && target == "openmp") ||
			(k == "openmp" && hasPrefixFold(target, "hip"))
	}
	return false
}

func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}

// Compatible reports whether a code object with ID code may be extracted
// for the requested target (clang's isCodeObjectCompatible).
// hipOpenMP is -hip-openmp-compatible.
func Compatible(code, target Target, hipOpenMP bool) bool {
	if code.Kind == target.Kind && code.Triple.CompatibleWith(target.Triple) && code.TargetID == target.TargetID {
		return true
	}
	if !code.kindCompatible(target.Kind, hipOpenMP) || !code.Triple.CompatibleWith(target.Triple) {
		return false
	}
	cp, cf, ok1 := parseTargetID(code.Triple, code.TargetID)
	tp, tf, ok2 := parseTargetID(target.Triple, target.TargetID)
	if !ok1 || !ok2 || cp != tp {
		return false
	}
	if len(cf) > len(tf) {
		return false
	}
	for k, v := range cf {
		tv, ok := tf[k]
		if !ok || tv != v {
			return false
		}
	}
	return true
}

// splitTargetID is parseTargetIDWithFormatCheckingOnly: processor and
// feature map; ok is false for an empty processor, a feature without a
// sign or a repeated feature. An empty ID yields ("", nil, true).
func splitTargetID(id string) (proc string, feats map[string]bool, ok bool) {
	if id == "" {
		return "", nil, true
	}
	proc, rest, _ := strings.Cut(id, ":")
	if proc == "" {
		return "", nil, false
	}
	feats = map[string]bool{}
	for rest != "" {
		var f string
		f, rest, _ = strings.Cut(rest, ":")
		if f == "" {
			return "", nil, false
		}
		sign := f[len(f)-1]
		if sign != '+' && sign != '-' {
			return "", nil, false
		}
		name := f[:len(f)-1]
		if _, dup := feats[name]; dup {
			return "", nil, false
		}
		feats[name] = sign == '+'
	}
	return proc, feats, true
}

// parseTargetID is clang::parseTargetID: the canonical processor and the
// features, which must all be ones the processor supports.
func parseTargetID(t Triple, id string) (string, map[string]bool, bool) {
	proc, feats, ok := splitTargetID(id)
	if !ok {
		return "", nil, false
	}
	if t.IsAMDGPU() {
		if t.arch == "r600" || !isAMDGCNProc(proc) {
			return "", nil, false
		}
	}
	if proc == "" {
		return "", nil, false
	}
	allowed := amdgpuFeatures(t, proc)
	for f := range feats {
		if !allowed[f] {
			return "", nil, false
		}
	}
	return proc, feats, true
}

func amdgpuFeatures(t Triple, proc string) map[string]bool {
	if !t.IsAMDGPU() {
		return nil
	}
	m := map[string]bool{}
	switch proc {
	case "gfx906", "gfx908", "gfx90a", "gfx9-4-generic", "gfx942", "gfx950":
		m["sramecc"] = true
		m["xnack"] = true
	case "gfx801", "gfx810", "gfx9-generic", "gfx900", "gfx902", "gfx904", "gfx909",
		"gfx90c", "gfx10-1-generic", "gfx1010", "gfx1011", "gfx1012", "gfx1013":
		m["xnack"] = true
	}
	return m
}

func isAMDGCNProc(p string) bool {
	return strings.HasPrefix(p, "gfx") && IsOffloadArch(p)
}

// offloadArchs is clang's OffloadArch name table in LLVM 22.1.8.
var offloadArchs = strings.Fields(`sm_20 sm_21 sm_30 sm_32 sm_35 sm_37 sm_50 sm_52 sm_53
sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_90a
sm_100 sm_100a sm_101 sm_101a sm_103 sm_103a sm_110 sm_110a sm_120 sm_120a sm_121 sm_121a
gfx600 gfx601 gfx602 gfx700 gfx701 gfx702 gfx703 gfx704 gfx705 gfx801 gfx802 gfx803
gfx805 gfx810 gfx9-generic gfx900 gfx902 gfx904 gfx906 gfx908 gfx909 gfx90a gfx90c
gfx9-4-generic gfx942 gfx950 gfx10-1-generic gfx1010 gfx1011 gfx1012 gfx1013
gfx10-3-generic gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036 gfx11-generic
gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153 gfx12-generic gfx1200
gfx1201 gfx1250 gfx1251 amdgcnspirv graniterapids bmg_g21 generic`)

// IsOffloadArch reports whether name is a processor clang 22.1.8 knows
// (StringToOffloadArch != Unknown).
func IsOffloadArch(name string) bool {
	for _, a := range offloadArchs {
		if a == name {
			return true
		}
	}
	return false
}

// ConflictingTargetIDs is clang::getConflictTargetIDCombination over the
// sorted set ids: the first pair naming the same processor where the later
// ID uses a feature the earlier one leaves out. ok is false if none.
func ConflictingTargetIDs(ids []string) (a, b string, ok bool) {
	set := append([]string(nil), ids...)
	sort.Strings(set)
	type info struct {
		id    string
		feats map[string]bool
	}
	seen := map[string]info{}
	for i, id := range set {
		if i > 0 && set[i-1] == id {
			continue
		}
		proc, feats, _ := splitTargetID(id)
		ex, found := seen[proc]
		if !found {
			seen[proc] = info{id, feats}
			continue
		}
		for f := range feats {
			if _, has := ex.feats[f]; !has {
				return ex.id, id, true
			}
		}
	}
	return "", "", false
}
