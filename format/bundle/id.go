package bundle

import (
	"strings"

	"github.com/offload-kit/offload-kit/format/triple"
)

// Target is a parsed bundle entry ID,
// "<kind>-<arch>-<vendor>-<os>-<env>[-<targetid>[:feature±...]]",
// as clang's OffloadTargetInfo reads it.
type Target struct {
	Kind     string        // host, openmp, hip, hipv4 (others parse but are not Valid)
	Triple   triple.Triple // llvm::Triple(arch, vendor, os, env) of the four parts
	TargetID string        // "" unless the processor before ':' is a known offload arch
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
		if proc != "" && triple.IsOffloadArch(proc) {
			t.TargetID = parts[5]
		}
	}
	// llvm::Triple(join(parts[1:5])) then rebuilt from its four names: the
	// fourth name is everything after the third '-', which is parts[4].
	t.Triple = triple.FromParts(parts[1], parts[2], parts[3], parts[4])
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
		tr = triple.Normalize(t.Triple.String(), triple.Three) + "-"
	} else {
		tr = triple.Normalize(t.Triple.String(), triple.Four)
	}
	return t.Kind + "-" + tr + "-" + t.TargetID
}

// normalizeID parses and re-serialises an ID; ok is false if it is malformed.
func normalizeID(s string) (string, bool) {
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
// for the requested target (clang's isCodeObjectCompatible): compatible
// kinds, compatible triples (llvm::Triple::isCompatibleWith) and
// compatible target IDs (triple.TargetIDCompatible).
// hipOpenMP is -hip-openmp-compatible.
func Compatible(code, target Target, hipOpenMP bool) bool {
	if code.Kind == target.Kind && code.Triple.IsCompatibleWith(target.Triple) && code.TargetID == target.TargetID {
		return true
	}
	if !code.kindCompatible(target.Kind, hipOpenMP) || !code.Triple.IsCompatibleWith(target.Triple) {
		return false
	}
	return triple.TargetIDCompatible(code.Triple, code.TargetID, target.Triple, target.TargetID)
}
