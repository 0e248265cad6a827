package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// key builds a memo key: one measured command, shared by rows and curves.
func key(parts ...any) func(c *config) string {
	return func(c *config) string { return fmt.Sprint(parts...) }
}

func fixed(t target) func(*config) target { return func(*config) target { return t } }

// The bundler command lines of issue 3, identical for both tools.
const bundleTargets = "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a"

func bundleArgs(tool, out string, compress bool) []string {
	a := []string{tool, "-type=o", bundleTargets, "-input=/dev/null", "-input=code.bin", "-output=" + out}
	if compress {
		a = append(a, "-compress")
	}
	return a
}

func unbundleArgs(tool, in, out string) []string {
	return []string{tool, "-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=" + in, "-output=" + out, "-unbundle"}
}

func bundleInputs(c *config) error {
	if err := writeData(c.p("code.bin"), c.bundleSize, 3); err != nil {
		return err
	}
	code, err := os.Stat(c.p("code.bin"))
	if err != nil {
		return err
	}
	// The bundles that the unbundle rows read are the reference's, made
	// again when code.bin is newer (a -work reused with another size).
	for _, compress := range []bool{false, true} {
		out := bundleFile(compress)
		if st, err := os.Stat(c.p(out)); err != nil || st.ModTime().Before(code.ModTime()) {
			if err := c.sh(c.work, bundleArgs(c.tool("clang-offload-bundler"), out, compress)...); err != nil {
				return err
			}
		}
	}
	return nil
}

// The near-duplicate pair of issue 12: code-like data and a copy with
// one byte in 64 KiB changed, as two target IDs of one arch.
const pairTargets = "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+,hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"

func pairArgs(tool, out string) []string {
	return []string{tool, "-type=o", "-bundle-align=4096", pairTargets, "-input=/dev/null", "-input=pair-a.bin", "-input=pair-b.bin", "-output=" + out, "-compress"}
}

func pairInputs(c *config) error {
	const n = 64 << 20
	if err := writeData(c.p("pair-a.bin"), n, 12); err != nil {
		return err
	}
	if st, err := os.Stat(c.p("pair-b.bin")); err == nil && st.Size() == n {
		return nil
	}
	a, err := os.ReadFile(c.p("pair-a.bin"))
	if err != nil {
		return err
	}
	x := uint32(12)
	for i := 0; i+65536 <= len(a); i += 65536 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		a[i+int(x%65536)] ^= 0x5a
	}
	return os.WriteFile(c.p("pair-b.bin"), a, 0o644)
}

// sizeCheck compares the sizes of two outputs (and removes them).
func sizeCheck(c *config, ours, ref string) ([]string, bool) {
	o, err1 := os.Stat(c.p(ours))
	l, err2 := os.Stat(c.p(ref))
	defer os.Remove(c.p(ours))
	defer os.Remove(c.p(ref))
	if err := errors.Join(err1, err2); err != nil {
		return []string{err.Error()}, false
	}
	q := float64(o.Size()) / float64(l.Size())
	note := fmt.Sprintf("compressed size %s vs %s = %.3f×", fmtBytes(o.Size()), fmtBytes(l.Size()), q)
	if q > 1.05 {
		return []string{note + " > 1.05"}, false
	}
	return []string{note}, true
}

// bundlerSides sets the sides of an issue 3 or 12 row, which runs the
// same clang-offload-bundler command line with ours and with LLVM's:
// argv makes it from the tool and the side's name, "ours" or "ref", which
// names its output. With out, the outputs go to out/, emptied (untimed)
// before each run.
func (bc benchCase) bundlerSides(out bool, argv func(tool, who string) []string) benchCase {
	sideOf := func(who string) func(c *config) side {
		return func(c *config) side {
			tool := c.tool("clang-offload-bundler")
			if who == "ours" {
				tool = c.ours("clang-offload-bundler")
			}
			s := side{argv: argv(tool, who), dir: c.work}
			if out {
				s.fresh = []string{c.p("out")}
			}
			return s
		}
	}
	bc.ours, bc.ref = sideOf("ours"), sideOf("ref")
	return bc
}

// bundleTargetList are bundleTargets' targets, in order.
var bundleTargetList = strings.Split(strings.TrimPrefix(bundleTargets, "-targets="), ",")

// validateUnbundled checks an unbundle side: its output is the bundled
// device input.
func validateUnbundled(c *config, who string, s side) error {
	return sameFile(c.p("out", who+".o"), c.p("code.bin"))
}

// splitValidated says how the split rows are validated.
const splitValidated = "Validated: each side wrote one module per kernel; each text module defines exactly one kernel and together they define all; opt -passes=verify reads a stratified sample of 32 modules (one from each 32nd of the list; all of them would take ~30 ms each)."

func bundleFile(compress bool) string {
	if compress {
		return "input.cbundle"
	}
	return "input.bundle"
}

func cases() []benchCase {
	var cs []benchCase
	// Issue 2: the packager on a large payload; the payload-size curve
	// measures the same commands (payloadSide, the same keys).
	for _, r := range []struct {
		op, name, refDesc string
		fat               bool
		target            target
		method            string
	}{
		{"pack", "pack a SIZE image", "llvm-offload-binary", false,
			target{maxWallRatio: 0.5, maxRSS: 64 * mib, text: "≤ 0.5× wall, ≤ 64 MiB"},
			"validated: LLVM's llvm-offload-binary extracts the image from each side's package, byte-identical to the input."},
		{"extract", "extract a SIZE image", "llvm-offload-binary", false,
			target{maxWallRatio: 0.5, maxRSS: 64 * mib, text: "≤ 0.5× wall, ≤ 64 MiB"},
			"validated: each side's extracted file is byte-identical to the packaged image."},
		{"dump", "dump a SIZE fat object", "llvm-objdump --offloading", true,
			target{maxWall: 50 * time.Millisecond, maxRSS: 64 * mib, text: "≤ 50 ms, ≤ 64 MiB"},
			"validated: each side lists exactly one image, with its kind, arch, triple and producer."},
	} {
		cs = append(cs, benchCase{
			name: r.name, issue: 2, refDesc: r.refDesc,
			setup:   func(c *config) error { return payload(c, c.size, r.fat) },
			ours:    func(c *config) side { return payloadSide(c, r.op, c.size, true) },
			ref:     func(c *config) side { return payloadSide(c, r.op, c.size, false) },
			oursKey: func(c *config) string { return fmt.Sprint(r.op, "/ours/", c.size) },
			refKey:  func(c *config) string { return fmt.Sprint(r.op, "/ref/", c.size) },
			target:  fixed(r.target),
			method:  r.method,
			validate: func(c *config, who string, s side) error {
				return validatePayload(c, r.op, c.size, who)
			},
		})
	}
	cs = append(cs,
		benchCase{
			name: "embed SIZE", issue: 2, refDesc: "llvm-objcopy --add-section",
			setup: func(c *config) error {
				if err := payload(c, c.size, false); err != nil {
					return err
				}
				return hostObject(c)
			},
			ours: func(c *config) side {
				_, pkg, _ := payloadFiles(c, c.size)
				return side{argv: []string{c.ours("offload-packager"), "embed", "-o", "out/ours.fat.o", "host.o", pkg}, dir: c.work, fresh: []string{c.p("out")}}
			},
			ref: func(c *config) side {
				_, pkg, _ := payloadFiles(c, c.size)
				argv := append(append([]string{c.tool("llvm-objcopy")}, objcopyEmbed(pkg)...), "host.o", "out/ref.fat.o")
				return side{argv: argv, dir: c.work, fresh: []string{c.p("out")}}
			},
			target:   fixed(target{maxWallRatio: 0.5, text: "≤ 0.5× wall"}),
			method:   "validated: `llvm-objcopy --dump-section` of each side's `.llvm.offloading` is byte-identical to the package; the section is SHT_LLVM_OFFLOADING with SHF_EXCLUDE, and `.text` is host.o's.",
			validate: func(c *config, who string, s side) error { return validateEmbed(c, who) },
		},
	)

	// Issue 3: clang-offload-bundler, same command line on both sides.
	cs = append(cs,
		benchCase{
			name: "bundle + compress BSIZE of code-like data", issue: 3, refDesc: "clang-offload-bundler -compress",
			setup:  bundleInputs,
			target: fixed(target{maxWallRatio: 0.5, text: "≤ 0.5× wall, size ≤ 1.05×"}),
			method: "validated: LLVM's clang-offload-bundler and ours unbundle each side's bundle into entries byte-identical to the inputs.",
			validate: func(c *config, who string, s side) error {
				return validateBoth(c, c.p(who+".cbundle"), bundleTargetList, []string{os.DevNull, c.p("code.bin")})
			},
			check: func(c *config, r *result) ([]string, bool) {
				return sizeCheck(c, "ours.cbundle", "ref.cbundle")
			},
		}.bundlerSides(false, func(tool, who string) []string { return bundleArgs(tool, who+".cbundle", true) }),
		benchCase{
			name: "bundle + compress a near-duplicate pair (2 × 64 MiB)", issue: 12, refDesc: "clang-offload-bundler -compress",
			setup:  pairInputs,
			target: fixed(target{maxWallRatio: 0.5, text: "≤ 0.5× wall, size ≤ 1.05×"}),
			method: "clang's command line for two target IDs (-bundle-align=4096, -compress: level 3): 64 MiB of code-like data and a copy with one byte in 64 KiB changed. The reference's libzstd uses long-distance matching in one 128 MiB window; ours finds the long matches beside reading, compresses the first copy with klauspost (its frames' blocks spliced into one frame unchanged) and writes the second copy as long matches (docs/bundle.md, long-distance matching). The wall target is issue 24's. Validated: LLVM's clang-offload-bundler and ours unbundle each side's bundle into entries byte-identical to the inputs.",
			validate: func(c *config, who string, s side) error {
				return validateBoth(c, c.p(who+".pair.ccob"), pairTargetList(), []string{os.DevNull, c.p("pair-a.bin"), c.p("pair-b.bin")})
			},
			check: func(c *config, r *result) ([]string, bool) {
				return sizeCheck(c, "ours.pair.ccob", "ref.pair.ccob")
			},
		}.bundlerSides(false, func(tool, who string) []string { return pairArgs(tool, who+".pair.ccob") }),
		benchCase{
			name: "unbundle a compressed BSIZE bundle", issue: 3, refDesc: "clang-offload-bundler -unbundle",
			setup:    bundleInputs,
			target:   fixed(target{maxWallRatio: 0.5, maxRSSRatio: 0.25, text: "≤ 0.5× wall, ≤ 0.25× RSS"}),
			runs:     9,
			method:   "median of 9 runs (the reference's time varies from 0.6 to 1.3 s run to run, mostly with the cost of first-touch page faults on this VM). Ours is CPU-bound on 2 cores: entropy decoding (~0.25 s) and executing the sequences (~0.15 s) run on two goroutines, beside writing 256 MiB and faulting in the first 128 MiB window; neither tool checks the stored MD5 without -verbose. Validated: each side's output is byte-identical to the bundled input.",
			validate: validateUnbundled,
		}.bundlerSides(true, func(tool, who string) []string { return unbundleArgs(tool, bundleFile(true), "out/"+who+".o") }),
		benchCase{
			name: "list a compressed BSIZE bundle", issue: 3, refDesc: "clang-offload-bundler -list",
			setup:    bundleInputs,
			method:   "ours decodes only until the bundle header is complete; the reference decompresses the whole bundle first. Validated: each side lists the bundle's two targets, nothing else.",
			validate: func(c *config, who string, s side) error { return validateList(c) },
		}.bundlerSides(false, func(tool, _ string) []string { return []string{tool, "-list", "-type=o", "-input=" + bundleFile(true)} }),
		benchCase{
			name: "bundle BSIZE (uncompressed)", issue: 3, refDesc: "clang-offload-bundler",
			setup:  bundleInputs,
			method: "validated: LLVM's clang-offload-bundler unbundles each side's bundle into entries byte-identical to the inputs.",
			validate: func(c *config, who string, s side) error {
				return validateBundle(c, c.p("out", who+".bundle"), bundleTargetList, []string{os.DevNull, c.p("code.bin")})
			},
		}.bundlerSides(true, func(tool, who string) []string { return bundleArgs(tool, "out/"+who+".bundle", false) }),
		benchCase{
			name: "unbundle a BSIZE bundle (uncompressed)", issue: 3, refDesc: "clang-offload-bundler -unbundle",
			setup:    bundleInputs,
			method:   "validated: each side's output is byte-identical to the bundled input.",
			validate: validateUnbundled,
		}.bundlerSides(true, func(tool, who string) []string { return unbundleArgs(tool, bundleFile(false), "out/"+who+".o") }),
	)

	// Issue 4: the linker wrapper.
	cs = append(cs,
		benchCase{
			name: "wrapper overhead linking NOBJ small fat objects and archives", issue: 4, refDesc: "clang-linker-wrapper --dry-run",
			setup:    func(c *config) error { _, err := fatObjects(c, c.objects); return err },
			ours:     func(c *config) side { return objectsSide(c, c.objects, true) },
			ref:      func(c *config) side { return objectsSide(c, c.objects, false) },
			oursKey:  func(c *config) string { return fmt.Sprint("objs/ours/", c.objects) },
			refKey:   func(c *config) string { return fmt.Sprint("objs/ref/", c.objects) },
			target:   fixed(target{maxWallRatio: 0.25, text: "≤ 0.25× wall"}),
			method:   "`--dry-run` on both sides, so no child process runs: the whole wall time is the wrapper's own work (scanning inputs and archives, extracting device images, planning the links). Validated: each side prints one device link and a host link; LLVM's device link takes all NOBJ+1 objects' images, ours (lazy archive members, docs/linker-wrapper.md) the images of the main object and the plain objects only, as no archive member is kept by the host link.",
			validate: func(c *config, who string, s side) error { return validateObjectsDryRun(c, c.objects, who) },
		},
		benchCase{
			name: "--dry-run on a SIZE fat object", issue: 4, refDesc: "clang-linker-wrapper --dry-run",
			setup: func(c *config) error { return payload(c, c.size, true) },
			ours: func(c *config) side {
				_, _, obj := payloadFiles(c, c.size)
				return side{argv: wrapperArgs(c, c.ours("clang-linker-wrapper"), "app", []string{obj}, "--dry-run"), dir: c.work}
			},
			ref: func(c *config) side {
				_, _, obj := payloadFiles(c, c.size)
				return side{argv: wrapperArgs(c, c.tool("clang-linker-wrapper"), "app", []string{obj}, "--dry-run"), dir: c.work}
			},
			target:   fixed(target{maxWall: 200 * time.Millisecond, maxRSS: 64 * mib, text: "≤ 0.2 s, ≤ 64 MiB"}),
			method:   "validated: each side prints one device link taking the object's one image, and a host link.",
			validate: func(c *config, who string, s side) error { return validateDryRun(c, 1) },
		},
		benchCase{
			name: "clang -B link of an OpenMP program", issue: 4, refDesc: "clang-22 (LLVM's clang-linker-wrapper)",
			setup: ompProgram,
			ours: func(c *config) side {
				return side{argv: []string{"clang-22", "-B" + c.bin, "-fopenmp", "-fopenmp-targets=" + ompTarget, "a.o", "b.o", "-o", "app.ours"}, dir: c.p("omp")}
			},
			ref: func(c *config) side {
				return side{argv: []string{"clang-22", "-fopenmp", "-fopenmp-targets=" + ompTarget, "a.o", "b.o", "-o", "app.ref"}, dir: c.p("omp")}
			},
			target:   fixed(target{maxWallRatio: 1.0, text: "≤ 1.0× wall"}),
			runs:     11,
			method:   "the whole link, children included (device link, host link): `clang-22 -B bin` picks up our `clang-linker-wrapper`. Median of 11 runs: the host link (`ld`, ~340 ms, the same on both sides) varies by ±20 ms from run to run, more than the wrappers' own difference (device phase ~35 ms here, ~75 ms for LLVM's, which builds its registration module with LLVM). Validated: each side's program, run with `OMP_TARGET_OFFLOAD=MANDATORY`, prints " + ompResult + ".",
			validate: func(c *config, who string, s side) error { return validateOMP(c, who) },
		},
	)

	// Issue 6: per-kernel split.
	cs = append(cs,
		benchCase{
			name: "per-kernel split of a synthetic NKERN-kernel module", issue: 6, refDesc: "llvm-split --split-by-category=kernel",
			setup:    func(c *config) error { _, err := kernelModule(c, c.kernels); return err },
			ours:     func(c *config) side { o, _ := splitSides(c, c.kernels); return o },
			ref:      func(c *config) side { _, r := splitSides(c, c.kernels); return r },
			oursKey:  func(c *config) string { return fmt.Sprint("split/ours/", c.kernels) },
			refKey:   func(c *config) string { return fmt.Sprint("split/ref/", c.kernels) },
			target:   fixed(target{maxWallRatio: 1.0 / 20, text: "≤ 1/20 wall"}),
			method:   "both write every module as text (`-S`); ours also writes its .prop/.sym files and the table. Both write to a memory file system (`/dev/shm`) when there is one: on this VM's disk, creating the 12 000 files costs anything from 0.3 to 5 s of kernel time from one minute to the next, which would measure the host's I/O rather than the splitters. " + splitValidated,
			validate: func(c *config, who string, s side) error { return validateSplit(c, s, c.kernels) },
		},
		benchCase{
			name: "split scaling QKERN→NKERN kernels", issue: 6, refDesc: "offload-kit at QKERN kernels",
			setup: func(c *config) error {
				if _, err := kernelModule(c, c.kernels/4); err != nil {
					return err
				}
				_, err := kernelModule(c, c.kernels)
				return err
			},
			ours:    func(c *config) side { o, _ := splitSides(c, c.kernels); return o },
			ref:     func(c *config) side { o, _ := splitSides(c, c.kernels/4); return o },
			oursKey: func(c *config) string { return fmt.Sprint("split/ours/", c.kernels) },
			refKey:  func(c *config) string { return fmt.Sprint("split/ours/", c.kernels/4) },
			target:  fixed(target{maxWallRatio: 4.5, text: "≤ 4.5× time (4× kernels)"}),
			method:  splitValidated,
			validate: func(c *config, who string, s side) error {
				if who == "ref" {
					return validateSplit(c, s, c.kernels/4)
				}
				return validateSplit(c, s, c.kernels)
			},
		},
		benchCase{
			name: "split peak RSS, NKERN kernels with long bodies", issue: 6, refDesc: "module text (.ll)",
			setup:   func(c *config) error { _, err := bigKernelModule(c, c.kernels); return err },
			ours:    func(c *config) side { return bigSplitSide(c, c.kernels) },
			ref:     func(c *config) side { return side{} },
			oursKey: func(c *config) string { return fmt.Sprint("split-big/ours/", c.kernels) },
			target: func(c *config) target {
				t := bigTextSize(c, c.kernels)
				return target{maxRSS: 2 * t, text: fmt.Sprintf("≤ 2× text (%s)", fmtBytes(2*t))}
			},
			method:   fmt.Sprintf("peak RSS of the whole `sycl-linker` process tree splitting per kernel (`--ir-output-only -S`, every module written) against the size of the module's text. The module is the synthetic one of the rows above with %d instructions in each helper (about 64 MiB of text at 4000 kernels: with the rows' small module, 2× its 1.4 MiB of text is less than any process's baseline), given as text, which sycl-linker maps and parses in place; from bitcode, `llvm-dis` alone would peak at ~9× the text (616 MiB for this module). %s", bigBody, splitValidated),
			validate: func(c *config, who string, s side) error { return validateSplit(c, s, c.kernels) },
		},
	)

	// Issue 7: the device-link cache.
	cs = append(cs, benchCase{
		name: "device-link cache: relink after a host-only change", issue: 7, refDesc: "offload-kit, cold cache",
		setup:  ompProgram,
		custom: cacheProof,
		target: fixed(target{maxWallRatio: 0.1, text: "no device link, ≥ 10× faster device phase"}),
		method: "the \"wall\" columns are the device phase: the wrapper's own `Handle all device input` event in `--wrapper-time-trace` (LLVM's wrapper emits the same events). Cold: an empty `--cache-dir` before each run, linking a.o b.o. Warm: the cache that link filled, relinking a.o b2.o (b.c after a host-only edit, same file name, so the same device image). Every warm trace must have no `Clang` event (device link); every cold one must have one. The host linker is `/bin/true`.",
	})
	// Issue 12: a real third-party fat library (rocsparse.go).
	cs = append(cs, rocsparseCases()...)
	cs = append(cs, inprocCases()...)
	// Issue 24: compression rows for the data users have (compress.go).
	cs = append(cs, compressCases()...)
	// Issue 27: partitioned HIP device links at scale (partition.go).
	cs = append(cs, partitionCases()...)
	cs = append(cs, partitionEditCases()...)
	return cs
}

func objectsSide(c *config, n int, ours bool) side {
	inputs, _ := fatObjects(c, n)
	tool := c.tool("clang-linker-wrapper")
	if ours {
		tool = c.ours("clang-linker-wrapper")
	}
	return side{argv: wrapperArgs(c, tool, "app", inputs, "--dry-run"), dir: c.p("objs-" + strconv.Itoa(n))}
}

// payloadSide is one side of an issue 2 row or payload-size curve point
// on payload's files for n bytes: op is "pack" (the image into a
// package), "extract" (the image from the package) or "dump" (the fat
// object's offloading section, nothing written).
func payloadSide(c *config, op string, n int64, ours bool) side {
	bin, pkg, obj := payloadFiles(c, n)
	tool, out := c.tool("llvm-offload-binary"), "out/ref"
	if ours {
		tool, out = c.ours("llvm-offload-binary"), "out/ours"
	}
	s := side{dir: c.work, fresh: []string{c.p("out")}}
	switch op {
	case "pack":
		s.argv = []string{tool, "-o", out + ".pkg", imageArg(bin)}
	case "extract":
		s.argv = []string{tool, pkg, "--image=kind=openmp,file=" + out + ".out"}
	case "dump":
		s.fresh = nil
		s.argv = []string{c.tool("llvm-objdump"), "--offloading", obj}
		if ours {
			s.argv = []string{c.ours("offload-packager"), "dump", obj}
		}
	}
	return s
}

func bigTextSize(c *config, n int) int64 {
	if st, err := os.Stat(c.p("split-big", strconv.Itoa(n), "in.ll")); err == nil {
		return st.Size()
	}
	return 0
}

// cacheProof measures linker-wrapper with --cache-dir: cold links (empty
// cache) against warm relinks after a host-only change. The device phase
// is the wrapper's own "Handle all device input" event in
// --wrapper-time-trace (the event LLVM's wrapper emits too); a warm trace
// must have no "Clang" event, i.e. no device link ran.
func cacheProof(c *config, r *result) error {
	help, _ := exec.Command(c.ours("linker-wrapper"), "--help-hidden").CombinedOutput()
	dir := c.p("omp")
	cacheDir := c.p("omp", "cache")
	trace := filepath.Join(c.tmp, "trace.json")
	linkArgs := func(tool string, cache bool, inputs ...string) []string {
		a := []string{tool, "--host-triple=" + hostTriple, "--linker-path=/bin/true", "--wrapper-time-trace=" + trace}
		if cache {
			a = append(a, "--cache-dir="+cacheDir)
		}
		a = append(a, "-o", "app")
		return append(append(a, inputs...), "-lomp", "-lomptarget", "-L"+filepath.Join(filepath.Dir(c.llvm), "lib"))
	}
	cold := side{argv: linkArgs(c.ours("clang-linker-wrapper"), true, "a.o", "b.o"), dir: dir}
	warm := side{argv: linkArgs(c.ours("clang-linker-wrapper"), true, "a.o", "b2.o"), dir: dir}
	refRelink := side{argv: linkArgs(c.tool("clang-linker-wrapper"), false, "a.o", "b2.o"), dir: dir}
	r.argv = [2]string{c.shorten(warm.argv), c.shorten(cold.argv)}
	if !strings.Contains(string(help), "--cache-dir") {
		r.ours.err = "not wired yet"
		r.ref.err = "not wired yet"
		return errors.New("not wired yet: bin/linker-wrapper has no --cache-dir flag")
	}
	// phase runs s runs times (emptying the cache first when fresh) and
	// returns the median device phase, peak RSS, median wall and the
	// most device links seen in one run.
	phase := func(s side, fresh bool) (measurement, time.Duration, int, error) {
		var ph, walls []time.Duration
		var rss []int64
		links := 0
		for i := 0; i < c.runs; i++ {
			if fresh {
				os.RemoveAll(cacheDir)
			}
			os.Remove(trace)
			w, m, err := c.run(s, c.runLimit)
			if err != nil {
				return measurement{err: firstLines(err.Error(), 3)}, 0, 0, err
			}
			d, n, err := traceDevicePhase(trace)
			if err != nil {
				return measurement{err: err.Error()}, 0, 0, err
			}
			ph, walls, rss = append(ph, d), append(walls, w), append(rss, m)
			links = max(links, n)
		}
		return measurement{wall: median(ph), rss: medianI(rss), runs: c.runs, lo: slices.Min(ph), hi: slices.Max(ph)}, median(walls), links, nil
	}
	var coldWall, warmWall time.Duration
	var coldLinks, warmLinks int
	var err error
	if r.ref, coldWall, coldLinks, err = phase(cold, true); err != nil {
		return fmt.Errorf("cold link: %v", err)
	}
	// The last cold run left the cache filled with a.o b.o's device link.
	if r.ours, warmWall, warmLinks, err = phase(warm, false); err != nil {
		return fmt.Errorf("warm relink: %v", err)
	}
	os.RemoveAll(cacheDir)
	refM, refWall, _, refErr := phase(refRelink, false)
	note := fmt.Sprintf("device links: %d cold, %d warm; whole wrapper %s cold, %s warm", coldLinks, warmLinks, fmtDur(coldWall), fmtDur(warmWall))
	if refErr == nil {
		note += fmt.Sprintf("; clang-linker-wrapper relink: device phase %s, whole %s", fmtDur(refM.wall), fmtDur(refWall))
	}
	r.notes = append(r.notes, note)
	switch {
	case coldLinks == 0:
		r.notes = append(r.notes, "cannot prove the skip: the cold trace shows no device link")
		r.miss = true
	case warmLinks > 0:
		r.notes = append(r.notes, "a device link ran despite the cache")
		r.miss = true
	}
	return nil
}

// traceDevicePhase reads a --wrapper-time-trace file: the duration of
// "Handle all device input" and the number of "Clang" events (device links).
func traceDevicePhase(path string) (time.Duration, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("time trace: %v", err)
	}
	var t struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Dur  float64 `json:"dur"` // µs
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return 0, 0, fmt.Errorf("time trace: %v", err)
	}
	var d time.Duration
	found, links := false, 0
	for _, e := range t.TraceEvents {
		switch e.Name {
		case "Handle all device input":
			d += time.Duration(e.Dur * float64(time.Microsecond))
			found = true
		case "Clang":
			links++
		}
	}
	if !found {
		return 0, 0, errors.New(`time trace: no "Handle all device input" event`)
	}
	return d, links, nil
}

// names replaces the size placeholders in case names.
func (c *config) names(s string) string {
	return strings.NewReplacer("BSIZE", sizeName(c.bundleSize), "SIZE", sizeName(c.size),
		"NOBJ", strconv.Itoa(c.objects), "QKERN", strconv.Itoa(c.kernels/4), "NKERN", strconv.Itoa(c.kernels)).Replace(s)
}
