package llvmpool

import (
	"os"
	"slices"
	"time"

	"sync"

	"github.com/offload-kit/offload-kit/internal/run"
)

// A helper's start is mostly the Go runtime's start and libLLVM's load
// (tens of milliseconds, the relocations and static constructors of a
// 150 MB library). Started by the first Pool.Start, it begins only after
// the tool has parsed its command line, chosen its LLVM programs and read
// its inputs, and the tool then waits for it. Prespawn starts it at the
// very beginning of main instead, so that the two overlap; the first Start
// adopts it when it loaded the library that Start would have chosen, and
// ends it otherwise (or Close does, when no pool started).

var early struct {
	mu        sync.Mutex
	on        bool // Prespawn ran
	taken     bool // a Start or Close has claimed it
	discarded bool // ... and does not want it
	done      chan struct{}
	proc      *run.Proc

	// set before done closes
	exe   exeRef
	major int
	libs  []string
	h     *helper
}

// Prespawn starts, in the background, the helper process that the first
// Pool.Start of this process would start: this executable, libLLVM of
// release run.LLVMMajor looked for as Start looks for it without a
// Toolchain (mode, $OFFLOAD_KIT_LLVM, as Config.Mode). A tool calls it
// first thing in main, after IsHelper. It does nothing when mode is
// "process" or when called again. getenv reads the tool's environment
// (driverenv.Env.Getenv; nil: os.Getenv) for the helper's start timeout,
// $OFFLOAD_KIT_LLVM_TIMEOUT, as Config.Getenv does.
func Prespawn(mode string, getenv func(string) string) {
	if mode == "process" {
		return
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	early.mu.Lock()
	defer early.mu.Unlock()
	if early.on {
		return
	}
	early.on = true
	early.done = make(chan struct{})
	go func() {
		defer close(early.done)
		path, argv0, err := selfExe()
		if err != nil {
			return
		}
		exe := exeRef{path, argv0}
		major, libs := run.LLVMMajor, guessCandidates(mode, run.LLVMMajor)
		h, err := spawn(exe, major, libs, nil, func(p *run.Proc) {
			early.mu.Lock()
			early.proc = p
			discarded := early.discarded
			early.mu.Unlock()
			if discarded {
				p.Kill()
			}
		}, earlyTimeout(getenv))
		if err != nil {
			return
		}
		early.exe, early.major, early.libs, early.h = exe, major, libs, h
	}()
}

// earlyTimeout is the prespawned helper's start timeout: the pool's
// default, as $OFFLOAD_KIT_LLVM_TIMEOUT (read through getenv) sets it.
func earlyTimeout(getenv func(string) string) time.Duration {
	d, err := ParseTimeout(getenv("OFFLOAD_KIT_LLVM_TIMEOUT"))
	if err != nil {
		return DefaultTimeout
	}
	return d
}

// takeEarly returns the prespawned helper when it serves a pool of exe
// and release major whose candidate libraries are libs: it loaded the
// library that a helper given libs would load, because every library
// before it in libs was also before it in the prespawned helper's list
// (and failed there). Otherwise it ends that helper and returns nil.
func takeEarly(exe exeRef, major int, libs []string) *helper {
	early.mu.Lock()
	if !early.on || early.taken {
		early.mu.Unlock()
		return nil
	}
	early.taken = true
	done := early.done
	early.mu.Unlock()
	<-done
	h := early.h
	if h == nil {
		return nil
	}
	if exe == early.exe && major == early.major && sameChoice(early.libs, libs, h.lib) {
		return h
	}
	h.proc.Stdin.Close()
	h.proc.Kill()
	h.proc.Wait()
	return nil
}

// sameChoice reports whether a helper given libs would load lib, which a
// helper given guess loaded.
func sameChoice(guess, libs []string, lib string) bool {
	i := slices.Index(libs, lib)
	j := slices.Index(guess, lib)
	if i < 0 || j < 0 {
		return false
	}
	for _, l := range libs[:i] {
		if !slices.Contains(guess[:j], l) {
			return false
		}
	}
	return true
}

// discardEarly ends a prespawned helper that no Start took (at once: it
// may still be loading libLLVM) and waits for it.
func discardEarly() {
	early.mu.Lock()
	if !early.on || early.taken {
		early.mu.Unlock()
		return
	}
	early.taken, early.discarded = true, true
	proc, done := early.proc, early.done
	early.mu.Unlock()
	if proc != nil {
		proc.Kill()
	}
	<-done
	if h := early.h; h != nil {
		h.proc.Kill()
		h.proc.Wait()
	} else if proc != nil {
		proc.Wait()
	}
}
