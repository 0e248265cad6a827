package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolRoot is a fake machine: LLVM 14, 22 and 23 installations in the
// layout <root>/llvm-<N>/bin, a /usr/bin-like directory of symlinks into
// them, a broken clang, and unversioned directories whose programs report
// a release only through --version.
type toolRoot struct {
	root, layout string
}

func script(t *testing.T, path, body string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
	return path
}

func newToolRoot(t *testing.T) *toolRoot {
	t.Helper()
	r := &toolRoot{root: t.TempDir()}
	r.layout = filepath.Join(r.root, "llvm-%d", "bin")
	for _, m := range []int{14, 22, 23} {
		for _, n := range []string{"clang", "ld.lld", "llvm-link"} {
			script(t, r.dir(m, n), fmt.Sprintf("echo 'clang version %d.1.0'\n", m))
		}
	}
	usr := filepath.Join(r.root, "usrbin")
	require.NoError(t, os.MkdirAll(usr, 0o755))
	require.NoError(t, os.Symlink(r.dir(14, "clang"), filepath.Join(usr, "clang")))
	require.NoError(t, os.Symlink(r.dir(22, "clang"), filepath.Join(usr, "clang-22")))
	require.NoError(t, os.Symlink(r.dir(14, "llvm-link"), filepath.Join(usr, "llvm-link")))
	script(t, filepath.Join(r.root, "broken", "clang"), "echo \"error: unsupported option '--no-default-config'\" >&2\nexit 1\n")
	script(t, filepath.Join(r.root, "broken", "ld.lld"), "echo broken >&2\nexit 1\n")
	script(t, filepath.Join(r.root, "custom22", "clang"), "echo 'Custom clang version 22.1.8 (https://example.org)'\n")
	script(t, filepath.Join(r.root, "custom22", "llvm-link"), "echo 'LLVM (http://llvm.org/):'; echo '  LLVM version 22.1.8'\n")
	script(t, filepath.Join(r.root, "custom17", "clang"), "echo 'clang version 17.0.6'\n")
	script(t, filepath.Join(r.root, "custom21", "llvm-as"), "echo 'LLVM version 21.1.0'\n")
	script(t, filepath.Join(r.root, "custom23", "llvm-as"), "echo 'LLVM version 23.1.0'\n")
	script(t, filepath.Join(r.root, "cuda", "bin", "ptxas"), "exit 0\n")
	script(t, filepath.Join(r.root, "usrbin", "ptxas"), "exit 0\n")
	script(t, filepath.Join(r.root, "usrbin", "spirv-val"), "exit 0\n")
	return r
}

func (r *toolRoot) dir(major int, name string) string {
	return filepath.Join(fmt.Sprintf(r.layout, major), name)
}

func (r *toolRoot) path(dirs ...string) string {
	for i, d := range dirs {
		dirs[i] = filepath.Join(r.root, d)
	}
	return strings.Join(dirs, string(os.PathListSeparator))
}

func (r *toolRoot) tc() *Toolchain {
	return &Toolchain{Layouts: []string{r.layout}}
}

func TestToolchainOrder(t *testing.T) {
	r := newToolRoot(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		set      func(*Toolchain)
		tool     string
		want     string // path relative to the root
		why      string // substring of Choice.Why
		skipped  []string
		notFound bool
	}{
		{name: "versioned name in PATH before the unversioned one",
			set:  func(c *Toolchain) { c.Layouts, c.PathList = nil, r.path("broken", "usrbin") },
			tool: "clang", want: "usrbin/clang-22", why: "PATH"},
		{name: "LLVM 22 installation before PATH",
			set:  func(c *Toolchain) { c.PathList = r.path("broken", "usrbin") },
			tool: "clang", want: "llvm-22/bin/clang", why: "the LLVM 22 installation"},
		{name: "nothing usable",
			set: func(c *Toolchain) {
				c.Layouts = []string{r.layout}
				c.Major = 99 // no llvm-99 installation
				c.PathList = r.path("broken", "custom17", "usrbin")
			},
			tool: "clang", notFound: true,
			skipped: []string{"broken/clang (PATH): 'clang --version' failed: error: unsupported option '--no-default-config'",
				"custom17/clang (PATH): its --version reports LLVM 17.0.6, not 99",
				"usrbin/clang (PATH): part of LLVM 14, not 99"}},
		{name: "explicit override first",
			set: func(c *Toolchain) {
				c.Override = func(n string) (string, string) { return filepath.Join(r.root, "broken", n), "--clang-path" }
				c.LLVMDir, c.LLVMDirWhy = fmt.Sprintf(r.layout, 23), "--llvm-dir"
				c.Parent = r.dir(22, "clang")
			},
			tool: "clang", want: "broken/clang", why: "--clang-path"},
		{name: "LLVM dir before the parent",
			set: func(c *Toolchain) {
				c.LLVMDir, c.LLVMDirWhy = filepath.Join(r.root, "custom17"), "$OFFLOAD_KIT_LLVM_DIR"
				c.Parent = r.dir(22, "clang")
			},
			tool: "clang", want: "custom17/clang", why: "$OFFLOAD_KIT_LLVM_DIR"},
		{name: "the parent clang",
			set: func(c *Toolchain) {
				c.Parent, c.ParentWhy = r.dir(23, "clang"), "the clang that invoked this link (pid 42)"
				c.PathList = r.path("usrbin")
			},
			tool: "clang", want: "llvm-23/bin/clang", why: "pid 42"},
		{name: "tools beside the parent clang",
			set: func(c *Toolchain) {
				c.Parent, c.ParentWhy = r.dir(23, "clang"), "parent"
				c.PathList = r.path("broken")
			},
			tool: "ld.lld", want: "llvm-23/bin/ld.lld", why: "parent"},
		{name: "a parent that is no clang is ignored",
			set:  func(c *Toolchain) { c.Parent = "/bin/sh"; c.ParentWhy = "parent" },
			tool: "clang", want: "llvm-22/bin/clang", why: "the LLVM 22 installation"},
		{name: "an unversioned parent is used as is",
			set:  func(c *Toolchain) { c.Parent, c.ParentWhy = filepath.Join(r.root, "custom17", "clang"), "parent" },
			tool: "clang", want: "custom17/clang", why: "parent"},
		{name: "the inputs' installation before the command line's and LLVM 22",
			set: func(c *Toolchain) {
				c.InputMajor = 23
				c.Hints = []Source{{Dir: filepath.Join(r.root, "custom22"), Why: "-L"}}
			},
			tool: "clang", want: "llvm-23/bin/clang", why: "the LLVM 23 installation that produced the inputs"},
		{name: "a hint checked by --version",
			set: func(c *Toolchain) {
				c.Hints = []Source{{Dir: filepath.Join(r.root, "custom17"), Why: "-Lcustom17"}, {Dir: filepath.Join(r.root, "custom22"), Why: "-Lcustom22"}}
			},
			tool: "llvm-link", want: "custom22/llvm-link", why: "-Lcustom22, LLVM 22.1.8 by --version",
			skipped: nil},
		{name: "the wrapper's directory is checked",
			set:  func(c *Toolchain) { c.ExeDir = filepath.Join(r.root, "usrbin") },
			tool: "llvm-link", want: "llvm-22/bin/llvm-link",
			skipped: []string{"usrbin/llvm-link (the tool's own directory): part of LLVM 14, not 22"}},
		{name: "a parent of LLVM 23 makes 23 acceptable in PATH",
			set: func(c *Toolchain) {
				c.Parent, c.ParentWhy = r.dir(23, "clang"), "parent" // has no llvm-as
				c.PathList = r.path("custom21", "custom23")
			},
			tool: "llvm-as", want: "custom23/llvm-as", why: "PATH, LLVM 23.1.0 by --version",
			skipped: []string{"custom21/llvm-as (PATH): its --version reports LLVM 21.1.0, not 23 or 22"}},
		{name: "without a parent only 22 is",
			set:  func(c *Toolchain) { c.PathList = r.path("custom21", "custom23") },
			tool: "llvm-as", notFound: true,
			skipped: []string{"custom21/llvm-as (PATH): its --version reports LLVM 21.1.0, not 22",
				"custom23/llvm-as (PATH): its --version reports LLVM 23.1.0, not 22"}},
		{name: "not part of LLVM: PATH, unchecked",
			set:  func(c *Toolchain) { c.PathList = r.path("broken", "usrbin") },
			tool: "spirv-val", want: "usrbin/spirv-val", why: "PATH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := r.tc()
			tc.set(c)
			got, err := c.Find(ctx, tc.tool)
			if tc.notFound {
				var nf *NotFoundError
				require.ErrorAs(t, err, &nf)
				assert.Equal(t, tc.tool, nf.Name)
				var rel []string
				for _, s := range nf.Skipped {
					rel = append(rel, strings.TrimPrefix(s, r.root+"/"))
				}
				assert.Equal(t, tc.skipped, rel)
				assert.Contains(t, err.Error(), "no usable '"+tc.tool+"'")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(r.root, tc.want), got.Path)
			assert.Contains(t, got.Why, tc.why)
			if tc.skipped != nil {
				var rel []string
				for _, s := range got.Skipped {
					rel = append(rel, strings.TrimPrefix(s, r.root+"/"))
				}
				assert.Equal(t, tc.skipped, rel)
			}
		})
	}
}

func TestToolchainSkipsReported(t *testing.T) {
	r := newToolRoot(t)
	c := &Toolchain{PathList: r.path("broken", "custom17", "usrbin")}
	got, err := c.Find(context.Background(), "clang")
	require.NoError(t, err)
	// clang-22 comes first by name, so nothing was skipped.
	assert.Equal(t, filepath.Join(r.root, "usrbin", "clang-22"), got.Path)
	assert.Empty(t, got.Skipped)

	require.NoError(t, os.Remove(filepath.Join(r.root, "usrbin", "clang-22")))
	c = &Toolchain{PathList: r.path("broken", "custom17", "custom22", "usrbin")}
	got, err = c.Find(context.Background(), "clang")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(r.root, "custom22", "clang"), got.Path)
	assert.Equal(t, "PATH, LLVM 22.1.8 by --version", got.Why)
	require.Len(t, got.Skipped, 2)
	assert.Contains(t, got.Skipped[0], "broken/clang (PATH): 'clang --version' failed: error: unsupported option '--no-default-config'")
	assert.Contains(t, got.Skipped[1], "custom17/clang (PATH): its --version reports LLVM 17.0.6, not 22")
}

func TestToolchainCachesProbesAndChoices(t *testing.T) {
	r := newToolRoot(t)
	var probes atomic.Int32
	counting := &Fake{Handler: func(c *Cmd) error {
		probes.Add(1)
		return Exec{}.Run(context.Background(), c)
	}}
	var notified []string
	c := &Toolchain{PathList: r.path("broken", "custom22"), Runner: counting,
		Notify: func(ch Choice) { notified = append(notified, ch.Name+"="+ch.Path) }}
	for range 3 {
		got, err := c.Find(context.Background(), "clang")
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(r.root, "custom22", "clang"), got.Path)
	}
	assert.Equal(t, int32(2), probes.Load(), "one --version per candidate, once")
	assert.Equal(t, []string{"clang=" + filepath.Join(r.root, "custom22", "clang")}, notified, "notified once")

	// A failed lookup is not cached, but its probes are.
	_, err := c.Find(context.Background(), "ld.lld")
	require.Error(t, err)
	n := probes.Load()
	_, err = c.Find(context.Background(), "ld.lld")
	require.Error(t, err)
	assert.Equal(t, n, probes.Load())
}

func TestToolchainFindIn(t *testing.T) {
	r := newToolRoot(t)
	c := &Toolchain{PathList: r.path("usrbin")}
	dirs := []Source{{Dir: filepath.Join(r.root, "nope"), Why: "--cuda-path"}, {Dir: filepath.Join(r.root, "cuda", "bin"), Why: "$CUDA_PATH"}}
	got, err := c.FindIn(context.Background(), "ptxas", dirs)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(r.root, "cuda", "bin", "ptxas"), got.Path)
	assert.Equal(t, "$CUDA_PATH", got.Why)

	c = &Toolchain{PathList: r.path("usrbin")}
	got, err = c.FindIn(context.Background(), "ptxas", dirs[:1])
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(r.root, "usrbin", "ptxas"), got.Path)
	assert.Equal(t, "PATH", got.Why)

	c = &Toolchain{PathList: r.path("usrbin"), Override: func(n string) (string, string) { return "/opt/x/" + n, "$OFFLOAD_KIT_PTXAS" }}
	got, err = c.FindIn(context.Background(), "ptxas", dirs)
	require.NoError(t, err)
	assert.Equal(t, "/opt/x/ptxas", got.Path)

	c = &Toolchain{}
	_, err = c.FindIn(context.Background(), "nvlink", dirs)
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf)
	assert.Equal(t, []string{"--cuda-path", "$CUDA_PATH"}, nf.Searched)
}

func TestParseLLVMVersion(t *testing.T) {
	for _, tc := range []struct {
		in      string
		major   int
		version string
	}{
		{"Debian clang version 22.1.8 (++20250815083207+f68f64eb8130-1~exp1~20250815083222.86)\nTarget: x86_64-pc-linux-gnu\n", 22, "22.1.8"},
		{"Debian LLVM version 22.1.8\n  Optimized build.\n", 22, "22.1.8"},
		{"LLVM (http://llvm.org/):\n  LLVM version 14.0.6\n", 14, "14.0.6"},
		{"Debian LLD 22.1.8 (compatible with GNU linkers)\n", 22, "22.1.8"},
		{"GCC: (Debian 12.2.0-14) 12.2.0\x00clang version 21.1.0 (https://github.com/llvm/llvm-project)\x00", 21, "21.1.0"},
		{"clang version 23.0", 23, "23.0"},
		{"GCC: (Debian 12.2.0-14) 12.2.0", 0, ""},
		{"clang version 0.1.2", 0, ""},
		{"error: unsupported option '--no-default-config'", 0, ""},
	} {
		m, v, ok := ParseLLVMVersion([]byte(tc.in))
		assert.Equal(t, tc.major != 0, ok, tc.in)
		assert.Equal(t, tc.major, m, tc.in)
		assert.Equal(t, tc.version, v, tc.in)
	}
}

func FuzzParseLLVMVersion(f *testing.F) {
	f.Add([]byte("Debian clang version 22.1.8 (++2025)"))
	f.Add([]byte("Debian LLD 22.1.8 (compatible with GNU linkers)"))
	f.Add([]byte("LLVM version 9999.9999.9999"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, v, ok := ParseLLVMVersion(b)
		if !ok {
			if m != 0 || v != "" {
				t.Fatalf("not ok but %d %q", m, v)
			}
			return
		}
		if m <= 0 || !strings.HasPrefix(v, fmt.Sprint(m)+".") {
			t.Fatalf("major %d, version %q", m, v)
		}
		// The version found reads back the same.
		m2, v2, ok2 := ParseLLVMVersion([]byte("clang version " + v))
		if !ok2 || m2 != m || v2 != v {
			t.Fatalf("%q: reparsed %d %q %v", v, m2, v2, ok2)
		}
	})
}

func TestLayoutMajor(t *testing.T) {
	l := DefaultLayouts()
	for _, tc := range []struct {
		dir  string
		want int
	}{
		{"/usr/lib/llvm-22/bin", 22}, {"/usr/lib/llvm-14/bin/", 14}, {"/usr/lib64/llvm19/bin", 19},
		{"/usr/lib/llvm18/bin", 18}, {"/usr/bin", 0}, {"/usr/lib/llvm-/bin", 0}, {"/usr/lib/llvm-022/bin", 0},
		{"/usr/lib/llvm-x/bin", 0}, {"/usr/lib/llvm-22/lib", 0},
	} {
		m, ok := LayoutMajor(l, tc.dir)
		assert.Equal(t, tc.want, m, tc.dir)
		assert.Equal(t, tc.want != 0, ok, tc.dir)
	}
}

func TestIsClangDriverAndToolEnv(t *testing.T) {
	for n, want := range map[string]bool{"clang": true, "clang++": true, "clang-22": true, "clang++-22": true, "clang-22.1": true,
		"clang-cl": false, "clang-linker-wrapper": false, "bash": false, "make": false, "ccache": false} {
		assert.Equal(t, want, IsClangDriver(n), n)
	}
	assert.Equal(t, "OFFLOAD_KIT_CLANG", ToolEnv("clang"))
	assert.Equal(t, "OFFLOAD_KIT_LD_LLD", ToolEnv("ld.lld"))
	assert.Equal(t, "OFFLOAD_KIT_LLVM_LINK", ToolEnv("llvm-link"))
	assert.Equal(t, "OFFLOAD_KIT_PTXAS", ToolEnv("ptxas"))
}

// TestParseLLVMVersionProducers: the producer strings the release profile
// is settled from (--version, .comment), and a name that only contains
// "clang version" inside a word (moved here from release.ClangMajor, a
// second parser of the same strings).
func TestParseLLVMVersionProducers(t *testing.T) {
	for in, want := range map[string]int{
		"Debian clang version 19.1.7 (3~deb12u1)\nTarget: x86_64-pc-linux-gnu": 19,
		"\x00clang version 16.0.6 (15~deb12u1)\x00":                            16,
		"Ubuntu clang version 18.1.3 (1ubuntu1)":                               18,
		"clang version 22.1.8":                                                 22,
		"GCC: (Debian 12.2.0-14) 12.2.0":                                       0,
		"libclang version 19.1.7":                                              0,
	} {
		got, _, ok := ParseLLVMVersion([]byte(in))
		if got != want || ok != (want > 0) {
			t.Errorf("ParseLLVMVersion(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
}
