package cli

import (
	"io"
	"os"
	"runtime"
	"time"

	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/run"
)

// ProcessEnv is the driver environment of this process, the one place it
// is read from: the given streams, os.LookupEnv, the wall clock, the CPU
// count, and where tools are looked up (this executable's directory, the
// process that started this one, the LLVM installation layouts). tool is
// the diagnostic prefix.
func ProcessEnv(stdin io.Reader, stdout, stderr io.Writer, tool string) driverenv.Env {
	parent, ppid := Parent()
	return driverenv.Env{
		Stdin: stdin, Stdout: stdout, Stderr: stderr, Tool: tool,
		LookupEnv: os.LookupEnv,
		Now:       time.Now,
		NumCPU:    runtime.NumCPU(),
		ExeDir:    ExeDir(),
		Parent:    parent,
		ParentPID: ppid,
		Layouts:   run.DefaultLayouts(),
	}
}
