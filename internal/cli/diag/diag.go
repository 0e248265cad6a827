// Package diag holds the diagnostics plumbing every offload-kit tool
// shares: "<tool>: error: <msg>" lines, exit-code mapping and the error
// types drivers return to request a specific exit status. It imports only
// the standard library so drivers (below the cobra layer) can use it.
package diag

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/offload-kit/offload-kit/internal/atomicfile"
)

// ExitError asks the caller to exit with Code after printing Err (if non-nil).
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

// Reported is an error whose message was already printed; only the exit
// code remains to be applied.
type Reported struct{ Code int }

func (r Reported) Error() string { return fmt.Sprintf("exit status %d", r.Code) }

// FlagError marks a usage error.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// PrintError writes "<tool>: error: <msg>\n" on one line: control
// characters that came from an input (a member name with a newline, say)
// are escaped so that the diagnostic stays a single line.
func PrintError(w io.Writer, tool string, err error) {
	fmt.Fprintf(w, "%s: error: %s\n", tool, OneLine(err.Error()))
}

// OneLine escapes control characters (\n, \r, \t, others as \xNN).
func OneLine(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// PrintWarning writes "<tool>: warning: <msg>\n".
func PrintWarning(w io.Writer, tool string, msg string) {
	fmt.Fprintf(w, "%s: warning: %s\n", tool, msg)
}

// ExitCode maps an error to the process exit code, printing it once. A
// cancellation (SIGINT/SIGTERM: the caller turns the code into 130 or 143)
// prints nothing, as for any interrupted tool.
func ExitCode(stderr io.Writer, tool string, err error) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, atomicfile.ErrInterrupted) {
		return 1
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
