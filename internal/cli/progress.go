package cli

import (
	"io"
	"os"
	"syscall"
	"time"
	"unsafe"

	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/progress"
)

// ProgressEnv is the environment variable that turns progress reports
// off (0) for the LLVM personalities, whose command lines must stay
// LLVM's; the umbrella's subcommands also take --quiet.
const ProgressEnv = "OFFLOAD_KIT_PROGRESS"

// Progress returns where long operations report progress: env's Stderr
// when it is a terminal, unless quiet or env has OFFLOAD_KIT_PROGRESS=0;
// otherwise nil (no reports). The reports use the real clock.
func Progress(env *driverenv.Env, quiet bool) *progress.Sink {
	if quiet || env.Getenv(ProgressEnv) == "0" || !IsTerminal(env.Stderr) {
		return nil
	}
	return &progress.Sink{W: env.Stderr, Now: time.Now}
}

// IsTerminal reports whether w is an *os.File open on a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
