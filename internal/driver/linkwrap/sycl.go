package linkwrap

// SYCL device links run in-process through internal/sycldev (the
// sycl-linker pipeline) instead of "clang --sycl-link", which runs
// clang-sycl-linker (spec §4.1 row 11, §10). The command line the pipeline
// parses is the one clang would give clang-sycl-linker: the inputs,
// --triple=<t> --arch=<a>, then the -Xlinker values (--linker-arg= and
// --device-linker=[<triple>=]<arg>, i.e. clang's -Xoffload-linker), so
// sycl-linker options such as --module-split-mode=kernel reach it.

import (
	"context"
	"errors"
	"fmt"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/sycldev"
	"github.com/offload-kit/offload-kit/internal/wrap"
)

// syclTrace is the time-trace scope of an in-process SYCL link.
const syclTrace = "SYCL device link"

// deviceJob is the job of a clang or SYCL device link. A SYCL job has no
// steps: runLinkJob runs it in-process.
func (d *driver) deviceJob(ctx context.Context, g *group, sycl bool, img string) (*linkJob, error) {
	if sycl {
		return &linkJob{g: g, img: img, trace: syclTrace}, nil
	}
	return d.clangJob(ctx, g, false, img)
}

// runLinkJob runs j: in-process for SYCL, else through runJob (and the
// device-link cache). In-process SYCL links are not cached.
func (d *driver) runLinkJob(ctx context.Context, j *linkJob, sycl bool) (string, error) {
	if !sycl {
		return d.runJob(ctx, j)
	}
	return "", d.syclLink(ctx, j)
}

// syclArgs is the sycl-linker command line (without the program name) for
// a group: what clang --sycl-link would pass to clang-sycl-linker.
func (d *driver) syclArgs(j *linkJob) []string {
	triple, arch := j.g.key.triple, j.g.key.arch
	if arch == "generic" {
		arch = ""
	}
	var args []string
	for _, in := range j.g.inputs {
		args = append(args, in.path)
	}
	args = append(args, "--triple="+triple, "--arch="+arch, "-o", j.img)
	if d.opt.Verbose {
		args = append(args, "-v")
	}
	if d.opt.SaveTemps {
		args = append(args, "--save-temps")
	}
	args = append(args, d.opt.LinkerArgs...)
	return append(args, deviceValues(d.opt.DeviceLinker, triple)...)
}

// syclLink runs the sycl-linker pipeline for j's group, writing the
// concatenated OffloadBinaries (one per split image) to j.img.
//
// --dry-run prints the "clang --sycl-link" command LLVM's wrapper would
// run, as the reference prints it, and runs nothing (the bundler then uses
// the stub image, as LLVM's wrapper does). -v prints the equivalent
// sycl-linker command line, then the pipeline's own commands (llvm-link,
// llvm-dis, llc, ...).
func (d *driver) syclLink(ctx context.Context, j *linkJob) error {
	args := d.syclArgs(j)
	if d.opt.DryRun {
		clang, err := d.findClang(ctx)
		if err != nil {
			return err
		}
		var inputs []string
		for _, in := range j.g.inputs {
			inputs = append(inputs, in.path)
		}
		return d.runner.Run(ctx, &run.Cmd{Args: d.deviceArgs(clang, j.g.key, true, j.img, inputs)})
	}
	if d.opt.Verbose {
		fmt.Fprintln(d.env.Stderr, run.FormatCommand(append([]string{"sycl-linker"}, args...)))
	}
	o, err := sycldev.ParseArgs(args)
	if err != nil {
		return fmt.Errorf("SYCL device link for %s: %w", groupName(j.g.key), err)
	}
	if o.Help || o.Version || o.IROutputOnly || o.PruneToKernels {
		return fmt.Errorf("SYCL device link for %s: --help, --version, --ir-output-only and --prune-to-kernels cannot be forwarded to the in-process sycl-linker", groupName(j.g.key))
	}
	runner := d.env.Runner
	if runner == nil {
		runner = run.Exec{}
	}
	runner = run.Timed{Runner: runner, Timeout: d.limit}
	// LLVM in-process: helper processes of this executable (whose main
	// serves them), unless $OFFLOAD_KIT_LLVM=process
	llvm := llvmpool.New(llvmpool.Config{Mode: d.getenv("OFFLOAD_KIT_LLVM"), Tools: d.toolchain(), Runner: runner, Helpers: d.env.NumCPU})
	defer llvm.Close()
	env := &sycldev.Env{
		Env: driverenv.Env{
			Stdout: d.env.Stderr, // --print-linked-module: the wrapper's stdout belongs to the host link
			Stderr: d.env.Stderr,
			NumCPU: d.env.NumCPU,
		},
		Runner: runner,
		// llvm-link, llvm-dis, llc, ...: from the link's LLVM (tools.go)
		Tools: d.toolchain(),
		LLVM:  llvm,
	}
	end := d.trace.beginOn(j.trace, "", j.g.key.triple+" "+j.g.key.arch)
	defer end()
	if err := sycldev.Run(ctx, env, o); err != nil {
		return fmt.Errorf("SYCL device link for %s: %w", groupName(j.g.key), namedInputs(err, j.g))
	}
	return nil
}

// namedInputs names, in a SYCL device-link error, the user's object or
// archive member ("main.o", "libk.a(k.o)") that carried each image instead
// of the temporary file it was extracted to (deleted when the link ends).
func namedInputs(err error, g *group) error {
	msg := err.Error()
	renamed := msg
	for _, in := range g.inputs {
		if in.path != "" && in.unit != nil && in.unit.origin != "" {
			renamed = strings.ReplaceAll(renamed, in.path, in.unit.origin)
		}
	}
	if renamed == msg {
		return err
	}
	return &renamedErr{renamed, err}
}

type renamedErr struct {
	msg string
	err error
}

func (e *renamedErr) Error() string { return e.msg }
func (e *renamedErr) Unwrap() error { return e.err }

// syclImages decodes a SYCL device-link output, one or more concatenated
// v1 OffloadBinaries (one per split image), into registration images. Each
// keeps its kernel names (string "symbols", split on "\n") and its property
// sets (string "properties", intel's .prop text, spec sycl.md §7.1), which
// internal/wrap registers in intel's runtime layout (sycl.md §9.1) through
// PropertiesBegin/End of the version-3 __sycl.tgt_device_image. An image
// without properties (as clang-sycl-linker 22 writes) keeps them null, as
// LLVM 22's wrapper does. A malformed "properties" string is an error.
func syclImages(data []byte) ([]wrap.SYCLImage, error) {
	bins, err := offload.ParseAll(data, offload.ReadOptions{})
	if err != nil {
		return nil, err
	}
	if len(bins) == 0 {
		return nil, errors.New("SYCL device link wrote no OffloadBinary")
	}
	out := make([]wrap.SYCLImage, 0, len(bins))
	for i, b := range bins {
		if b.OffloadKind != format.OfkSYCL {
			return nil, fmt.Errorf("OffloadBinary %d: offload kind %v, expected sycl", i, b.OffloadKind)
		}
		im := wrap.SYCLImage{Triple: b.Triple(), Image: b.Image, ImageKind: uint8(b.ImageKind)}
		if im.Symbols, err = wrap.SYCLSymbols(b.Get("symbols")); err != nil {
			return nil, fmt.Errorf("OffloadBinary %d: symbols: %w", i, err)
		}
		if im.PropertySets, err = syclPropertySets(b.Get("properties")); err != nil {
			return nil, fmt.Errorf("OffloadBinary %d: properties: %w", i, err)
		}
		out = append(out, im)
	}
	return out, nil
}

// syclPropertySets parses an OffloadBinary "properties" string (intel's
// .prop text) into the sets internal/wrap registers, in text order.
func syclPropertySets(text string) (syclprop.Sets, error) {
	if text == "" {
		return nil, nil
	}
	return syclprop.ParseText(strings.NewReader(text))
}
