// Package linkwrap is the linker-wrapper driver: a drop-in replacement for
// LLVM 22.1.8's clang-linker-wrapper. It scans the host link's inputs for
// offload images, links them per device, bundles and wraps them into
// registration objects (without LLVM, through internal/wrap) and runs the
// host linker. See docs/linker-wrapper.md.
package linkwrap

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/binio"
	"github.com/offload-kit/offload-kit/internal/cache"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/phase"
	"github.com/offload-kit/offload-kit/internal/release"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/workdir"
	"github.com/offload-kit/offload-kit/internal/wrap"
)

// Env is everything the driver may touch outside its Options: the one
// driver environment (LookupEnv reads PATH, MAKEFLAGS, CUDA_PATH,
// OFFLOAD_KIT_CLANG, OFFLOAD_KIT_LLVM_DIR, ...; ExeDir, Parent and Layouts
// are where tools.go looks; NumCPU is the default device-link
// parallelism; Now the clock for --wrapper-time-trace, nil disabling
// timing; Tool prefixes warnings, "linker-wrapper" or
// "clang-linker-wrapper") and what only the wrapper has.
type Env struct {
	// Its Runner runs child processes; nil means run.Exec{}.
	driverenv.Env
	// Work hands out temporary names; nil means one is made from Options
	// (saved temporaries go to the output's directory).
	Work *workdir.Dir
	// CUDADirs are searched for ptxas, nvlink and fatbinary after
	// --cuda-path and $CUDA_PATH, before PATH (/usr/local/cuda/bin).
	CUDADirs []string
}

// ToolError is a required program that could not be found.
type ToolError struct {
	Tool string
	Hint string
	// Searched lists the places looked at; Skipped the candidates found
	// but rejected (wrong LLVM release), each with the reason.
	Searched, Skipped []string
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("unable to find a usable '%s'; %s", e.Tool, e.Hint)
}

type driver struct {
	opt    *Options
	env    Env
	runner run.Runner
	limit  time.Duration // of no progress, for child processes (run.Cmd.Timeout)
	work   *workdir.Dir
	phases *phase.Timer // env.Phases, or one of its own: summary and --wrapper-time-trace
	exe    string       // output name
	host   string       // host triple

	cache   *cache.Cache // nil: no device-link cache
	toolMu  sync.Mutex
	toolIDs map[string]string
	keyMemo keyMemo // cache-key file hashes (cachekey.go)
	inflate int64   // bytes of compressed images left to inflate

	toolsOnce  sync.Once
	tools      *run.Toolchain  // tools.go
	inputMajor int             // LLVM release that produced the inputs (0: unknown)
	profile    release.Profile // the release this link behaves as (release.go)

	// partitioned device links (partition.go)
	parts    partStats
	poolOnce sync.Once
	pool     *llvmpool.Pool
	poolErr  error
	// ptxas of NVPTX parts: at most --wrapper-jobs (or NumCPU) at once
	ptxasOnce sync.Once
	ptxasSem  run.Limiter
}

func (d *driver) getenv(k string) string { return d.env.Getenv(k) }

func (d *driver) warnf(format string, args ...any) {
	fmt.Fprintf(d.env.Stderr, "%s: warning: %s\n", d.env.Tool, fmt.Sprintf(format, args...))
}

func (d *driver) notef(format string, args ...any) {
	fmt.Fprintf(d.env.Stderr, "%s: note: %s\n", d.env.Tool, fmt.Sprintf(format, args...))
}

// DefaultHostTriple is used without --host-triple (LLVM uses the default
// target triple of the build, x86_64-pc-linux-gnu on Debian).
const DefaultHostTriple = "x86_64-pc-linux-gnu"

// Run performs one wrapper invocation in environment envp (nil: the zero
// Env) with options o. Like every driver it takes its environment by
// pointer and its options by value; the defaults it fills in (io.Discard
// streams, the tool name) stay its own.
func Run(ctx context.Context, envp *Env, o Options) (err error) {
	opt := &o
	var env Env
	if envp != nil {
		env = *envp
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Tool == "" {
		env.Tool = "linker-wrapper"
	}
	if opt.LinkerPath == "" {
		return errors.New("linker path missing, must pass 'linker-path'")
	}
	d := &driver{opt: opt, env: env, exe: opt.Output, host: opt.HostTriple}
	if d.exe == "" {
		d.exe = "a.out"
	}
	if d.host == "" {
		d.host = DefaultHostTriple
	}
	d.work = env.Work
	if d.work == nil {
		d.work = workdir.New(workdir.Options{SaveTemps: opt.SaveTemps, KeepDir: filepath.Dir(d.exe), TempRoot: env.TempRoot()})
		defer func() {
			if cerr := d.work.Close(); err == nil {
				err = cerr
			}
		}()
	}
	d.runner = env.Runner
	if d.runner == nil {
		d.runner = run.Exec{}
	}
	// a child (clang, lld, the host linker, ...) that makes no progress for
	// $OFFLOAD_KIT_LLVM_TIMEOUT is killed, as an LLVM helper is
	if d.limit, err = llvmpool.ParseTimeout(d.getenv("OFFLOAD_KIT_LLVM_TIMEOUT")); err != nil {
		return err
	}
	d.runner = run.Timed{Runner: d.runner, Timeout: d.limit}
	if opt.Verbose || opt.DryRun {
		d.runner = &run.Printer{Runner: d.runner, W: env.Stderr, DryRun: opt.DryRun}
	}
	d.phases = env.Phases
	if d.phases == nil {
		d.phases = phase.New(env.Now)
	}
	if opt.TimeTrace != "" {
		var start time.Time
		if env.Now != nil {
			start = env.Now()
		}
		d.phases.Traced(phase.NewTrace(start, time.Duration(opt.TimeTraceGranularity)*time.Microsecond, "linker-wrapper", "Execute linker wrapper"))
	}
	d.inflate = d.maxInflated()
	d.openCache()
	defer d.cache.Close()
	defer func() {
		if d.pool != nil {
			d.pool.Close()
		}
	}()
	sp := d.span("Execute linker wrapper", "total")
	err = d.run(ctx)
	sp.End()
	if opt.Summary {
		printSummary(env.Stderr, env.Tool, d.phases.Rows(), d.cache)
	}
	if opt.TimeTrace != "" && err == nil {
		err = workdir.WriteAtomic(opt.TimeTrace, 0o644, d.phases.Trace().Write)
	}
	return err
}

// linkedImage is one device link's output, for one offload kind.
type linkedImage struct {
	key     groupKey
	kind    format.OffloadKind
	path    string
	data    []byte
	bitcode bool
	sycl    []wrap.SYCLImage // a SYCL link's images, in memory (sycl.go); nil: decode data
}

func (d *driver) run(ctx context.Context) error {
	var images []linkedImage
	var err error
	if len(d.opt.OverrideImages) > 0 {
		if err := d.settleRelease(ctx, nil); err != nil {
			return err
		}
		images, err = d.overrideImages()
	} else {
		images, err = d.deviceImages(ctx)
	}
	if err != nil {
		return err
	}

	sp := d.span("Bundle linked output", "bundle")
	bundles, err := d.bundle(ctx, images)
	sp.End()
	if err != nil {
		return err
	}
	if d.opt.EmitFatbinOnly {
		return d.emitFatbin(bundles)
	}

	sp = d.span("Wrap bundled images", "wrap")
	wrappers, err := d.wrapAll(bundles)
	sp.End()
	if err != nil {
		return err
	}
	return d.hostLink(ctx, wrappers)
}

// deviceImages scans the inputs, groups the images and links each group.
func (d *driver) deviceImages(ctx context.Context) ([]linkedImage, error) {
	scan := d.span("ExtractDeviceCode", "scan")
	defer scan.End()
	sr, err := d.scanInputs()
	if err != nil {
		return nil, err
	}
	defer sr.close()
	gs := d.groupInputs(sr)
	if err := d.settleRelease(ctx, sr); err != nil {
		return nil, err
	}
	scan.End()
	if len(gs.order) == 0 {
		return nil, nil
	}
	all := d.span("Handle all device input", "")
	defer all.End()
	// Reject unsupported targets before anything is written.
	for _, g := range gs.order {
		if err := checkSupported(g); err != nil {
			return nil, err
		}
	}
	sp := d.span("", "extract")
	err = d.extract(gs)
	sp.End()
	if err != nil {
		return nil, err
	}
	links := d.span("", "device links")
	defer links.End()
	return d.linkGroups(ctx, gs)
}

// groupInputs applies spec §2–3 (plus lazy archive selection).
func (d *driver) groupInputs(sr *scanResult) *groups {
	should := map[string]bool{}
	for _, a := range d.opt.ShouldExtract {
		should[a] = true
	}
	matched := map[string]bool{}
	gs := newGroups()
	for _, u := range sr.objects {
		for _, b := range u.images {
			matched[b.Arch()] = true
			gs.addObject(&devInput{bin: b, unit: u})
		}
	}
	lazy := d.opt.Archives == ArchivesLazy
	if lazy {
		// inputs.go: every member the host link may keep, erring toward
		// keeping where the link line cannot be followed.
		selectMembers(sr, should)
	}
	for _, u := range sr.members {
		if lazy && !u.selected {
			continue
		}
		for _, b := range u.images {
			mayCreate := should[b.Arch()]
			if lazy && u.createsLink(b) { // inputs.go: a target the link has
				mayCreate = true
			}
			if gs.addMember(&devInput{bin: b, unit: u}, mayCreate) {
				matched[b.Arch()] = true
				if d.opt.Verbose && u.why != "" {
					d.notef("%s: taking %s/%s device code: %s", u.origin, b.Triple(), b.Arch(), u.why)
				}
			}
		}
	}
	for _, a := range d.opt.ShouldExtract {
		if !matched[a] {
			d.warnf("--should-extract=%s matched no device code in the inputs", a)
		}
	}
	return gs
}

// extract writes every grouped image to its own file (once per image).
func (d *driver) extract(gs *groups) error {
	done := map[*devInput]bool{}
	for _, g := range gs.order {
		for _, in := range g.inputs {
			if done[in] {
				continue
			}
			done[in] = true
			stem := filepath.Base(in.unit.bufferID)
			if ext := filepath.Ext(stem); ext != "" {
				stem = strings.TrimSuffix(stem, ext)
			}
			// LLVM 22 names every extracted image .o (bitcode too). The
			// native CUDA path needs ptxas/nvlink-friendly names.
			ext := "o"
			if triple.Parse(in.bin.Triple()).IsNVPTX() {
				if in.bin.ImageKind == format.ImgPTX {
					ext = "s"
				} else if isCUDAELF(in.bin.Image) || in.bin.ImageKind == format.ImgCubin {
					ext = "cubin" // nvlink reads .o files as host objects
				}
			}
			name, err := d.work.Name(safeName(stem+"-"+in.bin.Triple()+"-"+in.bin.Arch()), ext)
			if err != nil {
				return err
			}
			in.path = name
			if d.opt.DryRun && !d.opt.SaveTemps {
				// Nothing will read it, and it would be deleted at exit:
				// --dry-run of a huge fat object costs only its headers.
				continue
			}
			if err := writeImage(name, in); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeImage writes one extracted image. When the image lies in a mapped
// input file, the bytes are copied file to file (copy_file_range): they
// never pass through, or stay resident in, this process.
func writeImage(name string, in *devInput) error {
	img := in.bin.Image
	if f := in.unit.file; f != nil {
		if off, ok := binio.OffsetIn(f.Data, img); ok {
			if src, err := os.Open(f.Name); err == nil {
				defer src.Close()
				dst, err := workdir.Create(name)
				if err != nil {
					return err
				}
				if _, err := src.Seek(off, io.SeekStart); err == nil {
					if _, err := io.CopyN(dst, src, int64(len(img))); err != nil {
						dst.Close()
						return err
					}
					return dst.Close()
				}
				dst.Close()
			}
		}
	}
	return workdir.WriteNew(name, img)
}

// checkSupported is LLVM 22's "<arch> linking is not supported" (its
// linkDevice switches on the parsed architecture and names the triple's
// first component), naming the input files that carried the images (and
// quoting an odd arch).
func checkSupported(g *group) error {
	t := g.key.target()
	switch t.Arch {
	case "nvptx", "nvptx64", "amdgcn", "i386", "x86_64", "aarch64", "aarch64_be", "powerpc64", "powerpc64le",
		"spirv64", "s390x", "loongarch64":
		return nil
	}
	a := t.ArchName()
	if oddArch(a) {
		a = strconv.Quote(a)
	}
	return fmt.Errorf("%s: %s linking is not supported", groupOrigins(g), a)
}

// jobs returns the device-link limiter.
func (d *driver) limiter() (run.Limiter, func()) {
	nop := func() {}
	if d.opt.DryRun {
		return run.NewSemaphore(1), nop
	}
	useJS := d.opt.JobServer
	if !useJS && d.opt.Jobs == 0 {
		_, useJS = run.JobserverAuth(d.getenv("MAKEFLAGS"))
	}
	if useJS {
		js, err := run.OpenJobserver(d.getenv("MAKEFLAGS"))
		if err == nil {
			return js, func() { js.Close() }
		}
		if d.opt.JobServer {
			d.warnf("--wrapper-jobs=jobserver: %v; using %d jobs", err, max(d.env.NumCPU, 1))
		}
	}
	n := d.opt.Jobs
	if n == 0 {
		n = d.env.NumCPU
	}
	return run.NewSemaphore(n), nop
}

// linkGroups runs one device link per group, in parallel; results and
// errors come back in group order.
func (d *driver) linkGroups(ctx context.Context, gs *groups) ([]linkedImage, error) {
	lim, closeLim := d.limiter()
	defer closeLim()
	results := make([][]linkedImage, len(gs.order))
	errs := make([]error, len(gs.order))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i, g := range gs.order {
		release, err := lim.Acquire(ctx)
		if err != nil {
			errs[i] = err
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer release()
			results[i], errs[i] = d.linkGroup(ctx, g)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := firstErr(errs); err != nil {
		return nil, err
	}
	var out []linkedImage
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

// firstErr is the first non-cancellation error, or the first error.
func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil && !errors.Is(e, context.Canceled) {
			return e
		}
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (d *driver) linkGroup(ctx context.Context, g *group) ([]linkedImage, error) {
	sp := d.on(g).Open(phase.Spec{Name: "device link", Detail: groupName(g.key), Event: "Link device input", Arg: g.key.triple + " " + g.key.arch})
	defer sp.End()
	if err := checkSupported(g); err != nil {
		return nil, err
	}
	var kinds []format.OffloadKind
	seen := map[format.OffloadKind]bool{}
	for _, in := range g.inputs {
		if k := in.bin.Kind(); !seen[k] { // HIP: 3 up to LLVM 19, 4 since
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	if seen[format.OfkSYCL] && len(kinds) > 1 {
		return nil, fmt.Errorf("%s: Linking images of SYCL offload kind with images of any other kind is not supported", groupOrigins(g))
	}
	arch := g.key.arch
	if arch == "generic" {
		arch = ""
	}
	nameArch := arch
	t := g.key.target()
	if arch == "" && !t.IsGPU() && d.rel().WrapperNativeCPUArch() {
		nameArch = "native" // LLVM 16-19 link CPU images for -march=native
	}
	img, err := d.work.Name(safeName(filepath.Base(d.exe)+"."+t.ArchName()+"."+nameArch), "img")
	if err != nil {
		return nil, err
	}
	if seen[format.OfkSYCL] {
		return d.syclLink(ctx, g, img) // in-process, the images in memory (sycl.go)
	}
	var job *linkJob
	if nativeCUDA(g) {
		job, err = d.cudaJob(ctx, g, img)
	} else {
		job, err = d.clangJob(ctx, g, img)
	}
	if err != nil {
		return nil, err
	}
	if n, level, why := d.partitionPlan(g); n > 0 {
		// the same link in parts (partition.go); the whole link's
		// command stays the key, marked, and the fallback
		job.extra = [][2]string{{"device-partitions", strconv.Itoa(n)}}
		job.inproc = func(ctx context.Context) error { return d.partitionedLink(ctx, job, n, level) }
	} else if why != "" {
		d.partNote(g, "not partitioned: %s", why)
	}
	outcome, err := d.runJob(ctx, job)
	sp.Note(outcome)
	if err != nil {
		return nil, err
	}
	var data []byte
	if !d.opt.DryRun {
		data, err = os.ReadFile(img)
		if err != nil {
			return nil, fmt.Errorf("device link for %s %s wrote no image: %w", g.key.triple, g.key.arch, err)
		}
	}
	var out []linkedImage
	for _, k := range kinds {
		out = append(out, linkedImage{key: groupKey{g.key.triple, arch}, kind: k, path: img, data: data, bitcode: d.opt.EmbedBitcode})
	}
	return out, nil
}

// clangJob is a device link through clang (spec §4.1); SYCL groups link
// in sycl.go.
func (d *driver) clangJob(ctx context.Context, g *group, img string) (*linkJob, error) {
	var inputs []string
	for _, in := range g.inputs {
		inputs = append(inputs, in.path)
	}
	inputs = append(inputs, d.bitcodeLibraries(g)...)
	clang, err := d.findClang(ctx)
	if err != nil {
		return nil, err
	}
	args := d.deviceArgs(clang, g.key, false, img, inputs)
	if !g.key.target().IsGPU() && d.rel().WrapperLTOInProcess() && bitcodeInputs(g) {
		// LLVM 16's and 19's wrappers ran LTO on CPU bitcode themselves;
		// that release's clang does it with its LTO plugin, given -flto
		// (without it, ld rejects the bitcode)
		args = append(args, "-flto")
	}
	return &linkJob{g: g, img: img, steps: [][]string{args}, trace: "Clang", libs: !g.key.target().IsGPU()}, nil
}

// deviceValues returns the --device-linker / --device-compiler values that
// apply to the device link of triple tr, scoped as the release's
// getLinkerArgs scopes them: each value is split at its first '='; a
// triple with nothing after the '=' (or no '=') is itself a value for
// every link, and otherwise the text after the '=' applies to the links
// whose triple is exactly the text before it. From LLVM 20
// (release.DeviceValuesByArch), when llvm::Triple finds no architecture it
// knows in the text before the '=', the whole value applies to every link.
func deviceValues(vals []string, tr string, byArch bool) []string {
	var out []string
	for _, v := range vals {
		t, rest, _ := strings.Cut(v, "=")
		switch {
		case byArch && !triple.Parse(t).KnownArch():
			out = append(out, v)
		case rest == "":
			out = append(out, t)
		case t == tr:
			out = append(out, rest)
		}
	}
	return out
}

func (d *driver) linkerSupportsLTO(t triple.Triple) bool {
	return t.IsNVPTX() || t.IsAMDGPU() || (!t.IsGPU() && strings.HasSuffix(d.opt.LinkerPath, "lld"))
}

// deviceArgs builds the device clang command line (spec §4.1).
func (d *driver) deviceArgs(clang string, k groupKey, sycl bool, img string, inputs []string) []string {
	o := d.opt
	triple, arch := k.triple, k.arch
	t := k.target()
	if arch == "generic" {
		arch = ""
	}
	old16 := d.rel().WrapperClang16Line()
	args := []string{clang, "--no-default-config", "-o", img}
	if old16 {
		args = []string{clang, "-o", img}
	}
	if d.rel().WrapperDumpdir() {
		args = append(args, "-dumpdir", d.exe+"."+sanitize(t.ArchName())+"."+sanitize(arch)+".img.")
	}
	args = append(args, "--target="+triple)
	if arch == "" && !t.IsGPU() && d.rel().WrapperNativeCPUArch() {
		args = append(args, "-march=native")
	}
	if arch != "" {
		if t.IsAMDGPU() {
			args = append(args, "-mcpu="+arch)
		} else {
			args = append(args, "-march="+arch)
		}
	}
	args = append(args, d.optLevelArgs()...)
	if t.IsAMDGPU() {
		args = append(args, "-flto")
		if d.rel().ClangDropsAMDGPULTOCPU() && arch != "" {
			args = append(args, amdgpuLTOArgs(arch, d.optLevelArgs())...)
		}
	}
	legacy := d.rel().WrapperLegacyDeviceLink()
	for _, a := range o.MLLVM {
		if !legacy {
			args = append(args, "-Xlinker", "--plugin-opt="+a)
		}
	}
	for _, a := range o.OffloadOpt {
		args = append(args, "-Xlinker", "--plugin-opt="+a)
	}
	if !t.IsNVPTX() && !t.IsSPIRV() {
		args = append(args, "-Wl,--no-undefined")
	}
	if !old16 {
		args = append(args, inputs...)
	}
	if !t.IsGPU() {
		if old16 {
			args = append(args, "-Bsymbolic", "-shared")
		} else {
			args = append(args, "-Wl,-Bsymbolic", "-shared")
		}
		args = append(args, d.hostLibraryArgs()...)
	}
	for _, a := range o.MLLVM {
		if legacy {
			args = append(args, "-mllvm", a)
		}
	}
	args = append(args, d.legacyLinkArgs(triple)...)
	if old16 {
		args = append(args, inputs...)
	}
	for _, a := range o.MLLVM {
		if !legacy {
			args = append(args, "-Xlinker", "-mllvm="+a)
		}
	}
	if o.SaveTemps && d.linkerSupportsLTO(t) {
		args = append(args, "-Wl,--save-temps")
	}
	if o.EmbedBitcode {
		args = append(args, "-Wl,--lto-emit-llvm")
	}
	if sycl {
		args = append(args, "--sycl-link", "-Xlinker", "-triple="+triple, "-Xlinker", "-arch="+arch)
	}
	for _, v := range append(append([]string(nil), o.LinkerArgs...), deviceValues(o.DeviceLinker, triple, d.rel().DeviceValuesByArch())...) {
		args = append(args, "-Xlinker", v)
	}
	args = append(args, o.CompilerArgs...)
	args = append(args, deviceValues(o.DeviceCompiler, triple, d.rel().DeviceValuesByArch())...)
	return args
}

// amdgpuLTOArgs give ld.lld's LTO the processor, target features and
// optimisation level that clang 16 to 18 do not pass on when they link
// AMDGPU bitcode (release.ClangDropsAMDGPULTOCPU): without them lld
// compiles for a generic processor and the code object loads on no GPU.
// LLVM 16's and 19's own wrappers ran LTO in-process with the processor
// set, so their code objects carry it.
func amdgpuLTOArgs(targetID string, optLevel []string) []string {
	proc, features, _ := strings.Cut(targetID, ":")
	args := []string{"-Wl,-plugin-opt=mcpu=" + proc}
	if features != "" {
		var attrs []string
		for _, f := range strings.Split(features, ":") {
			if n := len(f); n > 1 && (f[n-1] == '+' || f[n-1] == '-') {
				attrs = append(attrs, string(f[n-1])+f[:n-1])
			}
		}
		if len(attrs) > 0 {
			args = append(args, "-Wl,-plugin-opt=-mattr="+strings.Join(attrs, ","))
		}
	}
	for _, o := range optLevel {
		if len(o) == 3 && strings.HasPrefix(o, "-O") && o[2] >= '0' && o[2] <= '3' {
			args = append(args, "-Wl,-plugin-opt="+o[1:])
		}
	}
	return args
}

// hostLibraryArgs are the host inputs a CPU device link also needs:
// archives and shared objects, -l, -L, -rpath and --(no-)whole-archive.
func (d *driver) hostLibraryArgs() []string {
	var out []string
	for i := range d.opt.Args {
		a := &d.opt.Args[i]
		switch {
		case a.IsInput():
			if isLibraryFile(a.Value()) {
				out = append(out, a.Value())
			}
		case a.Is(optLibrary), a.Is(optLibraryPath), a.Is(optRpath):
			out = a.Render(out)
		case a.Is(optWholeArchive):
			out = append(out, "-Wl,--whole-archive")
		case a.Is(optNoWholeArchive):
			out = append(out, "-Wl,--no-whole-archive")
		}
	}
	return out
}

// isLibraryFile reports an existing archive or shared object.
func isLibraryFile(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	k := format.Identify(head)
	return k == format.KindArchive || k == format.KindThinArchive || isSharedObject(head)
}

// md5Low is LLVM's getHash: the low 64 bits of the MD5 (little-endian), as
// lowercase hex without padding.
func md5Low(data []byte) string {
	sum := md5.Sum(data)
	return strconv.FormatUint(binary.LittleEndian.Uint64(sum[:8]), 16)
}

// sortImages orders images of one kind as LLVM's comparator: triple
// descending, then arch descending.
func sortImages(imgs []linkedImage) {
	sort.SliceStable(imgs, func(i, j int) bool {
		if imgs[i].key.triple != imgs[j].key.triple {
			return imgs[i].key.triple > imgs[j].key.triple
		}
		return imgs[i].key.arch > imgs[j].key.arch
	})
}

// openmpBinary is the v1 OffloadBinary LLVM wraps for an OpenMP image,
// with the range of its payload, which the registration object registers.
func openmpBinary(im linkedImage) wrap.OpenMPImage {
	bin, off := offload.AppendBinaryImage(nil, &offload.Image{
		ImageKind:   openmpImageKind(im),
		OffloadKind: format.OfkOpenMP,
		Strings:     []offload.KV{{Key: "triple", Value: im.key.triple}, {Key: "arch", Value: im.key.arch}},
		Image:       im.data,
	})
	return wrap.OpenMPImage{Data: bin, Start: off, End: off + uint64(len(im.data))}
}

// openmpImageKind is the ImageKind of an OpenMP image's OffloadBinary.
func openmpImageKind(im linkedImage) format.ImageKind {
	if im.bitcode {
		return format.ImgBitcode
	}
	return format.ImgObject
}
