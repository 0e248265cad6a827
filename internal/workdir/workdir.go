// Package workdir manages one invocation's temporary files: without
// --save-temps they live in one private directory removed by Close; with it
// they get fixed names ("<prefix>.<ext>") in a chosen directory and are
// kept. Outputs are written atomically through internal/atomicfile (temp
// file + rename, or in place for a device or FIFO); the private directory
// is also removed by atomicfile.Interrupt (SIGINT/SIGTERM), and a symlink
// planted at a saved temporary's name is removed, never written through.
package workdir

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/offload-kit/offload-kit/internal/atomicfile"
)

// Options configures a Dir.
type Options struct {
	// SaveTemps keeps files under fixed names in KeepDir.
	SaveTemps bool
	// KeepDir is where saved temporaries go ("" is the current directory).
	KeepDir string
	// TempRoot is the parent of the private directory ("" is os.TempDir()).
	TempRoot string
}

// Dir hands out temporary file names. It is safe for concurrent use.
type Dir struct {
	opt     Options
	mu      sync.Mutex
	private string // created lazily
	unhook  func() // unregisters the private dir's interrupt cleanup
	files   []string
	used    map[string]bool
}

// New returns a Dir; nothing is created until a name is requested.
func New(opt Options) *Dir { return &Dir{opt: opt, used: map[string]bool{}} }

// Root is the directory the private directory is made in: TempRoot, or
// os.TempDir().
func (d *Dir) Root() string {
	if d.opt.TempRoot != "" {
		return d.opt.TempRoot
	}
	return os.TempDir()
}

// SaveTemps reports whether files are kept under fixed names.
func (d *Dir) SaveTemps() bool { return d.opt.SaveTemps }

// Name returns a new file name for prefix and ext (no dot), like LLVM's
// createOutputFile: "<KeepDir>/<prefix>.<ext>" with save-temps, otherwise
// "<private dir>/<prefix>-XXXXXX.<ext>". The file is not created. A
// prefix too long for the name to fit in 255 bytes is shortened
// (atomicfile.FitName).
func (d *Dir) Name(prefix, ext string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	suffix := ""
	if ext != "" {
		suffix = "." + ext
	}
	if d.opt.SaveTemps {
		// Prefixes come from an output's name, which may be 255 bytes.
		name := atomicfile.FitName(prefix, len(suffix)) + suffix
		if d.opt.KeepDir != "" {
			name = filepath.Join(d.opt.KeepDir, name)
		}
		// A symlink at a fixed, predictable name is never one of ours:
		// remove it so neither this process nor a child writes through it.
		if fi, err := os.Lstat(name); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if err := os.Remove(name); err != nil {
				return "", err
			}
		}
		d.files = append(d.files, name)
		return name, nil
	}
	if d.private == "" {
		if atomicfile.Interrupted() {
			return "", atomicfile.ErrInterrupted
		}
		p, err := os.MkdirTemp(d.Root(), "offload-kit-")
		if err != nil {
			return "", err
		}
		d.private = p
		d.unhook = atomicfile.OnInterrupt(func() { os.RemoveAll(p) })
	}
	for {
		var b [3]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		name := filepath.Join(d.private, atomicfile.FitName(prefix, len("-XXXXXX")+len(suffix))+"-"+hex.EncodeToString(b[:])+suffix)
		if !d.used[name] {
			d.used[name] = true
			d.files = append(d.files, name)
			return name, nil
		}
	}
}

// Files lists the names handed out, in order.
func (d *Dir) Files() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.files...)
}

// Close removes the private directory (saved temporaries are kept).
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.private == "" {
		return nil
	}
	err := os.RemoveAll(d.private)
	d.private = ""
	d.unhook()
	return err
}

// Create creates name for writing (mode 0666 less the umask) without ever
// following a symlink or writing into an existing file: whatever is at
// name (a saved temporary of an earlier run, a planted symlink or hard
// link) is unlinked first, then the file is created with O_EXCL.
func Create(name string) (*os.File, error) {
	if err := os.Remove(name); err != nil && !os.IsNotExist(err) {
		if fi, serr := os.Lstat(name); serr == nil && fi.IsDir() {
			return nil, &os.PathError{Op: "create", Path: name, Err: syscall.EISDIR}
		}
		return nil, err
	}
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o666)
}

// WriteNew writes data to a fresh file at name (Create): for temporaries,
// where an atomic rename is not needed but following a planted symlink
// would be a hole (--save-temps names are predictable).
func WriteNew(name string, data []byte) error {
	f, err := Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteFile writes data to name atomically.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	return WriteAtomic(name, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic writes name through atomicfile: a new file gets perm less
// the umask, an existing one keeps its mode; on failure nothing is left
// behind; a device or FIFO is written in place.
func WriteAtomic(name string, perm os.FileMode, write func(w io.Writer) error) error {
	return atomicfile.WriteFileMode(name, nil, perm, write)
}
