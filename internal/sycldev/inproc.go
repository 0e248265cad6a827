package sycldev

// The pipeline's LLVM steps run in-process (libLLVM in helper processes,
// internal/llvmpool) when Env.LLVM can serve, else as LLVM's programs:
//
//	step                     in-process               child process
//	link the inputs          Pool.Link (link)         llvm-link
//	read the linked module   Pool.Link (dis)          llvm-dis
//	a part as bitcode        Pool.Assemble            llvm-as
//	a part's SPIR-V          Pool.Codegen             llc
//
// Device libraries (llvm-link --only-needed, which the C API cannot ask
// for), llvm-nm, spirv-val and the AOT compilers stay child processes.
// -v says which way ran, and prints each in-process step as the command it
// replaces.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/workdir"
	"github.com/offload-kit/offload-kit/split"
)

// inproc returns the pool when LLVM runs in-process for this run, nil when
// it runs as child processes. The first call decides.
func (d *driver) inproc(ctx context.Context) *llvmpool.Pool {
	d.llvmOnce.Do(func() {
		p := d.env.LLVM
		if p == nil {
			if d.o.Verbose {
				fmt.Fprintln(d.env.Stderr, "sycl-linker: LLVM runs as child processes (no in-process LLVM in this build)")
			}
			return
		}
		if err := p.Start(ctx); err != nil {
			if d.o.Verbose {
				fmt.Fprintf(d.env.Stderr, "sycl-linker: LLVM runs as child processes: %v\n", err)
			}
			return
		}
		if d.o.Verbose {
			fmt.Fprintf(d.env.Stderr, "sycl-linker: LLVM runs in-process: %s\n", p.Describe())
		}
		if d.o.SplitMode != split.ModeNone {
			// many parts to come: the other helpers load libLLVM while
			// this one reads the module
			p.Prestart(ctx, d.jobs())
		}
		d.llvm = p
	})
	return d.llvm
}

// inprocNote prints, under -v, the command an in-process step replaces.
func (d *driver) inprocNote(args ...string) {
	if d.o.Verbose {
		d.warnMu.Lock()
		fmt.Fprintf(d.env.Stderr, "in-process:%s\n", run.FormatCommand(args))
		d.warnMu.Unlock()
	}
}

// llvmErr turns a helper's failure into a pipeline error: LLVM's message
// (its first line: the one-line rule), naming file unless the message
// already starts with a file name; a crash always names file.
func llvmErr(file string, err error) error {
	var ce *llvmpool.CrashError
	if errors.As(err, &ce) {
		return &Error{File: file, Err: ce}
	}
	var le *llvmpool.Error
	if errors.As(err, &le) {
		msg, _, _ := strings.Cut(le.Msg, "\n")
		// file may list several inputs ("a.bc, b.bc"): a message that
		// names the one that failed needs no other name
		for _, f := range append([]string{file}, strings.Split(file, ", ")...) {
			if strings.HasPrefix(msg, f+":") {
				return &textErr{msg, err}
			}
		}
		return &Error{File: file, Err: &textErr{msg, err}}
	}
	return &Error{File: file, Err: err}
}

// linkInputs is "llvm-link <inputs> -o bc", in-process when it can be.
func (d *driver) linkInputs(ctx context.Context, inputs []string, bc string) error {
	if p := d.inproc(ctx); p != nil {
		d.inprocNote(append(append([]string{"llvm-link"}, inputs...), "-o", bc)...)
		if err := p.Link(ctx, llvmpool.LinkRequest{Link: true, Inputs: inputs, BC: bc, Warn: d.llvmWarn}); err != nil {
			return llvmErr(strings.Join(inputs, ", "), err)
		}
		return nil
	}
	return d.exec(ctx, d.tools, nil, strings.Join(inputs, ", "), "llvm-link", append(append([]string{}, inputs...), "-o", bc)...)
}

// llvmWarn prints one of LLVM's warnings as LLVM's handler does
// ("warning: Linking two modules of different target triples: ..."):
// llvm-link and clang-sycl-linker print them so, on standard error.
func (d *driver) llvmWarn(line string) {
	d.warnMu.Lock()
	fmt.Fprintln(d.env.Stderr, d.unspillText(line))
	d.warnMu.Unlock()
}

// readModule writes the text of the linked module to ll: "llvm-dis linked
// -o ll", or, when linkFirst (the inputs were not linked yet), llvm-link
// of inputs to linked and llvm-dis in one in-process step (linked is then
// written only under --save-temps; the text's ModuleID names it, as
// llvm-dis's would).
func (d *driver) readModule(ctx context.Context, inputs []string, linkFirst bool, linked, ll string) error {
	p := d.inproc(ctx)
	if p == nil {
		if linkFirst {
			if err := d.linkInputs(ctx, inputs, linked); err != nil {
				return err
			}
		}
		file := linked
		if linkFirst {
			file = strings.Join(inputs, ", ")
		}
		return d.exec(ctx, d.tools, nil, file, "llvm-dis", linked, "-o", ll)
	}
	r := llvmpool.LinkRequest{Inputs: []string{linked}, LL: ll}
	file := linked
	if linkFirst {
		r = llvmpool.LinkRequest{Link: true, Inputs: inputs, Ident: linked, LL: ll, Warn: d.llvmWarn}
		if d.work.SaveTemps() {
			r.BC = linked
		}
		file = strings.Join(inputs, ", ")
		d.inprocNote(append(append([]string{"llvm-link"}, inputs...), "-o", linked)...)
	}
	d.inprocNote("llvm-dis", linked, "-o", ll)
	if err := p.Link(ctx, r); err != nil {
		return llvmErr(file, err)
	}
	return nil
}

// assemble is "llvm-as <part>.ll -o out" in-process: the part's text to
// verified bitcode, written to out by the stager (the .ll is kept only
// under --save-temps). ok is false when LLVM runs as child processes.
func (d *driver) assemble(ctx context.Context, r *partResult, out string) (ok bool, err error) {
	p := d.inproc(ctx)
	if p == nil {
		return false, nil
	}
	ll, err := d.work.Name(r.name, "ll")
	if err != nil {
		return true, err
	}
	if d.work.SaveTemps() {
		if err := workdir.WriteNew(ll, r.ir); err != nil {
			return true, err
		}
	}
	d.inprocNote("llvm-as", ll, "-o", out)
	bc, err := p.Assemble(ctx, ll, r.ir)
	r.ir = nil
	if err != nil {
		return true, llvmErr(d.partFile(r), err)
	}
	return true, d.stage.write(out, bc)
}

// codegen is "llc <llc args> <stem>.ll -o <stem>.spv" in-process. The
// image is returned in memory; the .spv file is written only when
// something reads it (spirv-val, --spirv-dump-device-code, AOT,
// --save-temps). ok is false when LLVM runs as child processes.
func (d *driver) codegen(ctx context.Context, r *partResult, llc []string, ll, spv string) (ok bool, img []byte, err error) {
	p := d.inproc(ctx)
	if p == nil {
		return false, nil, nil
	}
	req := llvmpool.CodegenRequest{Name: ll, Text: r.ir, Triple: d.o.Triple, Warn: d.llvmWarn}
	for _, a := range llc {
		switch {
		case strings.HasPrefix(a, "-mtriple="), a == "-filetype=obj":
		case strings.HasPrefix(a, "-mcpu="):
			req.CPU = strings.TrimPrefix(a, "-mcpu=")
		default:
			req.Options = append(req.Options, a)
		}
	}
	if d.work.SaveTemps() {
		if err := workdir.WriteNew(ll, r.ir); err != nil {
			return true, nil, err
		}
	}
	d.inprocNote(append(append([]string{"llc"}, llc...), ll, "-o", spv)...)
	img, err = p.Codegen(ctx, req)
	r.ir = nil
	if err != nil {
		return true, nil, llvmErr(d.partFile(r), err)
	}
	if d.o.SPIRVVal || d.o.SPIRVDumpDir != "" || d.aotCommand(r.name, spv) != nil || d.work.SaveTemps() {
		if err := workdir.WriteNew(spv, img); err != nil {
			return true, nil, err
		}
	}
	return true, img, nil
}

// partFile names a part in errors: "<inputs> (part <stem>)".
func (d *driver) partFile(r *partResult) string {
	return fmt.Sprintf("%s (part %s)", strings.Join(d.o.Inputs, ","), r.name)
}
