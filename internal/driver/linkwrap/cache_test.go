package linkwrap

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/tmproot"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeHashHashHash answers "clang ... -###" as clang would for a device
// link through ld.lld: the linker command, the -Xlinker and -Wl, values
// unwrapped, clang's own options dropped.
func fakeHashHashHash(c *run.Cmd) bool {
	if len(c.Args) == 0 || c.Args[len(c.Args)-1] != "-###" {
		return false
	}
	line := []string{strconv.Quote(filepath.Join(filepath.Dir(c.Args[0]), "ld.lld"))}
	args := c.Args[1 : len(c.Args)-1]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-Xlinker" && i+1 < len(args):
			i++
			line = append(line, strconv.Quote(args[i]))
		case strings.HasPrefix(a, "-Wl,"):
			for _, v := range strings.Split(a[4:], ",") {
				line = append(line, strconv.Quote(v))
			}
		case a == "-o" || a == "-dumpdir":
			i++
		case !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "-L") || strings.HasPrefix(a, "-l"):
			line = append(line, strconv.Quote(a))
		}
	}
	fmt.Fprintf(c.Stderr, "clang version 22.1.8\n %s\n", strings.Join(line, " "))
	return true
}

// countingHandler makes the fake device clang write its image and counts
// device links (commands with --target=; -### queries are answered, not
// counted).
func countingHandler(n *atomic.Int32) func(c *run.Cmd) error {
	return func(c *run.Cmd) error {
		if fakeHashHashHash(c) {
			return nil
		}
		for _, a := range c.Args {
			if strings.HasPrefix(a, "--target=") {
				n.Add(1)
				if c.Stderr != nil {
					c.Stderr.Write([]byte("device clang says hello\n"))
				}
			}
		}
		return touchOutput(c)
	}
}

func TestDeviceLinkCacheFakeRunner(t *testing.T) {
	dir := testDir(t)
	cacheDir := t.TempDir()
	clang := fakeClangFile(t)
	var links atomic.Int32
	link := func(extra ...string) *invocation {
		args := append([]string{"--linker-path=/usr/bin/ld", "--clang-path=" + clang, "--cache-dir=" + cacheDir, "--wrapper-verbose", "-o", "$D/app", "$D/lib_main.o", "$D/libdev.a"}, extra...)
		inv := invoke(t, dir, countingHandler(&links), args...)
		require.NoError(t, inv.err, inv.stderr.String())
		return inv
	}
	first := link()
	require.Equal(t, int32(1), links.Load(), "cold link runs the device clang")
	assert.Contains(t, first.stderr.String(), "cache miss")

	second := link()
	assert.Equal(t, int32(1), links.Load(), "warm link performs zero device links")
	out := second.stderr.String()
	assert.Contains(t, out, "device clang says hello\n", "the child's output is replayed")
	assert.Contains(t, out, "cache hit")
	assert.Contains(t, out, "1 lookups, 1 hits (1 local, 0 remote), 0 misses")
	assert.Contains(t, out, "device phase")
	for _, ph := range []string{"scan", "extract", "device link x86_64-unknown-linux-gnu", "bundle", "wrap", "host link", "total"} {
		assert.True(t, regexp.MustCompile(`(?m)^  `+regexp.QuoteMeta(ph)+` .* ms`).MatchString(out), "phase %q in\n%s", ph, out)
	}
	// The host link still ran, with the restored image wrapped; the
	// only other command was the key's clang -### query.
	cmds := second.fake.Commands()
	require.Equal(t, 2, len(cmds))
	assert.Equal(t, "-###", cmds[0][len(cmds[0])-1])
	assert.Equal(t, "/usr/bin/ld", cmds[1][0])

	// Another output name and another temp directory: same key (hermetic).
	link("-o", "$D/other")
	assert.Equal(t, int32(1), links.Load(), "keys do not depend on output or temp paths")

	// A device option changes the command line: miss.
	link("--device-compiler=-O3")
	assert.Equal(t, int32(2), links.Load())

	// --no-cache runs the device link.
	link("--no-cache")
	assert.Equal(t, int32(3), links.Load())
}

func TestDeviceLinkCacheFailuresAreWarnings(t *testing.T) {
	dir := testDir(t)
	// A file where the cache directory should be: Open fails.
	blocker := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	var links atomic.Int32
	inv := invoke(t, dir, countingHandler(&links), "--linker-path=/usr/bin/ld", "--cache-dir="+blocker+"/sub", "-o", "$D/app", "$D/lib_main.o")
	require.NoError(t, inv.err)
	assert.Contains(t, inv.stderr.String(), "linker-wrapper: warning: device-link cache disabled")
	assert.Equal(t, int32(1), links.Load())

	// A cache whose blob store cannot take the image (a file squats on
	// its cas/<xx> directory): Put fails, the link still succeeds.
	cacheDir := t.TempDir()
	sum := sha256.Sum256([]byte("\x7fELF fake image")) // what touchOutput writes
	require.NoError(t, os.MkdirAll(filepath.Join(cacheDir, "v1", "cas"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cacheDir, "v1", "cas", hex.EncodeToString(sum[:1])), nil, 0o644))
	clang := "--clang-path=" + fakeClangFile(t)
	inv = invoke(t, dir, countingHandler(&links), "--linker-path=/usr/bin/ld", clang, "--cache-dir="+cacheDir, "-o", "$D/app", "$D/lib_main.o")
	require.NoError(t, inv.err, "a failing insert is not a link failure")
	assert.Equal(t, int32(2), links.Load())
	assert.Contains(t, inv.stderr.String(), "linker-wrapper: warning: cache: put")
}

// fakeClangFile is an executable file standing for clang, with an ld.lld
// beside it (the fake runner never runs them; the cache hashes them).
func fakeClangFile(t *testing.T) string {
	dir := t.TempDir()
	p := filepath.Join(dir, "clang")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\nexit 1\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ld.lld"), []byte("#!/bin/sh\nexit 2\n"), 0o755))
	return p
}

var devicePhaseRe = regexp.MustCompile(`(?m)^  device phase +([0-9.]+) ms`)

func devicePhase(t *testing.T, stderr string) time.Duration {
	t.Helper()
	m := devicePhaseRe.FindStringSubmatch(stderr)
	require.True(t, m != nil, "no device phase line in\n%s", stderr)
	f, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return time.Duration(f * 1e6)
}

// TestDeviceLinkCacheOpenMP links a real OpenMP program twice through
// clang-22 -B<dir> with OFFLOAD_KIT_CACHE_DIR set; between the links only
// a host-code translation unit changes. The second link must perform no
// device link (its speed-up is measured in bench/).
func TestDeviceLinkCacheOpenMP(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	dir := t.TempDir()
	cacheDir := filepath.Join(t.TempDir(), "cache")
	f := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-L" + lib, "-Wno-unused-command-line-argument"}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "OFFLOAD_KIT_CACHE_DIR=" + cacheDir, "OFFLOAD_KIT_VERBOSE=1"}
	sh(t, dir, nil, cmdline(cc, f, "-c", src("xtu_main.c"), src("xtu_dev.c"))...)
	link := func(hostValue string) string {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "host.c"), []byte("int host_value(void) { return "+hostValue+"; }\n"), 0o644))
		var stderr bytes.Buffer
		err := run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Env: tmproot.Env(env), Stderr: &stderr,
			Args: cmdline(cc, f, "-B"+bin, "xtu_main.o", "xtu_dev.o", "host.c", "-o", "xtu",
				"-Xlinker", "--wrapper-time-trace="+filepath.Join(dir, "trace.json"), "-Xlinker", "--wrapper-time-trace-granularity=0")})
		require.NoError(t, err, stderr.String())
		assert.Equal(t, "on_device=1\nsquare=49 cube=27\n", sh(t, dir, nil, "./xtu"))
		trace, err := os.ReadFile(filepath.Join(dir, "trace.json"))
		require.NoError(t, err)
		names := validateChromeTrace(t, trace)
		assert.Equal(t, 1, names["Link device input"])
		return stderr.String()
	}
	cold := link("7")
	assert.Contains(t, cold, "cache miss")
	assert.Contains(t, cold, "1 misses; 1 inserts")
	warm := link("8")
	assert.Contains(t, warm, "1 lookups, 1 hits (1 local, 0 remote), 0 misses", "zero device links on the second link")
	assert.True(t, !strings.Contains(warm, "cache miss"), warm)
	tc, tw := devicePhase(t, cold), devicePhase(t, warm)
	// The >= 10x speed-up is a performance target, measured by the
	// benchmark suite (make bench); a timed assertion here would be flaky on
	// a loaded CI machine. The test asserts what is deterministic: no device
	// link ran, and the warm phase is not slower.
	t.Logf("device phase: cold %v, warm %v (%.0fx)", tc, tw, float64(tc)/float64(max(tw, time.Microsecond)))
	assert.Less(t, tw, tc, "warm device phase %v is not faster than cold %v", tw, tc)
}

// TestDeviceLinkCacheCUDANative caches a ptxas+nvlink job: the random
// names of the intermediate cubins do not enter the key.
func TestDeviceLinkCacheCUDANative(t *testing.T) {
	dir := t.TempDir()
	cuda := filepath.Join(dir, "cuda")
	require.NoError(t, os.MkdirAll(filepath.Join(cuda, "bin"), 0o755))
	for _, tool := range []string{"ptxas", "nvlink", "fatbinary"} {
		require.NoError(t, os.WriteFile(filepath.Join(cuda, "bin", tool), []byte("#!/bin/sh\nexit 1\n"), 0o755))
	}
	cudaPackage(t, dir, map[string]format.ImageKind{"rdc_main.ptx": format.ImgPTX, "rdc_lib.ptx": format.ImgPTX})
	cacheDir := t.TempDir()
	device := 0
	handler := func(c *run.Cmd) error {
		out := ""
		for i, a := range c.Args {
			if (a == "--output-file" || a == "-o" || a == "--create") && i+1 < len(c.Args) {
				out = c.Args[i+1]
			}
		}
		switch filepath.Base(c.Args[0]) {
		case "ptxas", "nvlink":
			device++
			fmt.Fprintf(c.Stderr, "%s: info\n", filepath.Base(c.Args[0]))
		}
		if out != "" {
			return os.WriteFile(out, []byte("out of "+filepath.Base(c.Args[0])), 0o644)
		}
		return nil
	}
	for i, want := range []int{3, 3} {
		inv := invoke(t, dir, handler, "--cuda-path="+cuda, "--cache-dir="+cacheDir, "--wrapper-verbose", "--linker-path=/usr/bin/ld", "-o", "$D/app", "$D/cuda.out")
		require.NoError(t, inv.err, inv.stderr.String())
		assert.Equal(t, want, device, "link %d: ptxas, ptxas, nvlink once", i)
		if i == 1 {
			assert.Contains(t, inv.stderr.String(), "device link nvptx64-nvidia-cuda sm_90")
			assert.Contains(t, inv.stderr.String(), "cache hit")
			assert.Contains(t, inv.stderr.String(), "ptxas: info\nptxas: info\nnvlink: info\n")
		}
	}
}

// TestDeviceLinkCacheKeyCoversDeviceFiles: files the device link reads
// besides its input images enter the key by content: a device library
// given with --device-linker (-L/-l, resolved over every search
// directory, or by path), a linker script, and a response file. Changing
// any of them is a miss; an unrelated file is not.
func TestDeviceLinkCacheKeyCoversDeviceFiles(t *testing.T) {
	dir := testDir(t)
	cacheDir := t.TempDir()
	clang := fakeClangFile(t)
	for _, sub := range []string{"a", "b"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, sub), 0o755))
	}
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("b/libdevx.a", "!<arch>\nversion 41")
	write("dev.ld", "SECTIONS { }")
	write("byname.a", "!<arch>\nby name")
	write("more.rsp", "-Lb")
	var links atomic.Int32
	link := func(want int32, why string) string {
		t.Helper()
		inv := invoke(t, dir, countingHandler(&links), "--linker-path=/usr/bin/ld", "--clang-path="+clang, "--cache-dir="+cacheDir,
			"--wrapper-verbose", "--device-linker=-L$D/a", "--device-linker=-L$D/b", "--device-linker=-ldevx",
			"--device-linker=-T$D/dev.ld", "--device-linker=$D/byname.a", "--device-linker=@$D/more.rsp",
			"-o", "$D/app", "$D/lib_main.o")
		require.NoError(t, inv.err, inv.stderr.String())
		assert.Equal(t, want, links.Load(), "%s\n%s", why, inv.stderr.String())
		return inv.stderr.String()
	}
	link(1, "cold")
	link(1, "warm: hit")
	write("b/libdevx.a", "!<arch>\nversion 42")
	link(2, "rebuilt -l library")
	write("a/libdevx.so", "\x7fELF shadowing")
	link(3, "a library earlier in the search path appears")
	write("dev.ld", "SECTIONS { .text : { } }")
	link(4, "linker script changed")
	write("byname.a", "!<arch>\nby name, rebuilt")
	link(5, "library named by path changed")
	write("more.rsp", "-Lb -La")
	link(6, "response file changed")
	write("a/unrelated.txt", "x")
	link(6, "an unrelated file changes nothing")
	out := link(6, "hit")
	assert.Contains(t, out, "cache hit")
}

// TestDeviceLinkCacheUncertain: a linker whose search directories are
// unknown, or a clang whose -### fails, means no caching; -v says why.
func TestDeviceLinkCacheUncertain(t *testing.T) {
	dir := testDir(t)
	cacheDir := t.TempDir()
	clang := fakeClangFile(t)
	var links atomic.Int32
	for _, tc := range []struct {
		name    string
		hashes  func(c *run.Cmd)
		message string
	}{
		{"unknown linker", func(c *run.Cmd) { fmt.Fprintf(c.Stderr, " %q \"-ldevx\"\n", c.Args[0]) }, "resolves -ldevx over search directories offload-kit cannot know"},
		{"-### fails", nil, "-### failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := links.Load()
			handler := func(c *run.Cmd) error {
				if c.Args[len(c.Args)-1] == "-###" {
					if tc.hashes == nil {
						return &run.Error{Args: c.Args, ExitCode: 1}
					}
					tc.hashes(c)
					return nil
				}
				return countingHandler(&links)(c)
			}
			for range 2 {
				inv := invoke(t, dir, handler, "--linker-path=/usr/bin/ld", "--clang-path="+clang, "--cache-dir="+cacheDir,
					"--wrapper-verbose", "--device-linker=-ldevx", "-o", "$D/app", "$D/lib_main.o")
				require.NoError(t, inv.err, inv.stderr.String())
				assert.Contains(t, inv.stderr.String(), "is not cached: ")
				assert.Contains(t, inv.stderr.String(), tc.message)
			}
			assert.Equal(t, before+2, links.Load(), "both links ran")
		})
	}
}

// TestDeviceLinkCacheReplayEscaped: a hit replays the recorded output with
// control characters made visible.
func TestDeviceLinkCacheReplayEscaped(t *testing.T) {
	dir := testDir(t)
	cacheDir := t.TempDir()
	clang := fakeClangFile(t)
	handler := func(c *run.Cmd) error {
		if fakeHashHashHash(c) {
			return nil
		}
		if slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--target=") }) {
			c.Stderr.Write([]byte("warning: \x1b[31mred\x1b[0m\r\n"))
		}
		return touchOutput(c)
	}
	var outs []string
	for range 2 {
		inv := invoke(t, dir, handler, "--linker-path=/usr/bin/ld", "--clang-path="+clang, "--cache-dir="+cacheDir, "-o", "$D/app", "$D/lib_main.o")
		require.NoError(t, inv.err, inv.stderr.String())
		outs = append(outs, inv.stderr.String())
	}
	assert.Contains(t, outs[0], "warning: \x1b[31mred", "a live link's output passes through")
	assert.Contains(t, outs[1], `warning: \x1b[31mred\x1b[0m\r`+"\n", "the replay is escaped")
	assert.NotContains(t, outs[1], "\x1b")
}

// TestCacheOptions: every cache option docs/cache.md names is parsed;
// unknown ones are errors, never host-linker arguments.
func TestCacheOptions(t *testing.T) {
	o, err := ParseArgs([]string{"--cache-dir=/c", "--cache-timeout=1500ms", "--cache-remote-read-only",
		"--cache-remote-header=Authorization: Bearer t", "--cache-remote-header=X-Team:a", "--cache-tool-check=stat",
		"--cache-secret-file=/s", "--cache-max-size=1G", "--cache-remote=https://h", "a.o"})
	require.NoError(t, err)
	assert.Equal(t, 1500*time.Millisecond, o.CacheTimeout)
	assert.True(t, o.CacheRemoteReadOnly)
	assert.Equal(t, []string{"Authorization: Bearer t", "X-Team:a"}, o.CacheRemoteHeaders)
	assert.True(t, o.CacheToolStat)
	assert.Equal(t, "/s", o.CacheSecretFile)
	for _, bad := range []struct{ arg, msg string }{
		{"--cache-foo", "unknown cache option --cache-foo"},
		{"--cache-timout=1s", "unknown cache option --cache-timout"},
		{"-cache-timeout=1s", "unknown cache option -cache-timeout"},
		{"--cache-dir", "unknown cache option --cache-dir"},
		{"--cache-timeout=soon", "--cache-timeout=soon: expected a positive duration"},
		{"--cache-timeout=-1s", "expected a positive duration"},
		{"--cache-tool-check=mtime", "expected 'content' or 'stat'"},
		{"--cache-remote-header=novalue", "expected <name>:<value>"},
	} {
		_, err := ParseArgs([]string{bad.arg, "a.o"})
		assert.ErrorContains(t, err, bad.msg, bad.arg)
	}
}

// TestDeviceLinkCacheBadRemote: a bad --cache-remote URL is a warning and
// the local cache still works.
func TestDeviceLinkCacheBadRemote(t *testing.T) {
	dir := testDir(t)
	cacheDir := t.TempDir()
	clang := fakeClangFile(t)
	var links atomic.Int32
	for i, want := range []string{"cache miss", "cache hit"} {
		inv := invoke(t, dir, countingHandler(&links), "--linker-path=/usr/bin/ld", "--clang-path="+clang, "--cache-dir="+cacheDir,
			"--cache-remote=ftp://cache.example/", "--wrapper-verbose", "-o", "$D/app", "$D/lib_main.o")
		require.NoError(t, inv.err, inv.stderr.String())
		assert.Contains(t, inv.stderr.String(), `linker-wrapper: warning: cache: remote "ftp://cache.example/": want an http://, https://, grpc:// or grpcs:// URL; using the local cache only`)
		assert.Contains(t, inv.stderr.String(), want, "link %d", i)
	}
	assert.Equal(t, int32(1), links.Load())
}

// TestDeviceLinkCacheDeviceLibraryRebuilt is issue 14's stale hit, end to
// end through clang-22 -B<dir>: a device library given only to the device
// link (-Xoffload-linker -L. -Xoffload-linker -ldev) is rebuilt so that
// devfn returns 42 instead of 41; the relink must miss and the program
// must print 42. (The host's devfn returns -1: the output shows that the
// device image ran.)
func TestDeviceLinkCacheDeviceLibraryRebuilt(t *testing.T) {
	cc := findTool(t, "clang-22", "clang")
	ar := findTool(t, "llvm-ar-22", "llvm-ar", "ar")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	dir := t.TempDir()
	cacheDir := filepath.Join(t.TempDir(), "cache")
	files := map[string]string{
		"main.c": "#include <stdio.h>\n#pragma omp declare target\nextern int devfn(void);\n#pragma omp end declare target\n" +
			"int main(void) {\n  int r = 0;\n#pragma omp target map(from: r)\n  r = devfn();\n  printf(\"%d\\n\", r);\n  return 0;\n}\n",
		"host.c": "int devfn(void) { return -1; }\n",
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	f := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-L" + lib, "-Wno-unused-command-line-argument"}
	sh(t, dir, nil, cmdline(cc, f, "-c", "main.c", "host.c")...)
	buildLib := func(value string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "dev.c"), []byte("int devfn(void) { return "+value+"; }\n"), 0o644))
		sh(t, dir, nil, cc, "-c", "-fPIC", "dev.c", "-o", "dev.o")
		os.Remove(filepath.Join(dir, "libdev.a"))
		sh(t, dir, nil, ar, "rcs", "libdev.a", "dev.o")
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "OFFLOAD_KIT_CACHE_DIR=" + cacheDir, "OFFLOAD_KIT_VERBOSE=1"}
	link := func() string {
		var stderr bytes.Buffer
		err := run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Env: tmproot.Env(env), Stderr: &stderr,
			Args: cmdline(cc, f, "-B"+bin, "main.o", "host.o", "-Xoffload-linker", "-L.", "-Xoffload-linker", "-ldev", "-o", "app")})
		require.NoError(t, err, stderr.String())
		return stderr.String()
	}
	runApp := func() string {
		return sh(t, dir, []string{"LD_LIBRARY_PATH=" + lib, "PATH=" + os.Getenv("PATH")}, "./app")
	}
	buildLib("41")
	assert.Contains(t, link(), "1 misses; 1 inserts")
	assert.Equal(t, "41\n", runApp())
	assert.Contains(t, link(), "1 lookups, 1 hits (1 local, 0 remote), 0 misses", "unchanged: a hit")
	assert.Equal(t, "41\n", runApp())
	buildLib("42")
	assert.Contains(t, link(), "1 lookups, 0 hits (0 local, 0 remote), 1 misses", "rebuilt device library: a miss")
	assert.Equal(t, "42\n", runApp(), "the relinked program runs the new device code")
	assert.Contains(t, link(), "1 hits", "and the new result is cached")
	assert.Equal(t, "42\n", runApp())
}
