// Package clitest holds test helpers shared by the tests of the drivers
// that read offload containers (internal/driver/packager and
// internal/driver/kernels): running commands (through internal/run, the
// one place that starts processes) and llvm-objdump --offloading,
// setting up input directories, and checking a driver's JSON output
// against the example a document shows.
package clitest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// Rocrand is Debian's librocrand1 (ROCm 5 rocRAND, installed by make
// deps): a real third-party shared library whose .hip_fatbin holds one
// bundle of eight entries, with ROCm 5's four-part host ID.
const Rocrand = "/usr/lib/x86_64-linux-gnu/librocrand.so.1.1"

// Sh runs a command in dir and returns its standard output and error
// together; it fails the test with that output on error.
func Sh(t testing.TB, dir string, argv ...string) []byte {
	t.Helper()
	var out lockedBuffer
	if err := (run.Exec{}).Run(context.Background(), &run.Cmd{Args: argv, Dir: dir, Stdout: &out, Stderr: &out}); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out.b.String())
	}
	return out.b.Bytes()
}

// lockedBuffer is one buffer for a child's standard output and error,
// which run.Exec writes from two goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// CopyInto copies the named files from directory src to directory dst.
func CopyInto(t testing.TB, src, dst string, names ...string) {
	t.Helper()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, n), b, 0o644))
	}
}

// LinkedInto returns a new directory holding a symlink named name to
// target, so that tools name their outputs after name inside it.
func LinkedInto(t testing.TB, target, name string) string {
	t.Helper()
	d := t.TempDir()
	_, err := os.Stat(target)
	require.NoError(t, err, "run `make deps` (installs librocrand1)")
	require.NoError(t, os.Symlink(target, filepath.Join(d, name)))
	return d
}

// Objdump runs llvm-objdump --offloading on files in dir and returns its
// stdout, its diagnostic lines with the program prefix removed, and
// whether it succeeded.
func Objdump(t testing.TB, dir string, files ...string) (string, []string, bool) {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{llvmtools.Tool(t, "llvm-objdump"), "--offloading"}, files...)
	err := (run.Exec{}).Run(context.Background(), &run.Cmd{Args: args, Dir: dir, Stdout: &out, Stderr: &errb})
	var diags []string
	for _, l := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		if l == "" {
			continue
		}
		_, msg, _ := strings.Cut(l, "llvm-objdump: ")
		diags = append(diags, msg)
	}
	return out.String(), diags, err == nil
}

// DocJSONBlock returns the n-th (from 0) ```json block of the document at
// path with its // comments removed.
func DocJSONBlock(t testing.TB, path string, n int) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	rest := string(b)
	var ok bool
	for i := 0; i <= n; i++ {
		_, rest, ok = strings.Cut(rest, "```json\n")
		require.True(t, ok, "%s has %d ```json blocks", path, n+1)
	}
	block, _, ok := strings.Cut(rest, "\n```")
	require.True(t, ok)
	var out []byte
	inStr, esc := false, false
	for i := 0; i < len(block); i++ {
		c := block[i]
		switch {
		case inStr:
			out = append(out, c)
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(block) && block[i+1] == '/':
			for i < len(block) && block[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		default:
			out = append(out, c)
		}
	}
	return out
}

// Shape records the JSON type at every path of v, a value decoded by
// encoding/json ("files[].images[].name" → "string"), array elements
// merged, paths passed through fold.
func Shape(v any, path string, into map[string]string, fold func(string) string) {
	path = fold(path)
	switch x := v.(type) {
	case map[string]any:
		into[path] = "object"
		for k, e := range x {
			Shape(e, strings.TrimPrefix(path+"."+k, "."), into, fold)
		}
	case []any:
		into[path] = "array"
		for _, e := range x {
			Shape(e, path+"[]", into, fold)
		}
	case string:
		into[path] = "string"
	case float64:
		into[path] = "number"
	case bool:
		into[path] = "bool"
	case nil:
		into[path] = "null"
	}
}

// AssertShapes checks that the output shapes got have only the paths the
// documented example (doc, named name) has, with the same JSON types, and
// together have every one of them.
func AssertShapes(t testing.TB, name string, doc, got map[string]string) {
	t.Helper()
	var undocumented, unseen []string
	for p, typ := range got {
		dt, ok := doc[p]
		switch {
		case !ok:
			undocumented = append(undocumented, p)
		case dt != typ:
			undocumented = append(undocumented, p+" is "+typ+", documented as "+dt)
		}
	}
	for p := range doc {
		if _, ok := got[p]; !ok {
			unseen = append(unseen, p)
		}
	}
	sort.Strings(undocumented)
	sort.Strings(unseen)
	assert.Empty(t, undocumented, "fields in the output that %s does not show", name)
	assert.Empty(t, unseen, "fields %s shows that no output has (add an input that has them)", name)
}
