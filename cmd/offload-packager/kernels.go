package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
)

// KernelsDiffOptions are the options of "kernels diff".
type KernelsDiffOptions struct {
	A, B string
	JSON bool
	Top  int
}

// kernelsCommands is the kernels subcommand (and its diff).
func kernelsCommands(env *packager.Env, call func(string, any, func() error) error) []*cobra.Command {
	var ko packager.KernelsOptions
	kernels := &cobra.Command{
		Use:   "kernels [--json] [--sort KEY] [--top N] [--families] [--duplicates] [--html FILE] FILE...",
		Short: "Per-kernel sizes and resources of the device code in fat binaries",
		Long: `Looks inside every device image that dump lists (OffloadBinary, bundles,
compressed bundles, fatbins, HCF, archives) and reports, per image, its
target, kind and sizes, and per kernel and device function its code size
and resources: AMDGPU SGPR/VGPR/AGPR counts, LDS, scratch and spills (from
the .kd descriptors and the metadata note); cubin registers, shared, local
and stack sizes, max threads (.nv.info); PTX .entry/.func and SPIR-V
functions with their sizes; host ELF functions; bitcode's defined
functions. Names are demangled; --families groups template instances.
Totals per arch and per file follow. --duplicates hashes the code to find
identical kernels in several images of one arch and identical whole
images, with the bytes keeping one copy would save. --html writes a
self-contained treemap page. --json prints docs/kernels-json.md's schema.
Only symbol tables, notes and descriptors are read, so large libraries are
fast (--duplicates reads all code).`,
		Args:    cobra.MinimumNArgs(1),
		Example: "  offload-packager kernels --top 20 librocsparse.so\n  offload-packager kernels --families --duplicates app\n  offload-packager kernels diff old.so new.so",
		RunE: func(cmd *cobra.Command, args []string) error {
			switch ko.Sort {
			case "", "size", "name", "regs", "lds", "scratch":
			default:
				return &cli.FlagError{Err: fmt.Errorf("--sort: %q is not one of size, name, regs, lds, scratch", ko.Sort)}
			}
			if ko.Top < 0 {
				return &cli.FlagError{Err: fmt.Errorf("--top: %d is negative", ko.Top)}
			}
			ko.Files = args
			return call("kernels", ko, func() error { return packager.Kernels(cmd.Context(), env, ko) })
		},
	}
	kernels.Flags().BoolVar(&ko.JSON, "json", false, "print JSON (docs/kernels-json.md)")
	kernels.Flags().StringVar(&ko.Sort, "sort", "size", "order of the function table: size, name, regs, lds, scratch")
	kernels.Flags().IntVar(&ko.Top, "top", 0, "show only the first N rows of the function table (0: all)")
	kernels.Flags().BoolVar(&ko.Families, "families", false, "group template instances by their un-parameterised name")
	kernels.Flags().BoolVar(&ko.Duplicates, "duplicates", false, "find identical kernels and images (reads all code)")
	kernels.Flags().StringVar(&ko.HTML, "html", "", "write a self-contained HTML/SVG treemap to FILE")

	var do KernelsDiffOptions
	diff := &cobra.Command{
		Use:   "diff [--json] [--top N] A B",
		Short: "Compare the kernels of two fat binaries by arch and function",
		Long: `Lists, per arch, the functions added, removed, grown and shrunk from A to B,
largest change first, and each arch's total code bytes before and after.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if do.Top < 0 {
				return &cli.FlagError{Err: fmt.Errorf("--top: %d is negative", do.Top)}
			}
			do.A, do.B = args[0], args[1]
			return call("kernels diff", do, func() error { return packager.KernelsDiff(cmd.Context(), env, do.A, do.B, do.JSON, do.Top) })
		},
	}
	diff.Flags().BoolVar(&do.JSON, "json", false, "print JSON (docs/kernels-json.md)")
	diff.Flags().IntVar(&do.Top, "top", 0, "show only the N largest changes (0: all)")
	kernels.AddCommand(diff)
	return []*cobra.Command{kernels}
}
