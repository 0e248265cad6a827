package linkwrap

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/workdir"
)

// hostLinkArgs renders every non-WrapperOnly argument in order (and LLVM
// 16-18's "--" separator only where the release forwards it), inserting
// the wrapper objects right after -o <out> (and after /out:).
func (d *driver) hostLinkArgs(wrappers []string) []string {
	args := []string{d.opt.LinkerPath}
	for i := range d.opt.Args {
		a := &d.opt.Args[i]
		if a.Opt != nil && a.Opt.Flags&WrapperOnly != 0 || a.Is(optSeparator) && d.rel().WrapperSeparator() {
			continue
		}
		args = a.Render(args)
		if a.Is(optO) || a.Is(optOut) {
			args = append(args, wrappers...)
		}
	}
	return args
}

// hostLink runs the host linker. If it fails or is interrupted, or the
// step after it fails, the output it created or changed is removed: a
// truncated executable must not look up to date (atomicfile.Guard).
func (d *driver) hostLink(ctx context.Context, wrappers []string) (err error) {
	if !d.opt.DryRun {
		g := atomicfile.GuardOutput(d.exe)
		defer func() { g.Done(err == nil && ctx.Err() == nil) }()
	}
	sp := d.span("Execute host linker", "host link")
	err = d.runner.Run(ctx, &run.Cmd{Args: d.hostLinkArgs(wrappers), Stdout: d.env.Stdout, Stderr: d.env.Stderr})
	sp.End()
	if err != nil {
		return timedOut(err, "host link of "+d.exe)
	}
	if d.opt.Relocatable && d.rel().WrapperRelocatable() {
		return d.relocateOffloadSections()
	}
	return nil
}

// relocateOffloadSections does, in-process, what LLVM 22 runs llvm-objcopy
// for after a relocatable link (spec §8): drop .llvm.offloading and give
// llvm_offload_entries (and its __start_/__stop_ symbols) a suffix unique
// to this output, so a later link keeps the entries of each -r unit apart.
func (d *driver) relocateOffloadSections() error {
	if triple.Parse(d.host).IsOSWindows() { // LLVM 22: Triple::isOSWindows of the host triple
		return fmt.Errorf("Relocatable linking is not supported on COFF targets")
	}
	var data []byte
	if !d.opt.DryRun {
		var err error
		if data, err = os.ReadFile(d.exe); err != nil {
			return fmt.Errorf("Failed to open %s", d.exe)
		}
	}
	suffix := "_" + md5Low(data)
	// The OpenMP entries of the release: omp_offloading_entries up to LLVM
	// 19, llvm_offload_entries since 20.
	sec := "llvm_offload_entries"
	if d.rel().LegacyEntries() {
		sec = "omp_offloading_entries"
	}
	edit := elfembed.Edit{
		Remove:        []string{".llvm.offloading"},
		RenameSection: map[string]string{sec: sec + suffix},
		RenameSymbol: map[string]string{
			"__start_" + sec: "__start_" + sec + suffix,
			"__stop_" + sec:  "__stop_" + sec + suffix,
		},
	}
	if d.opt.Verbose || d.opt.DryRun {
		// The reference runs llvm-objcopy here; print the equivalent command.
		fmt.Fprintln(d.env.Stderr, run.FormatCommand([]string{"llvm-objcopy", d.exe,
			"--remove-section", ".llvm.offloading",
			"--rename-section", sec + "=" + sec + suffix,
			"--redefine-sym", "__start_" + sec + "=__start_" + sec + suffix,
			"--redefine-sym", "__stop_" + sec + "=__stop_" + sec + suffix}))
	}
	if d.opt.DryRun {
		return nil
	}
	var out bytes.Buffer
	if err := elfembed.Rewrite(&out, data, edit); err != nil {
		return fmt.Errorf("%s: renaming offload sections: %w", d.exe, err)
	}
	st, err := os.Stat(d.exe)
	if err != nil {
		return err
	}
	return workdir.WriteFile(d.exe, out.Bytes(), st.Mode().Perm())
}
