package sycldev

import (
	"context"
	"os"
	"strings"

	"github.com/offload-kit/offload-kit/internal/workdir"
	"github.com/offload-kit/offload-kit/split"
)

// prune is --prune-to-kernels: it writes the linked module holding only
// the kernel definitions and what they reach (split's KeepReachable: calls,
// operand bundles, region directives, function pointers in globals and
// constant expressions, metadata), plus the non-discardable variables and
// what they reach, with every linkage unchanged, to o.Output: textual IR
// with -S, else bitcode. This is what HIP stdpar's accelerator-code
// selection does, without losing functions reached only by address.
func (d *driver) prune(ctx context.Context, m *split.Module) error {
	defer d.env.Phases.Span("prune to kernels", "").End()
	ir := m.KeepReachable(nil, nil, split.ClosureOptions{})
	if d.o.TextIR {
		if err := workdir.WriteFile(d.o.Output, ir, 0o644); err != nil {
			return fileErr(d.o.Output, "%w", err)
		}
		return nil
	}
	ll, err := d.work.Name(d.stem()+"-pruned", "ll")
	if err != nil {
		return err
	}
	if err := workdir.WriteNew(ll, ir); err != nil {
		return err
	}
	bc, err := d.work.Name(d.stem()+"-pruned", "bc")
	if err != nil {
		return err
	}
	if err := d.exec(ctx, d.tools, nil, strings.Join(d.o.Inputs, ", "), "llvm-as", ll, "-o", bc); err != nil {
		return err
	}
	data, err := os.ReadFile(bc)
	if err != nil {
		return err
	}
	if err := workdir.WriteFile(d.o.Output, data, 0o644); err != nil {
		return fileErr(d.o.Output, "%w", err)
	}
	return nil
}
