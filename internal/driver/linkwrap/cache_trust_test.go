package linkwrap

// Issue 23 (trust, round three): the device-link cache's directory and
// secret file, and what its keys hold (docs/cache.md, "Trust model" and
// "Key derivation").

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/internal/cache"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// invokeIn is invoke with an environment and the link's working directory
// set to dir.
func invokeIn(t *testing.T, dir string, env map[string]string, handler func(c *run.Cmd) error, args ...string) *invocation {
	t.Helper()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "$D", dir)
	}
	opts, err := ParseArgs(args)
	require.NoError(t, err)
	inv := &invocation{}
	inv.fake.Handler = handler
	inv.err = Run(context.Background(), &Env{
		Env: driverenv.Env{Stderr: &inv.stderr, NumCPU: 4, Now: time.Now, Dir: dir,
			LookupEnv: driverenv.FromGetenv(func(k string) string {
				if k == "OFFLOAD_KIT_CLANG" {
					return "/fake/clang"
				}
				return env[k]
			}), Runner: &inv.fake},
	}, *opts)
	return inv
}

// TestCacheKeyEnvironment: every variable the device link's tools read
// (cacheEnv: LD_RUN_PATH and the rest) is in the key; others are not.
func TestCacheKeyEnvironment(t *testing.T) {
	dir := testDir(t)
	cacheDir := t.TempDir()
	clang := fakeClangFile(t)
	var links atomic.Int32
	link := func(env map[string]string) {
		t.Helper()
		inv := invokeIn(t, dir, env, countingHandler(&links), "--linker-path=/usr/bin/ld", "--clang-path="+clang,
			"--cache-dir="+cacheDir, "-o", "$D/app", "$D/lib_main.o", "$D/libdev.a")
		require.NoError(t, inv.err, inv.stderr.String())
	}
	link(nil)
	require.Equal(t, int32(1), links.Load())
	link(map[string]string{"TERM": "xterm", "PWD": "/elsewhere", "OLDPWD": "/x"})
	assert.Equal(t, int32(1), links.Load(), "variables no device tool reads: a hit")
	link(map[string]string{"LD_RUN_PATH": "/opt/a/lib"})
	assert.Equal(t, int32(2), links.Load(), "LD_RUN_PATH sets the image's RUNPATH: a miss")
	link(map[string]string{"LD_RUN_PATH": "/opt/b/lib"})
	assert.Equal(t, int32(3), links.Load(), "another LD_RUN_PATH: a miss")
	link(map[string]string{"LD_RUN_PATH": "/opt/a/lib"})
	assert.Equal(t, int32(3), links.Load(), "the first LD_RUN_PATH again: a hit")
	n := links.Load()
	for _, name := range cacheEnv {
		if name == "LD_RUN_PATH" {
			continue
		}
		link(map[string]string{name: "/some/value-" + name})
		n++
		assert.Equal(t, n, links.Load(), "%s is in the key", name)
	}
	for _, name := range []string{"LIBRARY_PATH", "COMPILER_PATH", "GCC_EXEC_PREFIX", "SOURCE_DATE_EPOCH", "CPATH",
		"C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "LD_LIBRARY_PATH", "GNUTARGET", "LDEMULATION"} {
		assert.Contains(t, cacheEnv, name)
	}
}

// portableProject writes the files of a small project into dir: a device
// library in lib/ given to the device link by absolute -L and by path.
func portableProject(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lib", "libdevx.a"), []byte("!<arch>\nversion 41"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lib", "extra.a"), []byte("!<arch>\nextra"), 0o644))
}

// TestCacheKeyPortableCheckouts: two checkouts of one tree in different
// directories (absolute paths in the device link's arguments) share
// entries; a changed file still misses; a path the linker embeds
// (-rpath) stays absolute, so it misses.
func TestCacheKeyPortableCheckouts(t *testing.T) {
	cacheDir := t.TempDir()
	clang := fakeClangFile(t)
	one := testDir(t)
	two := filepath.Join(testDir(t), "deeper", "checkout")
	require.NoError(t, os.MkdirAll(two, 0o755))
	for _, n := range []string{"lib_main.o", "libdev.a"} {
		data, err := os.ReadFile(filepath.Join(one, n))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(two, n), data, 0o644))
	}
	portableProject(t, one)
	portableProject(t, two)
	var links atomic.Int32
	link := func(dir string, extra ...string) string {
		t.Helper()
		args := append([]string{"--linker-path=/usr/bin/ld", "--clang-path=" + clang, "--cache-dir=" + cacheDir, "--wrapper-verbose",
			"--device-linker=-L$D/lib", "--device-linker=-ldevx", "--device-linker=$D/lib/extra.a",
			"-o", "$D/app", "$D/lib_main.o", "$D/libdev.a"}, extra...)
		inv := invokeIn(t, dir, nil, countingHandler(&links), args...)
		require.NoError(t, inv.err, inv.stderr.String())
		return inv.stderr.String()
	}
	link(one)
	require.Equal(t, int32(1), links.Load())
	out := link(two)
	assert.Equal(t, int32(1), links.Load(), "the second checkout hits:\n%s", out)
	assert.Contains(t, out, "cache hit")

	require.NoError(t, os.WriteFile(filepath.Join(two, "lib", "libdevx.a"), []byte("!<arch>\nversion 42"), 0o644))
	link(two)
	assert.Equal(t, int32(2), links.Load(), "a changed library in the second checkout: a miss")

	link(one, "--device-linker=-rpath=$D/lib")
	assert.Equal(t, int32(3), links.Load())
	link(two, "--device-linker=-rpath=$D/lib")
	assert.Equal(t, int32(4), links.Load(), "-rpath is written into the image: it stays absolute")
}

// TestCacheKeyRoots: what keyRoots rewrites and what it leaves.
func TestCacheKeyRoots(t *testing.T) {
	r := keyRoots{roots: [][2]string{{"/src/proj/build", "\x00outdir\x00"}, {"/src/proj", "\x00cwd\x00"}}, avoid: []string{"/tmp/scratch"}}
	assert.Equal(t, "\x00cwd\x00/lib/libx.a", r.path("/src/proj/lib/libx.a"))
	assert.Equal(t, "\x00outdir\x00/liby.a", r.path("/src/proj/build/liby.a"))
	assert.Equal(t, "/src/project/x.a", r.path("/src/project/x.a"), "a sibling with a longer name")
	assert.Equal(t, "/usr/lib/libc.so", r.path("/usr/lib/libc.so"))
	assert.Equal(t, "rel/x.a", r.path("rel/x.a"))
	got := r.args([]string{"-L/src/proj/lib", "-Wl,--whole-archive,/src/proj/a.a", "-rpath", "/src/proj/lib",
		"-Wl,-rpath,/src/proj/lib", "-R/src/proj/lib", "-Xlinker", "-rpath", "-Xlinker", "/src/proj/lib",
		"-soname=/src/proj/x", "/tmp/scratch/in.o", "/src/project/x"})
	assert.Equal(t, []string{"-L\x00cwd\x00/lib", "-Wl,--whole-archive,\x00cwd\x00/a.a", "-rpath", "/src/proj/lib",
		"-Wl,-rpath,/src/proj/lib", "-R/src/proj/lib", "-Xlinker", "-rpath", "-Xlinker", "/src/proj/lib",
		"-soname=/src/proj/x", "/tmp/scratch/in.o", "/src/project/x"}, got)
}

// TestCacheUnsafeDirectoryWarns: a cache directory others can write is
// not used: one warning line naming it and the reason, and the link runs
// uncached (every time).
func TestCacheUnsafeDirectoryWarns(t *testing.T) {
	dir := testDir(t)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	require.NoError(t, os.Mkdir(cacheDir, 0o700))
	require.NoError(t, os.Chmod(cacheDir, 0o777))
	clang := fakeClangFile(t)
	var links atomic.Int32
	for i := range 2 {
		inv := invokeIn(t, dir, nil, countingHandler(&links), "--linker-path=/usr/bin/ld", "--clang-path="+clang,
			"--cache-dir="+cacheDir, "-o", "$D/app", "$D/lib_main.o", "$D/libdev.a")
		require.NoError(t, inv.err, inv.stderr.String())
		assert.Equal(t, int32(i+1), links.Load(), "uncached")
		var warns []string
		for _, l := range strings.Split(inv.stderr.String(), "\n") {
			if strings.Contains(l, "warning:") {
				warns = append(warns, l)
			}
		}
		require.Len(t, warns, 1, inv.stderr.String())
		assert.True(t, strings.HasPrefix(warns[0], "linker-wrapper: warning: not using the device-link cache "+cacheDir+": "+cacheDir+": writable by group and others (mode 0777)"), warns[0])
	}
	entries, err := os.ReadDir(cacheDir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written into it")
}

// TestCacheSecretFilePermissions: a secret others can read or anyone else
// can write is refused with a warning (the link runs uncached); 0600 and
// 0640 are accepted.
func TestCacheSecretFilePermissions(t *testing.T) {
	dir := testDir(t)
	clang := fakeClangFile(t)
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte(strings.Repeat("s", 32)), 0o600))
	var links atomic.Int32
	link := func(mode os.FileMode) string {
		t.Helper()
		require.NoError(t, os.Chmod(secret, mode))
		inv := invokeIn(t, dir, nil, countingHandler(&links), "--linker-path=/usr/bin/ld", "--clang-path="+clang,
			"--cache-dir="+filepath.Join(t.TempDir(), "c"), "--cache-secret-file="+secret, "-o", "$D/app", "$D/lib_main.o", "$D/libdev.a")
		require.NoError(t, inv.err, inv.stderr.String())
		return inv.stderr.String()
	}
	for _, m := range []os.FileMode{0o600, 0o640} {
		assert.NotContains(t, link(m), "warning", "mode %o", m)
	}
	for _, m := range []os.FileMode{0o644, 0o604, 0o620, 0o666} {
		out := link(m)
		assert.Contains(t, out, "linker-wrapper: warning: device-link cache disabled: --cache-secret-file: "+secret+": readable or writable by others", "mode %o", m)
	}
}

// TestDeviceLinkCacheSquatted is attack 1 end to end (root: CI runs as
// root). uid 65534 creates the victim's --cache-dir first and forges an
// entry for the victim's key (the MAC key is public without a secret)
// holding another program's device image (devfn returns 666), then makes
// the directory world-writable. The victim's link (root) must warn, ignore
// the directory and produce a program that prints 41. A private copy of
// the same directory shows the forged entry is valid.
func TestDeviceLinkCacheSquatted(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as uid 65534 (CI runs as root)")
	}
	if os.Getenv("SQUAT_HELPER_DIR") != "" {
		return // TestSquatHelper's environment
	}
	cc := findTool(t, "clang-22", "clang")
	ar := findTool(t, "llvm-ar-22", "llvm-ar", "ar")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	f := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-L" + lib, "-Wno-unused-command-line-argument"}
	// One main.o for both programs: the kernels' names hold the source
	// file's identity, so the attacker's image must come from the same
	// objects with another device library.
	var objs string
	project := func(value string) string {
		dir := t.TempDir()
		files := map[string]string{
			"main.c": "#include <stdio.h>\n#pragma omp declare target\nextern int devfn(void);\n#pragma omp end declare target\n" +
				"int main(void) {\n  int r = 0;\n#pragma omp target map(from: r)\n  r = devfn();\n  printf(\"%d\\n\", r);\n  return 0;\n}\n",
			"host.c": "int devfn(void) { return -1; }\n",
			"dev.c":  "int devfn(void) { return " + value + "; }\n",
		}
		for name, text := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
		}
		if objs == "" {
			sh(t, dir, nil, cmdline(cc, f, "-c", "main.c", "host.c")...)
			objs = dir
		} else {
			for _, o := range []string{"main.o", "host.o"} {
				data, err := os.ReadFile(filepath.Join(objs, o))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, o), data, 0o644))
			}
		}
		sh(t, dir, nil, cc, "-c", "-fPIC", "dev.c", "-o", "dev.o")
		sh(t, dir, nil, ar, "rcs", "libdev.a", "dev.o")
		return dir
	}
	link := func(dir, cacheDir string) string {
		var stderr bytes.Buffer
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "OFFLOAD_KIT_CACHE_DIR=" + cacheDir, "OFFLOAD_KIT_VERBOSE=1"}
		err := run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Env: env, Stderr: &stderr,
			Args: cmdline(cc, f, "-B"+bin, "main.o", "host.o", "-Xoffload-linker", "-L.", "-Xoffload-linker", "-ldev", "-o", "app")})
		require.NoError(t, err, stderr.String())
		return stderr.String()
	}
	runApp := func(dir string) string {
		return sh(t, dir, []string{"LD_LIBRARY_PATH=" + lib, "PATH=" + os.Getenv("PATH")}, "./app")
	}
	victim, evil := project("41"), project("666")
	// The key of the victim's link and the other program's image, from
	// private caches.
	keyCache, imgCache := filepath.Join(t.TempDir(), "k"), filepath.Join(t.TempDir(), "i")
	link(victim, keyCache)
	link(evil, imgCache)
	require.Equal(t, "666\n", runApp(evil))
	acs, _ := filepath.Glob(filepath.Join(keyCache, "v1", "ac", "*", "*"))
	require.Len(t, acs, 1)
	blobs, _ := filepath.Glob(filepath.Join(imgCache, "v1", "cas", "*", "*"))
	require.Len(t, blobs, 1)

	// The attacker, uid 65534, squats the directory the victim will use.
	pub := filepath.Join(t.TempDir(), "pub")
	require.NoError(t, os.Mkdir(pub, 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(pub), 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(filepath.Dir(pub)), 0o755))
	require.NoError(t, os.Chmod(pub, 0o777|os.ModeSticky))
	forged := filepath.Join(pub, "forged-image")
	data, err := os.ReadFile(blobs[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(forged, data, 0o644))
	squat := filepath.Join(pub, "cache")
	exe, err := os.Executable()
	require.NoError(t, err)
	exeCopy := filepath.Join(pub, "linkwrap.test")
	exeData, err := os.ReadFile(exe)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(exeCopy, exeData, 0o755))
	cmd := exec.Command(exeCopy, "-test.run=^TestSquatHelper$", "-test.count=1", "-test.v")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=/tmp", "SQUAT_HELPER_DIR=" + squat,
		"SQUAT_HELPER_KEY=" + filepath.Base(acs[0]), "SQUAT_HELPER_IMAGE=" + forged}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "FORGED")

	// Control: the forged entry is a valid hit for a directory the
	// victim owns.
	ctl := filepath.Join(t.TempDir(), "ctl")
	require.NoError(t, exec.Command("cp", "-a", squat, ctl).Run())
	require.NoError(t, exec.Command("chown", "-R", "0:0", ctl).Run())
	require.NoError(t, exec.Command("chmod", "-R", "go-w", ctl).Run())
	assert.Contains(t, link(victim, ctl), "1 hits")
	assert.Equal(t, "666\n", runApp(victim), "without the check the victim runs the attacker's device code")

	// The victim's link into the squatted directory: warned, ignored.
	stderr := link(victim, squat)
	assert.Contains(t, stderr, "linker-wrapper: warning: not using the device-link cache "+squat+": "+squat+": owned by uid 65534, not by uid 0")
	assert.NotContains(t, stderr, "cache hit")
	assert.Equal(t, "41\n", runApp(victim), "the victim's own device code")
}

// TestSquatHelper is the attacker of TestDeviceLinkCacheSquatted, run as
// uid 65534; it does nothing in a normal run.
func TestSquatHelper(t *testing.T) {
	dir := os.Getenv("SQUAT_HELPER_DIR")
	if dir == "" {
		t.Skip("helper for TestDeviceLinkCacheSquatted")
	}
	key, err := cache.ParseKey(os.Getenv("SQUAT_HELPER_KEY"))
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(dir, 0o700))
	c, err := cache.Open(cache.Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, c.Put(context.Background(), key, cache.Entry{Files: map[string]string{"image": os.Getenv("SQUAT_HELPER_IMAGE")}}))
	require.NoError(t, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			err = os.Chmod(p, 0o777)
		}
		return err
	}))
	t.Log("FORGED")
}

// twoCheckouts makes one small OpenMP project (main.c calls devfn from a
// target region; lib/libdev.a has the device definition, host.c a host
// one) compiled in one directory, copied to a second, deeper one, as two
// CI workers would check it out. f are the OpenMP flags it was built with.
func twoCheckouts(t *testing.T, cc, lib string) (one, two string, f []string) {
	t.Helper()
	ar := findTool(t, "llvm-ar-22", "llvm-ar", "ar")
	f = []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-L" + lib, "-Wno-unused-command-line-argument"}
	one = filepath.Join(t.TempDir(), "proj")
	require.NoError(t, os.MkdirAll(filepath.Join(one, "lib"), 0o755))
	files := map[string]string{
		"main.c": "#include <stdio.h>\n#pragma omp declare target\nextern int devfn(void);\n#pragma omp end declare target\n" +
			"int main(void) {\n  int r = 0;\n#pragma omp target map(from: r)\n  r = devfn();\n  printf(\"%d\\n\", r);\n  return 0;\n}\n",
		"host.c":    "int devfn(void) { return -1; }\n",
		"lib/dev.c": "int devfn(void) { return 41; }\n",
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(one, name), []byte(text), 0o644))
	}
	sh(t, one, nil, cmdline(cc, f, "-c", "main.c", "host.c")...)
	sh(t, one, nil, cc, "-c", "-fPIC", "lib/dev.c", "-o", "lib/dev.o")
	sh(t, one, nil, ar, "rcs", "lib/libdev.a", "lib/dev.o")
	two = filepath.Join(t.TempDir(), "ci", "worker-7", "proj")
	require.NoError(t, os.MkdirAll(filepath.Dir(two), 0o755))
	require.NoError(t, exec.Command("cp", "-a", one, two).Run())
	return one, two, f
}

// TestDeviceLinkCacheTwoCheckouts is attack 2's portability end to end
// through clang-22 -B<dir>: one OpenMP project, built once, copied to a
// second directory at another depth (as a CI worker restores a tree), is
// linked in each with absolute paths (objects, -Xoffload-linker -L<dir>/lib
// -ldev). The second link must hit the first one's entry and print the
// right value. (Objects compiled separately in each checkout differ: clang
// names OpenMP kernels after the source file's device and inode, so their
// device images differ and must miss.)
func TestDeviceLinkCacheTwoCheckouts(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	one, two, f := twoCheckouts(t, cc, lib)

	cacheDir := filepath.Join(t.TempDir(), "cache")
	link := func(dir string) string {
		var stderr bytes.Buffer
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "OFFLOAD_KIT_CACHE_DIR=" + cacheDir, "OFFLOAD_KIT_VERBOSE=1"}
		err := run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Env: env, Stderr: &stderr,
			Args: cmdline(cc, f, "-B"+bin, filepath.Join(dir, "main.o"), filepath.Join(dir, "host.o"),
				"-Xoffload-linker", "-L"+filepath.Join(dir, "lib"), "-Xoffload-linker", "-ldev", "-o", filepath.Join(dir, "app"))})
		require.NoError(t, err, stderr.String())
		assert.Equal(t, "41\n", sh(t, dir, []string{"LD_LIBRARY_PATH=" + lib, "PATH=" + os.Getenv("PATH")}, "./app"))
		return stderr.String()
	}
	assert.Contains(t, link(one), "1 misses; 1 inserts")
	out := link(two)
	assert.Contains(t, out, "1 lookups, 1 hits (1 local, 0 remote), 0 misses", "the second checkout hits")

	// A changed device library in the second checkout misses.
	require.NoError(t, os.WriteFile(filepath.Join(two, "lib", "dev.c"), []byte("int devfn(void) { return 43; }\n"), 0o644))
	sh(t, two, nil, cc, "-c", "-fPIC", "lib/dev.c", "-o", "lib/dev.o")
	require.NoError(t, os.Remove(filepath.Join(two, "lib", "libdev.a")))
	sh(t, two, nil, findTool(t, "llvm-ar-22", "llvm-ar", "ar"), "rcs", "lib/libdev.a", "lib/dev.o")
	var stderr bytes.Buffer
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "OFFLOAD_KIT_CACHE_DIR=" + cacheDir, "OFFLOAD_KIT_VERBOSE=1"}
	require.NoError(t, run.Exec{}.Run(context.Background(), &run.Cmd{Dir: two, Env: env, Stderr: &stderr,
		Args: cmdline(cc, f, "-B"+bin, filepath.Join(two, "main.o"), filepath.Join(two, "host.o"),
			"-Xoffload-linker", "-L"+filepath.Join(two, "lib"), "-Xoffload-linker", "-ldev", "-o", filepath.Join(two, "app"))}), stderr.String())
	assert.Contains(t, stderr.String(), "0 hits")
	assert.Equal(t, "43\n", sh(t, two, []string{"LD_LIBRARY_PATH=" + lib, "PATH=" + os.Getenv("PATH")}, "./app"))
}

// TestCacheDirectoryAsUnprivilegedUser runs the driver as uid 65534
// (setpriv --reuid=65534 --regid=65534 --clear-groups, re-running this
// test binary's TestCacheTrustHelper): a directory root created is not
// its own (warned, uncached); one it creates itself is used (the second
// link hits); one it made world-writable is refused. Needs root.
func TestCacheDirectoryAsUnprivilegedUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run as uid 65534 (CI runs as root)")
	}
	setpriv, err := exec.LookPath("setpriv")
	require.NoError(t, err, "setpriv (util-linux)")
	pub := filepath.Join(t.TempDir(), "pub")
	require.NoError(t, os.Mkdir(pub, 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(pub), 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(filepath.Dir(pub)), 0o755))
	require.NoError(t, os.Chmod(pub, 0o777|os.ModeSticky))
	exe, err := os.Executable()
	require.NoError(t, err)
	data, err := os.ReadFile(exe)
	require.NoError(t, err)
	exeCopy := filepath.Join(pub, "linkwrap.test")
	require.NoError(t, os.WriteFile(exeCopy, data, 0o755))
	wd, err := os.Getwd()
	require.NoError(t, err)
	asNobody := func(cacheDir, mode string) string {
		t.Helper()
		cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", exeCopy,
			"-test.run=^TestCacheTrustHelper$", "-test.count=1", "-test.v")
		cmd.Dir = wd
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=/tmp", "TRUST_CACHE_DIR=" + cacheDir, "TRUST_MODE=" + mode}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	roots := filepath.Join(pub, "roots")
	require.NoError(t, os.Mkdir(roots, 0o755))
	out := asNobody(roots, "")
	assert.Contains(t, out, "linker-wrapper: warning: not using the device-link cache "+roots+": "+roots+": owned by uid 0, not by uid 65534")
	assert.Contains(t, out, "LINKS 2", "both links ran: uncached")

	mine := filepath.Join(pub, "mine")
	out = asNobody(mine, "")
	assert.NotContains(t, out, "warning:")
	assert.Contains(t, out, "LINKS 1", "its own new directory: the second link hits")
	st, err := os.Stat(mine)
	require.NoError(t, err)
	assert.Equal(t, uint32(65534), st.Sys().(*syscall.Stat_t).Uid)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())

	ww := filepath.Join(pub, "ww")
	out = asNobody(ww, "world")
	assert.Contains(t, out, "linker-wrapper: warning: not using the device-link cache "+ww+": "+ww+": writable by group and others (mode 0777)")
	assert.Contains(t, out, "LINKS 2")
}

// TestCacheTrustHelper links twice with the fake runner into
// $TRUST_CACHE_DIR and prints the driver's stderr and the number of device
// links; it does nothing in a normal run.
func TestCacheTrustHelper(t *testing.T) {
	cacheDir := os.Getenv("TRUST_CACHE_DIR")
	if cacheDir == "" {
		t.Skip("helper for TestCacheDirectoryAsUnprivilegedUser")
	}
	if os.Getenv("TRUST_MODE") == "world" {
		require.NoError(t, os.Mkdir(cacheDir, 0o700))
		require.NoError(t, os.Chmod(cacheDir, 0o777))
	}
	dir := testDir(t)
	clang := fakeClangFile(t)
	var links atomic.Int32
	for range 2 {
		inv := invokeIn(t, dir, nil, countingHandler(&links), "--linker-path=/usr/bin/ld", "--clang-path="+clang,
			"--cache-dir="+cacheDir, "-o", "$D/app", "$D/lib_main.o", "$D/libdev.a")
		require.NoError(t, inv.err, inv.stderr.String())
		os.Stdout.WriteString(inv.stderr.String())
	}
	os.Stdout.WriteString("LINKS " + strconv.Itoa(int(links.Load())) + "\n")
}

// TestCacheSharedGroupEnvironment: OFFLOAD_KIT_CACHE_SHARED_GROUP lets a
// 2770 directory of that group be used; without it the group-writable
// directory is refused. Needs root (chown).
func TestCacheSharedGroupEnvironment(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the directory to group users")
	}
	dir := testDir(t)
	clang := fakeClangFile(t)
	cacheDir := filepath.Join(t.TempDir(), "shared")
	require.NoError(t, os.Mkdir(cacheDir, 0o700))
	require.NoError(t, os.Chown(cacheDir, 0, 100)) // Debian's "users"
	require.NoError(t, os.Chmod(cacheDir, 0o770|os.ModeSetgid))
	var links atomic.Int32
	link := func(env map[string]string) string {
		inv := invokeIn(t, dir, env, countingHandler(&links), "--linker-path=/usr/bin/ld", "--clang-path="+clang,
			"--cache-dir="+cacheDir, "-o", "$D/app", "$D/lib_main.o", "$D/libdev.a")
		require.NoError(t, inv.err, inv.stderr.String())
		return inv.stderr.String()
	}
	out := link(nil)
	assert.Contains(t, out, "not using the device-link cache "+cacheDir+": "+cacheDir+": writable by group")
	shared := map[string]string{cacheSharedGroupEnv: "users"}
	assert.NotContains(t, link(shared), "warning")
	assert.NotContains(t, link(shared), "warning")
	assert.Equal(t, int32(2), links.Load(), "uncached, then a miss, then a hit")
	st, err := os.Stat(filepath.Join(cacheDir, "v1", "cas"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o770)|os.ModeSetgid|os.ModeDir, st.Mode())
}

// TestCacheSharedGroupOption: --cache-shared-group=<group> admits a 2770
// setgid directory of that group, under the same rule as the variable, and
// wins over $OFFLOAD_KIT_CACHE_SHARED_GROUP both ways: the option's group
// is the one checked.
func TestCacheSharedGroupOption(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the directory to group users")
	}
	dir := testDir(t)
	clang := fakeClangFile(t)
	cacheDir := filepath.Join(t.TempDir(), "shared")
	require.NoError(t, os.Mkdir(cacheDir, 0o700))
	require.NoError(t, os.Chown(cacheDir, 0, 100)) // Debian's "users"
	require.NoError(t, os.Chmod(cacheDir, 0o770|os.ModeSetgid))
	var links atomic.Int32
	link := func(env map[string]string, group string) string {
		args := []string{"--linker-path=/usr/bin/ld", "--clang-path=" + clang, "--cache-dir=" + cacheDir, "-o", "$D/app", "$D/lib_main.o", "$D/libdev.a"}
		if group != "" {
			args = append([]string{"--cache-shared-group=" + group}, args...)
		}
		inv := invokeIn(t, dir, env, countingHandler(&links), args...)
		require.NoError(t, inv.err, inv.stderr.String())
		return inv.stderr.String()
	}
	refused := "not using the device-link cache " + cacheDir + ": " + cacheDir + ": "
	assert.Contains(t, link(nil, ""), refused+"writable by group")
	assert.NotContains(t, link(nil, "users"), "warning")
	assert.NotContains(t, link(nil, "100"), "warning", "a group number")
	assert.Equal(t, int32(2), links.Load(), "uncached, then a miss, then a hit")
	// the option wins over the variable, both ways
	assert.NotContains(t, link(map[string]string{cacheSharedGroupEnv: "nogroup"}, "users"), "warning")
	assert.Contains(t, link(map[string]string{cacheSharedGroupEnv: "users"}, "nogroup"), refused)
	_, err := ParseArgs([]string{"--cache-shared-group=", "a.o"})
	assert.EqualError(t, err, "--cache-shared-group=: expected a group name or number")
	o, err := ParseArgs([]string{"--cache-shared-group=users", "a.o"})
	require.NoError(t, err)
	assert.Equal(t, "users", o.CacheSharedGroup)
}

// ompEntryRe matches the name clang gives an OpenMP target region:
// __omp_offloading_<device>_<inode>_<function>_l<line>, device and inode
// of the source file in hex.
var ompEntryRe = regexp.MustCompile(`__omp_offloading_([0-9a-f]+)_([0-9a-f]+)_main_l[0-9]+`)

// TestDeviceLinkCacheRecompiledCheckout: one OpenMP source compiled in two
// directories (two checkouts, so two inodes) gives objects whose kernels
// are named after each file's inode. The device images differ in exactly
// those names, and the entries the wrapper registers come from the host
// objects: an image from the other checkout would have none of them, and
// the program could not run its target region. So the second link must
// miss, and its program run (docs/cache.md says why the key does not
// normalise these names). A key that normalised them without renaming
// the image would hit here and the program would fail.
func TestDeviceLinkCacheRecompiledCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	f := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-L" + lib, "-Wno-unused-command-line-argument"}
	src := "#include <stdio.h>\nint main(void) {\n  int r = 0;\n#pragma omp target map(from: r)\n  r = 41;\n  printf(\"%d\\n\", r);\n  return 0;\n}\n"
	cacheDir := filepath.Join(t.TempDir(), "cache")
	var names []string
	var outs []string
	for _, dir := range []string{filepath.Join(t.TempDir(), "a", "proj"), filepath.Join(t.TempDir(), "b", "proj")} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "main.c"), []byte(src), 0o644))
		sh(t, dir, nil, cmdline(cc, f, "-c", "main.c")...)
		obj, err := os.ReadFile(filepath.Join(dir, "main.o"))
		require.NoError(t, err)
		m := ompEntryRe.FindSubmatch(obj)
		require.NotNil(t, m, "no OpenMP entry name in main.o")
		var st syscall.Stat_t
		require.NoError(t, syscall.Stat(filepath.Join(dir, "main.c"), &st))
		assert.Equal(t, strconv.FormatUint(uint64(st.Ino), 16), string(m[2]), "the name carries main.c's inode")
		names = append(names, string(m[0]))
		var stderr bytes.Buffer
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "OFFLOAD_KIT_CACHE_DIR=" + cacheDir, "OFFLOAD_KIT_VERBOSE=1"}
		require.NoError(t, run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Env: env, Stderr: &stderr,
			Args: cmdline(cc, f, "-B"+bin, "main.o", "-o", "app")}), stderr.String())
		assert.Equal(t, "41\n", sh(t, dir, []string{"LD_LIBRARY_PATH=" + lib, "PATH=" + os.Getenv("PATH"), "OMP_TARGET_OFFLOAD=MANDATORY"}, "./app"))
		outs = append(outs, stderr.String())
	}
	require.NotEqual(t, names[0], names[1], "two inodes, two kernel names")
	assert.Contains(t, outs[0], "1 misses; 1 inserts")
	assert.Contains(t, outs[1], "0 hits", "the other checkout's image names other kernels: a miss")
}
