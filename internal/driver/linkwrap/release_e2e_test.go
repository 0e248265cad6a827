package linkwrap

// The release matrix (docs/linker-wrapper.md, "Releases"): for LLVM 16, 19
// and 22, OpenMP programs compiled by that release's clang are linked twice,
// by the release's own clang-linker-wrapper (plain clang-N) and through
// clang-N -B<our wrapper>, and run against that release's OpenMP runtime;
// both must print the same. GPU links (gfx90a) are compared as --dry-run
// plans. Tools missing fail the test with the install hint (never skip).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/offload-kit/offload-kit/internal/testutil/tmproot"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// matrixReleases are the releases whose own wrapper is the oracle.
func matrixReleases() []int { return append(append([]int(nil), llvmtools.Releases...), 22) }

// releaseKit is one release's clang, its compile and link flags and its
// OpenMP runtime.
type releaseKit struct {
	major   int
	clang   string
	runtime string   // RuntimeLib: -L at link time, LD_LIBRARY_PATH at run time
	compile []string // -fopenmp ... (and omp.h of the unpacked runtime)
	link    []string
}

func newReleaseKit(t *testing.T, major int, offload ...string) releaseKit {
	t.Helper()
	k := releaseKit{major: major, clang: llvmtools.ReleaseTool(t, major, "clang"), runtime: llvmtools.RuntimeLib(t, major)}
	llvmtools.ReleaseTool(t, major, "clang-linker-wrapper") // the oracle
	flags := append([]string{"-fopenmp"}, offload...)
	if major == 16 {
		flags = append(flags, "--offload-new-driver")
	}
	k.compile = append(append([]string(nil), flags...), "-c")
	if major != 22 {
		// Debian's libomp-N-dev (omp.h) is unpacked, not installed.
		inc := filepath.Join(k.runtime, "clang", fmt.Sprint(major), "include")
		_, err := os.Stat(filepath.Join(inc, "omp.h"))
		require.NoError(t, err, "LLVM %d omp.h (scripts/install-deps.sh unpacks it)", major)
		k.compile = append(k.compile, "-isystem", inc)
	}
	k.link = append(flags, "-L"+k.runtime)
	return k
}

// runEnv runs programs on the release's runtime, offloading mandatory: a
// program whose images do not register aborts instead of falling back.
func (k releaseKit) runEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "LD_LIBRARY_PATH=" + k.runtime, "OMP_TARGET_OFFLOAD=MANDATORY"}
}

// try runs argv in dir, returning its stdout, then its stderr, and the
// error. (One buffer for both would be written from two goroutines.)
func try(dir string, env []string, argv ...string) (string, error) {
	var out, errb bytes.Buffer
	err := run.Exec{}.Run(context.Background(), &run.Cmd{Args: argv, Dir: dir, Env: tmproot.Env(env), Stdout: &out, Stderr: &errb})
	return out.String() + errb.String(), err
}

// matrixProgram builds its objects with compile (in dir) and returns the
// final link's arguments; extra are the flags of the case (-O2, -g, ...).
type matrixProgram struct {
	name  string
	extra []string
	// build compiles and returns the link arguments; link links (the same
	// for both wrappers) with the given extra clang arguments.
	build func(t *testing.T, k releaseKit, dir string, wrapper []string) []string
}

func compileIn(t *testing.T, k releaseKit, dir string, extra []string, files ...string) {
	t.Helper()
	var srcs []string
	for _, f := range files {
		srcs = append(srcs, src(f))
	}
	sh(t, dir, nil, cmdline(k.clang, k.compile, extra, srcs)...)
}

// single compiles single.c with extra and links it with extra.
func single(extra ...string) func(*testing.T, releaseKit, string, []string) []string {
	return func(t *testing.T, k releaseKit, dir string, _ []string) []string {
		compileIn(t, k, dir, extra, "single.c")
		return cmdline(extra, "single.o")
	}
}

var matrixPrograms = []matrixProgram{
	{name: "two-tu", build: func(t *testing.T, k releaseKit, dir string, _ []string) []string {
		compileIn(t, k, dir, nil, "xtu_main.c", "xtu_dev.c")
		return []string{"xtu_main.o", "xtu_dev.o"}
	}},
	{name: "static-library", build: func(t *testing.T, k releaseKit, dir string, _ []string) []string {
		compileIn(t, k, dir, nil, "lib_main.c", "lib_dev.c")
		sh(t, dir, nil, llvmtools.ReleaseTool(t, k.major, "llvm-ar"), "rcs", "libdev.a", "lib_dev.o")
		return []string{"lib_main.o", "-L.", "-ldev"}
	}},
	{name: "relocatable", build: func(t *testing.T, k releaseKit, dir string, wrapper []string) []string {
		compileIn(t, k, dir, nil, "reloc_a.c", "reloc_b.c", "reloc_main.c")
		sh(t, dir, nil, cmdline(k.clang, k.link, wrapper, "-r", "reloc_a.o", "reloc_b.o", "-o", "reloc.o")...)
		return []string{"reloc_main.o", "reloc.o"}
	}},
	{name: "lto", build: func(t *testing.T, k releaseKit, dir string, _ []string) []string {
		llvmtools.ReleaseTool(t, k.major, "ld.lld")
		compileIn(t, k, dir, []string{"-flto"}, "single.c")
		return []string{"-flto", "-fuse-ld=lld", "single.o"}
	}},
	{name: "O2", build: single("-O2")},
	{name: "g", build: single("-g")},
	{name: "offload-mandatory", build: single("-fopenmp-offload-mandatory")},
}

// relocatableExpected: the -r case where the release's own wrapper gives no
// working program. LLVM 16's wrapper has no -r: it wraps the -r output as a
// program, so the final link defines __dummy.omp_offloading.entry twice (we
// do the same). LLVM 19's and 22's final links relink the -r output's image
// into a second one that refers to a deleted temporary, and the program
// aborts; ours registers the -r output's images once and runs.
func relocatableExpected(major int) (linkFails string, output string) {
	if major == 16 {
		return "multiple definition of `__dummy.omp_offloading.entry'", ""
	}
	return "", "on_device=1\na=42 b=101 m=7\n"
}

// TestReleaseOpenMPMatrix links each program for each release with the
// release's own wrapper and with ours, runs both and compares.
func TestReleaseOpenMPMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	bin := buildWrapper(t)
	for _, major := range matrixReleases() {
		k := newReleaseKit(t, major, "-fopenmp-targets=x86_64-unknown-linux-gnu")
		for _, p := range matrixPrograms {
			t.Run(fmt.Sprintf("llvm%d/%s", major, p.name), func(t *testing.T) {
				outputs := map[string]string{}
				for _, who := range []string{"reference", "ours"} {
					var wrapper []string
					if who == "ours" {
						wrapper = []string{"-B" + bin, "-Xlinker", "--wrapper-verbose"}
					}
					dir := t.TempDir()
					args := p.build(t, k, dir, wrapper)
					linkOut, err := try(dir, nil, cmdline(k.clang, k.link, wrapper, args, "-o", "app")...)
					if p.name == "relocatable" {
						if fails, _ := relocatableExpected(major); fails != "" {
							require.Error(t, err, "%s: the final link must fail as LLVM %d's does", who, major)
							assert.Contains(t, linkOut, fails, who)
							outputs[who] = "link failed"
							continue
						}
					}
					require.NoError(t, err, "%s link:\n%s", who, linkOut)
					if who == "ours" {
						// Our wrapper ran, as the invoking clang's release.
						assert.Contains(t, linkOut, fmt.Sprintf("note: release: using LLVM %d (the invoking clang %s", major, k.clang))
					}
					out, err := try(dir, k.runEnv(), "./app")
					if p.name == "relocatable" && who == "reference" {
						// Known to abort (relocatableExpected).
						assert.Error(t, err, "LLVM %d's -r program now runs: compare it instead", major)
						continue
					}
					require.NoError(t, err, "%s program:\n%s", who, out)
					outputs[who] = out
				}
				if p.name == "relocatable" {
					if _, want := relocatableExpected(major); want != "" {
						assert.Equal(t, want, outputs["ours"])
						return
					}
				}
				assert.Equal(t, outputs["reference"], outputs["ours"], "output of the program linked by the release's wrapper and by ours")
				if outputs["ours"] != "link failed" {
					assert.True(t, strings.HasPrefix(outputs["ours"], "on_device=1\n"), "target region must run on the device: %q", outputs["ours"])
				}
			})
		}
	}
}

var (
	// A device link's temporary input (extracted image or LTO output).
	tmpObjRe = regexp.MustCompile(`^/tmp/.*\.o$`)
	// The stem of our extracted inputs: <stem>-<triple>-<arch>-<hash>.o.
	extractedStemRe = regexp.MustCompile(`^(.*)-amdgcn-amd-amdhsa-gfx90a-[0-9a-f]{6}\.o$`)
)

// devicePlan is one device link of a --dry-run, normalised: the command
// without -o, -dumpdir and their values, temporary inputs collapsed into
// one "<inputs>", and the stems of those inputs.
type devicePlan struct {
	cmd    string
	stems  []string
	dump   bool // -dumpdir was passed
	inputs int
}

func devicePlans(out string) []devicePlan {
	var plans []devicePlan
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, ` "`) || !strings.Contains(l, "--target=") {
			continue
		}
		f := strings.Fields(l)
		var p devicePlan
		var cmd []string
		for i := 0; i < len(f); i++ {
			switch a := f[i]; {
			case a == "-o" || a == "-dumpdir":
				p.dump = p.dump || a == "-dumpdir"
				i++
			case tmpObjRe.MatchString(a):
				if p.inputs == 0 {
					cmd = append(cmd, "<inputs>")
				}
				p.inputs++
				if m := extractedStemRe.FindStringSubmatch(filepath.Base(a)); m != nil {
					p.stems = append(p.stems, m[1])
				}
			default:
				cmd = append(cmd, a)
			}
		}
		p.cmd = strings.Join(cmd, " ")
		plans = append(plans, p)
	}
	return plans
}

// TestReleaseAMDGPUDryRun: an OpenMP gfx90a program compiled by clang-N
// plans the same device links under --dry-run through our wrapper as
// through release N's own, with the release's device runtime
// (libomptarget.devicertl.a under RuntimeLib, -lompdevice for 22).
// Normalised: temporary names; -flto and, for 16, --no-default-config are
// ours only (16's and 19's wrappers ran LTO in-process and hand clang one
// LTO output; ours hand clang the bitcode with -flto; 16's wrapper passes no
// --no-default-config, which its clang accepts); -dumpdir is checked apart
// (LLVM 22's wrapper passes it, 16's and 19's do not).
func TestReleaseAMDGPUDryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	bin := buildWrapper(t)
	for _, major := range matrixReleases() {
		t.Run(fmt.Sprintf("llvm%d", major), func(t *testing.T) {
			k := newReleaseKit(t, major, "--offload-arch=gfx90a")
			dir := t.TempDir()
			compileIn(t, k, dir, []string{"-nogpulib", "-O2"}, "single.c")
			plan := func(wrapper ...string) []devicePlan {
				out, err := try(dir, nil, cmdline(k.clang, k.link, "-O2", wrapper, "single.o", "-o", "app", "-Xlinker", "--dry-run")...)
				require.NoError(t, err, out)
				return devicePlans(out)
			}
			ref, ours := plan(), plan("-B"+bin)
			require.Len(t, ref, 1, "the reference plans one gfx90a link")
			require.Len(t, ours, len(ref), "device links: ours %+v, reference %+v", ours, ref)
			norm := ours[0].cmd
			if major < 22 {
				// The older wrappers ran LTO in-process and gave clang the
				// object; ours gives clang the bitcode with -flto, and for
				// the releases whose clang then drops the processor on the
				// lld LTO link, the processor and level (amdgpuLTOArgs).
				norm = strings.Replace(norm, " -flto ", " ", 1)
				norm = strings.Replace(norm, " -Wl,-plugin-opt=mcpu=gfx90a -Wl,-plugin-opt=O2 ", " ", 1)
			}
			if major == 16 {
				norm = strings.Replace(norm, " --no-default-config ", " ", 1)
			}
			assert.Equal(t, ref[0].cmd, norm, "normalised device link")
			assert.Equal(t, major >= 20, ours[0].dump, "-dumpdir")
			assert.Equal(t, ref[0].dump, ours[0].dump, "-dumpdir as the reference")
			assert.Contains(t, ours[0].cmd, fmt.Sprintf(`"%s/clang"`, llvmtools.ReleaseDir(major)), "the release's clang")
			// Our inputs: the program's image, and for 16 and 19 the
			// gfx90a member of the release's device runtime (the one the
			// release's in-process LTO links in); 22 links -lompdevice.
			want := []string{"single"}
			if major < 22 {
				want = append(want, "devicertl-amdgpu-gfx90a")
				assert.Equal(t, 1, ref[0].inputs, "the reference hands clang one LTO output")
			} else {
				assert.Equal(t, ref[0].stems, ours[0].stems)
			}
			assert.Equal(t, want, ours[0].stems)
		})
	}
}

// TestReleaseOptionParity runs release N's own clang-linker-wrapper and
// ours with --dry-run --save-temps (fixed temporary names) and the options
// only older releases have, on objects clang-N compiled: the printed
// commands are the same, byte for byte (--opt-level, --device-debug,
// --ptxas-arg, --save-temps; for 19 also -mllvm, --clang-backend and
// --builtin-bitcode; for 16 the "--" separator), except the name of LLVM
// 16's registration object (app.image.wrapper.o; ours is named by kind).
// Options those wrappers gave only to their in-process LTO (--offload-opt,
// --pass-remarks*, 16's -mllvm, and all options with --embed-bitcode) are
// left out: here they go to clang and its LTO (TestOldReleaseOptions).
func TestReleaseOptionParity(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	bin := buildWrapper(t)
	for _, major := range llvmtools.Releases {
		t.Run(fmt.Sprintf("llvm%d", major), func(t *testing.T) {
			k := newReleaseKit(t, major, "-fopenmp-targets=x86_64-unknown-linux-gnu")
			ref := llvmtools.ReleaseTool(t, major, "clang-linker-wrapper")
			dir := t.TempDir()
			compileIn(t, k, dir, nil, "xtu_main.c", "xtu_dev.c")
			bc := filepath.Join(dir, "extra.bc")
			require.NoError(t, os.WriteFile(bc, nil, 0o644))
			args := []string{"--dry-run", "--save-temps", "--host-triple=x86_64-pc-linux-gnu", "--linker-path=/usr/bin/ld",
				"--opt-level=O3", "--device-debug", "--ptxas-arg=-v", "--ptxas-arg=-O1"}
			if major == 16 {
				args = append(args, "--")
			} else {
				args = append(args, "-mllvm", "-unroll-count=2", "--clang-backend", "--builtin-bitcode=x86_64-unknown-linux-gnu="+bc)
			}
			args = append(args, "-o", "app", "xtu_main.o", "xtu_dev.o", "-L"+k.runtime, "-lomp", "-rpath", "/opt/x")
			env := []string{"PATH=" + os.Getenv("PATH")}
			want, err := try(dir, env, append([]string{ref}, args...)...)
			require.NoError(t, err, want)
			got, err := try(dir, env, append([]string{filepath.Join(bin, "clang-linker-wrapper")}, args...)...)
			require.NoError(t, err, got)
			got = dropToolNotes(got)
			if major == 16 {
				want = strings.Replace(want, " app.image.wrapper.o ", " app.openmp.image.wrapper.o ", 1)
			}
			assert.Equal(t, want, got)
			assert.Contains(t, got, " -O3 ")
			assert.NotContains(t, got, " -- ")
		})
	}
}

// TestReleaseSettleFromInputs runs our wrapper by hand (no invoking clang)
// on objects clang 19 and 22 compiled: the .comment producer settles the
// release (of the object, else of its device image); inputs of two
// releases, or a release named that the entry sections contradict, give a
// warning. (Entry sections alone are TestSettleFromOptions' ranges; clang
// writes .comment into the device image too, so a real object always has
// one.)
func TestReleaseSettleFromInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	bin := filepath.Join(buildWrapper(t), "clang-linker-wrapper")
	dir := t.TempDir()
	k19 := newReleaseKit(t, 19, "-fopenmp-targets=x86_64-unknown-linux-gnu")
	k22 := newReleaseKit(t, 22, "-fopenmp-targets=x86_64-unknown-linux-gnu")
	sh(t, dir, nil, cmdline(k19.clang, k19.compile, src("single.c"), "-o", "s19.o")...)
	sh(t, dir, nil, cmdline(k22.clang, k22.compile, src("single.c"), "-o", "s22.o")...)
	sh(t, dir, nil, llvmtools.ReleaseTool(t, 19, "llvm-objcopy"), "--remove-section=.comment", "s19.o", "bare19.o")
	link := func(vars []string, inputs ...string) string {
		out, err := try(dir, append([]string{"PATH=" + os.Getenv("PATH")}, vars...),
			cmdline(bin, "--dry-run", "--wrapper-verbose", "--linker-path=/usr/bin/ld", "-o", "app", inputs)...)
		require.NoError(t, err, out)
		return out
	}
	out := link(nil, "s19.o")
	assert.Contains(t, out, "note: release: using LLVM 19 (.comment of s19.o: clang version 19.1.7")
	assert.NotContains(t, out, "warning:")
	out = link(nil, "bare19.o")
	assert.Contains(t, out, "note: release: using LLVM 19 (.comment of bare19.o (x86_64-unknown-linux-gnu image): clang version 19.1.7)")
	out = link(nil, "s19.o", "s22.o")
	assert.Contains(t, out, "warning: the inputs were compiled by different LLVM releases (.comment of s19.o: clang version 19.1.7")
	assert.Contains(t, out, "warning: the inputs contradict each other: entry section omp_offloading_entries in s19.o (LLVM 16 to 19) and entry section llvm_offload_entries in s22.o (LLVM 20 to 22)")
	assert.Contains(t, out, "note: release: using LLVM 22 (.comment of s22.o")
	out = link([]string{"OFFLOAD_KIT_LLVM_RELEASE=22"}, "s19.o")
	assert.Contains(t, out, "warning: behaving as LLVM 22 ($OFFLOAD_KIT_LLVM_RELEASE), but the inputs carry entry section omp_offloading_entries in s19.o (LLVM 16 to 19)")
}

// TestReleasePartitions: --device-partitions with each release's clang.
// Partitions follow LLVM 22's LTO, so an LLVM 16 or 19 link says why it is
// not partitioned and links whole; LLVM 22's is partitioned. Every program
// prints what the release's own wrapper's link of it prints.
func TestReleasePartitions(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	bin := buildWrapper(t)
	for _, major := range matrixReleases() {
		t.Run(fmt.Sprintf("llvm%d", major), func(t *testing.T) {
			k := newReleaseKit(t, major, "-fopenmp-targets=x86_64-unknown-linux-gnu")
			k.compile = append(k.compile, "-foffload-lto")
			outputs := map[string]string{}
			for _, who := range []string{"reference", "ours"} {
				var wrapper []string
				if who == "ours" {
					wrapper = []string{"-B" + bin, "-Xlinker", "--device-partitions=3", "-Xlinker", "--wrapper-verbose"}
				}
				dir := t.TempDir()
				compileIn(t, k, dir, nil, "xtu_main.c", "xtu_dev.c")
				linkOut, err := try(dir, nil, cmdline(k.clang, k.link, "-foffload-lto", wrapper, "xtu_main.o", "xtu_dev.o", "-o", "app")...)
				require.NoError(t, err, "%s link:\n%s", who, linkOut)
				if who == "ours" {
					if major == 22 {
						assert.Regexp(t, `device link for x86_64-unknown-linux-gnu: \d parts, \d compiled, 0 from the cache`, linkOut)
					} else {
						assert.Contains(t, linkOut, fmt.Sprintf("device link for x86_64-unknown-linux-gnu: not partitioned: the link behaves as LLVM %d's; partitions follow LLVM 22's LTO", major))
					}
				}
				out, err := try(dir, k.runEnv(), "./app")
				require.NoError(t, err, "%s program:\n%s", who, out)
				outputs[who] = out
			}
			assert.Equal(t, outputs["reference"], outputs["ours"])
			assert.True(t, strings.HasPrefix(outputs["ours"], "on_device=1\n"), "%q", outputs["ours"])
		})
	}
}
