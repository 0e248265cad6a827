//go:build !linux

package run

import "syscall"

func groupAttr() *syscall.SysProcAttr { return nil }

// groupProgress cannot be measured here: Cmd.Timeout has no effect.
func groupProgress(pgid int) (uint64, bool) { return 0, false }

func killGroup(pgid int, hard bool) error { return nil }
