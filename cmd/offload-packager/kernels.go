package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driver/kernels"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
)

// kernelsSorts are the values of kernels --sort.
var kernelsSorts = []string{"size", "name", "regs", "lds", "scratch"}

// kernelsCommands is the kernels subcommand (and its diff).
func kernelsCommands(env *packager.Env, call func(string, any, func() error) error) []*cobra.Command {
	var ko kernels.Options
	var all bool
	kernelsCmd := &cobra.Command{
		Use:   "kernels [--json] [--sort KEY] [--top N | --all] [--arch A] [--families] [--duplicates] [--html FILE] FILE...",
		Short: "Per-kernel sizes and resources of the device code in fat binaries",
		Long: `Looks inside every device image that dump lists (OffloadBinary, bundles,
compressed bundles, fatbins, HCF, archives) and inside code objects and LLVM
bitcode given as files, and reports, per image, its target, kind and sizes,
and per kernel and device function its code size and resources: AMDGPU
SGPR/VGPR/AGPR counts, LDS, scratch and spills (from the .kd descriptors and
the metadata note); cubin registers, shared, local frame, stack and max
threads, as cuobjdump -res-usage reports them; PTX .entry/.func, SPIR-V and
bitcode functions with their sizes; host ELF functions.

Machine code (AMDGPU ISA, NVIDIA SASS) and PTX/IR (PTX text, SPIR-V,
bitcode) are counted in separate columns and totals. "-" marks a value the
code object does not record, "0" a recorded zero, "?" an unknown size; a
legend at the end of the report explains the columns (REGS is AMDGPU
SGPR/VGPR/AGPR or the NVIDIA register count). The text report prints the
largest 25 functions (--top N, --all); --json prints everything
(` + cli.DocRef("kernels-json.md") + `). Names are demangled; --families groups template
instances. --duplicates hashes the code to find identical kernels in
several images of one arch and identical whole images. --html writes a
self-contained treemap page. An image that cannot be read (damaged, or
over the 1 GiB decode limit) is reported and makes the exit status 1.`,
		Args:    cobra.MinimumNArgs(1),
		Example: "  offload-packager kernels --top 20 librocsparse.so\n  offload-packager kernels --families --duplicates app\n  offload-packager kernels diff --fail-on 'spills>0,regs+8,size+5%' old.so new.so",
		RunE: func(cmd *cobra.Command, args []string) error {
			if ko.Sort != "" && !slices.Contains(kernelsSorts, ko.Sort) {
				return &cli.FlagError{Err: fmt.Errorf("--sort: %q is not one of %s", ko.Sort, strings.Join(kernelsSorts, ", "))}
			}
			if ko.Top < 0 {
				return &cli.FlagError{Err: fmt.Errorf("--top: %d is negative", ko.Top)}
			}
			if all {
				if cmd.Flags().Changed("top") {
					return &cli.FlagError{Err: fmt.Errorf("--all and --top exclude each other")}
				}
				ko.Top = 0
			}
			ko.Files = args
			return call("kernels", ko, func() error { return kernels.Run(cmd.Context(), env, ko) })
		},
	}
	kernelsCmd.Flags().BoolVar(&ko.JSON, "json", false, "print JSON ("+cli.DocRef("kernels-json.md")+")")
	kernelsCmd.Flags().StringVar(&ko.Sort, "sort", "size", "order of the function table: "+strings.Join(kernelsSorts, ", "))
	kernelsCmd.Flags().IntVar(&ko.Top, "top", kernels.DefaultTop, "show the first N rows of the function, family and duplicate tables")
	kernelsCmd.Flags().BoolVar(&all, "all", false, "show every row")
	kernelsCmd.Flags().StringSliceVar(&ko.Arch, "arch", nil, "only images of this target ID or processor (gfx90a matches gfx90a:xnack+; repeatable)")
	kernelsCmd.Flags().BoolVar(&ko.Families, "families", false, "group template instances by their un-parameterised name")
	kernelsCmd.Flags().BoolVar(&ko.Duplicates, "duplicates", false, "find identical kernels and images (reads all code)")
	kernelsCmd.Flags().StringVar(&ko.HTML, "html", "", "write a self-contained HTML/SVG treemap to FILE")
	_ = kernelsCmd.RegisterFlagCompletionFunc("sort", cobra.FixedCompletions(kernelsSorts, cobra.ShellCompDirectiveNoFileComp))
	_ = kernelsCmd.RegisterFlagCompletionFunc("arch", archCompletion(env))

	var do kernels.DiffOptions
	var jsonOut, diffAll bool
	diff := &cobra.Command{
		Use:   "diff [--format text|json|md] [--top N | --all] [--fail-on RULES] [--budget-file FILE] A B",
		Short: "Compare the kernels of two fat binaries, with budgets for CI",
		Long: `Matches the targets of A and B by processor (gfx900:xnack- with gfx900; the
target-ID features that changed are shown) and code kind (machine code
apart from PTX/IR), the functions by mangled name, and lists each function
added, removed or changed with its code size, registers (NVIDIA REG; AMDGPU
VGPRs+AGPRs, and SGPRs), spills, LDS/shared and scratch before and after,
largest size change first, and each target's total code bytes.

Budgets make the exit status 1 when a function breaks one: --fail-on takes
comma-separated rules, --budget-file a file of them (one or more a line, #
comments). A rule is METRIC>N (the value in B is over N), METRIC+N (it grew
by more than N) or METRIC+N% (by more than N percent), where METRIC is size,
regs, sgprs, vgprs, agprs, spills, lds or scratch: e.g. 'spills>0,regs+8,
size+5%'. A value the code object does not record is never over a budget.

--format=md writes a Markdown report for a pull-request comment.`,
		Example: "  offload-packager kernels diff old.so new.so\n  offload-packager kernels diff --format=md --fail-on 'spills>0,regs+8,size+5%' old.so new.so",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if do.Top < 0 {
				return &cli.FlagError{Err: fmt.Errorf("--top: %d is negative", do.Top)}
			}
			if diffAll {
				if cmd.Flags().Changed("top") {
					return &cli.FlagError{Err: fmt.Errorf("--all and --top exclude each other")}
				}
				do.Top = 0
			}
			if jsonOut {
				if cmd.Flags().Changed("format") && do.Format != "json" {
					return &cli.FlagError{Err: fmt.Errorf("--json and --format=%s exclude each other", do.Format)}
				}
				do.Format = "json"
			}
			switch do.Format {
			case "text", "json", "md":
			default:
				return &cli.FlagError{Err: fmt.Errorf("--format: %q is not one of text, json, md", do.Format)}
			}
			if _, err := kernels.ParseBudget(do.FailOn); err != nil {
				return &cli.FlagError{Err: fmt.Errorf("--fail-on: %v", err)}
			}
			do.A, do.B = args[0], args[1]
			return call("kernels diff", do, func() error { return kernels.Diff(cmd.Context(), env, do) })
		},
	}
	diff.Flags().StringVar(&do.Format, "format", "text", "output format: text, json ("+cli.DocRef("kernels-json.md")+") or md (Markdown)")
	diff.Flags().BoolVar(&jsonOut, "json", false, "the same as --format=json")
	diff.Flags().IntVar(&do.Top, "top", kernels.DefaultTop, "show the first N changes")
	diff.Flags().BoolVar(&diffAll, "all", false, "show every change")
	diff.Flags().StringVar(&do.FailOn, "fail-on", "", "budget rules, e.g. 'spills>0,regs+8,size+5%': exit 1 when a function breaks one")
	diff.Flags().StringVar(&do.BudgetFile, "budget-file", "", "read budget rules from FILE")
	_ = diff.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json", "md"}, cobra.ShellCompDirectiveNoFileComp))
	_ = diff.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"spills>0", "regs+8", "size+5%", "lds>65536", "scratch+0"}, cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))
	kernelsCmd.AddCommand(diff)
	return []*cobra.Command{kernelsCmd}
}

// archCompletion completes --arch with the targets of the files already
// on the command line (their processors and target IDs), else with the
// common processors.
func archCompletion(env *packager.Env) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		seen := map[string]bool{}
		if len(args) > 0 {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			for _, a := range kernels.Archs(ctx, env, args) {
				seen[a] = true
				if p, _, ok := strings.Cut(a, ":"); ok {
					seen[p] = true
				}
			}
		}
		if len(seen) == 0 {
			for _, a := range []string{"gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201",
				"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_120", "sm_120a", "sm_120f"} {
				seen[a] = true
			}
		}
		var out []string
		for a := range seen {
			if strings.HasPrefix(a, toComplete) {
				out = append(out, a)
			}
		}
		sort.Strings(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
