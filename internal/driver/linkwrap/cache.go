package linkwrap

// Device-link cache wiring (docs/cache.md, issue 7 part 3): every device
// link job (one group's clang, ptxas+nvlink or SYCL link) is keyed by its
// input images' contents, its command lines with temporary paths
// normalised, the tools' identities and a small environment allow-list.
// A hit restores the image and replays the child's output; a miss runs the
// job and inserts the result. The cache never fails a link: every cache
// error is a warning.

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/offload-kit/offload-kit/internal/cache"
	"github.com/offload-kit/offload-kit/internal/run"
)

// DefaultCacheMaxSize bounds the cache directory when --cache-max-size and
// $OFFLOAD_KIT_CACHE_MAX_SIZE are not given.
const DefaultCacheMaxSize = 5 << 30

// cacheEnv lists the environment variables that device tools read and that
// may change their output; only these enter cache keys.
var cacheEnv = []string{"COMPILER_PATH", "LIBRARY_PATH", "CCC_OVERRIDE_OPTIONS", "ROCM_PATH", "HIP_PATH",
	"HIP_DEVICE_LIB_PATH", "CUDA_PATH", "SOURCE_DATE_EPOCH"}

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
	c, err := cache.Open(cache.Options{
		Dir: o.CacheDir, MaxSize: maxSize, Remote: o.CacheRemote,
		Warn: func(msg string) { d.warnf("%s", msg) },
		Now:  d.env.Now,
	})
	if err != nil {
		d.warnf("device-link cache disabled: %v", err)
		return
	}
	d.cache = c
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

// libraryStamps describes the host libraries a CPU device link reads (named
// inputs and -l resolved over -L) by path, size and modification time.
func (d *driver) libraryStamps() [][2]string {
	var out [][2]string
	dirs := d.opt.libraryPaths()
	for i := range d.opt.Args {
		a := &d.opt.Args[i]
		var label, path string
		switch {
		case a.IsInput() && isLibraryFile(a.Value()):
			label, path = "lib:"+a.Value(), a.Value()
		case a.Is("library"):
			p, ok := searchLibrary(a.Value(), d.opt.Sysroot, dirs)
			if !ok {
				continue
			}
			label, path = "lib:-l"+a.Value(), p
		default:
			continue
		}
		stamp := "missing"
		if st, err := os.Stat(path); err == nil {
			stamp = fmt.Sprintf("%s:%d:%d", path, st.Size(), st.ModTime().UnixNano())
		}
		out = append(out, [2]string{label, stamp})
	}
	return out
}

// jobKey derives the cache key of a job; ok is false when the cache is off
// or the key cannot be computed (a warning is printed).
func (d *driver) jobKey(j *linkJob) (key cache.Key, ok bool) {
	if d.cache == nil {
		return key, false
	}
	var cmd cache.Command
	var names, ids []string
	seen := map[string]bool{}
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
		for i, a := range argv[1:] {
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
	if j.libs {
		cmd.Extra = d.libraryStamps()
	}
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
	key, useCache := d.jobKey(j)
	if useCache {
		h, err := d.cache.Get(ctx, key, map[string]string{"image": j.img})
		switch {
		case err != nil:
			d.warnf("%v", err)
		case h.OK:
			d.env.Stderr.Write(h.Stdout)
			d.env.Stderr.Write(h.Stderr)
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
	end := d.trace.beginOn(j.trace, "", j.g.key.triple+" "+j.g.key.arch)
	for _, argv := range j.steps {
		if err := d.runner.Run(ctx, &run.Cmd{Args: argv, Stdout: w, Stderr: w}); err != nil {
			end()
			return "", err
		}
	}
	end()
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
func groupName(k groupKey) string {
	if k.arch == "" || k.arch == "generic" {
		return quoteOdd(k.triple)
	}
	return quoteOdd(k.triple) + " " + quoteOdd(k.arch)
}
