package cli

import (
	"os"
	"path/filepath"
	"strconv"
)

// ExeDir is the directory of the running executable, symlinks resolved
// (a clang-linker-wrapper symlink in clang's -B directory gives the
// directory of the real linker-wrapper); "" when unknown.
func ExeDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Dir(exe)
}

// Parent is the executable of the process that started this one, from
// Linux's /proc/<ppid>/exe (symlinks resolved), and its process id; ""
// when it cannot be read. When a clang driver runs a linker tool (clang
// -B<dir>), the parent is that clang.
func Parent() (string, int) {
	pid := os.Getppid()
	if pid <= 1 {
		return "", pid
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil || !filepath.IsAbs(exe) {
		return "", pid
	}
	return exe, pid
}
