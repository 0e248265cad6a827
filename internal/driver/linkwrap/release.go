package linkwrap

// The LLVM release a link behaves as (docs/linker-wrapper.md, "Releases").
// Users run clang 16 to 22 with -B<dir>; each release's clang passes its own
// wrapper options and writes its own entry sections and offload kinds. The
// release is settled here, once per link, and asked through
// internal/release's facts wherever the releases differ.

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/release"
	"github.com/offload-kit/offload-kit/internal/run"
)

// rel is the release the link behaves as (LLVM 22 before it is settled,
// e.g. for a driver that tests build by hand).
func (d *driver) rel() release.Profile {
	if d.profile.Major == 0 {
		return release.Default()
	}
	return d.profile
}

// releaseEvidence is what the inputs and the command line say about the
// release: the .comment producers, the entry sections and the options that
// only some releases pass, each with where it was seen.
type releaseEvidence struct {
	comments map[int]string // major -> "<origin>: clang version ..."
	sections []evidence     // entry sections
	options  []evidence     // options of some releases only
}

type evidence struct {
	r   release.Range
	why string
}

// gatherEvidence reads the .comment and entry sections of the ELF objects
// that carry device code (and of their ELF device images), and the options.
func (d *driver) gatherEvidence(sr *scanResult) *releaseEvidence {
	ev := &releaseEvidence{comments: map[int]string{}}
	seenSec := map[string]bool{}
	consider := func(origin string, data []byte) {
		if format.Identify(data) != format.KindELF {
			return
		}
		obj, err := elfembed.Parse(data)
		if err != nil {
			return
		}
		if s := obj.Section(".comment"); s != nil {
			if m, v, ok := run.ParseLLVMVersion(s.Data); ok {
				if _, dup := ev.comments[m]; !dup {
					ev.comments[m] = fmt.Sprintf(".comment of %s: clang version %s", origin, v)
				}
			}
		}
		for _, name := range release.EntrySections {
			if obj.Section(name) == nil || seenSec[name] {
				continue
			}
			seenSec[name] = true
			r, _ := release.EntrySectionReleases(name)
			ev.sections = append(ev.sections, evidence{r, fmt.Sprintf("entry section %s in %s (%s)", name, origin, r)})
		}
	}
	if sr != nil {
		for _, units := range [][]*unit{sr.objects, sr.members} {
			for _, u := range units {
				if len(u.images) == 0 {
					continue
				}
				consider(u.origin, u.data)
				for _, b := range u.images {
					consider(u.origin+" ("+b.Triple()+" image)", b.Image)
				}
			}
		}
	}
	seenOpt := map[string]bool{}
	for i := range d.opt.Args {
		a := &d.opt.Args[i]
		if a.Opt == nil || len(a.Raw) == 0 {
			continue
		}
		o, ok := release.WrapperOptionReleases(a.Raw[0])
		if !ok || seenOpt[o.Spelling] {
			continue
		}
		seenOpt[o.Spelling] = true
		ev.options = append(ev.options, evidence{o.Releases, fmt.Sprintf("option %s (%s)", quoteOption(o.Spelling), o.Releases)})
	}
	return ev
}

func quoteOption(s string) string {
	if s == "--" {
		return "'--'"
	}
	return s
}

// narrow intersects the ranges; ok is false when two of them exclude each
// other (bad names the pair).
func narrow(r release.Range, evs []evidence) (out release.Range, why []string, bad string) {
	out = r
	var used []evidence
	for _, e := range evs {
		x, ok := out.Intersect(e.r)
		if !ok {
			for _, u := range used {
				if _, ok := u.r.Intersect(e.r); !ok {
					return out, why, u.why + " and " + e.why
				}
			}
			return out, why, e.why
		}
		out = x
		used = append(used, e)
		why = append(why, e.why)
	}
	return out, why, ""
}

// settleRelease decides the release of this link: $OFFLOAD_KIT_LLVM_RELEASE
// or the invoking clang (driverenv.Env.Release), else the newest .comment
// producer of the inputs, else the entry sections and options, which
// narrow it to a range (behaving as its newest release when that is 22,
// else as its oldest, when the releases in it agree on every fact; else
// unsettled, as 22). Inputs that contradict each other or the chosen
// release are warned about.
func (d *driver) settleRelease(ctx context.Context, sr *scanResult) error {
	p, err := d.env.Release(ctx)
	if err != nil {
		return err
	}
	ev := d.gatherEvidence(sr)
	majors := make([]int, 0, len(ev.comments))
	for m := range ev.comments {
		majors = append(majors, m)
	}
	sort.Ints(majors)
	if len(majors) > 0 {
		// The tool lookup prefers the installation of the newest release
		// that produced the inputs (tools.go).
		d.inputMajor = majors[len(majors)-1]
	}
	if len(majors) > 1 {
		var ws []string
		for _, m := range majors {
			ws = append(ws, ev.comments[m])
		}
		d.warnf("the inputs were compiled by different LLVM releases (%s); offload entries of only one release can be registered", strings.Join(ws, "; "))
	}
	secRange, secWhy, secBad := narrow(release.All, ev.sections)
	if secBad != "" {
		d.warnf("the inputs contradict each other: %s", secBad)
	}
	if !p.Settled && len(majors) > 0 {
		m := majors[len(majors)-1]
		p = release.Of(m, ev.comments[m])
	}
	if p.Settled {
		if secBad == "" && len(ev.sections) > 0 && !secRange.Contains(p.Major) {
			d.warnf("behaving as LLVM %d (%s), but the inputs carry %s", p.Major, p.Why, strings.Join(secWhy, ", "))
		}
	}
	// unsettled is the one line said when nothing settles the release.
	unsettled := "no release named by $OFFLOAD_KIT_LLVM_RELEASE, the invoking clang, the inputs or the options"
	if !p.Settled {
		all := ev.options
		if secBad == "" {
			all = append(append([]evidence(nil), ev.sections...), ev.options...)
		}
		r, why, bad := narrow(release.All, all)
		switch {
		case bad != "":
			d.warnf("the inputs and options name no one LLVM release (%s); behaving as LLVM %d", bad, release.Newest)
			unsettled = ""
		case len(why) == 0:
		default:
			lo, hi := release.Of(r.Lo, ""), release.Of(r.Hi, "")
			pick := r.Lo
			if r.Hi == release.Newest {
				pick = r.Hi
			}
			w := strings.Join(why, ", ")
			switch {
			case r.Lo == r.Hi:
				p = release.Of(pick, w)
			case lo.LegacyEntries() == hi.LegacyEntries() && lo.HIPOffloadKind() == hi.HIPOffloadKind() &&
				lo.WrapperDefaultOptLevel() == hi.WrapperDefaultOptLevel():
				p = release.Of(pick, fmt.Sprintf("%s: %s, which agree on entries and defaults", w, r))
			default:
				unsettled = fmt.Sprintf("%s leaves releases that differ in their offload entries or defaults", w)
			}
		}
	}
	d.profile = p
	if p.Settled && d.opt.Verbose {
		d.notef("release: using LLVM %d (%s)", p.Major, p.Why)
	} else if !p.Settled && unsettled != "" && (d.opt.Verbose || d.opt.DryRun) {
		d.notef("release: using LLVM %d (unsettled: %s)", p.Major, unsettled)
	}
	return nil
}

// bitcodeLibrary is --bitcode-library=<kind>-<triple>-<arch>=<path> (LLVM
// 16-19): an extra input of the device link of that kind, triple and arch.
type bitcodeLibrary struct{ kind, triple, arch, path string }

func parseBitcodeLibrary(v string) (bitcodeLibrary, error) {
	dev, path, ok := strings.Cut(v, "=")
	kind, rest, ok2 := strings.Cut(dev, "-")
	i := strings.LastIndexByte(rest, '-')
	if !ok || !ok2 || path == "" || i <= 0 || i == len(rest)-1 {
		return bitcodeLibrary{}, fmt.Errorf("--bitcode-library=%s: expected <kind>-<triple>-<arch>=<path>", v)
	}
	return bitcodeLibrary{kind: kind, triple: rest[:i], arch: rest[i+1:], path: path}, nil
}

// bitcodeLibraries are the --bitcode-library paths for the device link of
// g.
func (d *driver) bitcodeLibraries(g *group) []string {
	var out []string
	for _, v := range d.opt.BitcodeLibraries {
		l, err := parseBitcodeLibrary(v)
		if err != nil || l.triple != g.key.triple || l.arch != g.key.arch {
			continue
		}
		for _, in := range g.inputs {
			if in.bin.Kind().String() == l.kind { // HIP: 3 up to LLVM 19, 4 since
				out = append(out, l.path)
				break
			}
		}
	}
	return out
}

// optLevelArgs is the device link's optimisation level as older releases'
// wrappers give it, right after -march/-mcpu: --opt-level, else O2 up to
// LLVM 20 (release.Profile.WrapperDefaultOptLevel).
func (d *driver) optLevelArgs() []string {
	lvl := d.opt.OptLevel
	if lvl == "" {
		lvl = d.rel().WrapperDefaultOptLevel()
	}
	if lvl == "" {
		return nil
	}
	return []string{"-" + lvl}
}

// legacyLinkArgs follow the inputs, host libraries (and, up to LLVM 19,
// -mllvm values), in LLVM 19's order: -g (--device-debug), -save-temps
// (--save-temps, up to 19), -Xcuda-ptxas (--ptxas-arg: up to 19 for every
// target, as those wrappers did, else nvptx only), -Xclang
// -mlink-builtin-bitcode (--builtin-bitcode, for its triple), -mllvm
// -openmp-opt-disable (LLVM 17-19 with --clang-backend or
// --builtin-bitcode), then -Rpass* (--pass-remarks*: older wrappers gave
// them to their own LTO; here clang's LTO gets them).
func (d *driver) legacyLinkArgs(tr string) []string {
	o := d.opt
	legacy := d.rel().WrapperLegacyDeviceLink()
	var args []string
	if o.DeviceDebug {
		args = append(args, "-g")
	}
	if o.SaveTemps && legacy {
		args = append(args, "-save-temps")
	}
	if triple.Parse(tr).IsNVPTX() || legacy {
		for _, a := range o.PtxasArgs {
			args = append(args, "-Xcuda-ptxas", a)
		}
	}
	for _, v := range o.BuiltinBitcode {
		if t, p, _ := strings.Cut(v, "="); t == tr {
			args = append(args, "-Xclang", "-mlink-builtin-bitcode", "-Xclang", p)
		}
	}
	if o.ClangBackend || len(o.BuiltinBitcode) > 0 {
		args = append(args, "-mllvm", "-openmp-opt-disable")
	}
	for _, r := range []struct{ flag, v string }{{"-Rpass=", o.PassRemarks}, {"-Rpass-missed=", o.PassRemarksMissed}, {"-Rpass-analysis=", o.PassRemarksAnalysis}} {
		if r.v != "" {
			args = append(args, r.flag+r.v)
		}
	}
	return args
}
