// Package cli holds what every offload-kit command shares: the one place
// errors become "<tool>: error: <msg>" lines and exit codes, the flag-error
// type, and tool-name (argv[0] personality) handling.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// ExitError asks Main to exit with Code after printing Err (if non-nil).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }

// Reported is an error whose message was already printed; Main only exits.
type Reported struct{ Code int }

func (r Reported) Error() string { return fmt.Sprintf("exit status %d", r.Code) }

// FlagError marks a usage error.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// Stem returns the base name of argv0 without extension or version suffix
// is kept as typed (e.g. "clang-offload-bundler-22" stays as is).
func Stem(argv0 string) string {
	b := filepath.Base(argv0)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// Prefix is the diagnostic prefix for a tool.
func Prefix(tool string) string { return tool + ": " }

// PrintError writes "<tool>: error: <msg>\n".
func PrintError(w io.Writer, tool string, err error) {
	fmt.Fprintf(w, "%s: error: %s\n", tool, err)
}

// PrintWarning writes "<tool>: warning: <msg>\n".
func PrintWarning(w io.Writer, tool string, msg string) {
	fmt.Fprintf(w, "%s: warning: %s\n", tool, msg)
}

// ExitCode maps an error to the process exit code, printing it once.
func ExitCode(stderr io.Writer, tool string, err error) int {
	if err == nil {
		return 0
	}
	var rep Reported
	if errors.As(err, &rep) {
		return rep.Code
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			PrintError(stderr, tool, ee.Err)
		}
		return ee.Code
	}
	PrintError(stderr, tool, err)
	return 1
}

// Main runs a cobra command with a signal-aware context and returns the exit
// code. tool is the diagnostic prefix.
func Main(root *cobra.Command, tool string, args []string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	root.SilenceErrors = true
	root.SilenceUsage = true
	root.SetArgs(args)
	root.SetErr(stderr)
	_, err := root.ExecuteContextC(ctx)
	return ExitCode(stderr, tool, err)
}
