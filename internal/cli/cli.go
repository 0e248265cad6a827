// Package cli is the cobra layer shared by the offload-kit commands: it runs
// a root command with a signal-aware context and turns its error into one
// "<tool>: error: <msg>" line and an exit code (through package diag, which
// drivers use directly).
package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/cli/optable"
	"github.com/offload-kit/offload-kit/internal/driverenv"
)

// Aliases so commands need only this package.
type (
	ExitError = diag.ExitError
	Reported  = diag.Reported
	FlagError = diag.FlagError
)

var (
	Stem         = driverenv.Stem
	PrintError   = diag.PrintError
	PrintWarning = diag.PrintWarning
	ExitCode     = diag.ExitCode
)

// Main runs a cobra command with a signal-aware context (Signals) and
// returns the exit code: 130 or 143 after SIGINT or SIGTERM (nothing is
// printed then, as for any interrupted tool). tool is the diagnostic prefix.
func Main(root *cobra.Command, tool string, args []string, stderr io.Writer) int {
	return WithSignals(func(ctx context.Context) int {
		root.SilenceErrors = true
		root.SilenceUsage = true
		root.SetArgs(args)
		root.SetErr(stderr)
		_, err := root.ExecuteContextC(ctx)
		if Interrupted(ctx) != nil {
			return 1 // WithSignals returns 128+signal
		}
		return diag.ExitCode(stderr, tool, err)
	})
}

// ExpandResponseFiles expands "@file" arguments from the real file system
// with LLVM's rules (optable.ExpandResponseFiles). Every tool and
// personality calls it once on its arguments before parsing them.
func ExpandResponseFiles(args []string) ([]string, error) {
	return optable.ExpandResponseFiles(args, optable.OSFS{})
}
