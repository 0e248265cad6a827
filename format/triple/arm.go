package triple

import "strings"

// ARM-family names (arm*, thumb*, aarch64* beyond the exact spellings)
// go through LLVM's ARM target parser: the ISA and endianness come from
// the name, and the name must reduce to a known "vN..." architecture.
func armFamilyArch(s string) ArchType {
	var isa string
	switch {
	case strings.HasPrefix(s, "aarch64"), strings.HasPrefix(s, "arm64"):
		isa = "aarch64"
	case strings.HasPrefix(s, "thumb"):
		isa = "thumb"
	case strings.HasPrefix(s, "arm"):
		isa = "arm"
	}
	big := false
	switch {
	case strings.HasPrefix(s, "armeb"), strings.HasPrefix(s, "thumbeb"), strings.HasPrefix(s, "aarch64_be"):
		big = true
	case strings.HasPrefix(s, "arm"), strings.HasPrefix(s, "thumb"):
		big = strings.HasSuffix(s, "eb")
	case !strings.HasPrefix(s, "aarch64"):
		isa = "" // no endianness: no architecture
	}
	arch := ""
	switch isa {
	case "arm", "thumb":
		arch = isa
		if big {
			arch += "eb"
		}
	case "aarch64":
		arch = "aarch64"
		if big {
			arch = "aarch64_be"
		}
	}
	c := armCanonical(s)
	if c == "" {
		return ""
	}
	if isa == "thumb" && (strings.HasPrefix(c, "v2") || strings.HasPrefix(c, "v3")) {
		return ""
	}
	if k := armArchKind(c); armMProfile[k] && armVersion(k) == 6 {
		if big {
			return "thumbeb"
		}
		return "thumb"
	}
	return ArchType(arch)
}

// armCanonical strips the ISA prefix and the endianness from an ARM
// architecture name, leaving "v7a", or returns a marketing name ("xscale")
// as it is; "" means the name is not valid.
func armCanonical(s string) string {
	a := s
	off := -1
	for _, p := range []string{"arm64_32", "arm64e", "arm64", "aarch64_32", "arm", "thumb"} {
		if strings.HasPrefix(a, p) {
			off = len(p)
			break
		}
	}
	if off < 0 && strings.HasPrefix(a, "aarch64") {
		off = len("aarch64")
		if strings.Contains(a, "eb") {
			return ""
		}
		if strings.HasPrefix(a[off:], "_be") {
			off += 3
		}
	}
	if off >= 0 && strings.HasPrefix(a[off:], "eb") {
		off += 2
	} else {
		a = strings.TrimSuffix(a, "eb")
	}
	if off >= 0 {
		a = a[min(off, len(a)):] // "arm64eb" loses its "eb" before the cut
	}
	if a == "" {
		return s
	}
	if off >= 0 {
		if len(a) >= 2 && (a[0] != 'v' || a[1] < '0' || a[1] > '9') {
			return ""
		}
		if strings.Contains(a, "eb") {
			return ""
		}
	}
	return a
}

// armArchNames are LLVM 22's ARM architecture names in table order
// (ARMTargetParser.def); a canonical name selects the first entry that
// ends with its synonym.
var armArchNames = strings.Fields("invalid armv4 armv4t armv5t armv5te armv5tej armv6 armv6k armv6t2 armv6kz " +
	"armv6-m armv7-a armv7ve armv7-r armv7-m armv7e-m armv8-a armv8.1-a armv8.2-a armv8.3-a armv8.4-a " +
	"armv8.5-a armv8.6-a armv8.7-a armv8.8-a armv8.9-a armv9-a armv9.1-a armv9.2-a armv9.3-a armv9.4-a " +
	"armv9.5-a armv9.6-a armv9.7-a armv8-r armv8-m.base armv8-m.main armv8.1-m.main iwmmxt iwmmxt2 xscale " +
	"armv7s armv7k")

// armSynonyms are the short spellings LLVM accepts for ARM architectures.
var armSynonyms = func() map[string]string {
	m := map[string]string{}
	for _, group := range []string{
		"v5t: v5", "v5te: v5e", "v6: v6j", "v6k: v6hl", "v6-m: v6m v6sm v6s-m", "v6kz: v6z v6zk",
		"v7-a: v7 v7a v7hl v7l", "v7-r: v7r", "v7-m: v7m", "v7e-m: v7em", "v8-a: v8 v8a v8l aarch64 arm64",
		"v8.1-a: v8.1a", "v8.2-a: v8.2a", "v8.3-a: v8.3a", "v8.4-a: v8.4a", "v8.5-a: v8.5a", "v8.6-a: v8.6a",
		"v8.7-a: v8.7a", "v8.8-a: v8.8a", "v8.9-a: v8.9a", "v8-r: v8r", "v9-a: v9 v9a", "v9.1-a: v9.1a",
		"v9.2-a: v9.2a", "v9.3-a: v9.3a", "v9.4-a: v9.4a", "v9.5-a: v9.5a", "v9.6-a: v9.6a", "v9.7-a: v9.7a",
		"v8-m.base: v8m.base", "v8-m.main: v8m.main", "v8.1-m.main: v8.1m.main",
	} {
		to, from, _ := strings.Cut(group, ": ")
		for _, f := range strings.Fields(from) {
			m[f] = to
		}
	}
	return m
}()

// armArchKind returns the armArchNames entry a name selects ("invalid"
// for none).
func armArchKind(s string) string {
	c := armCanonical(s)
	syn := c
	if v, ok := armSynonyms[c]; ok {
		syn = v
	}
	for _, n := range armArchNames {
		if strings.HasSuffix(n, syn) {
			return n
		}
	}
	return "invalid"
}

var armMProfile = map[string]bool{"armv6-m": true, "armv7-m": true, "armv7e-m": true,
	"armv8-m.base": true, "armv8-m.main": true, "armv8.1-m.main": true}

func armVersion(kind string) int {
	switch {
	case kind == "iwmmxt", kind == "iwmmxt2", kind == "xscale":
		return 5
	case strings.HasPrefix(kind, "armv"):
		return int(kind[4] - '0')
	}
	return 0
}

// armSubArches maps an ARM architecture to the llvm::Triple sub-arch it
// gives; armv4 and invalid give none.
var armSubArches = map[string]string{
	"armv4t": "v4t", "armv5t": "v5", "armv5te": "v5te", "iwmmxt": "v5te", "iwmmxt2": "v5te",
	"xscale": "v5te", "armv5tej": "v5te", "armv6": "v6", "armv6k": "v6k", "armv6kz": "v6k",
	"armv6t2": "v6t2", "armv6-m": "v6m", "armv7-a": "v7", "armv7-r": "v7", "armv7ve": "v7ve",
	"armv7k": "v7k", "armv7-m": "v7m", "armv7s": "v7s", "armv7e-m": "v7em", "armv8-a": "v8",
	"armv8.1-a": "v8.1a", "armv8.2-a": "v8.2a", "armv8.3-a": "v8.3a", "armv8.4-a": "v8.4a",
	"armv8.5-a": "v8.5a", "armv8.6-a": "v8.6a", "armv8.7-a": "v8.7a", "armv8.8-a": "v8.8a",
	"armv8.9-a": "v8.9a", "armv9-a": "v9", "armv9.1-a": "v9.1a", "armv9.2-a": "v9.2a",
	"armv9.3-a": "v9.3a", "armv9.4-a": "v9.4a", "armv9.5-a": "v9.5a", "armv9.6-a": "v9.6a",
	"armv9.7-a": "v9.7a", "armv8-r": "v8r", "armv8-m.base": "v8m.base", "armv8-m.main": "v8m.main",
	"armv8.1-m.main": "v8.1m.main",
}
