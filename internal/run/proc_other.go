//go:build !linux

package run

import "syscall"

func helperAttr() *syscall.SysProcAttr { return nil }
