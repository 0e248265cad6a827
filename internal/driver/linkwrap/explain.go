package linkwrap

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/run"
)

// ProgName is the argv[0] personality: invoked as clang-linker-wrapper
// (e.g. through a symlink found by clang -B<dir>), diagnostics use that name.
func ProgName(argv0 string) string {
	if strings.HasPrefix(filepath.Base(argv0), "clang-linker-wrapper") {
		return "clang-linker-wrapper"
	}
	return "linker-wrapper"
}

// Explain prints the diagnostics for a failed child process or missing
// tool itself (error line, command, hint) and returns diag.Reported;
// other errors are returned for the caller (cli.Main) to print.
func Explain(w io.Writer, prog string, err error) error {
	var re *run.Error
	var te *ToolError
	switch {
	case errors.As(err, &re):
		diag.PrintError(w, prog, err)
		fmt.Fprintf(w, "%s: note: the failing command was:\n%s\n", prog, run.FormatCommand(re.Args))
		fmt.Fprintf(w, "%s: note: its output is above; rerun with --save-temps to keep the intermediate files it read, or --wrapper-verbose to print every command\n", prog)
	case errors.As(err, &te):
		diag.PrintError(w, prog, err)
		if len(te.Searched) > 0 {
			fmt.Fprintf(w, "%s: note: searched %s\n", prog, strings.Join(te.Searched, ", "))
		}
		for _, s := range te.Skipped {
			fmt.Fprintf(w, "%s: note: skipped %s\n", prog, s)
		}
	default:
		if msg := err.Error(); diag.OneLine(msg) != msg {
			return &oneLineError{err}
		}
		return err
	}
	return diag.Reported{Code: 1}
}

// oneLineError keeps a diagnostic on one line: control characters that
// came from an input (a triple or member name holding a newline) are
// printed escaped by diag.OneLine, as the other tools print them.
type oneLineError struct{ err error }

func (e *oneLineError) Error() string { return diag.OneLine(e.err.Error()) }

func (e *oneLineError) Unwrap() error { return e.err }
