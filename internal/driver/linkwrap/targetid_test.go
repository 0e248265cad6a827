package linkwrap

// Lazy archive selection per target ID (inputs.go selectMembers): a
// multi-arch device library (LLVM's libomptarget.devicertl.a, a user's
// static library built for several GPUs) gives a link only the members
// whose device images serve its targets, by LLVM 22's areTargetsCompatible.

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/objw"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// devImage is one device image of a synthetic object: an ELF relocatable
// for triple/arch defining defs and referencing undefs.
type devImage struct {
	triple, arch string
	defs, undefs []string
}

const (
	amdgcn = "amdgcn-amd-amdhsa"
	nvptx  = "nvptx64-nvidia-cuda"
)

// elfObject writes an ELF relocatable for machine with a .text section
// defining defs, undefined references undefs, and (when pkg is set) a
// .llvm.offloading section holding pkg.
func elfObject(t *testing.T, machine uint16, defs, undefs []string, pkg []byte) []byte {
	t.Helper()
	o := objw.NewELF(machine)
	text := o.AddSection(".text", format.SHT_PROGBITS, format.SHF_ALLOC|format.SHF_EXECINSTR, 16, make([]byte, 16*len(defs)+1))
	for i, d := range defs {
		o.AddSymbol(d, text, uint64(16*i), 16, format.STB_GLOBAL, format.STT_FUNC, format.STV_DEFAULT)
	}
	for _, u := range undefs {
		o.AddSymbol(u, nil, 0, 0, format.STB_GLOBAL, format.STT_NOTYPE, format.STV_DEFAULT)
	}
	if pkg != nil {
		o.AddSection(".llvm.offloading", format.SHT_LLVM_OFFLOADING, format.SHF_EXCLUDE, 8, pkg)
	}
	data, err := o.Bytes()
	require.NoError(t, err)
	return data
}

// hostObject is an x86-64 object with host symbols and device images.
func hostObject(t *testing.T, hostDefs, hostUndefs []string, imgs ...devImage) []byte {
	t.Helper()
	var pkg []byte
	for _, im := range imgs {
		machine := uint16(224) // EM_AMDGPU
		if strings.HasPrefix(im.triple, "nvptx") {
			machine = 190 // EM_CUDA
		} else if strings.HasPrefix(im.triple, "x86_64") {
			machine = format.EM_X86_64
		}
		pkg = offload.AppendBinary(pkg, &offload.Image{ImageKind: format.ImgObject, OffloadKind: format.OfkOpenMP,
			Strings: []offload.KV{{Key: "triple", Value: im.triple}, {Key: "arch", Value: im.arch}},
			Image:   elfObject(t, machine, im.defs, im.undefs, nil)})
	}
	return elfObject(t, format.EM_X86_64, hostDefs, hostUndefs, pkg)
}

// member is one archive member.
type member struct {
	name string
	data []byte
}

func writeArchive(t *testing.T, path string, ms ...member) {
	t.Helper()
	var wm []ar.WriteMember
	for _, m := range ms {
		wm = append(wm, ar.WriteMember{Name: m.name, Data: m.data})
	}
	var buf bytes.Buffer
	require.NoError(t, ar.WriteGNU(&buf, wm))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
}

// deviceGroups scans and groups a link as the driver does and returns,
// per device link ("<triple> <arch>"), its inputs ("lib.a(m.o)"), and the
// --wrapper-verbose notes.
func deviceGroups(t *testing.T, dir string, args ...string) (map[string][]string, string) {
	t.Helper()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "$D", dir)
	}
	o, err := ParseArgs(append([]string{"--linker-path=/usr/bin/ld", "--wrapper-verbose", "-o", filepath.Join(dir, "app")}, args...))
	require.NoError(t, err)
	var stderr bytes.Buffer
	d := &driver{opt: o, env: Env{Env: driverenv.Env{Stderr: &stderr, Tool: "linker-wrapper"}}}
	d.inflate = d.maxInflated()
	sr, err := d.scanInputs()
	require.NoError(t, err)
	defer sr.close()
	gs := d.groupInputs(sr)
	out := map[string][]string{}
	for _, g := range gs.order {
		var ins []string
		for _, in := range g.inputs {
			ins = append(ins, filepath.Base(in.unit.bufferID))
		}
		sort.Strings(ins)
		out[g.key.triple+" "+g.key.arch] = ins
	}
	return out, stderr.String()
}

// drtMember is a device-runtime member for one arch: a host object
// without host symbols whose device image defines __kmpc_target_init and
// __kmpc_target_deinit (as every member of LLVM's device runtime does) and
// references undefs.
func drtMember(t *testing.T, triple, arch string, undefs ...string) member {
	name := "drt-" + strings.NewReplacer(":", "_", "+", "p", "-", "m").Replace(arch) + ".o"
	if arch == "" {
		name = "drt-none.o"
	}
	return member{name, hostObject(t, nil, nil, devImage{triple: triple, arch: arch, defs: []string{"__kmpc_target_init", "__kmpc_target_deinit"}, undefs: undefs})}
}

// TestMemberSelectionPerTargetID: a gfx90a link takes only the gfx90a
// member of a library with device code for gfx700, gfx90a and gfx1100 (in
// either archive order), and an sm_90 link only the sm_90 member of an
// sm_35/sm_90 library; a gfx700 member defining the same symbol first
// neither satisfies nor pulls anything for gfx90a.
func TestMemberSelectionPerTargetID(t *testing.T) {
	dir := t.TempDir()
	main := func(triple, arch string) []byte {
		return hostObject(t, []string{"main"}, nil, devImage{triple: triple, arch: arch, defs: []string{"kernel"}, undefs: []string{"__kmpc_target_init"}})
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main-gfx90a.o"), main(amdgcn, "gfx90a"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main-sm_90.o"), main(nvptx, "sm_90"), 0o644))
	gfx := []member{drtMember(t, amdgcn, "gfx700"), drtMember(t, amdgcn, "gfx90a"), drtMember(t, amdgcn, "gfx1100")}
	writeArchive(t, filepath.Join(dir, "libdrt.a"), gfx...)
	writeArchive(t, filepath.Join(dir, "libdrt-rev.a"), gfx[2], gfx[1], gfx[0])
	writeArchive(t, filepath.Join(dir, "libnv.a"), drtMember(t, nvptx, "sm_35"), drtMember(t, nvptx, "sm_90"))

	for _, lib := range []string{"$D/libdrt.a", "$D/libdrt-rev.a", "-L$D -ldrt"} {
		args := append([]string{"$D/main-gfx90a.o"}, strings.Fields(lib)...)
		got, notes := deviceGroups(t, dir, args...)
		assert.Equal(t, map[string][]string{amdgcn + " gfx90a": {"drt-gfx90a.o", "main-gfx90a.o"}}, got, lib)
		assert.Contains(t, notes, "drt-gfx90a.o): taking amdgcn-amd-amdhsa/gfx90a device code: device code for amdgcn-amd-amdhsa gfx90a references __kmpc_target_init")
		assert.NotContains(t, notes, "gfx700")
	}
	got, _ := deviceGroups(t, dir, "$D/main-sm_90.o", "$D/libnv.a")
	assert.Equal(t, map[string][]string{nvptx + " sm_90": {"drt-sm_90.o", "main-sm_90.o"}}, got)

	// Both GPUs in one link: each takes its own member.
	got, _ = deviceGroups(t, dir, "$D/main-gfx90a.o", "$D/main-sm_90.o", "$D/libnv.a", "$D/libdrt.a")
	assert.Equal(t, map[string][]string{amdgcn + " gfx90a": {"drt-gfx90a.o", "main-gfx90a.o"}, nvptx + " sm_90": {"drt-sm_90.o", "main-sm_90.o"}}, got)

	// What a member pulls is resolved for the targets it serves: the
	// gfx90a runtime's helper comes from the gfx90a helper member.
	writeArchive(t, filepath.Join(dir, "libchain.a"), drtMember(t, amdgcn, "gfx700", "helper"),
		member{"helper-gfx700.o", hostObject(t, nil, nil, devImage{triple: amdgcn, arch: "gfx700", defs: []string{"helper"}})},
		drtMember(t, amdgcn, "gfx90a", "helper"),
		member{"helper-gfx90a.o", hostObject(t, nil, nil, devImage{triple: amdgcn, arch: "gfx90a", defs: []string{"helper"}})})
	got, _ = deviceGroups(t, dir, "$D/main-gfx90a.o", "$D/libchain.a")
	assert.Equal(t, map[string][]string{amdgcn + " gfx90a": {"drt-gfx90a.o", "helper-gfx90a.o", "main-gfx90a.o"}}, got)

	// LLVM 22's selection is unchanged: every member of an existing target.
	got, _ = deviceGroups(t, dir, "--device-archives=llvm22", "$D/main-gfx90a.o", "$D/libdrt.a")
	assert.Equal(t, map[string][]string{amdgcn + " gfx90a": {"drt-gfx90a.o", "main-gfx90a.o"}}, got)
}

// TestMemberSelectionCompatibleTargets: members whose target ID is
// compatible with the link's serve it without a device link of their own:
// an xnack-any gfx90a member a gfx90a:xnack+ link, a generic member any
// arch of its triple; an xnack- member does not serve an xnack+ link.
// Within one archive the first member serving the link that defines a
// symbol wins, as the first definition does in the host linkers.
func TestMemberSelectionCompatibleTargets(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.o"), hostObject(t, []string{"main"}, nil,
		devImage{triple: amdgcn, arch: "gfx90a:xnack+", undefs: []string{"__kmpc_target_init", "generic_fn"}}), 0o644))
	writeArchive(t, filepath.Join(dir, "libx.a"),
		drtMember(t, amdgcn, "gfx90a:xnack-"), drtMember(t, amdgcn, "gfx942"), drtMember(t, amdgcn, "gfx90a"),
		member{"generic.o", hostObject(t, nil, nil, devImage{triple: amdgcn, arch: "generic", defs: []string{"generic_fn"}})},
		member{"generic-nv.o", hostObject(t, nil, nil, devImage{triple: nvptx, arch: "generic", defs: []string{"generic_fn"}})})
	got, notes := deviceGroups(t, dir, "$D/main.o", "$D/libx.a")
	assert.Equal(t, map[string][]string{amdgcn + " gfx90a:xnack+": {"drt-gfx90a.o", "generic.o", "main.o"}}, got, notes)

	// areTargetsCompatible is symmetric (unlike clang-offload-bundler's
	// code-object rule): an xnack+ member serves an xnack-any link.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main-any.o"), hostObject(t, []string{"main"}, nil,
		devImage{triple: amdgcn, arch: "gfx90a", undefs: []string{"__kmpc_target_init"}}), 0o644))
	writeArchive(t, filepath.Join(dir, "liby.a"), drtMember(t, amdgcn, "gfx90a:xnack-"), drtMember(t, amdgcn, "gfx90a:xnack+"))
	got, notes = deviceGroups(t, dir, "$D/main-any.o", "$D/liby.a")
	assert.Equal(t, map[string][]string{amdgcn + " gfx90a": {"drt-gfx90a_xnackm.o", "main-any.o"}}, got, "the first member serving the link wins\n%s", notes)
}

// TestMemberSelectionFallbackTargets: where the host link line is not
// understood, the members taken are those with device code for the
// targets the link has from its objects (or compatible with them), never
// members for other targets, even when the host link may keep them.
func TestMemberSelectionFallbackTargets(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.o"), hostObject(t, []string{"main"}, []string{"k_run"},
		devImage{triple: amdgcn, arch: "gfx90a", defs: []string{"kernel"}}), 0o644))
	writeArchive(t, filepath.Join(dir, "libf.a"),
		drtMember(t, amdgcn, "gfx700"), drtMember(t, amdgcn, "gfx90a"), drtMember(t, amdgcn, "gfx1100"),
		member{"generic.o", hostObject(t, nil, nil, devImage{triple: amdgcn, arch: "generic", defs: []string{"g"}})},
		member{"k-gfx700.o", hostObject(t, []string{"k_run"}, nil, devImage{triple: amdgcn, arch: "gfx700", defs: []string{"k"}})},
		member{"host-only.o", hostObject(t, []string{"h"}, nil)})
	got, notes := deviceGroups(t, dir, "$D/main.o", "$D/libf.a", "--frobnicate")
	assert.Equal(t, map[string][]string{amdgcn + " gfx90a": {"drt-gfx90a.o", "generic.o", "main.o"}}, got, notes)
	assert.Contains(t, notes, "drt-gfx90a.o): taking amdgcn-amd-amdhsa/gfx90a device code: the host link may keep it: the host linker option '--frobnicate' is not understood")

	// --should-extract still names a target to add.
	got, _ = deviceGroups(t, dir, "--should-extract=gfx1100", "$D/main.o", "$D/libf.a", "--frobnicate")
	assert.Equal(t, map[string][]string{amdgcn + " gfx90a": {"drt-gfx90a.o", "generic.o", "main.o"}, amdgcn + " gfx1100": {"drt-gfx1100.o", "generic.o"}}, got)

	// Understood, the same link keeps k-gfx700.o for k_run: its host
	// code is linked, so its gfx700 device code is too (a link of its own).
	got, _ = deviceGroups(t, dir, "$D/main.o", "$D/libf.a")
	assert.Equal(t, map[string][]string{amdgcn + " gfx90a": {"main.o"}, amdgcn + " gfx700": {"k-gfx700.o"}}, got)
}
