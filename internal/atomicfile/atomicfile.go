// Package atomicfile is the one way offload-kit writes an output file.
//
//   - A regular destination (or a new one) is written to a hidden temporary
//     file beside it, ".<name>.tmp-XXXXXXXX", created with O_EXCL (so never
//     through a planted symlink) and with the caller's mode filtered by the
//     umask, and renamed over the destination only on Commit: a failure or
//     an interrupt leaves the old file, or nothing. An existing destination
//     keeps its permission bits; a symlink at the destination is replaced,
//     never written through (as LLVM's FileOutputBuffer does).
//   - A destination that exists and is not a regular file (a character or
//     block device such as /dev/null, a FIFO, a socket) or that is reached
//     through a /proc magic link (/dev/stdout, /dev/fd/N, /proc/self/fd/N,
//     bash's >(cmd)) is written in place, streaming, as a shell redirection
//     would: it is never replaced.
//   - "-" is the stdout writer the caller passes.
//
// Writes go through Writer, which checks for an interrupt at every chunk
// (16 MiB) and keeps file-to-file copies (copy_file_range) chunked.
//
// Interrupt is the process-wide cleanup the signal handler (internal/cli)
// runs: it refuses every later Create and Commit, removes every temporary
// file not yet committed, closes every output streamed in place (which
// wakes a write blocked on a pipe or FIFO) and runs the hooks registered
// with OnInterrupt. This registry is the toolkit's one piece of process
// state, as signal dispositions themselves are.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"
)

// ErrInterrupted is returned by writes, Create and Commit after Interrupt.
var ErrInterrupted = errors.New("interrupted")

// chunk is how much one write or copy step moves before the interrupt
// flag is checked again.
const chunk = 16 << 20

// File is an output being written.
type File struct {
	// File is the temporary file (for WriteAt and the like); nil when the
	// output is stdout or is streamed in place (see Streaming).
	*os.File
	dest   string
	stream *os.File  // an output written in place
	stdout io.Writer // "-"
	done   bool
	sealed bool // the temporary is closed, waiting for Commit
	fresh  bool // CreateIn: an existing destination's bits are not kept
}

// Create starts writing dest with mode 0666 (less the umask). stdout is
// used when dest is "-" (with a nil stdout, "-" is a file name).
func Create(dest string, stdout io.Writer) (*File, error) {
	return CreateMode(dest, stdout, 0o666)
}

// CreateMode is Create with the permission bits of a new file (the umask
// applies). An existing regular destination keeps its own.
func CreateMode(dest string, stdout io.Writer, perm os.FileMode) (*File, error) {
	if dest == "-" && stdout != nil {
		return &File{dest: dest, stdout: stdout}, nil
	}
	if Interrupted() {
		return nil, &os.PathError{Op: "create", Path: dest, Err: ErrInterrupted}
	}
	inPlace, err := writtenInPlace(dest)
	if err != nil {
		return nil, err
	}
	if inPlace {
		return openInPlace(dest)
	}
	return create("", dest, perm)
}

// CreateIn starts replacing dest through a temporary file in dir (on
// dest's file system; "" = beside dest), as a tool's own output is
// replaced: never written in place ("-" is a file name), and the new file
// has perm less the umask (or what the caller Chmods the temporary to)
// even where dest exists. internal/cache writes its store through it, the
// temporaries in its tmp/ (which its sweep empties), and restores outputs
// beside them.
func CreateIn(dir, dest string, perm os.FileMode) (*File, error) {
	if Interrupted() {
		return nil, &os.PathError{Op: "create", Path: dest, Err: ErrInterrupted}
	}
	f, err := create(dir, dest, perm)
	if f != nil {
		f.fresh = true
	}
	return f, err
}

// create makes the registered temporary file of dest, in dir ("" = beside
// dest).
func create(dir, dest string, perm os.FileMode) (*File, error) {
	tmp, err := createTemp(dir, dest, perm)
	if err != nil {
		return nil, err
	}
	f := &File{File: tmp, dest: dest}
	if !reg.add(f) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, &os.PathError{Op: "create", Path: dest, Err: ErrInterrupted}
	}
	return f, nil
}

// Streaming reports whether the output is written in place (stdout, a
// device, a FIFO): there is no temporary file, no WriteAt, and Abort
// cannot take back what was written.
func (f *File) Streaming() bool { return f.File == nil }

// Writer returns where to write: the temporary file, the output written in
// place, or stdout for "-". It stops with ErrInterrupted at the next chunk
// after Interrupt, and passes file-to-file copies (io.Copy from an
// *os.File) on to copy_file_range a chunk at a time.
func (f *File) Writer() io.Writer {
	switch {
	case f.stdout != nil:
		return checked{f.stdout}
	case f.stream != nil:
		return checked{f.stream}
	}
	return checked{f.File}
}

// Commit makes the output visible under its final name.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	if f.stdout != nil {
		f.done = true
		if Interrupted() {
			return ErrInterrupted
		}
		return nil
	}
	if f.stream != nil {
		f.done = true
		reg.remove(f)
		if err := f.stream.Close(); err != nil {
			if Interrupted() {
				return ErrInterrupted
			}
			return &os.PathError{Op: "write", Path: f.dest, Err: underlying(err)}
		}
		if Interrupted() {
			return ErrInterrupted
		}
		return nil
	}
	// An existing destination keeps its permission bits (not under CreateIn).
	if st, err := os.Stat(f.dest); !f.fresh && err == nil && st.Mode().IsRegular() {
		if err := os.Chmod(f.File.Name(), st.Mode().Perm()); err != nil {
			f.Abort()
			return &os.PathError{Op: "chmod", Path: f.dest, Err: underlying(err)}
		}
	}
	if !f.sealed {
		if err := f.File.Close(); err != nil {
			f.Abort()
			return &os.PathError{Op: "write", Path: f.dest, Err: underlying(err)}
		}
	}
	// The rename happens under the registry lock, so it either precedes
	// Interrupt (and the output is complete) or never happens.
	reg.mu.Lock()
	if reg.interrupted {
		reg.mu.Unlock()
		f.Abort()
		return ErrInterrupted
	}
	err := os.Rename(f.File.Name(), f.dest)
	delete(reg.files, f)
	f.done = true
	reg.mu.Unlock()
	if err != nil {
		os.Remove(f.File.Name())
		return &os.PathError{Op: "rename", Path: f.dest, Err: underlying(err)}
	}
	return nil
}

// Seal ends the writing of an output whose Commit comes later (one of many
// published together): the temporary file's descriptor is closed, so that
// thousands of pending outputs hold no descriptors; its name stays
// registered, and Commit renames it, Abort or Interrupt removes it. An
// output streamed in place (or stdout) cannot wait: Seal commits it. A
// write error surfacing at close aborts the output.
func (f *File) Seal() error {
	if f.done || f.sealed {
		return nil
	}
	if f.File == nil {
		return f.Commit()
	}
	f.sealed = true
	if err := f.File.Close(); err != nil {
		f.Abort()
		return &os.PathError{Op: "write", Path: f.dest, Err: underlying(err)}
	}
	return nil
}

// TempName is the temporary file a child process may write in place of
// the destination ("" when the output is streamed or is stdout). The
// temporary was created by this process with O_EXCL; Seal it, let the
// child write the name, then Commit.
func (f *File) TempName() string {
	if f.File == nil {
		return ""
	}
	return f.File.Name()
}

// Abort discards the output: the temporary file is removed (an output
// written in place is only closed). Safe to call after Commit (it does
// nothing).
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	reg.remove(f)
	if f.stream != nil {
		f.stream.Close()
	}
	if f.File != nil {
		if !f.sealed {
			f.File.Close()
		}
		os.Remove(f.File.Name())
	}
}

// WriteFile writes dest atomically (mode 0666 less the umask) through write.
func WriteFile(dest string, stdout io.Writer, write func(w io.Writer) error) error {
	return WriteFileMode(dest, stdout, 0o666, write)
}

// WriteFileMode is WriteFile with the permission bits of a new file.
func WriteFileMode(dest string, stdout io.Writer, perm os.FileMode, write func(w io.Writer) error) error {
	f, err := CreateMode(dest, stdout, perm)
	if err != nil {
		return err
	}
	if err := write(f.Writer()); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// createTemp creates ".<base>.tmp-<random>" in dir ("" = beside dest)
// with O_EXCL (a symlink planted at that name fails the open rather than
// being followed) and perm, which the kernel filters through the umask.
// Errors name dest.
func createTemp(dir, dest string, perm os.FileMode) (*os.File, error) {
	destDir, base := filepath.Split(dest)
	if dir == "" {
		dir = destDir
	}
	base = FitName(base, len(".")+len(".tmp-XXXXXXXX"))
	for try := 0; ; try++ {
		var b [4]byte
		rand.Read(b[:])
		name := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm.Perm())
		if err == nil {
			return f, nil
		}
		if !os.IsExist(err) || try == 100 {
			return nil, &os.PathError{Op: "create", Path: dest, Err: underlying(err)}
		}
	}
}

// NameMax is the longest file name (one path component) Linux file
// systems take, in bytes.
const NameMax = 255

// FitName shortens base so that it and extra more bytes fit in NameMax:
// names derived from an output's (a hidden temporary, a saved temporary
// "<stem>-linked.bc") would otherwise fail with ENAMETOOLONG for outputs
// of legal names of 240-255 bytes. A base that fits is returned as it is;
// a longer one keeps its head and ends in "~" and 8 hex digits of an FNV-1a
// hash of the whole, so distinct long names stay distinct and the result
// is deterministic. The head is cut at a UTF-8 boundary.
func FitName(base string, extra int) string {
	if len(base)+extra <= NameMax {
		return base
	}
	h := fnv.New32a()
	h.Write([]byte(base))
	tail := "~" + hex.EncodeToString(h.Sum(nil))
	keep := max(NameMax-extra-len(tail), 0)
	for keep > 0 && keep < len(base) && !utf8.RuneStart(base[keep]) {
		keep--
	}
	return base[:keep] + tail
}

// InPlace reports whether dest would be written in place (an existing
// device, FIFO or socket, or a name reached through a /proc link) rather
// than through a temporary file and a rename.
func InPlace(dest string) bool {
	ok, _ := writtenInPlace(dest)
	return ok
}

// writtenInPlace reports whether dest is written in place rather than
// replaced: it exists and is not a regular file, or it is reached through
// a /proc magic link (whatever that names: a pipe, a terminal, or a
// regular file a shell redirection opened).
func writtenInPlace(dest string) (bool, error) {
	st, err := os.Stat(dest)
	if err != nil {
		return false, nil // a new file (or an error that creating it reports)
	}
	if st.IsDir() {
		return false, &os.PathError{Op: "create", Path: dest, Err: syscall.EISDIR}
	}
	if !st.Mode().IsRegular() {
		return true, nil
	}
	inProc, _ := throughProc(dest)
	return inProc, nil
}

// procMagic is PROC_SUPER_MAGIC, statfs's f_type for /proc.
const procMagic = 0x9fa0

// throughProc follows the symlinks of p (at most 40, as the kernel does)
// and reports whether one of them lives in /proc (fd links are not
// ordinary symlinks: renaming over them is impossible or wrong). fd is the
// descriptor of this process that the link names (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N), or -1.
func throughProc(p string) (inProc bool, fd int) {
	for range 40 {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return false, -1
		}
		var fs syscall.Statfs_t
		if syscall.Statfs(dir, &fs) == nil && fs.Type == procMagic {
			if dir == filepath.Join("/proc", strconv.Itoa(os.Getpid()), "fd") {
				if n, err := strconv.Atoi(filepath.Base(p)); err == nil && n >= 0 {
					return true, n
				}
			}
			return true, -1
		}
		p = filepath.Join(dir, filepath.Base(p))
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return false, -1
		}
		t, err := os.Readlink(p)
		if err != nil {
			return false, -1
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(dir, t)
		}
		p = t
	}
	return false, -1
}

// openInPlace opens an existing non-regular output (or one behind a /proc
// link) for writing, without creating anything. A FIFO blocks here until
// it has a reader, as with any Unix tool. A link to one of this process's
// own descriptors (/dev/stdout, /dev/fd/N) is that descriptor, duplicated,
// so its offset and O_APPEND are shared as with "-"; another regular file
// reached through /proc is truncated, as a shell's ">" does.
func openInPlace(dest string) (*File, error) {
	var s *os.File
	if _, fd := throughProc(dest); fd >= 0 {
		nfd, err := syscall.Dup(fd)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: dest, Err: err}
		}
		syscall.CloseOnExec(nfd)
		s = os.NewFile(uintptr(nfd), dest)
	} else {
		flag := os.O_WRONLY | syscall.O_CLOEXEC | syscall.O_NOCTTY
		if st, err := os.Stat(dest); err == nil && st.Mode().IsRegular() {
			flag |= os.O_TRUNC
		}
		var err error
		if s, err = os.OpenFile(dest, flag, 0); err != nil {
			return nil, &os.PathError{Op: "open", Path: dest, Err: underlying(err)}
		}
	}
	f := &File{dest: dest, stream: s}
	if !reg.add(f) {
		s.Close()
		return nil, &os.PathError{Op: "open", Path: dest, Err: ErrInterrupted}
	}
	return f, nil
}

// underlying strips Go's "open <temp name>:" wrapper so that the error
// names the destination, not a temporary file.
func underlying(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// checked is the interrupt-aware writer behind File.Writer.
type checked struct{ w io.Writer }

func (c checked) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		if Interrupted() {
			return n, ErrInterrupted
		}
		m, err := c.w.Write(p[:min(len(p), chunk)])
		n += m
		if err != nil {
			if Interrupted() {
				err = ErrInterrupted
			}
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}

// ReadFrom copies r a chunk at a time. When both ends are files each chunk
// is an io.CopyN from a LimitedReader over the *os.File, which the runtime
// turns into copy_file_range/sendfile, so the bytes never pass through
// this process.
func (c checked) ReadFrom(r io.Reader) (int64, error) {
	src, limit := r, int64(-1)
	if lr, ok := r.(*io.LimitedReader); ok {
		src, limit = lr.R, lr.N
		defer func() { lr.N = limit }()
	}
	var total int64
	for limit != 0 {
		if Interrupted() {
			return total, ErrInterrupted
		}
		n := int64(chunk)
		if limit > 0 {
			n = min(n, limit)
		}
		var m int64
		var err error
		if w, ok := c.w.(io.ReaderFrom); ok {
			m, err = w.ReadFrom(&io.LimitedReader{R: src, N: n})
		} else {
			m, err = io.Copy(onlyWriter{c.w}, &io.LimitedReader{R: src, N: n})
		}
		total += m
		if limit > 0 {
			limit -= m
		}
		if err != nil {
			if Interrupted() {
				err = ErrInterrupted
			}
			return total, err
		}
		if m < n {
			return total, nil // EOF
		}
	}
	return total, nil
}

// onlyWriter hides a writer's other methods (so io.Copy does not recurse
// into checked.ReadFrom).
type onlyWriter struct{ io.Writer }

// registry tracks what Interrupt must clean up.
type registry struct {
	mu          sync.Mutex
	interrupted bool
	files       map[*File]struct{}
	hooks       map[*hook]struct{}
}

type hook struct{ fn func() }

var (
	reg = registry{files: map[*File]struct{}{}, hooks: map[*hook]struct{}{}}
	// flag mirrors reg.interrupted for the lock-free check in writes.
	flag atomic.Bool
)

func (r *registry) add(f *File) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.interrupted {
		return false
	}
	r.files[f] = struct{}{}
	return true
}

func (r *registry) remove(f *File) {
	r.mu.Lock()
	delete(r.files, f)
	r.mu.Unlock()
}

// Interrupted reports whether Interrupt has run.
func Interrupted() bool { return flag.Load() }

// Interrupt removes every uncommitted temporary file, closes every output
// written in place, runs the OnInterrupt hooks, and makes later Create,
// Commit and writes fail with ErrInterrupted. It is safe to call from any
// goroutine, more than once, while other goroutines are writing.
func Interrupt() {
	reg.mu.Lock()
	reg.interrupted = true
	flag.Store(true)
	files := reg.files
	hooks := reg.hooks
	reg.files = map[*File]struct{}{}
	reg.hooks = map[*hook]struct{}{}
	reg.mu.Unlock()
	for f := range files {
		if f.stream != nil {
			// A FIFO or pipe opened by name is non-blocking underneath, so
			// closing it wakes a write blocked on a reader that never reads.
			f.stream.Close()
		}
		if f.File != nil {
			os.Remove(f.File.Name())
		}
	}
	for h := range hooks {
		h.fn()
	}
}

// OnInterrupt registers fn to run (once) on Interrupt, for files this
// package does not create: a private temporary directory, an output a
// child process writes. The returned func unregisters it. After Interrupt,
// fn runs at once.
func OnInterrupt(fn func()) (unregister func()) {
	h := &hook{fn: fn}
	reg.mu.Lock()
	if reg.interrupted {
		reg.mu.Unlock()
		fn()
		return func() {}
	}
	reg.hooks[h] = struct{}{}
	reg.mu.Unlock()
	return func() {
		reg.mu.Lock()
		delete(reg.hooks, h)
		reg.mu.Unlock()
	}
}

// Guard watches an output that a child process writes in place (a host
// linker's -o), so that an interrupted or failed run never leaves a
// truncated file, executable bit and all, that make would take as up to
// date. Use it as
//
//	g := GuardOutput(path)
//	err := runLinker()
//	g.Done(err == nil)
type Guard struct {
	path   string
	before *syscall.Stat_t // nil: path did not exist
	unhook func()
}

// GuardOutput records the state of path (absent, or which file with which
// size and times) before a child writes it; Interrupt removes what the
// child left there.
func GuardOutput(path string) *Guard {
	g := &Guard{path: path}
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) == nil {
		g.before = &st
	}
	g.unhook = OnInterrupt(func() { g.clean() })
	return g
}

// Done ends the watch. When ok is false, or Interrupt ran, a file the child
// created or changed at path is removed (one it did not touch stays).
func (g *Guard) Done(ok bool) {
	g.unhook()
	if !ok || Interrupted() {
		g.clean()
	}
}

// clean may run twice (from Interrupt and from Done); it compares with the
// state before the child ran each time.
func (g *Guard) clean() {
	var st syscall.Stat_t
	if syscall.Lstat(g.path, &st) != nil {
		return
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return // never remove a device, FIFO, symlink or directory
	}
	if b := g.before; b != nil && st.Dev == b.Dev && st.Ino == b.Ino && st.Size == b.Size &&
		st.Mtim == b.Mtim && st.Ctim == b.Ctim {
		return // untouched: an earlier, complete output
	}
	os.Remove(g.path)
}
