package linkwrap

import (
	"bytes"
	"context"
	"fmt"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolNoteRe matches the notes that tell which program runs and why.
var toolNoteRe = regexp.MustCompile(`(?m)^[a-z-]+: note: [^ :]+: (using|skipped|unable to find) .*\n`)

// dropToolNotes removes the tool choice notes from --dry-run or
// --wrapper-verbose output, leaving the commands.
func dropToolNotes(s string) string { return toolNoteRe.ReplaceAllString(s, "") }

// fakeMachine is a directory tree standing in for a machine: LLVM 14, 22
// and 23 installations (<root>/llvm-<N>/bin), a /usr/bin-like directory of
// symlinks into them, a broken clang and ld.lld, an unversioned prefix
// (pfx/bin, pfx/lib) whose clang reports 22 only through --version, and a
// CUDA toolkit.
type fakeMachine struct{ root string }

func writeScript(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
}

// brokenClang fails the way Debian's clang 14 fails a device link.
const brokenClang = "echo \"error: unsupported option '--no-default-config'\" >&2\nexit 1\n"

func newFakeMachine(t *testing.T) *fakeMachine {
	t.Helper()
	m := &fakeMachine{root: t.TempDir()}
	for _, v := range []int{14, 22, 23} {
		for _, n := range []string{"clang", "ld.lld", "llvm-link"} {
			writeScript(t, m.p(fmt.Sprintf("llvm-%d/bin/%s", v, n)), fmt.Sprintf("echo 'clang version %d.1.8'\n", v))
		}
	}
	require.NoError(t, os.MkdirAll(m.p("usrbin"), 0o755))
	require.NoError(t, os.Symlink(m.p("llvm-14/bin/clang"), m.p("usrbin/clang")))
	require.NoError(t, os.Symlink(m.p("llvm-22/bin/clang"), m.p("usrbin/clang-22")))
	writeScript(t, m.p("broken/clang"), brokenClang)
	writeScript(t, m.p("broken/clang-22"), brokenClang)
	writeScript(t, m.p("broken/ld.lld"), brokenClang)
	writeScript(t, m.p("pfx/bin/clang"), "echo 'clang version 22.1.8 (custom build)'\n")
	require.NoError(t, os.MkdirAll(m.p("pfx/lib"), 0o755))
	for _, d := range []string{"cuda-opt/bin", "cuda-env/bin", "cuda-usr/bin", "usrbin"} {
		for _, n := range []string{"ptxas", "nvlink", "fatbinary"} {
			writeScript(t, m.p(d+"/"+n), "exit 0\n")
		}
	}
	return m
}

func (m *fakeMachine) p(rel string) string { return filepath.Join(m.root, rel) }

func (m *fakeMachine) pathList(dirs ...string) string {
	for i, d := range dirs {
		dirs[i] = m.p(d)
	}
	return strings.Join(dirs, ":")
}

// lookupCase is one driver configuration and the program it must choose.
type lookupCase struct {
	name    string
	args    []string          // wrapper options
	env     map[string]string // environment ($PATH is relative to the root)
	parent  string            // relative to the root, or absolute
	input   int               // LLVM release of the inputs
	exeDir  string
	tool    string
	want    string // relative to the root, or absolute
	why     string
	skipped []string
}

func (m *fakeMachine) driver(t *testing.T, c lookupCase) (*driver, *bytes.Buffer) {
	t.Helper()
	opts, err := ParseArgs(append([]string{"--linker-path=/usr/bin/ld", "--wrapper-verbose"}, c.args...))
	require.NoError(t, err)
	var stderr bytes.Buffer
	env := Env{CUDADirs: []string{m.p("cuda-usr/bin")}, Env: driverenv.Env{Stderr: &stderr, Tool: "linker-wrapper", Layouts: []string{m.p("llvm-%d/bin")},
		LookupEnv: driverenv.FromGetenv(func(k string) string {
			if k == "PATH" && c.env[k] != "" {
				return m.pathList(strings.Split(c.env[k], ":")...)
			}
			return c.env[k]
		})}}
	if c.parent != "" {
		env.Parent, env.ParentPID = m.abs(c.parent), 4242
	}
	if c.exeDir != "" {
		env.ExeDir = m.p(c.exeDir)
	}
	return &driver{opt: opts, env: env, inputMajor: c.input}, &stderr
}

func (m *fakeMachine) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return m.p(p)
}

func TestToolLookupOrder(t *testing.T) {
	m := newFakeMachine(t)
	all := map[string]string{"PATH": "broken:usrbin", "OFFLOAD_KIT_CLANG": m.p("broken/clang"), "OFFLOAD_KIT_LLVM_DIR": m.p("llvm-14/bin")}
	without := func(keys ...string) map[string]string {
		out := map[string]string{}
		for k, v := range all {
			out[k] = v
		}
		for _, k := range keys {
			delete(out, k)
		}
		return out
	}
	for _, c := range []lookupCase{
		{name: "--clang-path first", args: []string{"--clang-path=/x/clang", "--tool-path=clang=/y/clang", "--llvm-dir=" + m.p("llvm-23/bin")},
			env: all, parent: "llvm-22/bin/clang", tool: "clang", want: "/x/clang", why: "--clang-path"},
		{name: "--tool-path before the environment", args: []string{"--tool-path=clang=/y/clang"},
			env: all, parent: "llvm-22/bin/clang", tool: "clang", want: "/y/clang", why: "--tool-path=clang="},
		{name: "$OFFLOAD_KIT_CLANG before --llvm-dir", args: []string{"--llvm-dir=" + m.p("llvm-23/bin")},
			env: all, parent: "llvm-22/bin/clang", tool: "clang", want: "broken/clang", why: "$OFFLOAD_KIT_CLANG"},
		{name: "--llvm-dir before $OFFLOAD_KIT_LLVM_DIR", args: []string{"--llvm-dir=" + m.p("llvm-23/bin")},
			env: without("OFFLOAD_KIT_CLANG"), parent: "llvm-22/bin/clang", tool: "clang", want: "llvm-23/bin/clang", why: "--llvm-dir="},
		{name: "$OFFLOAD_KIT_LLVM_DIR before the parent (used as is)",
			env: without("OFFLOAD_KIT_CLANG"), parent: "llvm-22/bin/clang", tool: "clang", want: "llvm-14/bin/clang", why: "$OFFLOAD_KIT_LLVM_DIR="},
		{name: "the clang that invoked the link",
			env: without("OFFLOAD_KIT_CLANG", "OFFLOAD_KIT_LLVM_DIR"), parent: "llvm-23/bin/clang", input: 22, tool: "clang",
			want: "llvm-23/bin/clang", why: "the clang that invoked this link (pid 4242)"},
		{name: "ld.lld beside the invoking clang, not the broken one in PATH",
			env: without("OFFLOAD_KIT_CLANG", "OFFLOAD_KIT_LLVM_DIR"), parent: "llvm-23/bin/clang", tool: "ld.lld",
			want: "llvm-23/bin/ld.lld", why: "the clang that invoked this link"},
		{name: "$OFFLOAD_KIT_LD_LLD", env: map[string]string{"OFFLOAD_KIT_LD_LLD": "/z/ld.lld"}, parent: "llvm-23/bin/clang", tool: "ld.lld",
			want: "/z/ld.lld", why: "$OFFLOAD_KIT_LD_LLD"},
		{name: "a parent that is no clang is ignored; the inputs' installation",
			env: without("OFFLOAD_KIT_CLANG", "OFFLOAD_KIT_LLVM_DIR"), parent: "/bin/sh", input: 23, tool: "clang",
			want: "llvm-23/bin/clang", why: "the LLVM 23 installation that produced the inputs"},
		{name: "beside an lld --linker-path, checked by --version", args: []string{"--linker-path=" + m.p("pfx/bin/ld.lld")},
			env: without("OFFLOAD_KIT_CLANG", "OFFLOAD_KIT_LLVM_DIR"), tool: "clang", want: "pfx/bin/clang",
			why: "beside --linker-path=" + m.p("pfx/bin/ld.lld") + ", LLVM 22.1.8 by --version"},
		{name: "the bin directory beside -L<prefix>/lib", args: []string{"-L" + m.p("pfx/lib")},
			env: without("OFFLOAD_KIT_CLANG", "OFFLOAD_KIT_LLVM_DIR"), tool: "clang", want: "pfx/bin/clang",
			why: "the bin directory beside -L" + m.p("pfx/lib")},
		{name: "a foreign clang beside the wrapper is skipped",
			env: without("OFFLOAD_KIT_CLANG", "OFFLOAD_KIT_LLVM_DIR"), exeDir: "usrbin", tool: "clang",
			want: "llvm-22/bin/clang", why: "the LLVM 22 installation",
			skipped: []string{"usrbin/clang (the tool's own directory): part of LLVM 14, not 22"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, stderr := m.driver(t, c)
			got, err := d.findTool(context.Background(), c.tool, false)
			require.NoError(t, err)
			assert.Equal(t, m.abs(c.want), got)
			out := strings.ReplaceAll(stderr.String(), m.root+"/", "")
			assert.Contains(t, out, fmt.Sprintf("linker-wrapper: note: %s: using %s (", c.tool, strings.TrimPrefix(m.abs(c.want), m.root+"/")))
			assert.Contains(t, stderr.String(), c.why)
			for _, s := range c.skipped {
				assert.Contains(t, out, "linker-wrapper: note: "+c.tool+": skipped "+s)
			}
		})
	}
}

// TestToolLookupPATHLast: with nothing better known, PATH is searched,
// clang-22 before clang, and every candidate must report LLVM 22.
func TestToolLookupPATHLast(t *testing.T) {
	m := newFakeMachine(t)
	d, stderr := m.driver(t, lookupCase{env: map[string]string{"PATH": "broken:usrbin"}})
	d.env.Layouts = nil
	got, err := d.findClang(context.Background())
	require.NoError(t, err)
	assert.Equal(t, m.p("usrbin/clang-22"), got)
	out := strings.ReplaceAll(stderr.String(), m.root+"/", "")
	assert.Contains(t, out, "linker-wrapper: note: clang: skipped broken/clang-22 (PATH): 'clang-22 --version' failed: error: unsupported option '--no-default-config'\n")
	assert.Contains(t, out, "linker-wrapper: note: clang: using usrbin/clang-22 (PATH, LLVM 22.1.8 by --version)\n")

	// Without clang-22 in PATH: Debian's clang (14) is not taken.
	require.NoError(t, os.Remove(m.p("usrbin/clang-22")))
	d, _ = m.driver(t, lookupCase{env: map[string]string{"PATH": "broken:usrbin"}})
	d.env.Layouts = []string{m.p("llvm-%d/bin")}
	require.NoError(t, os.RemoveAll(m.p("llvm-22")))
	_, err = d.findClang(context.Background())
	var te *ToolError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "clang", te.Tool)
	assert.Contains(t, err.Error(), "unable to find a usable 'clang'; device linking runs clang 22")
	assert.Contains(t, err.Error(), "OFFLOAD_KIT_CLANG")
	assert.Equal(t, []string{m.p("llvm-22/bin"), "PATH"}, te.Searched)
	require.Len(t, te.Skipped, 3)
	assert.Contains(t, te.Skipped[0], "broken/clang-22 (PATH): 'clang-22 --version' failed")
	assert.Contains(t, te.Skipped[1], "broken/clang (PATH): 'clang --version' failed")
	assert.Contains(t, te.Skipped[2], "usrbin/clang (PATH): part of LLVM 14, not 22")

	// --dry-run prints the bare name instead of failing.
	d, stderr = m.driver(t, lookupCase{args: []string{"--dry-run"}, env: map[string]string{"PATH": "broken:usrbin"}})
	got, err = d.findClang(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "clang", got)
	assert.Contains(t, stderr.String(), "note: clang: unable to find a usable 'clang'")
}

func TestCUDAToolLookupOrder(t *testing.T) {
	m := newFakeMachine(t)
	for _, c := range []struct {
		args     []string
		env      map[string]string
		want     string
		notFound bool
	}{
		{[]string{"--tool-path=ptxas=/t/ptxas", "--cuda-path=" + m.p("cuda-opt")}, map[string]string{"OFFLOAD_KIT_PTXAS": "/e/ptxas"}, "/t/ptxas", false},
		{[]string{"--cuda-path=" + m.p("cuda-opt")}, map[string]string{"OFFLOAD_KIT_PTXAS": "/e/ptxas"}, "/e/ptxas", false},
		{[]string{"--cuda-path=" + m.p("cuda-opt")}, map[string]string{"CUDA_PATH": m.p("cuda-env"), "PATH": "usrbin"}, "cuda-opt/bin/ptxas", false},
		{[]string{"--cuda-path=" + m.p("nope")}, map[string]string{"CUDA_PATH": m.p("cuda-env"), "PATH": "usrbin"}, "cuda-env/bin/ptxas", false},
		{nil, map[string]string{"PATH": "usrbin"}, "cuda-usr/bin/ptxas", false},
	} {
		d, _ := m.driver(t, lookupCase{args: c.args, env: c.env})
		got, err := d.findCUDATool(context.Background(), "ptxas")
		require.NoError(t, err)
		assert.Equal(t, m.abs(c.want), got, "%v %v", c.args, c.env)
	}
	d, _ := m.driver(t, lookupCase{env: map[string]string{"PATH": "usrbin"}})
	d.env.CUDADirs = nil
	got, err := d.findCUDATool(context.Background(), "nvlink")
	require.NoError(t, err)
	assert.Equal(t, m.p("usrbin/nvlink"), got)
	d, _ = m.driver(t, lookupCase{env: map[string]string{"PATH": "broken"}})
	d.env.CUDADirs = nil
	_, err = d.findCUDATool(context.Background(), "fatbinary")
	var te *ToolError
	require.ErrorAs(t, err, &te)
	assert.Contains(t, err.Error(), "unable to find a usable 'fatbinary'; it is part of the NVIDIA CUDA toolkit")
}

// TestDryRunShowsToolChoice runs whole links: --dry-run and
// --wrapper-verbose print which clang runs and why, and the device link
// runs it.
func TestDryRunShowsToolChoice(t *testing.T) {
	m := newFakeMachine(t)
	dir := testDir(t)
	args := []string{"--linker-path=/usr/bin/ld", "-o", dir + "/app", dir + "/lib_main.o"}
	for _, mode := range []string{"--dry-run", "--wrapper-verbose"} {
		t.Run(mode, func(t *testing.T) {
			opts, err := ParseArgs(append([]string{mode}, args...))
			require.NoError(t, err)
			var stderr bytes.Buffer
			fake := &run.Fake{Handler: touchOutput}
			err = Run(context.Background(), &Env{Env: driverenv.Env{Runner: fake, Stderr: &stderr, NumCPU: 1, Tool: "clang-linker-wrapper",
				Parent: m.p("llvm-22/bin/clang"), ParentPID: 4242, Layouts: []string{m.p("llvm-%d/bin")},
				LookupEnv: driverenv.FromGetenv(func(k string) string {
					if k == "PATH" {
						return m.pathList("broken", "usrbin")
					}
					return ""
				})}}, *opts)
			require.NoError(t, err, stderr.String())
			clang := m.p("llvm-22/bin/clang")
			assert.Contains(t, stderr.String(), "clang-linker-wrapper: note: clang: using "+clang+" (the clang that invoked this link (pid 4242))\n")
			assert.Contains(t, stderr.String(), ` "`+clang+`" --no-default-config -o `)
			cmds := fake.Commands()
			if mode == "--dry-run" {
				assert.Empty(t, cmds, "--dry-run runs nothing (no probe was needed)")
				return
			}
			require.Len(t, cmds, 2)
			assert.Equal(t, clang, cmds[0][0])
		})
	}
}

// TestToolChoiceFollowsTheInputs: without a clang parent, objects made by
// clang 22 link with the LLVM 22 installation; objects whose .comment
// names clang 23 link with the LLVM 23 one (the newest release among the
// inputs), never with PATH's broken clang.
func TestToolChoiceFollowsTheInputs(t *testing.T) {
	cc := findTool(t, "clang-22", "clang")
	m := newFakeMachine(t)
	dir := testDir(t)
	src := filepath.Join(dir, "future.c")
	require.NoError(t, os.WriteFile(src, []byte(`__asm__(".section .comment,\"MS\",@progbits,1\n.asciz \"Future clang version 23.1.0\"\n.text");
int main(void) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  return !x;
}
`), 0o644))
	sh(t, dir, nil, cc, "-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-fno-ident", "-c", src, "-o", filepath.Join(dir, "future.o"))
	for _, c := range []struct {
		input, want, why string
	}{
		{"lib_main.o", "llvm-22/bin/clang", "the LLVM 22 installation that produced the inputs"},
		{"future.o", "llvm-23/bin/clang", "the LLVM 23 installation that produced the inputs"},
	} {
		opts, err := ParseArgs([]string{"--dry-run", "--linker-path=/usr/bin/ld", "-o", dir + "/app", filepath.Join(dir, c.input)})
		require.NoError(t, err)
		var stderr bytes.Buffer
		err = Run(context.Background(), &Env{Env: driverenv.Env{Runner: &run.Fake{}, Stderr: &stderr, NumCPU: 1, Tool: "linker-wrapper",
			Parent: "/usr/bin/make", Layouts: []string{m.p("llvm-%d/bin")},
			LookupEnv: driverenv.FromGetenv(func(k string) string {
				if k == "PATH" {
					return m.pathList("broken")
				}
				return ""
			})}}, *opts)
		require.NoError(t, err, stderr.String())
		assert.Contains(t, stderr.String(), "linker-wrapper: note: clang: using "+m.p(c.want)+" ("+c.why+" ("+m.p(c.want[:strings.LastIndex(c.want, "/")])+"))\n", c.input)
	}
}
