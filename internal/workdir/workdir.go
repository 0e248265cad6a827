// Package workdir manages one invocation's temporary files: without
// --save-temps they live in one private directory removed by Close; with it
// they get fixed names ("<prefix>.<ext>") in a chosen directory and are
// kept. Outputs are written atomically (temp file + rename).
package workdir

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
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
	files   []string
	used    map[string]bool
}

// New returns a Dir; nothing is created until a name is requested.
func New(opt Options) *Dir { return &Dir{opt: opt, used: map[string]bool{}} }

// SaveTemps reports whether files are kept under fixed names.
func (d *Dir) SaveTemps() bool { return d.opt.SaveTemps }

// Name returns a new file name for prefix and ext (no dot), like LLVM's
// createOutputFile: "<KeepDir>/<prefix>.<ext>" with save-temps, otherwise
// "<private dir>/<prefix>-XXXXXX.<ext>". The file is not created.
func (d *Dir) Name(prefix, ext string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	suffix := ""
	if ext != "" {
		suffix = "." + ext
	}
	if d.opt.SaveTemps {
		name := prefix + suffix
		if d.opt.KeepDir != "" {
			name = filepath.Join(d.opt.KeepDir, name)
		}
		d.files = append(d.files, name)
		return name, nil
	}
	if d.private == "" {
		p, err := os.MkdirTemp(d.opt.TempRoot, "offload-kit-")
		if err != nil {
			return "", err
		}
		d.private = p
	}
	for {
		var b [3]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		name := filepath.Join(d.private, prefix+"-"+hex.EncodeToString(b[:])+suffix)
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
	return err
}

// WriteFile writes data to name atomically.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	return WriteAtomic(name, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic calls write with a temporary file in name's directory and
// renames it to name if write succeeds; on failure nothing is left behind.
func WriteAtomic(name string, perm os.FileMode, write func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, name); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	return nil
}
