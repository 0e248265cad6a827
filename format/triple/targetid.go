package triple

import (
	"sort"
	"strings"
)

// SplitTargetID is clang's parseTargetIDWithFormatCheckingOnly: the
// processor before the first ':' and the features after it, each a name
// followed by '+' or '-'. ok is false for an empty processor, a feature
// without a sign or a repeated feature. An empty ID gives ("", nil, true).
func SplitTargetID(id string) (proc string, feats map[string]bool, ok bool) {
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

// ParseTargetID is clang::parseTargetID: SplitTargetID, then the processor
// must be one the triple's target knows and every feature one that
// processor supports (for AMDGPU: xnack, sramecc; others: none).
func ParseTargetID(t Triple, id string) (proc string, feats map[string]bool, ok bool) {
	proc, feats, ok = SplitTargetID(id)
	if !ok {
		return "", nil, false
	}
	if t.IsAMDGPU() {
		if t.Arch == "r600" || !isAMDGCNProc(proc) {
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

// TargetIDCompatible is the target-ID half of clang-offload-bundler's
// isCodeObjectCompatible: code built for target ID code (on triple ct)
// runs on want (on triple wt) if both parse, name the same processor, and
// every feature code sets is set the same way in want (want may set more).
func TargetIDCompatible(ct Triple, code string, wt Triple, want string) bool {
	cp, cf, ok1 := ParseTargetID(ct, code)
	tp, tf, ok2 := ParseTargetID(wt, want)
	if !ok1 || !ok2 || cp != tp || len(cf) > len(tf) {
		return false
	}
	for k, v := range cf {
		if tv, ok := tf[k]; !ok || tv != v {
			return false
		}
	}
	return true
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
		proc, feats, _ := SplitTargetID(id)
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
