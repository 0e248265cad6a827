package linkwrap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/workdir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixture(name string) string { return filepath.Join("testdata", "fixtures", name) }

// testDir copies fixtures into a temp dir and builds libdev.a there.
func testDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var members []ar.WriteMember
	for _, n := range []string{"lib_main.o", "lib_dev.o", "lib_unused.o"} {
		data, err := os.ReadFile(fixture(n))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), data, 0o644))
		if n != "lib_main.o" {
			members = append(members, ar.WriteMember{Name: n, Data: data})
		}
	}
	f, err := os.Create(filepath.Join(dir, "libdev.a"))
	require.NoError(t, err)
	require.NoError(t, ar.WriteGNU(f, members))
	require.NoError(t, f.Close())
	return dir
}

// invocation runs the driver in dir with a fake runner.
type invocation struct {
	stderr bytes.Buffer
	fake   run.Fake
	err    error
}

func invoke(t *testing.T, dir string, handler func(c *run.Cmd) error, args ...string) *invocation {
	t.Helper()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "$D", dir)
	}
	opts, err := ParseArgs(args)
	require.NoError(t, err)
	inv := &invocation{}
	inv.fake.Handler = handler
	inv.err = Run(context.Background(), &Env{
		Env: driverenv.Env{Stderr: &inv.stderr, NumCPU: 4, Now: time.Now,
			LookupEnv: driverenv.FromGetenv(func(k string) string {
				if k == "OFFLOAD_KIT_CLANG" {
					return "/fake/clang"
				}
				return ""
			}), Runner: &inv.fake},
	}, *opts)
	return inv
}

var extractedRe = regexp.MustCompile(`^(.*)-x86_64-unknown-linux-gnu-generic(-[0-9a-f]{6})?\.o$`)

// deviceInputs returns the extracted-input stems of the device clang command.
func deviceInputs(cmd []string) []string {
	var out []string
	for _, a := range cmd {
		if m := extractedRe.FindStringSubmatch(filepath.Base(a)); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// touchOutput makes the fake device clang write its -o file.
func touchOutput(c *run.Cmd) error {
	for i, a := range c.Args {
		if a == "-o" && i+1 < len(c.Args) && strings.HasSuffix(c.Args[i+1], ".img") {
			return os.WriteFile(c.Args[i+1], []byte("\x7fELF fake image"), 0o644)
		}
	}
	return nil
}

func TestLazyArchiveExtraction(t *testing.T) {
	dir := testDir(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"lazy", []string{"$D/lib_main.o", "$D/libdev.a"}, []string{"lib_main", "lib_dev"}},
		{"lazy-order-independent", []string{"$D/libdev.a", "$D/lib_main.o"}, []string{"lib_main", "lib_dev"}},
		{"lazy-l", []string{"$D/lib_main.o", "-L$D", "-ldev"}, []string{"lib_main", "lib_dev"}},
		{"llvm22", []string{"--device-archives=llvm22", "$D/lib_main.o", "$D/libdev.a"}, []string{"lib_main", "lib_dev", "lib_unused"}},
		{"whole-archive", []string{"$D/lib_main.o", "--whole-archive", "$D/libdev.a", "--no-whole-archive"}, []string{"lib_main", "lib_dev", "lib_unused"}},
		{"should-extract-generic", []string{"--should-extract=generic", "$D/lib_main.o", "$D/libdev.a"}, []string{"lib_main", "lib_dev", "lib_unused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--dry-run", "--linker-path=/usr/bin/ld", "-o", "$D/app"}, tc.args...)
			inv := invoke(t, dir, nil, args...)
			require.NoError(t, inv.err)
			cmds := inv.fake.Commands()
			require.Equal(t, 0, len(cmds), "dry-run runs nothing")
			lines := strings.Split(strings.TrimSpace(dropToolNotes(inv.stderr.String())), "\n")
			require.Equal(t, 2, len(lines), inv.stderr.String())
			assert.Equal(t, tc.want, deviceInputs(strings.Fields(lines[0])))
		})
	}
}

func TestShouldExtractWarning(t *testing.T) {
	dir := testDir(t)
	inv := invoke(t, dir, nil, "--dry-run", "--linker-path=/usr/bin/ld", "--should-extract=gfx90a,generic", "$D/lib_main.o", "$D/libdev.a")
	require.NoError(t, inv.err)
	assert.Contains(t, inv.stderr.String(), "linker-wrapper: warning: --should-extract=gfx90a matched no device code")
	assert.True(t, !strings.Contains(inv.stderr.String(), "--should-extract=generic matched"))
}

func TestMissingLibrary(t *testing.T) {
	inv := invoke(t, t.TempDir(), nil, "--dry-run", "--linker-path=/usr/bin/ld", "-lnope", "-L$D")
	assert.ErrorContains(t, inv.err, "unable to find library -lnope")
	inv = invoke(t, t.TempDir(), nil, "--dry-run", "a.o")
	assert.ErrorContains(t, inv.err, "linker path missing, must pass 'linker-path'")
}

func TestRealLinkWithFakeTools(t *testing.T) {
	dir := testDir(t)
	var hostCmd []string
	inv := invoke(t, dir, func(c *run.Cmd) error {
		if c.Args[0] == "/usr/bin/ld" {
			hostCmd = c.Args
			return os.WriteFile(filepath.Join(dir, "app"), []byte("exe"), 0o755)
		}
		return touchOutput(c)
	}, "--linker-path=/usr/bin/ld", "--print-wrapped-module", "-o", "$D/app", "$D/lib_main.o", "-L$D", "-ldev")
	require.NoError(t, inv.err, inv.stderr.String())
	cmds := inv.fake.Commands()
	require.Equal(t, 2, len(cmds))
	assert.Equal(t, "/fake/clang", cmds[0][0])
	// The wrapper object follows -o <out>; it holds the image as an OffloadBinary.
	require.True(t, len(hostCmd) > 4)
	assert.Equal(t, []string{"/usr/bin/ld", "-o", filepath.Join(dir, "app")}, hostCmd[:3])
	wrapper := hostCmd[3]
	assert.True(t, strings.HasSuffix(filepath.Base(wrapper), ".o") && strings.HasPrefix(filepath.Base(wrapper), "app.openmp.image.wrapper-"), wrapper)
	_, err := os.Stat(wrapper)
	assert.True(t, errors.Is(err, os.ErrNotExist), "temporaries are removed")
	desc := inv.stderr.String()
	assert.Contains(t, desc, "registration object for openmp")
	assert.Contains(t, desc, `image 0: kind openmp, object, triple "x86_64-unknown-linux-gnu", arch ""`)
	assert.Contains(t, desc, "__tgt_register_lib")
}

func TestSaveTempsNamesExist(t *testing.T) {
	dir := testDir(t)
	out := filepath.Join(dir, "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	inv := invoke(t, dir, func(c *run.Cmd) error {
		if c.Args[0] == "/usr/bin/ld" {
			return nil
		}
		return touchOutput(c)
	}, "--save-temps", "--wrapper-verbose", "--linker-path=/usr/bin/ld", "-o", "$D/out/app", "$D/lib_main.o", "$D/libdev.a")
	require.NoError(t, inv.err, inv.stderr.String())
	for _, n := range []string{"lib_main-x86_64-unknown-linux-gnu-generic.o", "lib_dev-x86_64-unknown-linux-gnu-generic.o",
		"app.x86_64..img", "app.openmp.image.wrapper.o"} {
		_, err := os.Stat(filepath.Join(out, n))
		assert.NoError(t, err, n)
	}
	// Every saved temporary named in the printed commands exists.
	for _, f := range strings.Fields(inv.stderr.String()) {
		if strings.HasPrefix(f, out+"/") && !strings.HasSuffix(f, ".img.") && f != filepath.Join(out, "app") {
			_, err := os.Stat(f)
			assert.NoError(t, err, f)
		}
	}
}

func TestChildFailure(t *testing.T) {
	dir := testDir(t)
	fail := &run.Error{Args: []string{"/fake/clang", "-o", "x"}, ExitCode: 1, Stderr: []byte("ld.lld: error: undefined symbol: foo\n")}
	inv := invoke(t, dir, func(c *run.Cmd) error {
		if c.Args[0] == "/fake/clang" {
			return fail
		}
		t.Error("host link must not run after a device link failure")
		return nil
	}, "--linker-path=/usr/bin/ld", "-o", "$D/app", "$D/lib_main.o")
	var re *run.Error
	require.ErrorAs(t, inv.err, &re)
	assert.Equal(t, "'clang' failed with exit code 1", inv.err.Error())
	_, err := os.Stat(filepath.Join(dir, "app"))
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

func TestParallelDeviceLinks(t *testing.T) {
	dir := t.TempDir()
	// One raw OffloadBinary per arch: four independent device links.
	var pkg []byte
	for _, arch := range []string{"gfx90a", "gfx942", "gfx1030", "gfx1100"} {
		pkg = offload.AppendBinary(pkg, &offload.Image{ImageKind: format.ImgBitcode, OffloadKind: format.OfkOpenMP,
			Strings: []offload.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: arch}}, Image: []byte("BC\xc0\xde")})
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gpu.out"), pkg, 0o644))
	var running, peak atomic.Int32
	var mu sync.Mutex
	var order []string
	handler := func(c *run.Cmd) error {
		if c.Args[0] != "/fake/clang" {
			return nil
		}
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		running.Add(-1)
		mu.Lock()
		order = append(order, c.Args[7])
		mu.Unlock()
		return touchOutput(c)
	}
	trace := filepath.Join(dir, "trace.json")
	inv := invoke(t, dir, handler, "--wrapper-jobs=4", "--wrapper-time-trace="+trace, "--wrapper-time-trace-granularity=0",
		"--linker-path=/usr/bin/ld", "-o", "$D/app", "$D/gpu.out")
	require.NoError(t, inv.err, inv.stderr.String())
	assert.True(t, peak.Load() > 1, fmt.Sprintf("peak parallelism %d", peak.Load()))
	assert.Equal(t, 4, len(order))

	inv = invoke(t, dir, handler, "--wrapper-jobs=1", "--linker-path=/usr/bin/ld", "-o", "$D/app", "$D/gpu.out")
	require.NoError(t, inv.err)

	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	var tr struct {
		TraceEvents []struct{ Name string } `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &tr))
	names := map[string]int{}
	for _, e := range tr.TraceEvents {
		names[e.Name]++
	}
	for _, n := range []string{"Execute linker wrapper", "ExtractDeviceCode", "Link device input", "Clang", "Wrap bundled images", "Execute host linker"} {
		assert.True(t, names[n] > 0, n)
	}
	assert.Equal(t, 4, names["Link device input"])
}

func TestEmitFatbinOnlyOpenMP(t *testing.T) {
	dir := testDir(t)
	inv := invoke(t, dir, touchOutput, "--emit-fatbin-only", "--linker-path=/usr/bin/ld", "-o", "$D/fat.out", "$D/lib_main.o")
	require.NoError(t, inv.err, inv.stderr.String())
	data, err := os.ReadFile(filepath.Join(dir, "fat.out"))
	require.NoError(t, err)
	bins, err := offload.ParseAll(data, offload.ReadOptions{})
	require.NoError(t, err)
	require.Equal(t, 1, len(bins))
	assert.Equal(t, format.OfkOpenMP, bins[0].OffloadKind)
	assert.Equal(t, "\x7fELF fake image", string(bins[0].Image))
	assert.Equal(t, 1, len(inv.fake.Commands()), "no host link")
}

func TestWorkdirFromEnv(t *testing.T) {
	dir := testDir(t)
	w := workdir.New(workdir.Options{TempRoot: dir})
	opts, _ := ParseArgs([]string{"--dry-run", "--linker-path=/usr/bin/ld", "-o", dir + "/app", dir + "/lib_main.o"})
	var stderr bytes.Buffer
	require.NoError(t, Run(context.Background(), &Env{Env: driverenv.Env{Stderr: &stderr, LookupEnv: driverenv.FromGetenv(func(string) string { return "" })}, Work: w}, *opts))
	assert.True(t, len(w.Files()) >= 3, "names come from the given Dir")
	require.NoError(t, w.Close())
}

// TestJobserverDefault: with MAKEFLAGS offering a jobserver (fifo form) and
// no --wrapper-jobs, device links take jobserver tokens: one token plus the
// implicit slot allow two links at once, never more.
func TestJobserverDefault(t *testing.T) {
	dir := t.TempDir()
	var pkg []byte
	for _, arch := range []string{"gfx90a", "gfx942", "gfx1030", "gfx1100"} {
		pkg = offload.AppendBinary(pkg, &offload.Image{ImageKind: format.ImgBitcode, OffloadKind: format.OfkOpenMP,
			Strings: []offload.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: arch}}, Image: []byte("BC\xc0\xde")})
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gpu.out"), pkg, 0o644))
	fifo := filepath.Join(dir, "jobserver")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	keep, err := os.OpenFile(fifo, os.O_RDWR, 0)
	require.NoError(t, err)
	defer keep.Close()
	_, err = keep.Write([]byte("+"))
	require.NoError(t, err)

	var running, peak atomic.Int32
	handler := func(c *run.Cmd) error {
		if c.Args[0] != "/fake/clang" {
			return nil
		}
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(40 * time.Millisecond)
		running.Add(-1)
		return touchOutput(c)
	}
	opts, err := ParseArgs([]string{"--linker-path=/usr/bin/ld", "-o", dir + "/app", dir + "/gpu.out"})
	require.NoError(t, err)
	fake := &run.Fake{Handler: handler}
	err = Run(context.Background(), &Env{Env: driverenv.Env{Runner: fake, Stderr: &bytes.Buffer{}, NumCPU: 8, LookupEnv: driverenv.FromGetenv(func(k string) string {
		switch k {
		case "OFFLOAD_KIT_CLANG":
			return "/fake/clang"
		case "MAKEFLAGS":
			return " -j2 --jobserver-auth=fifo:" + fifo
		}
		return ""
	})}}, *opts)
	require.NoError(t, err)
	assert.Equal(t, int32(2), peak.Load(), "implicit slot + one token")
	var n int32
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, keep.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	require.True(t, errno == 0)
	assert.Equal(t, int32(1), n, "the token is given back")
}

func TestOverrideImage(t *testing.T) {
	dir := testDir(t)
	inv := invoke(t, dir, nil, "--override-image=openmp=$D/lib_dev.o", "--print-wrapped-module",
		"--linker-path=/usr/bin/ld", "-o", "$D/app", "$D/lib_main.o")
	require.NoError(t, inv.err, inv.stderr.String())
	cmds := inv.fake.Commands()
	require.Equal(t, 1, len(cmds), "only the host link runs")
	assert.Equal(t, "/usr/bin/ld", cmds[0][0])
	assert.Contains(t, inv.stderr.String(), `triple "x86_64-unknown-linux-gnu", arch ""`)

	inv = invoke(t, dir, nil, "--override-image=bogus=$D/lib_dev.o", "--linker-path=/usr/bin/ld", "-o", "$D/app")
	assert.ErrorContains(t, inv.err, "expected <openmp|cuda|hip|sycl>=<file>")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "text"), []byte("not elf"), 0o644))
	inv = invoke(t, dir, nil, "--override-image=openmp=$D/text", "--linker-path=/usr/bin/ld", "-o", "$D/app")
	assert.ErrorContains(t, inv.err, "not an ELF file")
}

func TestCompatibility(t *testing.T) {
	k := func(t, a string) groupKey { return groupKey{t, a} }
	const amd, x86 = "amdgcn-amd-amdhsa", "x86_64-unknown-linux-gnu"
	for _, tc := range []struct {
		a, b groupKey
		want bool
	}{
		{k(amd, "gfx90a"), k(amd, "gfx90a"), false}, // identical: same group anyway
		{k(amd, "gfx90a"), k(amd, "gfx90a:xnack+"), true},
		{k(amd, "gfx90a:xnack+"), k(amd, "gfx90a:xnack-"), false},
		{k(amd, "gfx90a:sramecc+:xnack+"), k(amd, "gfx90a:xnack+"), true},
		{k(amd, "gfx90a:sramecc-"), k(amd, "gfx90a:sramecc+:xnack+"), false},
		{k(amd, "gfx90a"), k(amd, "gfx942"), false},
		{k(amd, "generic"), k(amd, "gfx942"), true},
		{k(x86, "generic"), k("x86_64-unknown-linux", "generic"), false},
		{k("nvptx64-nvidia-cuda", "sm_70"), k("nvptx64-nvidia-cuda", "sm_80"), false},
		{k("nvptx64-nvidia-cuda", "generic"), k("nvptx64-nvidia-cuda", "sm_80"), true},
	} {
		assert.Equal(t, tc.want, compatible(tc.a, tc.b), "%v %v", tc.a, tc.b)
		assert.Equal(t, tc.want, compatible(tc.b, tc.a), "symmetric %v %v", tc.b, tc.a)
	}
	// A(gfx90a) B(gfx90a:xnack+) → gfx90a = {A, B}; gfx90a:xnack+ = {B}.
	gs := newGroups()
	a := &devInput{bin: &offload.Binary{Strings: []offload.KV{{Key: "triple", Value: amd}, {Key: "arch", Value: "gfx90a"}}}}
	b := &devInput{bin: &offload.Binary{Strings: []offload.KV{{Key: "triple", Value: amd}, {Key: "arch", Value: "gfx90a:xnack+"}}}}
	gs.addObject(a)
	gs.addObject(b)
	require.Equal(t, 2, len(gs.order))
	assert.Equal(t, []*devInput{a, b}, gs.order[0].inputs)
	assert.Equal(t, []*devInput{b}, gs.order[1].inputs)
	// A generic archive member joins existing groups but forms none itself.
	g := &devInput{bin: &offload.Binary{Strings: []offload.KV{{Key: "triple", Value: amd}, {Key: "arch", Value: "generic"}}}}
	assert.True(t, gs.addMember(g, false))
	assert.Equal(t, 2, len(gs.order))
	assert.Equal(t, 3, len(gs.order[0].inputs))
}

func TestDeviceValues(t *testing.T) {
	vals := []string{"-a", "amdgcn-amd-amdhsa=-b", "nvptx64-nvidia-cuda=-c", "-Wl,x=y", "foo-bar=baz"}
	assert.Equal(t, []string{"-a", "-b", "-Wl,x=y", "foo-bar=baz"}, deviceValues(vals, "amdgcn-amd-amdhsa", true))
	assert.Equal(t, []string{"-a", "-Wl,x=y", "foo-bar=baz"}, deviceValues(vals, "x86_64-unknown-linux-gnu", true))
}

func TestParseArgsErrors(t *testing.T) {
	for in, want := range map[string]string{
		"--wrapper-jobs=0":                    "--wrapper-jobs=0: expected a positive integer or 'jobserver', got '0'",
		"--wrapper-jobs=x":                    "--wrapper-jobs=x: expected a positive integer or 'jobserver', got 'x'",
		"--device-archives=all":               "--device-archives=all: expected 'lazy' or 'llvm22'",
		"--wrapper-time-trace-granularity=-1": "invalid argument '-1' to --wrapper-time-trace-granularity=",
		"-mllvm":                              "-mllvm: missing argument",
	} {
		_, err := ParseArgs([]string{in})
		assert.ErrorContains(t, err, want, in)
	}
	o, err := ParseArgs([]string{"--wrapper-jobs=jobserver", "--wrapper-jobs=7"})
	require.NoError(t, err)
	assert.True(t, o.Jobs == 7 && !o.JobServer)
}
