package llvmpool

import (
	"os"
	"runtime"
	"sync"

	"github.com/offload-kit/offload-kit/internal/run"
)

// selfExe is the file a helper of this executable execs, and the name it
// shows as argv[0]. The file is /proc/self/exe, resolved by the kernel in
// the forked child to the very file this process runs, even when the path
// on disk has since been replaced (an upgrade in the middle of a link):
// parent and helpers are always one build. Without /proc it is
// os.Executable's path.
func selfExe() (path, argv0 string, err error) {
	argv0, err = os.Executable()
	if err != nil {
		return "", "", err
	}
	if procSelfOK() {
		return "/proc/self/exe", argv0, nil
	}
	return argv0, argv0, nil
}

var procSelfOK = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/exe")
	return err == nil
})

// startProc starts c from the spawner thread: a goroutine that locked its
// OS thread and never returns, so that the thread outlives every helper.
// Linux sends a helper its parent-death signal (SIGKILL, run.Start) when
// the thread that forked it exits, not when the process does; a helper
// forked from an ordinary goroutine's thread could be killed early if the
// runtime retired that thread, and one forked from a thread that lives on
// dies exactly when the tool does.
func startProc(c *run.Cmd) (*run.Proc, error) {
	spawnerOnce.Do(func() {
		spawnReqs = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the process
			for r := range spawnReqs {
				p, err := run.Start(r.cmd)
				r.res <- spawnRes{p, err}
			}
		}()
	})
	res := make(chan spawnRes, 1)
	spawnReqs <- spawnReq{c, res}
	r := <-res
	return r.p, r.err
}

type spawnReq struct {
	cmd *run.Cmd
	res chan spawnRes
}

type spawnRes struct {
	p   *run.Proc
	err error
}

var (
	spawnerOnce sync.Once
	spawnReqs   chan spawnReq
)
