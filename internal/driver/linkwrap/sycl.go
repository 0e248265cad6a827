package linkwrap

// SYCL device links run in-process through internal/sycldev (the
// sycl-linker pipeline) instead of "clang --sycl-link", which runs
// clang-sycl-linker (spec §4.1 row 11, §10). The pipeline gets what clang
// would give clang-sycl-linker: the inputs, --triple=<t> --arch=<a> and -o,
// set as options here, then the -Xlinker values (--linker-arg= and
// --device-linker=[<triple>=]<arg>, i.e. clang's -Xoffload-linker), parsed
// over them as sycl-linker parses its command line, so sycl-linker options
// such as --module-split-mode=kernel reach it. sycldev.Link hands back the
// images in memory, their property sets as values: nothing is written and
// read back (the OffloadBinaries sycl-linker would write are made only for
// --sycl-registration=blob* and --save-temps).

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/phase"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/sycldev"
	"github.com/offload-kit/offload-kit/internal/workdir"
	"github.com/offload-kit/offload-kit/internal/wrap"
)

// syclTrace is the time-trace scope of an in-process SYCL link.
const syclTrace = "SYCL device link"

// syclOptions are the sycl-linker options of g's link: those clang
// --sycl-link would pass clang-sycl-linker (the inputs, --triple, --arch,
// -o img, -v and --save-temps as the wrapper has them), with the
// --linker-arg= values and the --device-linker= values for the triple
// parsed over them. -v prints them as the equivalent sycl-linker command.
func (d *driver) syclOptions(g *group, img string) (*sycldev.Options, error) {
	triple, arch := g.key.triple, g.key.arch
	if arch == "generic" {
		arch = ""
	}
	o := &sycldev.Options{Triple: triple, Arch: arch, Output: img, Verbose: d.opt.Verbose, SaveTemps: d.opt.SaveTemps}
	for _, in := range g.inputs {
		o.Inputs = append(o.Inputs, in.path)
	}
	forwarded := append(append([]string(nil), d.opt.LinkerArgs...), deviceValues(d.opt.DeviceLinker, triple, d.rel().DeviceValuesByArch())...)
	if d.opt.Verbose {
		cmd := append(append([]string{"sycl-linker"}, o.Inputs...), "--triple="+triple, "--arch="+arch, "-o", img, "-v")
		if d.opt.SaveTemps {
			cmd = append(cmd, "--save-temps")
		}
		fmt.Fprintln(d.env.Stderr, run.FormatCommand(append(cmd, forwarded...)))
	}
	if err := o.ParseArgs(forwarded); err != nil {
		return nil, err
	}
	return o, nil
}

// syclLink runs the sycl-linker pipeline for g in-process and returns its
// images: one linkedImage holding a registration image per split part
// (sycl), and, for --sycl-registration=blob* and --save-temps, their
// OffloadBinaries (data), which --save-temps keeps at img.
//
// --dry-run prints the "clang --sycl-link" command LLVM's wrapper would
// run, as the reference prints it, and runs nothing (the bundler then uses
// the stub image, as LLVM's wrapper does). -v prints the equivalent
// sycl-linker command line, then the pipeline's own commands (llvm-link,
// llvm-dis, llc, ...).
func (d *driver) syclLink(ctx context.Context, g *group, img string) ([]linkedImage, error) {
	arch := g.key.arch
	if arch == "generic" {
		arch = ""
	}
	out := linkedImage{key: groupKey{g.key.triple, arch}, kind: format.OfkSYCL, path: img, bitcode: d.opt.EmbedBitcode}
	if d.opt.DryRun {
		clang, err := d.findClang(ctx)
		if err != nil {
			return nil, err
		}
		var inputs []string
		for _, in := range g.inputs {
			inputs = append(inputs, in.path)
		}
		if err := d.runner.Run(ctx, &run.Cmd{Args: d.deviceArgs(clang, g.key, true, img, inputs)}); err != nil {
			return nil, err
		}
		return []linkedImage{out}, nil
	}
	o, err := d.syclOptions(g, img)
	if err != nil {
		return nil, fmt.Errorf("SYCL device link for %s: %w", groupName(g.key), err)
	}
	if o.Help || o.Version || o.IROutputOnly || o.PruneToKernels {
		return nil, fmt.Errorf("SYCL device link for %s: --help, --version, --ir-output-only and --prune-to-kernels cannot be forwarded to the in-process sycl-linker", groupName(g.key))
	}
	runner := d.env.Runner
	if runner == nil {
		runner = run.Exec{}
	}
	runner = run.Timed{Runner: runner, Timeout: d.limit}
	// LLVM in-process: helper processes of this executable (whose main
	// serves them), unless $OFFLOAD_KIT_LLVM=process
	llvm := llvmpool.New(llvmpool.Config{Mode: d.getenv("OFFLOAD_KIT_LLVM"), Tools: d.toolchain(), Runner: runner, Helpers: d.env.NumCPU, Getenv: d.getenv})
	defer llvm.Close()
	env := &sycldev.Env{
		Env: driverenv.Env{
			Stdout: d.env.Stderr, // --print-linked-module: the wrapper's stdout belongs to the host link
			Stderr: d.env.Stderr,
			NumCPU: d.env.NumCPU,
			Now:    d.env.Now,
			Phases: d.on(g), // its link, split, codegen, ... on the link's trace row and in the summary
			Runner: runner,
		},
		// llvm-link, llvm-dis, llc, ...: from the link's LLVM (tools.go)
		Tools: d.toolchain(),
		LLVM:  llvm,
	}
	sp := d.on(g).Open(phase.Spec{Event: syclTrace})
	defer sp.End()
	imgs, err := sycldev.Link(ctx, env, *o)
	if err != nil {
		return nil, fmt.Errorf("SYCL device link for %s: %w", groupName(g.key), namedInputs(err, g))
	}
	if len(imgs) == 0 {
		return nil, fmt.Errorf("%s: SYCL device link wrote no OffloadBinary", img)
	}
	for _, im := range imgs {
		out.sycl = append(out.sycl, wrap.SYCLImage{Triple: im.Triple, Image: im.Data, ImageKind: uint8(im.Kind), Symbols: im.Kernels, PropertySets: im.Properties})
	}
	if d.opt.SYCLRegistration != SYCLDescriptor || d.opt.SaveTemps {
		for _, im := range imgs {
			if out.data, err = im.AppendBinary(out.data); err != nil {
				return nil, err
			}
		}
	}
	if d.opt.SaveTemps {
		if err := workdir.WriteFile(img, out.data, 0o644); err != nil {
			return nil, err
		}
	}
	return []linkedImage{out}, nil
}

// syclBundle gathers the SYCL images to register: as linked in-process,
// decoded from the OffloadBinaries of an --override-image file
// (syclImages), or the stub under --dry-run; with
// --sycl-registration=blob*, also their OffloadBinaries, each 8-aligned.
func (d *driver) syclBundle(imgs []linkedImage) (sycl []wrap.SYCLImage, blob []byte, err error) {
	for _, im := range imgs {
		if d.opt.DryRun {
			sycl = append(sycl, wrap.SYCLImage{Triple: im.key.triple, Symbols: []string{"stub"}})
			continue
		}
		si := im.sycl
		if si == nil {
			if si, err = syclImages(im.data); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", im.path, err)
			}
		}
		sycl = append(sycl, si...)
		if d.opt.SYCLRegistration != SYCLDescriptor {
			for len(blob)%8 != 0 {
				blob = append(blob, 0)
			}
			blob = append(blob, im.data...)
		}
	}
	return sycl, blob, nil
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

// syclImages decodes a SYCL device-link output read from a file (an
// --override-image), one or more concatenated v1 OffloadBinaries (one per
// split image) as sycl-linker writes, into registration images. Each
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
