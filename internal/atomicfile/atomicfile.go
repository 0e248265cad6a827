// Package atomicfile writes outputs so that a failure never leaves a partial
// file behind: data goes to a hidden temporary file beside the destination,
// which is renamed over it only on Commit. "-" means standard output.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// File is an output being written.
type File struct {
	*os.File
	dest   string
	stdout io.Writer
	done   bool
}

// Writer returns where to write: the temporary file, or stdout for "-".
func (f *File) Writer() io.Writer {
	if f.stdout != nil {
		return f.stdout
	}
	return f.File
}

// Create starts writing dest. stdout is used when dest is "-".
func Create(dest string, stdout io.Writer) (*File, error) {
	if dest == "-" {
		return &File{dest: dest, stdout: stdout}, nil
	}
	dir := filepath.Dir(dest)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{File: tmp, dest: dest}, nil
}

// Commit makes the output visible under its final name.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	if f.stdout != nil {
		return nil
	}
	// Match the permissions of a file created with os.Create (0666 &^ umask).
	mode := os.FileMode(0o666)
	if st, err := os.Stat(f.dest); err == nil {
		mode = st.Mode().Perm()
	} else {
		mode &^= umask()
	}
	if err := f.File.Chmod(mode); err != nil {
		f.Abort()
		return err
	}
	if err := f.File.Close(); err != nil {
		os.Remove(f.File.Name())
		return err
	}
	if err := os.Rename(f.File.Name(), f.dest); err != nil {
		os.Remove(f.File.Name())
		return err
	}
	return nil
}

// Abort discards the output. Safe to call after Commit (it does nothing).
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.File != nil {
		f.File.Close()
		os.Remove(f.File.Name())
	}
}

// WriteFile writes data to dest atomically.
func WriteFile(dest string, stdout io.Writer, write func(w io.Writer) error) error {
	f, err := Create(dest, stdout)
	if err != nil {
		return err
	}
	if err := write(f.Writer()); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
