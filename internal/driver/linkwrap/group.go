package linkwrap

import (
	"strings"

	"github.com/offload-kit/offload-kit/format/triple"
)

// groupKey identifies one device link: the exact triple string and arch.
type groupKey struct{ triple, arch string }

// target is the group's triple as llvm::Triple parses it: every question
// about a triple (its architecture, GPU or CPU, 64-bit) goes through
// format/triple.
func (k groupKey) target() triple.Triple { return triple.Parse(k.triple) }

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
	if !a.target().IsAMDGPU() {
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
