package linkwrap

// Which programs run (docs/linker-wrapper.md). LLVM 22's wrapper runs the
// first clang in its own directory, then PATH; with Debian's default clang
// (14) first in PATH every offload link then fails. Here clang and every
// other LLVM program come from the installation of the link (run.Toolchain
// has the order): an explicit path, --llvm-dir, the clang that invoked the
// wrapper (clang -B runs it as a child), the installation that produced the
// inputs, the command line's directories, the wrapper's directory, the LLVM
// 22 installation, and only then PATH, where a program must report an
// acceptable LLVM release. The CUDA programs come from --cuda-path,
// $CUDA_PATH, /usr/local/cuda, then PATH.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/internal/run"
)

// toolchain returns the driver's program chooser, built on first use
// (after scanning, so the inputs' LLVM release is known).
func (d *driver) toolchain() *run.Toolchain {
	d.toolsOnce.Do(func() {
		t := d.env.Toolchain()
		t.InputMajor = d.inputMajor
		t.Override = d.toolOverride
		t.Hints = d.pathHints()
		if d.opt.LLVMDir != "" {
			t.LLVMDir, t.LLVMDirWhy = d.opt.LLVMDir, "--llvm-dir="+d.opt.LLVMDir
		}
		if d.opt.Verbose || d.opt.DryRun {
			t.Notify = func(c run.Choice) {
				for _, s := range c.Skipped {
					d.notef("%s: skipped %s", c.Name, s)
				}
				d.notef("%s: using %s (%s)", c.Name, c.Path, c.Why)
			}
		}
		d.tools = t
	})
	return d.tools
}

// toolOverride is an explicit path: --clang-path (clang only), then
// --tool-path=<name>=<path>, then $OFFLOAD_KIT_<NAME>.
func (d *driver) toolOverride(name string) (string, string) {
	if name == "clang" && d.opt.ClangPath != "" {
		return d.opt.ClangPath, "--clang-path"
	}
	if p := d.opt.ToolPaths[name]; p != "" {
		return p, "--tool-path=" + name + "="
	}
	return d.env.EnvOverride(name)
}

// pathHints are the directories the command line names that may hold the
// link's LLVM: that of an explicitly named clang, that of an lld --linker-path (clang -fuse-ld=lld passes
// the ld.lld beside it), and <prefix>/bin for each -L<prefix>/lib (clang
// adds -L<its prefix>/lib for the OpenMP runtime). They are searched with
// the version check.
func (d *driver) pathHints() []run.Source {
	var out []run.Source
	if p, why := d.toolOverride("clang"); strings.ContainsRune(p, '/') {
		// The other LLVM tools of an explicitly named clang's installation.
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		out = append(out, run.Source{Dir: filepath.Dir(p), Why: "beside the clang of " + why})
	}
	if lp := d.opt.LinkerPath; strings.ContainsRune(lp, '/') {
		switch filepath.Base(lp) {
		case "ld.lld", "lld", "ld64.lld", "lld-link", "wasm-ld":
			out = append(out, run.Source{Dir: filepath.Dir(lp), Why: "beside --linker-path=" + lp})
		}
	}
	for _, l := range d.opt.libraryPaths() {
		if strings.HasPrefix(l, "=") || strings.HasPrefix(l, "$SYSROOT") || !filepath.IsAbs(l) {
			continue
		}
		if c := filepath.Clean(l); filepath.Base(c) == "lib" {
			out = append(out, run.Source{Dir: filepath.Join(filepath.Dir(c), "bin"), Why: "the bin directory beside -L" + l})
		}
	}
	return out
}

// findClang chooses the device compiler driver.
func (d *driver) findClang(ctx context.Context) (string, error) {
	return d.findTool(ctx, "clang", false)
}

// findCUDATool chooses ptxas, nvlink or fatbinary: --tool-path or
// $OFFLOAD_KIT_<NAME>, then --cuda-path/bin, $CUDA_PATH/bin, Env.CUDADirs
// (/usr/local/cuda/bin), then PATH.
func (d *driver) findCUDATool(ctx context.Context, name string) (string, error) {
	return d.findTool(ctx, name, true)
}

func (d *driver) findTool(ctx context.Context, name string, cuda bool) (string, error) {
	t := d.toolchain()
	var c run.Choice
	var err error
	if cuda {
		var dirs []run.Source
		if d.opt.CudaPath != "" {
			dirs = append(dirs, run.Source{Dir: filepath.Join(d.opt.CudaPath, "bin"), Why: "--cuda-path=" + d.opt.CudaPath})
		}
		if p := d.getenv("CUDA_PATH"); p != "" {
			dirs = append(dirs, run.Source{Dir: filepath.Join(p, "bin"), Why: "$CUDA_PATH=" + p})
		}
		for _, dir := range d.env.CUDADirs {
			dirs = append(dirs, run.Source{Dir: dir, Why: dir})
		}
		c, err = t.FindIn(ctx, name, dirs)
	} else {
		c, err = t.Find(ctx, name)
	}
	if err == nil {
		return c.Path, nil
	}
	var nf *run.NotFoundError
	if !errors.As(err, &nf) {
		return "", err
	}
	te := &ToolError{Tool: name, Searched: nf.Searched, Skipped: nf.Skipped}
	switch {
	case cuda:
		te.Hint = "it is part of the NVIDIA CUDA toolkit: install it and pass --cuda-path=<dir> (clang's --cuda-path), set CUDA_PATH, or put its bin directory in PATH"
	case name == "clang":
		te.Hint = fmt.Sprintf("device linking runs clang %d: install it (e.g. 'apt-get install clang-%d'), or name it with --clang-path=<path>, OFFLOAD_KIT_CLANG=<path> or OFFLOAD_KIT_LLVM_DIR=<dir>", run.LLVMMajor, run.LLVMMajor)
	default:
		te.Hint = fmt.Sprintf("it is part of LLVM %d: install it (e.g. 'apt-get install llvm-%d'), or name it with --tool-path=%s=<path>, %s=<path> or OFFLOAD_KIT_LLVM_DIR=<dir>", run.LLVMMajor, run.LLVMMajor, name, run.ToolEnv(name))
	}
	if d.opt.DryRun {
		// Nothing runs: print the command with the bare name.
		for _, s := range nf.Skipped {
			d.notef("%s: skipped %s", name, s)
		}
		d.notef("%s: %s; printing '%s'", name, te.Error(), name)
		return name, nil
	}
	return "", te
}
