package run

import (
	"bytes"
	"hash"
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
// of group pgid (whose leader is process pgid): each one's id, CPU time
// (utime, stime: /proc/<pid>/stat) and bytes read and written (rchar,
// wchar: /proc/<pid>/io). Any change is progress. The processes are the
// leader and its descendants, found through /proc/<pid>/task/<tid>/children
// (a few files, however many processes the system runs), else every
// process of the group, by a scan of /proc. ok is false when /proc cannot
// be read.
func groupProgress(pgid int) (fp uint64, ok bool) {
	leader := strconv.Itoa(pgid)
	_, err := os.Stat("/proc/" + leader + "/task/" + leader + "/children")
	return progressOf(pgid, err == nil)
}

// progressOf is groupProgress through the descendants (tree) or a scan.
func progressOf(pgid int, tree bool) (fp uint64, ok bool) {
	h := fnv.New64a()
	buf := make([]byte, 1024)
	leader := strconv.Itoa(pgid)
	if tree {
		for queue := []string{leader}; len(queue) > 0; queue = queue[1:] {
			pid := queue[0]
			if addProcess(h, pid, -1, buf) {
				queue = append(queue, children(pid, buf)...)
			}
		}
		return h.Sum64(), true
	}
	d, err := os.Open("/proc")
	if err != nil {
		return 0, false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0, false
	}
	for _, n := range names {
		if n[0] >= '0' && n[0] <= '9' {
			addProcess(h, n, pgid, buf)
		}
	}
	return h.Sum64(), true
}

// addProcess adds process pid's id, CPU time and I/O counts to h, if it
// exists and (pgid >= 0) belongs to group pgid.
func addProcess(h hash.Hash64, pid string, pgid int, buf []byte) bool {
	st := readProc("/proc/"+pid+"/stat", buf)
	// the fields after the command, which is in parentheses and may hold
	// anything: state ppid pgrp ... utime (14) stime (15)
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return false
	}
	f := bytes.Fields(st[i+1:])
	if len(f) < 13 {
		return false
	}
	if g, err := strconv.Atoi(string(f[2])); pgid >= 0 && (err != nil || g != pgid) {
		return false
	}
	h.Write([]byte(pid))
	h.Write(f[11]) // utime
	h.Write([]byte{' '})
	h.Write(f[12]) // stime
	for _, l := range bytes.Split(readProc("/proc/"+pid+"/io", buf), []byte("\n")) {
		if bytes.HasPrefix(l, []byte("rchar:")) || bytes.HasPrefix(l, []byte("wchar:")) {
			h.Write(l)
		}
	}
	h.Write([]byte{'\n'})
	return true
}

// children lists the children of every thread of process pid.
func children(pid string, buf []byte) []string {
	d, err := os.Open("/proc/" + pid + "/task")
	if err != nil {
		return nil
	}
	tids, _ := d.Readdirnames(-1)
	d.Close()
	var out []string
	for _, tid := range tids {
		for _, c := range bytes.Fields(readProc("/proc/"+pid+"/task/"+tid+"/children", buf)) {
			out = append(out, string(c))
		}
	}
	return out
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
