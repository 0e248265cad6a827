package linkwrap

// Partitioned device code generation (docs/partitions.md, issue 27): an
// AMDGPU LTO device link optimises the merged module in-process, as
// ld.lld's LTO does, then splits it into parts by kernel call closure
// (split.Module.Partition), generates each part's code in parallel, each
// cached on its own by the content of its IR, and links the parts with
// ld.lld. A one-kernel edit then compiles one part per architecture.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/offload-kit/offload-kit/internal/cache"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/phase"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/split"
)

// AutoPartitions is --device-partitions=auto: autoPartitions parts. The
// count must not depend on the program (a kernel added would move every
// other kernel), so auto is a constant: 32. A one-kernel edit recompiles
// one part, so a relink costs the LTO plus 1/32 of the code generation;
// parts that define nothing are not compiled. docs/partitions.md gives
// the measurements behind 32.
const (
	AutoPartitions = -1
	autoPartitions = 32
	maxPartitions  = 256
)

// ParsePartitions reads a --device-partitions value: "auto" or 1 to 256.
func ParsePartitions(s string) (int, error) {
	if s == "auto" {
		return AutoPartitions, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxPartitions {
		return 0, fmt.Errorf("expected 'auto' or a count from 1 to %d", maxPartitions)
	}
	return n, nil
}

// partStats counts parts compiled and parts taken from the cache.
type partStats struct{ compiled, cached atomic.Int64 }

// partitionPlan says whether group g's device link is partitioned: the
// part count and the LTO level, or why not (n == 0; why is "" when
// partitioning was not asked for).
func (d *driver) partitionPlan(g *group) (n, level int, why string) {
	o := d.opt
	n = o.DevicePartitions
	if n == AutoPartitions {
		n = autoPartitions
	}
	if n <= 1 {
		return 0, 0, ""
	}
	t := g.key.target()
	switch {
	case t.IsGPU() && !t.IsAMDGPU() && !t.IsNVPTX():
		return 0, 0, "only AMDGPU, NVPTX and CPU device links are partitioned"
	case d.rel().Major != 0 && d.rel().Major < 22:
		return 0, 0, fmt.Sprintf("the link behaves as LLVM %d's; partitions follow LLVM 22's LTO", d.rel().Major)
	case o.DryRun || o.SaveTemps || o.EmbedBitcode || o.DeviceDebug:
		return 0, 0, "--dry-run, --save-temps, --embed-bitcode and --device-debug link whole"
	case len(o.MLLVM) > 0 || len(o.OffloadOpt) > 0 || len(o.CompilerArgs) > 0 || len(o.LinkerArgs) > 0 ||
		len(deviceValues(o.DeviceLinker, g.key.triple, d.rel().DeviceValuesByArch())) > 0:
		return 0, 0, "LLVM options and device linker arguments link whole"
	}
	level = 2 // ld.lld's LTO default
	opt := d.optLevelArgs()
	lto := false
	for _, v := range deviceValues(o.DeviceCompiler, g.key.triple, d.rel().DeviceValuesByArch()) {
		switch {
		case strings.HasPrefix(v, "-flto-partitions="):
			// clang 22 asks for ld.lld's LTO partitions for HIP; these
			// parts replace them
		case v == "-flto", v == "-flto=full":
			lto = true // clang 22 asks for full LTO on CPU targets
		case strings.HasPrefix(v, "-O"):
			opt = []string{v} // clang passes the link's -O<n> this way
		default:
			return 0, 0, "device compiler argument " + v + " links whole"
		}
	}
	if !t.IsGPU() && !lto {
		return 0, 0, "a CPU device link without -flto (compile with -foffload-lto)"
	}
	if len(opt) == 1 {
		switch opt[0] {
		case "-O1", "-O2", "-O3":
			level = int(opt[0][2] - '0')
		default:
			return 0, 0, opt[0] + " links whole"
		}
	}
	for _, in := range g.inputs {
		if !isBitcode(in.bin.Image) {
			return 0, 0, in.path + " is not bitcode (compile with -foffload-lto)"
		}
	}
	for _, l := range d.bitcodeLibraries(g) {
		if b, err := readHead(l); err != nil || !isBitcode(b) {
			return 0, 0, l + " is not bitcode"
		}
	}
	return n, level, ""
}

// bitcodeInputs reports whether any of g's device inputs is bitcode.
func bitcodeInputs(g *group) bool {
	for _, in := range g.inputs {
		if isBitcode(in.bin.Image) {
			return true
		}
	}
	return false
}

func isBitcode(b []byte) bool {
	return bytes.HasPrefix(b, []byte("BC\xc0\xde")) || bytes.HasPrefix(b, []byte{0xde, 0xc0, 0x17, 0x0b})
}

func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 4)
	_, err = io.ReadFull(f, b)
	return b, err
}

// targetCPU splits an AMDGPU target ID ("gfx90a:xnack+") into the
// processor and LLVM's feature string ("+xnack").
func targetCPU(arch string) (cpu, features string) {
	cpu, rest, _ := strings.Cut(arch, ":")
	var fs []string
	for _, f := range strings.Split(rest, ":") {
		if n := len(f); n > 1 && (f[n-1] == '+' || f[n-1] == '-') {
			fs = append(fs, string(f[n-1])+f[:n-1])
		}
	}
	return cpu, strings.Join(fs, ",")
}

// errWhole: the link is done whole after all (the reason is noted).
var errWhole = errors.New("linked whole")

// partitionedLink is the in-process step of a partitioned job: it writes
// j.img, or returns errWhole when the module cannot be partitioned or no
// in-process LLVM will do (the caller then runs the whole link).
func (d *driver) partitionedLink(ctx context.Context, j *linkJob, n, level int) error {
	g := j.g
	pool, err := d.llvmPool(ctx)
	if err != nil {
		d.partNote(g, "in-process LLVM: %v; linking whole", err)
		return errWhole
	}
	var inputs []string
	for _, in := range g.inputs {
		inputs = append(inputs, in.path)
	}
	inputs = append(inputs, d.bitcodeLibraries(g)...)
	cpu, features := targetCPU(g.key.arch)
	if t := g.key.target(); !t.IsGPU() {
		// the processor clang gives the LTO plugin for a CPU link without
		// -march (the functions name their own in "target-cpu")
		cpu, features = "generic", ""
		if t.ArchName() == "x86_64" {
			cpu = "x86-64"
		}
	}
	sp := d.on(g).Open(phase.Spec{Name: "LTO", Detail: groupName(g.key), Event: "LTO"})
	ir, err := pool.LTO(ctx, llvmpool.LTORequest{Inputs: inputs, Triple: g.key.triple, CPU: cpu, Features: features, Level: level, Warn: d.llvmWarn})
	sp.End()
	if err != nil {
		return fmt.Errorf("device link for %s: %w", groupName(g.key), err)
	}
	sp = d.on(g).Open(phase.Spec{Name: "partition", Detail: groupName(g.key), Event: "Partition"})
	m, err := split.Parse("ld-temp.o", ir)
	if err != nil {
		sp.End()
		return fmt.Errorf("device link for %s: %w", groupName(g.key), err)
	}
	parts, err := m.Partition(n)
	sp.End()
	if errors.Is(err, split.ErrNotPartitionable) {
		d.partNote(g, "%v; linking whole", err)
		return errWhole
	}
	if err != nil {
		return fmt.Errorf("device link for %s: %w", groupName(g.key), err)
	}
	all := len(parts)
	parts = definingParts(parts)
	lib, version := pool.Library()
	pc := partCompiler{pool: pool, triple: g.key.triple, cpu: cpu, features: features, level: level, lib: lib, version: version}
	nvptx := g.key.target().IsNVPTX()
	if nvptx {
		// NVPTX: each part's PTX assembled with "ptxas -c" (as cudaJob
		// does), the cubins linked with nvlink
		if pc.ptxas, err = d.findCUDATool(ctx, "ptxas"); err != nil {
			return err
		}
		if pc.ptxasID, err = d.toolIdentity(pc.ptxas); err != nil {
			return err
		}
		pc.bits = "-m64"
		if !g.key.target().Is64Bit() {
			pc.bits = "-m32"
		}
	}
	ext := "o"
	if nvptx {
		ext = "cubin"
	}
	objs := make([]string, len(parts))
	for i := range parts {
		if objs[i], err = d.work.Name(fmt.Sprintf("%s.part%d", filepath.Base(j.img), i), ext); err != nil {
			return err
		}
	}
	errs := make([]error, len(parts))
	var compiled, cached atomic.Int64
	var wg sync.WaitGroup
	sp = d.on(g).Open(phase.Spec{Name: "parts", Detail: groupName(g.key), Event: "Codegen parts"})
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hit, err := d.partObject(ctx, &pc, p, objs[i])
			errs[i] = err
			if hit {
				cached.Add(1)
			} else {
				compiled.Add(1)
			}
		}()
	}
	wg.Wait()
	sp.End()
	if err := firstErr(errs); err != nil {
		return fmt.Errorf("device link for %s: %w", groupName(g.key), err)
	}
	d.parts.compiled.Add(compiled.Load())
	d.parts.cached.Add(cached.Load())
	if d.opt.Verbose {
		empty := ""
		if all > len(parts) {
			empty = fmt.Sprintf(" (%d of %d empty)", all-len(parts), all)
		}
		d.notef("device link for %s: %d parts, %d compiled, %d from the cache%s", groupName(g.key), len(parts), compiled.Load(), cached.Load(), empty)
	}
	var args []string
	if nvptx {
		nvlink, err := d.findCUDATool(ctx, "nvlink")
		if err != nil {
			return err
		}
		args = append([]string{nvlink, pc.bits, "-o", j.img, "-arch", g.key.arch}, objs...)
	} else if g.key.target().IsAMDGPU() {
		lld, err := d.findTool(ctx, "ld.lld", false)
		if err != nil {
			return err
		}
		args = append([]string{lld, "--no-undefined", "-shared"}, objs...)
		args = append(args, "-o", j.img)
	} else {
		// a CPU image: the whole link's clang command (-shared,
		// -Bsymbolic, the host libraries), with the parts as its inputs
		clang, err := d.findClang(ctx)
		if err != nil {
			return err
		}
		args = d.deviceArgs(clang, g.key, false, j.img, objs)
	}
	sp = d.on(g).Open(phase.Spec{Name: filepath.Base(args[0]), Detail: groupName(g.key), Event: filepath.Base(args[0])})
	defer sp.End()
	if err := d.runner.Run(ctx, &run.Cmd{Args: args, Stdout: d.env.Stderr, Stderr: d.env.Stderr}); err != nil {
		return timedOut(err, "device link for "+groupName(g.key)+" of "+inputNames(g))
	}
	return nil
}

// definingParts drops the parts that define nothing (no roots: a program
// with fewer kernels than parts); they would cost a compilation and a
// linker input each. At least one part is kept, so the link has an input.
func definingParts(parts []split.Partition) []split.Partition {
	var keep []split.Partition
	for _, p := range parts {
		if len(p.Roots) > 0 {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 && len(parts) > 0 {
		keep = parts[:1]
	}
	return keep
}

// partCompiler compiles the parts of one group.
type partCompiler struct {
	pool                  *llvmpool.Pool
	triple, cpu, features string
	level                 int
	lib, version          string
	// NVPTX: ptxas (with its identity for the key) and -m64/-m32
	ptxas, ptxasID, bits string
}

// partObject writes part p's object (NVPTX: its relocatable cubin) to
// obj: from the cache when it holds one for the part's IR, target and
// options (and ptxas), else compiled (and stored).
func (d *driver) partObject(ctx context.Context, pc *partCompiler, p split.Partition, obj string) (hit bool, err error) {
	var key cache.Key
	if d.cache != nil {
		var b cache.KeyBuilder
		b.AddExtra("schema", "offload-kit/device-partition/v1")
		b.AddTool("libLLVM", pc.lib, pc.version)
		if pc.ptxas != "" {
			b.AddTool("ptxas", pc.ptxasID, "")
			b.AddArg(pc.bits)
		}
		b.AddExtra("triple", pc.triple)
		b.AddExtra("cpu", pc.cpu)
		b.AddExtra("features", pc.features)
		b.AddExtra("level", strconv.Itoa(pc.level))
		b.AddInput("ir", sha256.Sum256(p.IR))
		b.AddOutput("object")
		key = b.Sum()
		h, err := d.cache.Get(ctx, key, map[string]string{"object": obj})
		if err != nil {
			d.warnf("%v", err)
		} else if h.OK {
			return true, nil
		}
	}
	data, err := pc.pool.CodegenAt(ctx, llvmpool.CodegenRequest{Name: fmt.Sprintf("part%d", p.Index), Text: p.IR, Triple: pc.triple, CPU: pc.cpu, Features: pc.features, Warn: d.llvmWarn}, pc.level)
	if err != nil {
		return false, fmt.Errorf("part %d: %w", p.Index, err)
	}
	if pc.ptxas == "" {
		if err := os.WriteFile(obj, data, 0o600); err != nil {
			return false, err
		}
	} else {
		ptx := strings.TrimSuffix(obj, ".cubin") + ".s"
		if err := os.WriteFile(ptx, data, 0o600); err != nil {
			return false, err
		}
		argv := []string{pc.ptxas, pc.bits, "-O3", "--gpu-name", pc.cpu, "--output-file", obj, ptx, "-c"}
		// ptxas runs, of every group's parts, at most --wrapper-jobs (or
		// one per CPU) at once
		d.ptxasOnce.Do(func() {
			n := d.opt.Jobs
			if n <= 0 {
				n = d.env.CPUs()
			}
			d.ptxasSem = run.NewSemaphore(n)
		})
		release, err := d.ptxasSem.Acquire(ctx)
		if err != nil {
			return false, err
		}
		err = d.runner.Run(ctx, &run.Cmd{Args: argv, Stdout: d.env.Stderr, Stderr: d.env.Stderr})
		release()
		if err != nil {
			return false, fmt.Errorf("part %d: %w", p.Index, timedOut(err, "ptxas of part "+strconv.Itoa(p.Index)))
		}
	}
	if d.cache != nil {
		if err := d.cache.Put(ctx, key, cache.Entry{Files: map[string]string{"object": obj}}); err != nil {
			d.warnf("%v", err)
		}
	}
	return false, nil
}

func (d *driver) partNote(g *group, format string, args ...any) {
	if d.opt.Verbose {
		d.notef("device link for %s: %s", groupName(g.key), fmt.Sprintf(format, args...))
	}
}

// llvmWarn prints a warning LLVM reported during a partitioned link;
// optimisation remarks are not printed (ld.lld's LTO prints none unless
// asked, and asking links whole).
func (d *driver) llvmWarn(s string) {
	if !strings.HasPrefix(s, "remark: ") {
		d.warnf("%s", s)
	}
}

// llvmPool is the run's in-process LLVM, started on first use.
func (d *driver) llvmPool(ctx context.Context) (*llvmpool.Pool, error) {
	d.poolOnce.Do(func() {
		runner := d.env.Runner
		if runner == nil {
			runner = run.Exec{}
		}
		d.pool = llvmpool.New(llvmpool.Config{Mode: d.getenv("OFFLOAD_KIT_LLVM"), Tools: d.toolchain(), Runner: run.Timed{Runner: runner, Timeout: d.limit}, Helpers: d.env.NumCPU, Getenv: d.getenv})
		d.poolErr = d.pool.Start(ctx)
	})
	return d.pool, d.poolErr
}
