package linkwrap

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	releaseBinOnce sync.Once
	releaseBinDir  string
	releaseBinErr  error
)

// releaseToolNames are the LLVM programs that offload-kit answers for: the
// names clang looks up in its -B directories.
var releaseToolNames = []string{"clang-linker-wrapper", "clang-offload-bundler", "clang-offload-packager", "llvm-offload-binary"}

// buildReleaseBin builds cmd/linker-wrapper and cmd/offload-packager once per
// test binary and returns a directory holding them under every LLVM
// personality name (clang-linker-wrapper; clang-offload-bundler,
// clang-offload-packager and llvm-offload-binary), so that clang -B<dir>
// runs offload-kit for every offload tool of a compile and a link. It is a
// directory of its own: buildWrapper's holds the wrapper alone.
func buildReleaseBin(t *testing.T) string {
	t.Helper()
	releaseBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lw-release-bin-")
		if err != nil {
			releaseBinErr = err
			return
		}
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		var errb bytes.Buffer
		err = run.Exec{}.Run(context.Background(), &run.Cmd{
			Args: []string{goTool, "build", "-o", dir + string(os.PathSeparator), "./cmd/linker-wrapper", "./cmd/offload-packager"},
			Dir:  "../../..", Stderr: &errb,
		})
		if err != nil {
			releaseBinErr = fmt.Errorf("go build: %v\n%s", err, errb.String())
			return
		}
		links := map[string]string{
			"clang-linker-wrapper":   "linker-wrapper",
			"clang-offload-bundler":  "offload-packager",
			"clang-offload-packager": "offload-packager",
			"llvm-offload-binary":    "offload-packager",
		}
		for name, target := range links {
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				releaseBinErr = err
				return
			}
		}
		releaseBinDir = dir
	})
	if releaseBinErr != nil {
		t.Fatal(releaseBinErr)
	}
	return releaseBinDir
}

// hipReleaseCell is one HIP driver mode of a release in TestHIPReleaseMatrix.
type hipReleaseCell struct {
	release int
	newDrv  bool
	rdc     bool
}

func (c hipReleaseCell) driverArgs() []string {
	var args []string
	switch {
	case c.newDrv:
		args = append(args, "--offload-new-driver")
	case c.release >= 22:
		// LLVM 22 defaults to the new driver for HIP; 16 and 19 to the old.
		args = append(args, "--no-offload-new-driver")
	}
	if c.rdc {
		args = append(args, "-fgpu-rdc")
	}
	return args
}

// wantLog is what release N's own tools register, as observed with
// clang-16, clang-19 and clang-22 (Debian's 16.0.6, 19.1.7, 22.1.8): it
// checks that the reference program really is release N's (that no
// offload-kit tool crept into it) and that the log says enough to make
// the comparison meaningful.
func (c hipReleaseCell) checkReference(t *testing.T, log string) {
	t.Helper()
	host := map[int]string{16: "host-x86_64-unknown-linux", 19: "host-x86_64-unknown-linux--", 22: "host-x86_64-unknown-linux-gnu-"}[c.release]
	// The old driver's bundles and every non-RDC bundle of 16 and 19 say
	// hipv4; the new driver's wrapper says hip from 19 on; 22's non-RDC
	// new driver bundles through clang-linker-wrapper, hence hip.
	kind := "hipv4"
	if c.newDrv && (c.release >= 22 || (c.release >= 19 && c.rdc)) {
		kind = "hip"
	}
	fatbins := 2 // one per object without -fgpu-rdc
	if c.rdc {
		fatbins = 1
	}
	assert.Equal(t, fatbins, strings.Count(log, "RegisterFatBinary magic=0x48495046 version=1\n"), "fat binaries registered")
	assert.Equal(t, fatbins, strings.Count(log, "UnregisterFatBinary ok=1\n"), "fat binaries unregistered")
	assert.Equal(t, fatbins, strings.Count(log, "  entry "+host+" offset=4096 size=0 "), "host entries %q", host)
	// Each code object is an AMDGPU ELF (e_machine 224) for its processor
	// (EF_AMDGPU_MACH in the low byte of e_flags: gfx90a 0x3f, gfx1100 0x41).
	for arch, mach := range map[string]string{"gfx90a": "3f", "gfx1100": "41"} {
		re := regexp.MustCompile(`  entry ` + kind + `-amdgcn-amd-amdhsa--` + arch + ` offset=\d+ size=[1-9]\d* fnv=[0-9a-f]{16} e_machine=224 e_flags=0x[0-9a-f]*` + mach + `\n`)
		assert.Len(t, re.FindAllString(log, -1), fatbins, "%s code objects of kind %s", arch, kind)
	}
	for _, k := range []string{"_Z6kern_aPi", "_Z6kern_bPfi", "_Z6kern_cv"} {
		assert.Contains(t, log, "RegisterFunction ok=1 addr="+k+" name="+k+"\n")
	}
	assert.Regexp(t, `RegisterVar ok=1 addr=\S+ name=counter extern=0 size=4 constant=0 global=0\n`, log)
	assert.Regexp(t, `RegisterVar ok=1 addr=\S+ name=table extern=0 size=16 constant=[01] global=0\n`, log)
	// The clang-linker-wrapper of 16 and 19 registers no managed variable
	// (the legacy entry layout has no managed kind); every other mode does,
	// from the wrapper or from clang's own registration code.
	if c.newDrv && c.rdc && c.release < 22 {
		assert.NotContains(t, log, "RegisterManagedVar")
	} else {
		assert.Regexp(t, `RegisterManagedVar ok=1 ptr=\S+ init=\S+ name=managed_v size=4 align=4\n`, log)
	}
}

// commandsOf returns the programs clang would run for argv (clang -###).
func commandsOf(t *testing.T, dir string, argv []string) string {
	t.Helper()
	var out, errb bytes.Buffer
	err := run.Exec{}.Run(context.Background(), &run.Cmd{Args: append(append([]string{}, argv...), "-###"), Dir: dir, Stdout: &out, Stderr: &errb})
	require.NoError(t, err, "%s -###\n%s", strings.Join(argv, " "), errb.String())
	return errb.String()
}

// checkToolsFrom asserts that every offload tool in clang's commands for
// argv comes from dir, and that there is at least one when want is set.
func checkToolsFrom(t *testing.T, work string, argv []string, dir string, want bool) {
	t.Helper()
	cmds := commandsOf(t, work, argv)
	n := 0
	for _, name := range releaseToolNames {
		for _, q := range []string{`"`, `=`} {
			rest := cmds
			for {
				i := strings.Index(rest, q+"/")
				if i < 0 {
					break
				}
				rest = rest[i+1:]
				end := strings.IndexAny(rest, "\" \n")
				if end < 0 {
					end = len(rest)
				}
				p := rest[:end]
				if filepath.Base(p) == name {
					n++
					assert.Equal(t, dir, filepath.Dir(p), "%s in\n%s", name, cmds)
				}
			}
		}
	}
	if want {
		assert.NotZero(t, n, "no offload tool in\n%s", cmds)
	}
}

// TestHIPReleaseMatrix is the HIP part of the release matrix (issue 21):
// for LLVM 16, 19 and 22, the old driver (bundles; 16 and 19's default,
// --no-offload-new-driver for 22) and the new one (--offload-new-driver),
// with and without -fgpu-rdc, a.hip and b.hip (gfx90a + gfx1100, -nogpuinc
// -nogpulib) are compiled by clang-N, once plainly and once with
// -B<offload-kit>, and each object set is linked by clang-N --hip-link
// once plainly (the reference: release N's own clang-offload-bundler,
// clang-offload-packager, clang-linker-wrapper throughout) and once with
// -B<offload-kit>. Every program runs against the recording stub runtime
// (testdata/hip/stub.c: the fat binary wrapper, each bundle entry ID with
// size, checksum and ELF e_machine/e_flags per code object, every kernel,
// variable and managed variable), and every log must equal that of the fully plain build.
//
// clang -### checks that the -B runs really take offload-kit's programs.
// Every compile passes -cuid=<file>: clang's default CUID hashes the
// command line, -B included, into the device code's symbol names, so the
// -B objects would otherwise differ from the plain ones whatever the tools
// (19 and 22 do this). In non-RDC mode a.hip defines its own counter and
// bump (__CLANG_RDC__), since each file's device code is then linked alone.
//
// Every combination is supported by each release's own clang (checked with
// clang-16, clang-19 and clang-22), so no cell is skipped.
func TestHIPReleaseMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	clangs := map[int]string{22: llvmtools.Tool(t, "clang")}
	for _, n := range llvmtools.Releases {
		clangs[n] = llvmtools.ReleaseTool(t, n, "clang")
	}
	releases := append([]int{}, llvmtools.Releases...)
	if !containsInt(releases, 22) { // llvmtools.Dir, the current release
		releases = append(releases, 22)
	}
	bin := buildReleaseBin(t)

	// The host side once: the stub runtime and main.
	common := t.TempDir()
	for _, f := range []string{"a.hip", "b.hip", "mini_hip.h", "stub.c", "main.c"} {
		b, err := os.ReadFile(filepath.Join("testdata", "hip", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(common, f), b, 0o644))
	}
	sh(t, common, nil, "gcc", "-c", "-fPIC", stubInclude(t), "stub.c", "-o", "stub.o")
	sh(t, common, nil, "gcc", "-c", "main.c", "-o", "main.o")

	for _, n := range releases {
		t.Run(fmt.Sprintf("LLVM%d", n), func(t *testing.T) {
			t.Parallel()
			for _, newDrv := range []bool{false, true} {
				drv := "old"
				if newDrv {
					drv = "new"
				}
				t.Run(drv, func(t *testing.T) {
					t.Parallel()
					for _, rdc := range []bool{true, false} {
						name := "rdc"
						if !rdc {
							name = "nordc"
						}
						c := hipReleaseCell{release: n, newDrv: newDrv, rdc: rdc}
						t.Run(name, func(t *testing.T) {
							t.Parallel()
							hipReleaseCells(t, c, clangs[n], bin, common)
						})
					}
				})
			}
		})
	}
}

// hipReleaseCells runs the compile ∈ {plain, -B} cells of one release,
// driver and rdc mode (see TestHIPReleaseMatrix).
func hipReleaseCells(t *testing.T, c hipReleaseCell, clang, bin, common string) {
	dir := t.TempDir()
	for _, f := range []string{"a.hip", "b.hip", "mini_hip.h"} {
		require.NoError(t, os.Symlink(filepath.Join(common, f), filepath.Join(dir, f)))
	}
	compile := append([]string{"-x", "hip", "-nogpuinc", "-nogpulib", "--offload-arch=gfx90a", "--offload-arch=gfx1100", "-c"}, c.driverArgs()...)
	link := append(append([]string{"--hip-link"}, c.driverArgs()...), "--offload-arch=gfx90a", "--offload-arch=gfx1100", "-nogpulib", "-no-hip-rt", "-rdynamic")
	host := []string{filepath.Join(common, "main.o"), filepath.Join(common, "stub.o"), "-ldl", "-lzstd"}
	withB := func(args []string, b bool) []string {
		out := []string{clang}
		if b {
			out = append(out, "-B"+bin)
		}
		return append(out, args...)
	}
	objects := func(prefix string, b bool) []string {
		var objs []string
		for _, f := range []string{"a", "b"} {
			argv := withB(append(append([]string{}, compile...), "-cuid="+f, f+".hip", "-o", prefix+f+".o"), b)
			if b {
				checkToolsFrom(t, dir, argv, bin, true)
			}
			sh(t, dir, nil, argv...)
			objs = append(objs, prefix+f+".o")
		}
		return objs
	}
	linkRun := func(objs []string, b bool, out string) string {
		argv := withB(append(append(append(append([]string{}, link...), objs...), host...), "-o", out), b)
		if b {
			// The old driver's non-RDC link is a plain host link.
			checkToolsFrom(t, dir, argv, bin, c.rdc || c.newDrv)
		}
		sh(t, dir, nil, argv...)
		return sh(t, dir, nil, filepath.Join(dir, out))
	}

	plainObjs := objects("plain-", false)
	bObjs := objects("B-", true)
	for i := range plainObjs {
		p, err := os.ReadFile(filepath.Join(dir, plainObjs[i]))
		require.NoError(t, err)
		q, err := os.ReadFile(filepath.Join(dir, bObjs[i]))
		require.NoError(t, err)
		if !bytes.Equal(p, q) {
			t.Logf("note: %s and %s differ (only the registration logs are compared)", plainObjs[i], bObjs[i])
		}
	}
	want := linkRun(plainObjs, false, "plain-ref")
	c.checkReference(t, want)

	// LLVM 16 to 19's wrappers ran the device LTO in-process and handed
	// clang one object; ours hands clang the bitcode with -flto, so ld.lld
	// runs the LTO (release.WrapperLegacyDeviceLink, docs/compatibility.md).
	// The code objects hold the same kernels and variables for the same
	// processor, but their bytes differ (lld's LTO lays functions out in
	// sections of their own), so for those links the code objects' sizes
	// and checksums are left out of the comparison; the entry IDs, offsets,
	// e_machine and e_flags and every registration still count.
	ours := func(log string) string { return log }
	if c.newDrv && c.rdc && c.release <= 19 {
		codeObj := regexp.MustCompile(`( entry hip\S* offset=\d+) size=[1-9]\d* fnv=[0-9a-f]{16}( e_machine=224 e_flags=0x[0-9a-f]+)`)
		ours = func(log string) string { return codeObj.ReplaceAllString(log, "$1 size=<lto> fnv=<lto>$2") }
	}
	t.Run("plain", func(t *testing.T) {
		got := linkRun(plainObjs, true, "plain-ours")
		assert.Equal(t, ours(want), ours(got), "objects by clang-%d alone, linked with -B<offload-kit> vs LLVM %d's tools", c.release, c.release)
	})
	t.Run("B", func(t *testing.T) {
		ref := linkRun(bObjs, false, "B-ref")
		assert.Equal(t, want, ref, "objects by clang-%d -B<offload-kit>, linked by LLVM %d's tools vs the fully plain build", c.release, c.release)
		got := linkRun(bObjs, true, "B-ours")
		assert.Equal(t, ours(want), ours(got), "objects by clang-%d -B<offload-kit>, linked with -B<offload-kit> vs the fully plain build", c.release)
	})
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
