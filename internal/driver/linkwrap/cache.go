package linkwrap

// Device-link cache wiring (docs/cache.md, issue 7 part 3, issue 14):
// every device link job (one group's clang, or ptxas+nvlink) is keyed by
// its input images' contents, its command lines with temporary paths
// normalised, the tools' identities, a small environment allow-list and
// the contents of every other file it reads (cachekey.go).
// A hit restores the image and replays the child's output; a miss runs the
// job and inserts the result. The cache never fails a link: every cache
// error is a warning.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/offload-kit/offload-kit/internal/cache"
	"github.com/offload-kit/offload-kit/internal/phase"
	"github.com/offload-kit/offload-kit/internal/run"
)

// DefaultCacheMaxSize bounds the cache directory when --cache-max-size and
// $OFFLOAD_KIT_CACHE_MAX_SIZE are not given.
const DefaultCacheMaxSize = 5 << 30

// cacheEnv lists the environment variables that the device link's tools
// (clang's driver, GNU ld or ld.lld, ptxas/nvlink) read and that may change
// the image; only these enter cache keys, by value (docs/cache.md, "Key
// derivation", issue 23). Where each comes from:
//
//   - GNU ld (ld.texi, "Environment Variables" and the -rpath/-rpath-link
//     options): LD_RUN_PATH (the RUNPATH when no -rpath is given),
//     LD_LIBRARY_PATH (the -rpath-link search for DT_NEEDED libraries of a
//     native link), GNUTARGET (the default input format), LDEMULATION (the
//     default emulation, and with it the search directories).
//     COLLECT_NO_DEMANGLE only changes messages: left out.
//   - ld.lld: reads none of these for ELF output (lld/ELF/Driver.cpp has no
//     LD_RUN_PATH); LLD_REPRODUCE and LLD_IN_TEST write side files or change
//     messages only. SOURCE_DATE_EPOCH is read by neither linker for ELF,
//     but by clang (below).
//   - clang's driver (clang/docs/CommandGuide/clang.rst "ENVIRONMENT",
//     Driver.cpp, ToolChains/*): COMPILER_PATH (program search, -B),
//     LIBRARY_PATH (-L for the link), GCC_EXEC_PREFIX (accepted for gcc
//     compatibility), CPATH, C_INCLUDE_PATH, CPLUS_INCLUDE_PATH,
//     OBJC_INCLUDE_PATH, OBJCPLUS_INCLUDE_PATH (include paths: they matter
//     when a device link compiles, e.g. -save-temps style or LTO with
//     preprocessing), CCC_OVERRIDE_OPTIONS (edits the command line),
//     CLANG_NO_DEFAULT_CONFIG and CLANG_CONFIG_FILE_SYSTEM_DIR/
//     CLANG_CONFIG_FILE_USER_DIR (configuration files), SOURCE_DATE_EPOCH
//     (__DATE__/__TIME__, timestamps), SDKROOT, MACOSX_DEPLOYMENT_TARGET,
//     ZERO_AR_DATE (Darwin).
//   - Offload toolchains (clang's AMDGPU/HIP and CUDA toolchains):
//     ROCM_PATH, HIP_PATH, HIP_DEVICE_LIB_PATH (device libraries),
//     CUDA_PATH (the CUDA installation, ptxas/nvlink).
//
// Files read because of these variables (libraries found over LIBRARY_PATH,
// programs over COMPILER_PATH) are keyed by content through clang -### in
// cachekey.go.
var cacheEnv = []string{
	"LD_RUN_PATH", "LD_LIBRARY_PATH", "GNUTARGET", "LDEMULATION",
	"COMPILER_PATH", "LIBRARY_PATH", "GCC_EXEC_PREFIX",
	"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "OBJCPLUS_INCLUDE_PATH",
	"CCC_OVERRIDE_OPTIONS", "CLANG_NO_DEFAULT_CONFIG", "CLANG_CONFIG_FILE_SYSTEM_DIR", "CLANG_CONFIG_FILE_USER_DIR",
	"SOURCE_DATE_EPOCH", "SDKROOT", "MACOSX_DEPLOYMENT_TARGET", "ZERO_AR_DATE",
	"ROCM_PATH", "HIP_PATH", "HIP_DEVICE_LIB_PATH", "CUDA_PATH",
}

// cacheSharedGroupEnv names the group that may share a cache directory
// (cache.Options.SharedGroup; docs/cache.md, "Trust model").
const cacheSharedGroupEnv = "OFFLOAD_KIT_CACHE_SHARED_GROUP"

// maxReplay is the most child output a cache entry records (cache's limit).
const maxReplay = 1 << 20

// linkJob is one device link: the commands to run, in order, to produce img.
type linkJob struct {
	g     *group
	img   string
	steps [][]string // argv lists, the tool path first
	temps []string   // intermediate files the steps create (e.g. cubins)
	trace string     // time-trace scope name
	libs  bool       // the command lines name host libraries (CPU targets)
	// inproc, when set, makes the image in-process instead of running
	// the steps (a partitioned link, partition.go); errWhole from it runs
	// them after all. extra is added to the key.
	inproc func(ctx context.Context) error
	extra  [][2]string
}

// openCache enables the device-link cache when a directory is configured.
func (d *driver) openCache() {
	o := d.opt
	if o.NoCache || o.CacheDir == "" || o.DryRun {
		return
	}
	if o.SaveTemps {
		// Saved temporaries are what the user asked to look at; a hit
		// would not produce them.
		if o.Verbose {
			d.notef("--save-temps: the device-link cache is not used")
		}
		return
	}
	maxSize := o.CacheMaxSize
	if maxSize < 0 {
		maxSize = DefaultCacheMaxSize
	}
	group := o.CacheSharedGroup // the option wins over the variable
	if group == "" {
		group = d.getenv(cacheSharedGroupEnv)
	}
	copt := cache.Options{
		Dir: o.CacheDir, MaxSize: maxSize, Remote: o.CacheRemote,
		RemoteReadOnly: o.CacheRemoteReadOnly, Timeout: o.CacheTimeout,
		Warn:        func(msg string) { d.warnf("%s", msg) },
		Now:         d.env.Now,
		SharedGroup: group,
	}
	if o.CacheToolStat {
		copt.Identity = cache.IdentifyByStat
	}
	for _, h := range o.CacheRemoteHeaders {
		name, value, _ := strings.Cut(h, ":")
		if copt.RemoteHeaders == nil {
			copt.RemoteHeaders = map[string]string{}
		}
		copt.RemoteHeaders[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	if o.CacheSecretFile != "" {
		secret, err := readSecret(o.CacheSecretFile)
		if err != nil {
			// Without the secret, entries written by its holders would
			// all be rejected, and ours would be unreadable to them.
			d.warnf("device-link cache disabled: --cache-secret-file: %v", err)
			return
		}
		copt.Secret = secret
	}
	c, err := cache.Open(copt)
	if err != nil {
		var ue *cache.UnsafeError
		if errors.As(err, &ue) {
			// Whoever can write it can forge entries: device images the
			// program loads. One line, then an uncached link.
			d.warnf("not using the device-link cache %s: %s: %s; another user could forge its entries; linking without the cache", quoteOdd(o.CacheDir), quoteOdd(ue.Path), ue.Why)
			return
		}
		d.warnf("device-link cache disabled: %v", err)
		return
	}
	d.cache = c
}

// readSecret reads a cache secret: a regular file of 16 bytes to 4 KiB,
// surrounding white space removed, owned by the user and neither readable
// nor writable by others nor writable by its group (cache.CheckSecretFile:
// a secret others can read is public, one they can write is theirs).
func readSecret(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > 4096 {
		return nil, fmt.Errorf("%s: not a regular file of at most 4 KiB", quoteOdd(path))
	}
	if err := cache.CheckSecretFile(path, st); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, 4097))
	if err != nil {
		return nil, err
	}
	data = bytes.TrimSpace(data)
	if len(data) < 16 {
		return nil, fmt.Errorf("%s: a secret needs at least 16 bytes", quoteOdd(path))
	}
	return data, nil
}

// toolIdentity identifies an executable for cache keys: its contents (for
// small executables such as clang, whose code lives in shared libraries)
// or its path, size and modification time (for large, static ones such as
// ptxas), plus the size and modification time of the LLVM libraries beside
// it, so that an upgraded LLVM changes every key.
func (d *driver) toolIdentity(path string) (string, error) {
	d.toolMu.Lock()
	defer d.toolMu.Unlock()
	if id, ok := d.toolIDs[path]; ok {
		return id, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	var id string
	if st.Size() <= 16<<20 {
		id, err = d.cache.ToolIdentity(real)
	} else {
		id, err = cache.ToolIdentity(real, cache.IdentifyByStat)
	}
	if err != nil {
		return "", err
	}
	libs, _ := filepath.Glob(filepath.Join(filepath.Dir(real), "..", "lib", "libclang-cpp.so*"))
	more, _ := filepath.Glob(filepath.Join(filepath.Dir(real), "..", "lib", "libLLVM*.so*"))
	for _, l := range append(libs, more...) {
		if st, err := os.Stat(l); err == nil {
			id += fmt.Sprintf("\n%s:%d:%d", filepath.Base(l), st.Size(), st.ModTime().UnixNano())
		}
	}
	if d.toolIDs == nil {
		d.toolIDs = map[string]string{}
	}
	d.toolIDs[path] = id
	return id, nil
}

// jobKey derives the cache key of a job; ok is false when the cache is off
// or the key cannot be computed (a warning is printed) or the job reads
// files that cannot all be keyed (-v says why).
func (d *driver) jobKey(ctx context.Context, j *linkJob) (key cache.Key, ok bool) {
	if d.cache == nil {
		return key, false
	}
	var cmd cache.Command
	var names, ids []string
	seen := map[string]bool{}
	roots := d.keyRoots(j)
	for _, argv := range j.steps {
		if tool := argv[0]; !seen[tool] {
			seen[tool] = true
			id, err := d.toolIdentity(tool)
			if err != nil {
				d.warnf("cache: identify %s: %v; not caching this device link", tool, err)
				return key, false
			}
			names = append(names, filepath.Base(tool))
			ids = append(ids, id)
		}
		cmd.Args = append(cmd.Args, "\x00step\x00")
		for i, a := range roots.args(argv[1:]) {
			// -dumpdir names only auxiliary outputs after the output file.
			if i > 0 && argv[i] == "-dumpdir" {
				a = "\x00dumpdir\x00" + strings.TrimPrefix(a, d.exe)
			}
			cmd.Args = append(cmd.Args, a)
		}
	}
	cmd.Tool = cache.Tool{Name: strings.Join(names, "+"), Identity: strings.Join(ids, "\n")}
	for i, in := range j.g.inputs {
		cmd.Inputs = append(cmd.Inputs, cache.File{Name: fmt.Sprintf("input%d", i), Path: in.path, SHA256: sha256.Sum256(in.bin.Image)})
	}
	cmd.Outputs = append(cmd.Outputs, cache.File{Name: "image", Path: j.img})
	for i, t := range j.temps {
		cmd.Outputs = append(cmd.Outputs, cache.File{Name: fmt.Sprintf("temp%d", i), Path: t})
	}
	cmd.TempDirs = []string{filepath.Dir(j.img)}
	for _, name := range cacheEnv {
		if v := d.getenv(name); v != "" {
			cmd.Env = append(cmd.Env, name+"="+v)
		}
	}
	// Every other file the commands read (device libraries, -L/-l
	// resolutions, linker scripts, response files, crt objects, the
	// programs clang runs): by content (cachekey.go).
	reads, err := d.keyReadRecords(ctx, j)
	if err != nil {
		if d.opt.Verbose {
			d.notef("device link for %s is not cached: %v", groupName(j.g.key), err)
		}
		return key, false
	}
	// Files by content and by position relative to the working or the
	// output directory, not by where the tree is checked out.
	for i := range reads {
		if kind, p, ok := strings.Cut(reads[i][0], ":"); ok && (kind == "read" || kind == "tool") {
			reads[i][0] = kind + ":" + roots.path(p)
		}
	}
	cmd.Extra = append(reads, j.extra...)
	sort.Strings(cmd.Env)
	k, err := cmd.Key()
	if err != nil {
		d.warnf("%v; not caching this device link", err)
		return key, false
	}
	return k, true
}

// cappedBuffer records up to maxReplay bytes and notes any overflow.
type cappedBuffer struct {
	mu   sync.Mutex
	b    []byte
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.b)+len(p) > maxReplay {
		c.over = true
	} else {
		c.b = append(c.b, p...)
	}
	return len(p), nil
}

// runJob runs a device-link job through the cache: on a hit the image is
// restored and the child's output replayed; on a miss the steps run and
// the result is inserted. It reports the cache outcome ("hit", "hit
// (remote)", "miss", or "" without a cache).
func (d *driver) runJob(ctx context.Context, j *linkJob) (string, error) {
	key, useCache := d.jobKey(ctx, j)
	if useCache {
		h, err := d.cache.Get(ctx, key, map[string]string{"image": j.img})
		switch {
		case err != nil:
			d.warnf("%v", err)
		case h.OK:
			// Escaped and capped: a cache entry is data, never terminal
			// control (docs/cache.md, "Trust model").
			d.env.Stderr.Write(h.Replay())
			outcome := "hit"
			if h.Remote {
				outcome = "hit (remote)"
			}
			if d.opt.Verbose {
				d.notef("device link for %s: cache %s, skipped %s", groupName(j.g.key), outcome, run.FormatCommand(j.steps[len(j.steps)-1]))
			}
			return outcome, nil
		}
	}
	var rec cappedBuffer
	w := d.env.Stderr
	if useCache {
		w = io.MultiWriter(d.env.Stderr, &rec)
	}
	sp := d.on(j.g).Open(phase.Spec{Event: j.trace})
	defer sp.End()
	whole := j.inproc == nil
	if !whole {
		err := j.inproc(ctx)
		if err != nil && !errors.Is(err, errWhole) {
			return "", err
		}
		whole = err != nil
	}
	for _, argv := range j.steps {
		if !whole {
			break
		}
		if err := d.runner.Run(ctx, &run.Cmd{Args: argv, Stdout: w, Stderr: w}); err != nil {
			return "", timedOut(err, "device link for "+groupName(j.g.key)+" of "+inputNames(j.g))
		}
	}
	sp.End()
	if !useCache {
		return "", nil
	}
	if rec.over {
		d.warnf("cache: device link for %s printed more than 1 MiB; not caching it", groupName(j.g.key))
		return "miss", nil
	}
	if _, err := os.Stat(j.img); err != nil {
		return "miss", nil // reported by the caller
	}
	if err := d.cache.Put(ctx, key, cache.Entry{Files: map[string]string{"image": j.img}, Stderr: rec.b}); err != nil {
		d.warnf("%v", err)
	}
	return "miss", nil
}

// groupName is "<triple> <arch>" (or just the triple for generic/empty),
// each part quoted if it holds unusual characters.
// timedOut names, in the error of a child killed for making no progress
// (run.TimeoutError), the step it ran and its inputs; other errors are
// LLVM's and stay as they are.
func timedOut(err error, step string) error {
	var te *run.TimeoutError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: %w", step, err)
	}
	return err
}

// inputNames lists a group's inputs as the user gave them ("a.o",
// "libx.a(m.o)").
func inputNames(g *group) string {
	var names []string
	for _, in := range g.inputs {
		switch {
		case in.unit != nil && in.unit.origin != "":
			names = append(names, in.unit.origin)
		case in.path != "":
			names = append(names, in.path)
		}
	}
	return strings.Join(slices.Compact(names), ", ")
}

func groupName(k groupKey) string {
	if k.arch == "" || k.arch == "generic" {
		return quoteOdd(k.triple)
	}
	return quoteOdd(k.triple) + " " + quoteOdd(k.arch)
}
