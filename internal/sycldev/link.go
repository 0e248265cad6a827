package sycldev

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/workdir"
	"github.com/offload-kit/offload-kit/split"
)

// Env is what the driver may touch outside its options.
type Env struct {
	// Env: Stdout, Stderr, NumCPU (the default for -j; runtime.NumCPU
	// when 0), Phases (the -v summary; nil records nothing), the
	// environment ($OFFLOAD_KIT_LLVM_TIMEOUT; $TMPDIR, the parent of the
	// private temporary directory: Env.TempRoot; $PATH: Env.LookPath).
	// Its Runner runs the LLVM tools (llvm-link, llvm-dis, llvm-as, llc,
	// spirv-val) and the AOT compilers (ocloc, opencl-aot).
	driverenv.Env
	// Tools, when set, chooses the programs (the LLVM ones from the link's
	// LLVM installation, run.Toolchain); otherwise they are looked up in
	// the environment's $PATH (driverenv.Env.LookPath).
	Tools *run.Toolchain
	// LLVM runs the LLVM steps in-process (inproc.go) when it can serve;
	// nil, or a pool that cannot start, means LLVM's programs run as child
	// processes. The caller closes it.
	LLVM *llvmpool.Pool
}

// ImageKind of the images written: SPIR-V images are IMG_SPIRV (6), as
// LLVM main writes (22.1.8 writes 0); AOT output is IMG_None (0): there is
// no kind for native device binaries.
const (
	SPIRVImageKind = format.ImgSPIRV
	AOTImageKind   = format.ImgNone
)

// Error is a failure tied to a file (an input, a tool, an output).
type Error struct {
	File string
	Err  error
}

func (e *Error) Error() string {
	if e.File == "" {
		return e.Err.Error()
	}
	return e.File + ": " + e.Err.Error()
}
func (e *Error) Unwrap() error { return e.Err }

// fileErr is an Error for file; a %w in format keeps the cause's chain.
func fileErr(file string, format string, args ...any) error {
	return &Error{File: file, Err: fmt.Errorf(format, args...)}
}

// textErr is an error told in other words (a tool's or LLVM's own message)
// that keeps the error it stands for, so errors.Is and errors.As still
// find the cause (a *run.Error, an *llvmpool.Error, context.Canceled).
type textErr struct {
	msg string
	err error
}

func (e *textErr) Error() string { return e.msg }
func (e *textErr) Unwrap() error { return e.err }

type driver struct {
	o      *Options
	env    *Env
	work   *workdir.Dir
	tools  run.Runner // LLVM tools: printed with -v
	aot    run.Runner // AOT tools: printed with -v or --dry-run, skipped by --dry-run
	stage  *stager    // --ir-output-only outputs, committed together
	warnMu sync.Mutex
	from   map[string]string // extracted bitcode → stable origin name
	// spilled: a copy of a pipe/device input in the work directory → the
	// name given (input.go)
	spilled map[string]string
	// libFiles are the -l and --device-libs files as resolved (a pipe's
	// copy for a pipe: resolving reads it)
	libFiles []string

	llvmOnce sync.Once
	llvm     *llvmpool.Pool // nil: LLVM runs as child processes
}

// Image is one device image of a finished link: the part's code (SPIR-V,
// an AOT binary or an object), its kernel names and its property sets.
type Image struct {
	Kind         format.ImageKind
	Triple, Arch string
	Kernels      []string // kernel entry points of the part, in module order
	Properties   syclprop.Sets
	Data         []byte
}

// PropertiesText is the image's property sets in intel's text format, as
// stored in the OffloadBinary string "properties".
func (im *Image) PropertiesText() (string, error) {
	var b bytes.Buffer
	if err := im.Properties.WriteText(&b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// AppendBinary appends im as a v1 OffloadBinary: OffloadKind SYCL, Flags 0,
// strings triple, arch, symbols (kernels joined by "\n") and properties.
func (im *Image) AppendBinary(dst []byte) ([]byte, error) {
	props, err := im.PropertiesText()
	if err != nil {
		return nil, err
	}
	return offload.AppendBinary(dst, &offload.Image{
		ImageKind:   im.Kind,
		OffloadKind: format.OfkSYCL,
		Strings: []offload.KV{
			{Key: "triple", Value: im.Triple},
			{Key: "arch", Value: im.Arch},
			{Key: "symbols", Value: strings.Join(im.Kernels, "\n")},
			{Key: "properties", Value: props},
		},
		Image: im.Data,
	}), nil
}

// Link runs the pipeline up to code generation and returns the images, one
// per split part, without writing o.Output (whose directory and stem still
// name the temporaries). --ir-output-only is refused: it writes files only.
func Link(ctx context.Context, env *Env, opt Options) ([]Image, error) {
	o := &opt
	if o.IROutputOnly {
		return nil, errors.New("--ir-output-only writes files: use Run")
	}
	if o.PruneToKernels {
		return nil, errors.New("--prune-to-kernels writes an IR module: use Run")
	}
	var imgs []Image
	err := start(ctx, o, env, func(d *driver, res []*partResult) error {
		imgs = d.images(res)
		return nil
	})
	return imgs, err
}

// Run performs the device link described by o and writes its outputs: the
// OffloadBinaries at o.Output, or with --ir-output-only the split modules,
// .prop and .sym files and the table.
func Run(ctx context.Context, env *Env, opt Options) error {
	o := &opt
	return start(ctx, o, env, func(d *driver, res []*partResult) error {
		if o.IROutputOnly {
			return d.writeIROutputs(res)
		}
		return d.writeBinary(res)
	})
}

func start(ctx context.Context, o *Options, env *Env, finish func(*driver, []*partResult) error) error {
	if o.Output == "" {
		return errors.New("Output file must be specified")
	}
	if o.Triple == "" {
		return errors.New("Target triple must be specified")
	}
	if len(o.Inputs) == 0 && len(o.Libraries) == 0 {
		return errors.New("no input files")
	}
	if o.IROutputOnly {
		if err := checkIROutput(o); err != nil {
			return err
		}
	}
	// a child program that makes no progress for $OFFLOAD_KIT_LLVM_TIMEOUT
	// is killed, as a helper is (docs/environment.md)
	limit, err := llvmpool.ParseTimeout(env.Getenv("OFFLOAD_KIT_LLVM_TIMEOUT"))
	if err != nil {
		return err
	}
	runner := run.Runner(run.Timed{Runner: env.Runner, Timeout: limit})
	d := &driver{o: o, env: env, from: map[string]string{}}
	d.tools, d.aot = runner, runner
	if o.Verbose {
		d.tools = &run.Printer{Runner: runner, W: env.Stderr}
	}
	if o.Verbose || o.DryRun {
		d.aot = &run.Printer{Runner: runner, W: env.Stderr, DryRun: o.DryRun}
	}
	d.work = workdir.New(workdir.Options{SaveTemps: o.SaveTemps, KeepDir: filepath.Dir(o.Output), TempRoot: env.TempRoot()})
	defer d.work.Close()
	return d.unspill(d.run(ctx, finish))
}

func (d *driver) tool(ctx context.Context, name string) (string, error) {
	if d.env.Tools != nil {
		c, err := d.env.Tools.Find(ctx, name)
		if err != nil {
			return "", fileErr(name, "%w", err)
		}
		return c.Path, nil
	}
	if p, ok := d.env.LookPath(name); ok {
		return p, nil
	}
	return "", fileErr(name, "tool not found (searched PATH)")
}

// exec runs the program name with args through r. file names the step's
// input (the user's files, a part) in an error that LLVM's message does
// not name: a timeout, a program that printed no error. The program's
// warnings (its standard error's "warning: " and "note: " lines) reach
// the user as LLVM prints them, as they do in-process (llvmWarn), when it
// succeeds and, before the error, when it fails; the error is the rest of
// its standard error (llvm-dis's "llvm-dis: error: X" naming file, as the
// in-process step names it).
func (d *driver) exec(ctx context.Context, r run.Runner, stdout io.Writer, file, name string, args ...string) error {
	p, err := d.tool(ctx, name)
	if err != nil {
		if r != d.aot || !d.o.DryRun {
			return err
		}
		p = name // --dry-run only prints AOT commands
	}
	var stderr run.Capture
	c := &run.Cmd{Path: p, Args: append([]string{p}, args...), Stdout: stdout, Stderr: &stderr}
	err = r.Run(ctx, c)
	text := string(stderr.Bytes())
	if re := (*run.Error)(nil); text == "" && errors.As(err, &re) {
		text = string(re.Stderr) // a Runner that only reports it
	}
	msg := d.forwardWarnings(text)
	if err == nil {
		return nil
	}
	var te *run.TimeoutError
	if errors.As(err, &te) || len(msg) == 0 {
		if file == "" {
			file = name
		}
		return &Error{File: file, Err: err}
	}
	for _, prog := range []string{p, name} {
		if rest, ok := strings.CutPrefix(msg[0], prog+": error: "); ok && file != "" {
			// "/usr/lib/llvm-22/bin/llvm-dis: error: Invalid bitcode
			// signature" names no file: name it as the in-process step does
			msg[0] = file + ": error: " + rest
			return &textErr{firstLines([]byte(strings.Join(msg, "\n")), 6), err}
		}
	}
	return &Error{File: name, Err: &textErr{firstLines([]byte(strings.Join(msg, "\n")), 6), err}}
}

// forwardWarnings prints the warning and note lines of a program's
// standard error (llvmWarn) and returns the other non-empty lines.
func (d *driver) forwardWarnings(stderr string) []string {
	var rest []string
	for _, l := range strings.Split(stderr, "\n") {
		switch {
		case strings.HasPrefix(l, "warning: "), strings.HasPrefix(l, "note: "):
			d.llvmWarn(l)
		case strings.TrimSpace(l) != "":
			rest = append(rest, l)
		}
	}
	return rest
}

func firstLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// input accepts LLVM bitcode and archives (of bitcode) as they are, and
// host objects (ELF, COFF) whose .llvm.offloading sections hold SYCL or
// bitcode images for the triple: those images are extracted to the work
// directory and linked instead.
//
// A pipe, FIFO or device (/dev/stdin, <(cmd)) is read once, into the work
// directory (spill), and that copy is the input.
func (d *driver) input(name string) ([]string, error) {
	path := name
	if streamInput(name) {
		var err error
		if path, err = d.spill(name, false); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fileErr(name, "%w", errors.Unwrap(err))
	}
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	f.Close()
	switch format.Identify(head[:n]) {
	case format.KindBitcode, format.KindArchive:
		return []string{path}, nil
	case format.KindELF, format.KindCOFF:
		return d.extractBitcode(path)
	}
	if isTextIR(head[:n]) {
		return []string{path}, nil // llvm-link reads it like bitcode
	}
	return nil, fileErr(name, "Unsupported file type")
}

// isTextIR recognises textual LLVM IR (.ll) by its first line that is
// neither blank nor a comment, as clang-sycl-linker accepts it (LLVM's IR
// file reader parses text as well as bitcode).
func isTextIR(head []byte) bool {
	for len(head) > 0 {
		l := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			l, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		l = bytes.TrimSpace(l)
		if len(l) == 0 || l[0] == ';' {
			continue
		}
		for _, k := range []string{"source_filename", "target ", "define ", "declare ", "@", "%", "!", "$", "attributes ", "module asm"} {
			if bytes.HasPrefix(l, []byte(k)) {
				return true
			}
		}
		return false
	}
	return false
}

func (d *driver) extractBitcode(name string) ([]string, error) {
	buf, err := os.ReadFile(name)
	if err != nil {
		return nil, fileErr(name, "%w", errors.Unwrap(err))
	}
	obj, err := elfembed.Parse(buf)
	if err != nil {
		return nil, fileErr(name, "%w", err)
	}
	var out []string
	for _, sec := range obj.OffloadSections() {
		bins, err := offload.ParseAll(sec.Data, offload.ReadOptions{Align8: true})
		if err != nil {
			return nil, fileErr(name, "section %s: %w", sec.Name, err)
		}
		for _, b := range bins {
			if b.Triple() != d.o.Triple || !format.IsBitcode(b.Image) {
				continue
			}
			stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
			p, err := d.work.Name(fmt.Sprintf("%s-%s-%d", stem, d.o.Triple, len(out)), "bc")
			if err != nil {
				return nil, err
			}
			if err := workdir.WriteNew(p, b.Image); err != nil {
				return nil, err
			}
			out = append(out, p)
			d.from[p] = fmt.Sprintf("%s#%d", filepath.Base(name), len(out)-1)
			d.nameExtracted(p, name) // errors name the object, not p
		}
	}
	if len(out) == 0 {
		return nil, fileErr(name, "no bitcode image for triple %s in the object's offloading sections", d.o.Triple)
	}
	return out, nil
}

// resolveLib finds -l<name> as lib<name>.a or lib<name>.bc in the library
// paths. A pipe or device found so (a FIFO, a link to /dev/stdin) is read
// once into the work directory (spill), like such an input.
func (d *driver) resolveLib(name string) (string, error) {
	for _, dir := range d.o.LibraryPaths {
		for _, f := range []string{"lib" + name + ".a", "lib" + name + ".bc"} {
			p := filepath.Join(dir, f)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				if streamInput(p) {
					return d.spill(p, false)
				}
				return p, nil
			}
		}
	}
	return "", fileErr("-l"+name, "library not found (searched lib%s.a and lib%s.bc in %d library paths)", name, name, len(d.o.LibraryPaths))
}

// resolveDeviceLib finds a --device-libs file: an absolute name as it is,
// else in the library paths. A pipe or device (a FIFO, /dev/stdin,
// /dev/fd/N) is read once into the work directory (spill): its triple is
// read, then llvm-link reads it, and neither may consume the other's bytes.
func (d *driver) resolveDeviceLib(name string) (string, error) {
	found := func(p string) (string, error) {
		if streamInput(p) {
			return d.spill(p, true)
		}
		return p, nil
	}
	if filepath.IsAbs(name) {
		if _, err := os.Stat(name); err == nil {
			return found(name)
		}
	}
	for _, dir := range d.o.LibraryPaths {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return found(p)
		}
	}
	return "", fmt.Errorf("'%s' SYCL device library file is not found.", name)
}

// stem is the stem of -o, which the parts and the intermediate files are
// named after (llvm::sys::path::stem, as clang-sycl-linker).
func (d *driver) stem() string { return driverenv.Stem(d.o.Output) }

func (d *driver) run(ctx context.Context, finish func(*driver, []*partResult) error) error {
	o := d.o
	var inputs []string
	for _, in := range o.Inputs {
		files, err := d.input(in)
		if err != nil {
			return err
		}
		inputs = append(inputs, files...)
	}
	for _, l := range o.Libraries {
		p, err := d.resolveLib(l)
		if err != nil {
			return err
		}
		inputs = append(inputs, p)
		d.libFiles = append(d.libFiles, p)
	}
	var libs []string
	if o.DeviceLibsGiven && len(o.DeviceLibs) == 0 {
		return errors.New("Number of device library files cannot be zero.")
	}
	for _, l := range o.DeviceLibs {
		p, err := d.resolveDeviceLib(l)
		if err != nil {
			return err
		}
		libs = append(libs, p)
		d.libFiles = append(d.libFiles, p)
	}
	// 1. link (a single bitcode file needs no linking; a single text IR
	// file without device libraries to link is read as it is)
	link := d.env.Phases.Span("link", "")
	defer link.End()
	linked := ""
	// only the device libraries for --triple are linked (-v lists them all)
	linkLibs, err := d.deviceLibsFor(libs)
	if err != nil {
		return err
	}
	textInput := len(inputs) == 1 && len(linkLibs) == 0 && !isBitcodeFile(inputs[0]) && isTextIRFile(inputs[0])
	linkFirst := false // linked by readModule, with the disassembly
	if textInput || len(inputs) == 1 && isBitcodeFile(inputs[0]) {
		linked = inputs[0]
	} else {
		var err error
		if linked, err = d.work.Name(d.stem()+"-linked", "bc"); err != nil {
			return err
		}
		if len(linkLibs) == 0 {
			linkFirst = true
		} else if err := d.linkInputs(ctx, inputs, linked); err != nil {
			return err
		}
	}
	if len(linkLibs) > 0 {
		withLibs, err := d.work.Name(d.stem()+"-linked-libs", "bc")
		if err != nil {
			return err
		}
		if err := d.exec(ctx, d.tools, nil, strings.Join(append(append([]string{}, o.Inputs...), linkLibs...), ", "), "llvm-link", append([]string{"--only-needed", linked}, append(linkLibs, "-o", withLibs)...)...); err != nil {
			return err
		}
		linked = withLibs
	}
	if o.Verbose {
		fmt.Fprintf(d.env.Stderr, "sycl-device-link: inputs: %s libfiles: %s output: %s\n",
			strings.Join(inputs, ", "), strings.Join(libs, ", "), linked)
	}
	link.End()
	// 2. model
	// the text goes to a file that is mapped, not to a growing buffer
	model := d.env.Phases.Span("read module", "llvm-dis + parse")
	defer model.End()
	llName := linked
	if !textInput {
		var err error
		if llName, err = d.work.Name(d.stem()+"-linked", "ll"); err != nil {
			return err
		}
		if err := d.readModule(ctx, inputs, linkFirst, linked, llName); err != nil {
			return err
		}
	}
	text, err := mmapfile.Open(llName)
	if err != nil {
		return fileErr(llName, "%w", err)
	}
	defer text.Close()
	if o.PrintLinked {
		if _, err := d.env.Stdout.Write(text.Data); err != nil {
			return err
		}
	}
	// parse errors name the inputs and the line of the llvm-dis text
	// (kept under --save-temps)
	modName := strings.Join(o.Inputs, ",") + " (llvm-dis)"
	if o.SaveTemps || textInput {
		modName = llName
	}
	m, err := split.Parse(modName, text.Data)
	if err != nil {
		return err
	}
	origin, err := d.origins(ctx, inputs)
	if err != nil {
		return err
	}
	model.End()
	if o.PruneToKernels {
		return d.prune(ctx, m)
	}
	splitSpan := d.env.Phases.Span("split", "")
	defer splitSpan.End()
	sopts := split.Options{Mode: o.SplitMode, KernelsOnly: o.KernelsOnly, Origin: origin}
	parts := m.Split(sopts)
	if !o.NoSplitESIMD {
		if parts, err = m.SplitESIMD(parts, sopts.Closure); err != nil {
			return fmt.Errorf("%w (--no-split-esimd keeps them in one image)", err)
		}
	}
	if err := m.VerifyGlobals(parts, sopts.Closure); err != nil {
		return err
	}
	splitSpan.Note(fmt.Sprintf("%d module(s)", len(parts)))
	splitSpan.End()
	if o.IROutputOnly {
		if err := d.checkOverwrites(parts); err != nil {
			return err
		}
		d.stage = &stager{}
		defer func() {
			d.stage.abort() // no-op after done
			d.stage.closeDirs()
		}()
	}
	emit := d.env.Phases.Span("emit + codegen", "per module, in parallel")
	results, err := d.emitParts(ctx, m, parts)
	emit.End()
	if err != nil {
		return err
	}
	defer d.env.Phases.Span("write outputs", "").End()
	return finish(d, results)
}

// origins maps each defined function to the input file it came from, the
// per-source key of last resort. With one input every function maps to it;
// with several, llvm-nm lists each input's defined symbols.
func (d *driver) origins(ctx context.Context, inputs []string) (func(string) string, error) {
	o := d.o
	if o.SplitMode != split.ModeSource && o.SplitMode != split.ModeAuto {
		return nil, nil
	}
	originOf := func(p string) string {
		if f, ok := d.from[p]; ok {
			return f
		}
		return filepath.Base(p)
	}
	if len(inputs) == 1 {
		base := originOf(inputs[0])
		return func(string) string { return base }, nil
	}
	table := map[string]string{}
	for _, in := range inputs {
		var out bytes.Buffer
		if err := d.exec(ctx, d.tools, &out, in, "llvm-nm", "--defined-only", "--format=just-symbols", in); err != nil {
			return nil, err
		}
		for _, s := range strings.Split(out.String(), "\n") {
			s = strings.TrimSpace(s)
			if s != "" && !strings.HasSuffix(s, ":") {
				if _, dup := table[s]; !dup {
					table[s] = originOf(in)
				}
			}
		}
	}
	return func(n string) string { return table[n] }, nil
}

// partResult is one part after post-link (and code generation).
type partResult struct {
	name    string // <stem>[_esimd]_<ID>: the stem of the part's files
	ir      []byte
	code    string // --ir-output-only: final name of the module file
	props   syclprop.Sets
	symbols string   // .sym text
	kernels []string // kernel entry points, for the OffloadBinary
	image   []byte
	kind    format.ImageKind
}

func (d *driver) jobs() int {
	if d.o.Jobs > 0 {
		return d.o.Jobs
	}
	n := d.env.NumCPU
	if n <= 0 {
		n = runtime.NumCPU()
	}
	if d.o.IROutputOnly {
		// the work is mostly writing files, which waits on the file system
		n = min(4*n, 32)
	}
	return n
}

// emitParts builds every part in parallel (bounded by -j); results keep
// part order. The first error (in part order) wins.
func (d *driver) emitParts(ctx context.Context, m *split.Module, parts []split.Part) ([]*partResult, error) {
	res := make([]*partResult, len(parts))
	errs := make([]error, len(parts))
	next := make(chan int)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := 0; w < min(d.jobs(), len(parts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := m.NewExtractor(split.ClosureOptions{})
			var scratch []byte // reused: each part's text is written out and dropped
			for i := range next {
				r, err := d.emitPart(ctx, m, x, &parts[i], i, &scratch)
				res[i], errs[i] = r, err
				if err != nil {
					cancel()
				}
			}
		}()
	}
feed:
	for i := range parts {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// the first error in part order that is not an artefact of cancelling
	var first error
	for _, err := range errs {
		if err != nil && first == nil {
			first = err
		}
		if err != nil && !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "signal: killed") {
			return nil, err
		}
	}
	if first != nil {
		return nil, first
	}
	for _, r := range res {
		if r == nil {
			return nil, ctx.Err()
		}
	}
	return res, nil
}

func (d *driver) emitPart(ctx context.Context, m *split.Module, x *split.Extractor, p *split.Part, i int, scratch *[]byte) (*partResult, error) {
	ir, cl := x.Emit((*scratch)[:0], p)
	*scratch = ir
	var sc *split.SpecConstInfo
	if d.o.SpecConst != split.SpecNone {
		out, info, err := m.LowerSpecConsts(ir, d.o.SpecConst)
		if err != nil {
			return nil, &Error{File: fmt.Sprintf("%s (part %d)", m.File, i), Err: fmt.Errorf("specialization constants: %w", err)}
		}
		ir, sc = out, info
	}
	if u := m.Undefined(cl); len(u) > 0 {
		d.warnf("undefined function%s %s found in part %d; this may result in runtime errors", plural(len(u)), strings.Join(u, ", "), i)
	}
	r := &partResult{name: d.partName(p), ir: ir}
	r.props = m.Properties(p, cl, split.PropOptions{ProgramMetadata: d.o.ProgramMetadata, ExportedSymbols: d.o.ExportedSymbols,
		ImportedSymbols: d.o.ImportedSymbols, AllowDeviceImageDependencies: d.o.AllowImageDeps, SpecConsts: sc})
	r.symbols = m.SymbolTable(p)
	for _, e := range p.Entries {
		if m.Globals[e].IsKernel() {
			r.kernels = append(r.kernels, m.Globals[e].Name())
		}
	}
	if d.o.IROutputOnly {
		// write the module now, so parts are not all held in memory
		return r, d.stageCode(ctx, r)
	}
	stem := r.name
	llName, err := d.work.Name(stem, "ll")
	if err != nil {
		return nil, err
	}
	spv, err := d.work.Name(stem, "spv")
	if err != nil {
		return nil, err
	}
	if d.o.Verbose {
		fmt.Fprintf(d.env.Stderr, "SPIR-V Backend: input: %s, output: %s\n", llName, spv)
	}
	llc := []string{"-mtriple=" + d.o.Triple, "-filetype=obj"}
	if !strings.HasPrefix(d.o.Triple, "spir") && d.o.Arch != "" {
		llc = append(llc, "-mcpu="+d.o.Arch)
	}
	if d.o.SPIRVExt != "" {
		llc = append(llc, "--spirv-ext="+d.o.SPIRVExt)
	}
	inproc, code, err := d.codegen(ctx, r, llc, llName, spv)
	if err != nil {
		return nil, err
	}
	if !inproc {
		if err := workdir.WriteNew(llName, ir); err != nil {
			return nil, err
		}
		r.ir = nil
		if err := d.exec(ctx, d.tools, nil, d.partFile(r), "llc", append(llc, llName, "-o", spv)...); err != nil {
			return nil, err
		}
	}
	if d.o.SPIRVVal {
		if err := d.exec(ctx, d.tools, nil, d.partFile(r), "spirv-val", spv); err != nil {
			return nil, err
		}
	}
	if d.o.SPIRVDumpDir != "" {
		b, err := os.ReadFile(spv)
		if err != nil {
			return nil, err
		}
		if err := workdir.WriteFile(filepath.Join(d.o.SPIRVDumpDir, stem+".spv"), b, 0o644); err != nil {
			return nil, err
		}
	}
	img, kind := spv, SPIRVImageKind
	if !strings.HasPrefix(d.o.Triple, "spir") {
		kind = format.ImgObject // llc -filetype=obj for another target (e.g. amdgcn)
	}
	if aot := d.aotCommand(stem, spv); aot != nil {
		out := aot.out
		if err := d.exec(ctx, d.aot, nil, d.partFile(r), aot.tool, aot.args...); err != nil {
			if !d.o.DryRun {
				return nil, err
			}
		}
		if !d.o.DryRun {
			img, kind = out, AOTImageKind
		}
	}
	if img != spv || code == nil {
		if code, err = os.ReadFile(img); err != nil {
			return nil, fileErr(img, "%w", errors.Unwrap(err))
		}
	}
	r.image, r.kind = code, kind
	return r, nil
}

type aotCmd struct {
	tool string
	args []string
	out  string
}

// aotCommand returns the AOT step for Intel offload architectures
// (intel_gpu_<device> → ocloc, intel_cpu* → opencl-aot), nil otherwise.
func (d *driver) aotCommand(stem, spv string) *aotCmd {
	arch := d.o.Arch
	out := strings.TrimSuffix(spv, ".spv") + ".out"
	switch {
	case strings.HasPrefix(arch, "intel_gpu_"):
		args := []string{"-output_no_suffix", "-spirv_input", "-device", strings.TrimPrefix(arch, "intel_gpu_")}
		args = append(args, strings.Fields(d.o.OclocOptions)...)
		return &aotCmd{"ocloc", append(args, "-output", out, "-file", spv), out}
	case arch == "intel_cpu" || strings.HasPrefix(arch, "intel_cpu_"):
		args := []string{"--device=cpu"}
		args = append(args, strings.Fields(d.o.OpenCLAOTOpts)...)
		return &aotCmd{"opencl-aot", append(args, "-o", out, spv), out}
	}
	return nil
}

// images turns the part results into Images (in part order).
func (d *driver) images(res []*partResult) []Image {
	out := make([]Image, len(res))
	for i, r := range res {
		out[i] = Image{Kind: r.kind, Triple: d.o.Triple, Arch: d.o.Arch, Kernels: r.kernels, Properties: r.props, Data: r.image}
	}
	return out
}

// writeBinary writes one OffloadBinary per image, concatenated.
func (d *driver) writeBinary(res []*partResult) error {
	var out []byte
	for _, im := range d.images(res) {
		var err error
		if out, err = im.AppendBinary(out); err != nil {
			return err
		}
	}
	if err := workdir.WriteFile(d.o.Output, out, 0o644); err != nil {
		return fileErr(d.o.Output, "%w", err)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// warnf prints "sycl-linker: warning: ..." to stderr.
func (d *driver) warnf(format string, args ...any) {
	d.warnMu.Lock()
	defer d.warnMu.Unlock()
	fmt.Fprintf(d.env.Stderr, "sycl-linker: warning: "+format+"\n", args...)
}

func isTextIRFile(name string) bool { return isTextIR(fileHead(name, 4096)) }

func isBitcodeFile(name string) bool { return format.IsBitcode(fileHead(name, 4)) }

// fileHead returns up to n leading bytes of a file (none if unreadable).
func fileHead(name string, n int) []byte {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, n)
	k, _ := io.ReadFull(f, head)
	return head[:k]
}
