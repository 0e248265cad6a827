package sycldev

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// irNames are the files --ir-output-only -j1 writes for splitSrcA split by
// kernel with -o <dir>/parts.table.
var irNames = []string{"parts_0.bc", "parts_0.prop", "parts_0.sym", "parts_1.bc", "parts_1.prop", "parts_1.sym", "parts_2.bc", "parts_2.prop", "parts_2.sym"}

func irRun(t *testing.T, runner run.Runner, args ...string) error {
	return irRunPool(t, runner, nil, args...)
}

func irRunPool(t *testing.T, runner run.Runner, pool *llvmpool.Pool, args ...string) error {
	t.Helper()
	o, err := ParseArgs(append([]string{"--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only", "-j1"}, args...))
	require.NoError(t, err)
	env, _, _ := testEnv()
	env.LLVM = pool
	if runner != nil {
		env.Runner = runner
	}
	return Run(context.Background(), env, *o)
}

func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		assert.False(t, strings.Contains(e.Name(), ".tmp-"), "temporary left: %s", e.Name())
	}
}

// TestIROutputSymlinksReplaced: a symlink planted at every numbered
// output name, pointing outside the output directory, is replaced by the
// output (never written through), in-process and with llvm-as as a child;
// after a failed run the links and their victims are as they were.
func TestIROutputSymlinksReplaced(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llvm-as")
	dir := t.TempDir()
	a := compile(t, dir, "a", splitSrcA)
	victims := filepath.Join(dir, "victims")
	require.NoError(t, os.Mkdir(victims, 0o755))
	plant := func(sub string) {
		require.NoError(t, os.MkdirAll(sub, 0o755))
		for _, n := range irNames {
			v := filepath.Join(victims, n)
			require.NoError(t, os.WriteFile(v, []byte("victim"), 0o644))
			require.NoError(t, os.Symlink(v, filepath.Join(sub, n)))
		}
	}
	checkVictims := func() {
		for _, n := range irNames {
			b, err := os.ReadFile(filepath.Join(victims, n))
			require.NoError(t, err)
			assert.Equal(t, "victim", string(b), n)
		}
	}
	pool := llvmpool.New(llvmpool.Config{Helpers: 1})
	defer pool.Close()
	for _, c := range []struct {
		name   string
		runner run.Runner
		pool   *llvmpool.Pool
	}{{"in-process", nil, pool}, {"child-llvm-as", childAs{run.Exec{}}, nil}} {
		t.Run(c.name, func(t *testing.T) {
			sub := filepath.Join(dir, c.name)
			plant(sub)
			require.NoError(t, irRunPool(t, c.runner, c.pool, "-o", filepath.Join(sub, "parts.table"), a))
			checkVictims()
			for _, n := range irNames {
				fi, err := os.Lstat(filepath.Join(sub, n))
				require.NoError(t, err)
				assert.True(t, fi.Mode().IsRegular(), "%s replaced by a regular file", n)
			}
			noTemps(t, sub)
		})
	}
	t.Run("failed", func(t *testing.T) {
		sub := filepath.Join(dir, "failed")
		plant(sub)
		err := irRun(t, failing{run.Exec{}}, "-o", filepath.Join(sub, "parts.table"), a)
		require.Error(t, err)
		checkVictims()
		for _, n := range irNames {
			fi, err := os.Lstat(filepath.Join(sub, n))
			require.NoError(t, err, "%s: a failed run removes only its own temporaries", n)
			assert.True(t, fi.Mode()&os.ModeSymlink != 0, n)
		}
		_, err = os.Lstat(filepath.Join(sub, "parts.table"))
		assert.True(t, os.IsNotExist(err))
		noTemps(t, sub)
	})
}

// childAs checks that llvm-as, run as a child (no in-process pool), is
// only ever given a hidden temporary to write, never a final name.
type childAs struct{ real run.Runner }

func (c childAs) Run(ctx context.Context, cmd *run.Cmd) error {
	if filepath.Base(cmd.Args[0]) == "llvm-as" {
		out := cmd.Args[len(cmd.Args)-1]
		if !strings.Contains(filepath.Base(out), ".tmp-") {
			return &run.Error{Args: cmd.Args, ExitCode: 1, Stderr: []byte("llvm-as asked to write a final name: " + out + "\n")}
		}
	}
	return c.real.Run(ctx, cmd)
}

// TestIROutputKeepsOthersFiles: a failed run leaves files it did not
// create (an earlier run's parts_0.prop, a regular file at parts_2.bc)
// untouched, and an output that would replace one of the run's own inputs
// (the input parts_0.bc, or one reached through a symlink) is an error
// before anything is written.
func TestIROutputKeepsOthersFiles(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llvm-as")
	dir := t.TempDir()
	a := compile(t, dir, "a", splitSrcA)
	abc, err := os.ReadFile(a)
	require.NoError(t, err)

	sub := filepath.Join(dir, "fail")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "parts_0.prop"), []byte("earlier"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "parts_2.bc"), []byte("earlier"), 0o644))
	require.Error(t, irRun(t, failing{run.Exec{}}, "-o", filepath.Join(sub, "parts.table"), a))
	for _, n := range []string{"parts_0.prop", "parts_2.bc"} {
		b, err := os.ReadFile(filepath.Join(sub, n))
		require.NoError(t, err, n)
		assert.Equal(t, "earlier", string(b), n)
	}
	ents, _ := os.ReadDir(sub)
	assert.Len(t, ents, 2, "only the earlier files: %v", ents)

	// The input is parts_0.bc, the output's first module.
	in := filepath.Join(dir, "in")
	require.NoError(t, os.Mkdir(in, 0o755))
	self := filepath.Join(in, "parts_0.bc")
	require.NoError(t, os.WriteFile(self, abc, 0o644))
	err = irRun(t, nil, "-o", filepath.Join(in, "parts.table"), self)
	require.Error(t, err)
	assert.Equal(t, self+": output would overwrite the input '"+self+"'", err.Error())
	got, _ := os.ReadFile(self)
	assert.Equal(t, abc, got, "the input survives")
	ents, _ = os.ReadDir(in)
	assert.Len(t, ents, 1, "nothing written: %v", ents)

	// The input is a symlink to the file at parts_1.sym.
	link := filepath.Join(dir, "via-link.bc")
	target := filepath.Join(in, "parts_1.sym")
	require.NoError(t, os.WriteFile(target, abc, 0o644))
	require.NoError(t, os.Symlink(target, link))
	err = irRun(t, nil, "-o", filepath.Join(in, "parts.table"), link)
	require.Error(t, err)
	assert.Equal(t, target+": output would overwrite the input '"+link+"'", err.Error())
}

// TestIROutputSpecialO: -o /dev/null or a FIFO with --ir-output-only and no
// --out-dir is refused before any work (no /dev/null_0.bc in /dev); with
// --out-dir the modules go there and the table is written into the FIFO.
func TestIROutputSpecialO(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llvm-as")
	dir := t.TempDir()
	a := compile(t, dir, "a", splitSrcA)
	err := irRun(t, nil, "-o", "/dev/null", a)
	require.Error(t, err)
	assert.Equal(t, "/dev/null: not a regular file: --ir-output-only names its modules after -o in -o's directory; give --out-dir=<dir> for them", err.Error())
	for _, n := range irNames {
		_, err := os.Lstat(filepath.Join("/dev", "null"+strings.TrimPrefix(n, "parts")))
		assert.True(t, os.IsNotExist(err), "/dev/null%s", strings.TrimPrefix(n, "parts"))
	}

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	err = irRun(t, nil, "-o", fifo, a)
	require.Error(t, err)
	assert.Contains(t, err.Error(), fifo+": not a regular file")

	mods := filepath.Join(dir, "mods")
	require.NoError(t, os.Mkdir(mods, 0o755))
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	require.NoError(t, irRun(t, nil, "--out-dir="+mods, "-o", fifo, a))
	tab := <-got
	assert.True(t, strings.HasPrefix(tab, "[Code|Properties|Symbols]\n"+filepath.Join(mods, "fifo_0.bc")), tab)
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.True(t, fi.Mode()&os.ModeNamedPipe != 0, "the FIFO stays a FIFO")
	ents, _ := os.ReadDir(mods)
	assert.Len(t, ents, 9)
}

// TestNameMaxOutput: -o names of 240, 250 and 255 bytes work, with and
// without --save-temps (whose "<stem>-linked.bc"-style names are
// shortened to fit NAME_MAX, as are the hidden temporaries).
func TestNameMaxOutput(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llc")
	dir := t.TempDir()
	a := compile(t, dir, "a", splitSrcA)
	for _, n := range []int{240, 250, 255} {
		sub := filepath.Join(dir, strconv.Itoa(n))
		require.NoError(t, os.Mkdir(sub, 0o755))
		out := filepath.Join(sub, strings.Repeat("o", n-4)+".out")
		for _, extra := range [][]string{nil, {"--save-temps"}} {
			err, stderr := link(t, append([]string{"--triple=spirv64", "-o", out, a}, extra...)...)
			require.NoError(t, err, stderr)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			bins, err := offload.ParseAll(data, offload.ReadOptions{})
			require.NoError(t, err)
			assert.Len(t, bins, 1)
		}
		ents, _ := os.ReadDir(sub)
		for _, e := range ents {
			assert.LessOrEqual(t, len(e.Name()), 255)
		}
		noTemps(t, sub)
	}
}
