package linkwrap

import "strings"

// groupKey identifies one device link: the exact triple string and arch.
type groupKey struct{ triple, arch string }

// tripleArch is the first component of a triple ("amdgcn" in
// "amdgcn-amd-amdhsa"), LLVM's Triple::getArchName.
func tripleArch(triple string) string {
	a, _, _ := strings.Cut(triple, "-")
	return a
}

func isAMDGPU(triple string) bool {
	return tripleArch(triple) == "amdgcn" || tripleArch(triple) == "r600"
}
func isNVPTX(triple string) bool {
	a := tripleArch(triple)
	return a == "nvptx" || a == "nvptx64"
}
func isSPIRV(triple string) bool { return strings.HasPrefix(tripleArch(triple), "spirv") }
func isGPU(triple string) bool   { return isAMDGPU(triple) || isNVPTX(triple) || isSPIRV(triple) }

// knownArch reports whether s names an architecture LLVM's Triple parser
// knows (used to tell "<triple>=<value>" from a plain value).
func knownArch(s string) bool {
	switch s {
	case "x86_64", "amd64", "i386", "i486", "i586", "i686", "x86", "aarch64", "arm64", "aarch64_be",
		"arm", "armeb", "thumb", "ppc", "ppc64", "ppc64le", "powerpc64", "powerpc64le", "powerpc",
		"nvptx", "nvptx64", "amdgcn", "r600", "spirv", "spirv32", "spirv64", "systemz", "s390x",
		"loongarch32", "loongarch64", "riscv32", "riscv64", "mips", "mipsel", "mips64", "mips64el",
		"sparc", "sparcv9", "wasm32", "wasm64", "ve", "hexagon", "bpf", "bpfel", "bpfeb":
		return true
	}
	return false
}

// splitTargetID splits "gfx90a:sramecc+:xnack-" into the processor and a
// feature → sign map.
func splitTargetID(arch string) (string, map[string]byte) {
	parts := strings.Split(arch, ":")
	feats := map[string]byte{}
	for _, f := range parts[1:] {
		if n := len(f); n > 1 && (f[n-1] == '+' || f[n-1] == '-') {
			feats[f[:n-1]] = f[n-1]
		}
	}
	return parts[0], feats
}

// compatible is LLVM 22.1.8's areTargetsCompatible (spec §3.1).
func compatible(a, b groupKey) bool {
	if a == b || a.triple != b.triple {
		return false
	}
	if a.arch == "generic" || b.arch == "generic" {
		return true
	}
	if !isAMDGPU(a.triple) {
		return false
	}
	pa, fa := splitTargetID(a.arch)
	pb, fb := splitTargetID(b.arch)
	if pa != pb {
		return false
	}
	for k, s := range fa {
		if t, ok := fb[k]; ok && t != s {
			return false
		}
	}
	return true
}

// group is one device link job.
type group struct {
	key    groupKey
	inputs []*devInput
}

// groups is an insertion-ordered map of groups.
type groups struct {
	order []*group
	byKey map[groupKey]*group
}

func newGroups() *groups { return &groups{byKey: map[groupKey]*group{}} }

func (gs *groups) get(k groupKey) *group {
	g := gs.byKey[k]
	if g == nil {
		g = &group{key: k}
		gs.byKey[k] = g
		gs.order = append(gs.order, g)
	}
	return g
}

// addObject places an object's image in its own group and in every
// existing compatible group.
func (gs *groups) addObject(in *devInput) {
	gs.add(in, in.key(), true)
}

// addMember places an archive member's image in the existing groups it is
// compatible with, and in its own group if that exists or mayCreate is set.
// It reports whether the image was used.
func (gs *groups) addMember(in *devInput, mayCreate bool) bool {
	k := in.key()
	_, exists := gs.byKey[k]
	return gs.add(in, k, exists || mayCreate)
}

// add places in, whose key is k, in its own group when own is set
// (creating it if need be) and in every existing group compatible with k.
// It reports whether the image was placed anywhere.
func (gs *groups) add(in *devInput, k groupKey, own bool) bool {
	var targets []groupKey
	if own {
		targets = append(targets, k)
	}
	for _, g := range gs.order {
		if compatible(k, g.key) {
			targets = append(targets, g.key)
		}
	}
	for _, t := range targets {
		g := gs.get(t)
		g.inputs = append(g.inputs, in)
	}
	return len(targets) > 0
}
