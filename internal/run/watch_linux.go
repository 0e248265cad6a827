package run

import (
	"bytes"
	"hash/fnv"
	"os"
	"strconv"
	"syscall"
)

// groupAttr puts a child in a process group of its own, so that a
// watchdog can kill it with everything it started.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup sends the group SIGKILL (hard) or SIGTERM.
func killGroup(pgid int, hard bool) error {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	return syscall.Kill(-pgid, sig)
}

// groupProgress is a fingerprint of the work done so far by the processes
// of group pgid: each one's id, CPU time (utime, stime: /proc/<pid>/stat)
// and bytes read and written (rchar, wchar: /proc/<pid>/io). Any change
// is progress. ok is false when /proc cannot be read.
func groupProgress(pgid int) (fp uint64, ok bool) {
	d, err := os.Open("/proc")
	if err != nil {
		return 0, false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0, false
	}
	h := fnv.New64a()
	buf := make([]byte, 1024)
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		st := readProc("/proc/"+n+"/stat", buf)
		// the fields after the command, which is in parentheses and may
		// hold anything: state ppid pgrp ... utime (14) stime (15)
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(st[i+1:])
		if len(f) < 13 {
			continue
		}
		if g, err := strconv.Atoi(string(f[2])); err != nil || g != pgid {
			continue
		}
		h.Write([]byte(n))
		h.Write(f[11]) // utime
		h.Write([]byte{' '})
		h.Write(f[12]) // stime
		for _, l := range bytes.Split(readProc("/proc/"+n+"/io", buf), []byte("\n")) {
			if bytes.HasPrefix(l, []byte("rchar:")) || bytes.HasPrefix(l, []byte("wchar:")) {
				h.Write(l)
			}
		}
		h.Write([]byte{'\n'})
	}
	return h.Sum64(), true
}

// readProc reads a small /proc file into buf (nil on error).
func readProc(name string, buf []byte) []byte {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	n, _ := f.Read(buf)
	return buf[:n]
}
