package run

import "syscall"

// helperAttr makes a helper die with this process: the kernel sends it
// SIGKILL when the thread that started it exits (Start's callers fork from
// a thread that lives as long as the process: see llvmpool).
func helperAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
