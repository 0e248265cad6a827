package linkwrap

// What a device link reads, for the cache key (docs/cache.md, "Key
// derivation"): the input images are keyed by content in jobKey; this file
// finds every other file. For a clang step it asks clang for the commands
// it would run (-###), so the linker's command line is the one clang really
// builds (its -L directories, crt objects, -l libraries, linker scripts);
// other steps (ptxas, nvlink) are read as they are. Every argument that
// names an existing file is hashed, -l and -T names are resolved over every
// search directory the linker would use (each candidate in each directory
// is hashed, so the key is right whichever one the linker takes), and text
// files met on the way (linker scripts such as libc.so, response files)
// are scanned the same way. When a reference cannot be resolved with
// certainty the job is not cached.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/hostlink"
	"github.com/offload-kit/offload-kit/internal/run"
)

// Bounds on what a key may read.
const (
	maxKeyFileSize    = 1 << 30 // a larger file is not "cheap to hash"
	maxKeyFiles       = 4096    // files hashed for one job
	keyMaxScriptSize  = 1 << 20 // text files scanned as scripts or response files
	keyMaxScriptDepth = 8
)

// errUncacheable explains why a job is not cached.
type errUncacheable struct{ why string }

func (e *errUncacheable) Error() string { return e.why }

func uncacheable(format string, args ...any) error {
	return &errUncacheable{fmt.Sprintf(format, args...)}
}

// keyMemo holds what key derivation learns once per process: file hashes
// and GNU ld's search directories.
type keyMemo struct {
	mu     sync.Mutex
	hashes map[string]fileHash
	ldDirs map[string][]string
}

// fileHash is a memoised content hash.
type fileHash struct {
	size, mtime int64
	ino         uint64
	sum         string
}

// keyReads is the set of files one command reads.
type keyReads struct {
	d       *driver
	skip    string            // the job's work directory: its files are keyed as inputs
	files   map[string]string // path → "sha256:<hex>"
	order   []string
	dirs    []string // library search directories, in order, deduplicated
	seenDir map[string]bool
	names   []string // "-l" names and other files searched over dirs (":name" = exact)
	sysroot string
	depth   int
}

func newKeyReads(d *driver, skip string) *keyReads {
	return &keyReads{d: d, skip: skip, files: map[string]string{}, seenDir: map[string]bool{}}
}

func (r *keyReads) addDir(dir string) {
	if dir == "" || r.seenDir[dir] {
		return
	}
	r.seenDir[dir] = true
	r.dirs = append(r.dirs, dir)
}

// inSkip reports a path inside the job's work directory.
func (r *keyReads) inSkip(p string) bool {
	if r.skip == "" {
		return false
	}
	abs, err := filepath.Abs(p)
	return err == nil && (abs == r.skip || strings.HasPrefix(abs, r.skip+string(filepath.Separator)))
}

// file records p if it is an existing file: hashed, and scanned when it is
// a small text file (a linker script or a response file). Directories and
// missing paths are ignored; other special files make the job uncacheable.
func (r *keyReads) file(p string) error {
	if p == "" || strings.ContainsRune(p, 0) {
		return nil
	}
	if _, ok := r.files[p]; ok || r.inSkip(p) {
		return nil
	}
	st, err := os.Stat(p)
	if err != nil || st.IsDir() {
		return nil
	}
	if !st.Mode().IsRegular() {
		return uncacheable("%s is not a regular file", quoteOdd(p))
	}
	if st.Size() > maxKeyFileSize {
		return uncacheable("%s is too large to hash (%d bytes)", quoteOdd(p), st.Size())
	}
	if len(r.files) >= maxKeyFiles {
		return uncacheable("it reads more than %d files", maxKeyFiles)
	}
	sum, err := r.d.hashFile(p, st)
	if err != nil {
		return uncacheable("%s: %v", quoteOdd(p), err)
	}
	r.files[p] = sum
	r.order = append(r.order, p)
	if st.Size() <= keyMaxScriptSize {
		return r.script(p)
	}
	return nil
}

// script scans a text file (a linker script, a response file) for
// further references, as hostlink.ScriptNames reads it: "-lname" is a
// library, SEARCH_DIR(dir) a search directory, any other word a file that
// the linker looks for as given and in the search directories.
func (r *keyReads) script(p string) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return uncacheable("%s: %v", quoteOdd(p), err)
	}
	if len(data) == 0 || format.Identify(data[:min(len(data), 64)]) != format.KindUnknown || bytes.IndexByte(data, 0) >= 0 {
		return nil // an object, archive, bitcode ...: not text
	}
	if r.depth >= keyMaxScriptDepth {
		return uncacheable("%s: scripts nested too deeply", quoteOdd(p))
	}
	r.depth++
	defer func() { r.depth-- }()
	for _, n := range hostlink.ScriptNames(string(data)) {
		switch n.Kind {
		case hostlink.NameDir:
			r.addDir(n.Value)
		case hostlink.NameLib:
			r.names = append(r.names, n.Value)
		default:
			if err := r.file(hostlink.Rooted(n.Value, r.sysroot)); err != nil {
				return err
			}
			if !filepath.IsAbs(n.Value) {
				r.names = append(r.names, ":"+n.Value)
			}
		}
	}
	return nil
}

// candidates returns the words inside an argument that may name a file:
// the argument, what follows each '=' or ',' and, for a joined short
// option ("-Tscript"), what follows the option letter.
func candidates(a string) []string {
	out := []string{a}
	if strings.HasPrefix(a, "@") {
		out = append(out, a[1:])
	}
	if len(a) > 2 && a[0] == '-' && a[1] != '-' {
		out = append(out, a[2:])
	}
	for i := 0; i < len(a); i++ {
		if a[i] == '=' || a[i] == ',' {
			out = append(out, a[i+1:])
		}
	}
	return out
}

// args records the files named by a command's arguments (after the
// program). With linker set, the arguments are read as the host link line
// is (hostlink.ParseArgv): -L directories and --sysroot set the search,
// -l libraries and -T scripts are resolved over it (resolve); every
// other argument is a possible file name.
func (r *keyReads) args(argv []string, linker bool) error {
	search := map[int]bool{} // arguments that are -L or -l (with their values)
	if linker {
		for _, a := range hostlink.ParseArgv(argv) {
			switch a.Kind {
			case hostlink.LibPath:
				r.addDir(a.Value)
			case hostlink.Lib:
				r.names = append(r.names, a.Value)
			case hostlink.Script:
				r.names = append(r.names, ":"+a.Value)
				continue
			case hostlink.Sysroot:
				r.sysroot = a.Value
				continue
			default:
				continue
			}
			for i := a.Index; i < a.Index+a.N; i++ {
				search[i] = true
			}
		}
	}
	for i, a := range argv {
		if search[i] {
			continue
		}
		for _, c := range candidates(a) {
			if err := r.file(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolve hashes every file that a search for each name over the search
// directories could find (hostlink.Search.Candidates): lib<name>.so and
// lib<name>.a for -l<name>, the name itself for -l:<name> and scripts.
// Resolving may find scripts that name more libraries; those are resolved
// too.
func (r *keyReads) resolve() error {
	for done := 0; done < len(r.names); done++ {
		s := hostlink.Search{Dirs: r.dirs, Sysroot: r.sysroot}
		for _, p := range s.Candidates(r.names[done]) {
			if err := r.file(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// hashFile returns "sha256:<hex>" of a file, memoised per process by path,
// size, modification time and inode, and across processes by the cache
// ([cache.Cache.FileHash]).
func (d *driver) hashFile(p string, st os.FileInfo) (string, error) {
	var ino uint64
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		ino = sys.Ino
	}
	want := fileHash{size: st.Size(), mtime: st.ModTime().UnixNano(), ino: ino}
	m := &d.keyMemo
	m.mu.Lock()
	if h, ok := m.hashes[p]; ok && h.size == want.size && h.mtime == want.mtime && h.ino == want.ino {
		m.mu.Unlock()
		return h.sum, nil
	}
	m.mu.Unlock()
	sum, size, err := d.cache.FileHash(p)
	if err != nil {
		return "", err
	}
	if size > maxKeyFileSize {
		return "", fmt.Errorf("grew to %d bytes while it was hashed", size)
	}
	want.sum = "sha256:" + hex.EncodeToString(sum[:])
	m.mu.Lock()
	if m.hashes == nil {
		m.hashes = map[string]fileHash{}
	}
	m.hashes[p] = want
	m.mu.Unlock()
	return want.sum, nil
}

// linkerKind classifies a linker program by name: GNU ld (which has
// built-in search directories), LLVM linkers (which search only -L
// directories), or unknown.
func linkerKind(prog string) string {
	base := filepath.Base(prog)
	switch {
	case base == "ld.lld" || base == "lld" || base == "ld64.lld" || base == "wasm-ld" ||
		strings.HasSuffix(base, "-ld.lld") || base == "clang-nvlink-wrapper" || base == "clang-sycl-linker":
		return "lld"
	case base == "ld" || base == "ld.bfd" || base == "ld.gold" ||
		strings.HasSuffix(base, "-ld") || strings.HasSuffix(base, "-ld.bfd") || strings.HasSuffix(base, "-ld.gold"):
		return "gnu"
	}
	return ""
}

// gnuSearchDirs returns GNU ld's built-in SEARCH_DIR list for an
// emulation, memoised per process.
func (d *driver) gnuSearchDirs(ctx context.Context, ld, emulation string) ([]string, error) {
	memo := ld + "\x00" + emulation
	m := &d.keyMemo
	m.mu.Lock()
	dirs, ok := m.ldDirs[memo]
	m.mu.Unlock()
	if ok {
		return dirs, nil
	}
	argv := []string{ld}
	if emulation != "" {
		argv = append(argv, "-m", emulation)
	}
	argv = append(argv, "--verbose")
	// The list is built into the linker: memoised in the cache directory
	// by the linker's path and status (a process less per link).
	var out bytes.Buffer
	key := fmt.Sprintf("ld --verbose v1\n%q\n", argv)
	var deps []string
	if filepath.IsAbs(ld) {
		if real, err := filepath.EvalSymlinks(ld); err == nil {
			deps = []string{ld, real}
		}
	}
	if b, ok := d.cache.Memo("ld-search", key); ok && deps != nil {
		out.Write(b)
	} else {
		var since time.Time
		if d.cache != nil {
			since = d.cache.Now()
		}
		if err := d.runner.Run(ctx, &run.Cmd{Args: argv, Stdout: &out}); err != nil {
			return nil, err
		}
		if deps != nil {
			d.cache.SetMemo("ld-search", key, deps, since, out.Bytes())
		}
	}
	dirs = ldVerboseSearchDirs(out.String())
	m.mu.Lock()
	if m.ldDirs == nil {
		m.ldDirs = map[string][]string{}
	}
	m.ldDirs[memo] = dirs
	m.mu.Unlock()
	return dirs, nil
}

// ldVerboseSearchDirs reads the SEARCH_DIRs of the default linker script
// that GNU ld --verbose prints between two lines of '=' (the whole output
// when they are missing), with hostlink's script reader.
func ldVerboseSearchDirs(out string) []string {
	const ruler = "\n=================================================="
	if parts := strings.Split(out, ruler); len(parts) >= 3 {
		out = parts[1]
	}
	return hostlink.ParseScript(out).SearchDirs
}

// parseHashHashHash reads the commands clang -### prints: one per line,
// each argument in double quotes with \ escaping '"', '\' and '$'.
func parseHashHashHash(out []byte) [][]string {
	var cmds [][]string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, " \"") {
			continue
		}
		var argv []string
		var cur strings.Builder
		in, esc := false, false
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case esc:
				cur.WriteByte(c)
				esc = false
			case in && c == '\\':
				esc = true
			case c == '"':
				if in {
					argv = append(argv, cur.String())
					cur.Reset()
				}
				in = !in
			case in:
				cur.WriteByte(c)
			}
		}
		if len(argv) > 0 {
			cmds = append(cmds, argv)
		}
	}
	return cmds
}

// isClangStep reports a device-link command run through clang (deviceArgs
// always starts with --no-default-config).
func isClangStep(argv []string) bool {
	return len(argv) > 1 && argv[1] == "--no-default-config"
}

// stepCommands returns the commands a job step runs: for clang, the ones
// clang -### prints (the last is the linker); otherwise the step itself.
// work is the job's work directory. clang -### costs a process (~40 ms),
// so its output is memoised in the cache directory (hashHashHashMemo).
func (d *driver) stepCommands(ctx context.Context, argv []string, work string) ([][]string, error) {
	if !isClangStep(argv) {
		return [][]string{argv}, nil
	}
	key, subs := d.hashHashHashKey(argv, work)
	if out, ok := d.cache.Memo("clang-hhh", key); ok {
		for _, s := range subs {
			out = bytes.ReplaceAll(out, []byte(s[1]), []byte(s[0]))
		}
		if cmds := parseHashHashHash(out); len(cmds) > 0 {
			return cmds, nil
		}
	}
	var since time.Time
	if d.cache != nil {
		since = d.cache.Now()
	}
	var out, errOut bytes.Buffer
	cmd := append(append([]string(nil), argv...), "-###")
	if err := d.runner.Run(ctx, &run.Cmd{Args: cmd, Stdout: &out, Stderr: &errOut}); err != nil {
		var re *run.Error
		if errors.As(err, &re) {
			return nil, uncacheable("%s -### failed", filepath.Base(argv[0]))
		}
		return nil, err
	}
	// clang prints the commands on stderr.
	all := append(errOut.Bytes(), out.Bytes()...)
	cmds := parseHashHashHash(all)
	if len(cmds) == 0 {
		return nil, uncacheable("%s -### printed no commands: %.200q", filepath.Base(argv[0]), errOut.String())
	}
	if deps, ok := d.hashHashHashDeps(argv, cmds, work); ok && work != "" {
		memo := all
		for _, s := range subs {
			memo = bytes.ReplaceAll(memo, []byte(s[0]), []byte(s[1]))
		}
		d.cache.SetMemo("clang-hhh", key, deps, since, memo)
	}
	return cmds, nil
}

// What clang -### prints depends on its arguments, the environment, the
// clang binary and the files and directories it looks at: its
// installation (resource directory, bin), the GCC installation it picks
// (/usr/lib/gcc/<triple>/<version>: found by listing directories), the
// sysroot's library directories and crt objects. The memo's key holds the
// first two; its deps (re-checked by status before every use) hold the
// binary, the directories above it, and every absolute path the printed
// commands name with up to three of its parent directories (so that a
// new GCC version or triple directory, a new crt object or library
// directory, shows as a changed directory). Paths in the job's work
// directory or the temporary directory are left out (they are new each
// run); the work directory itself is replaced by workMark. Whatever
// cannot be checked (too many paths, a path that cannot be stat'ed) is
// not memoised, and clang -### runs again.

// workMark stands for the job's work directory in a memoised -### output.
const workMark = "\x00offload-kit-work\x00"

// hashHashHashEnv are the environment variables clang's driver reads
// when it builds commands.
var hashHashHashEnv = []string{
	"PATH", "COMPILER_PATH", "LIBRARY_PATH", "GCC_EXEC_PREFIX", "CPATH", "C_INCLUDE_PATH",
	"CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "OBJCPLUS_INCLUDE_PATH", "SDKROOT", "TMPDIR", "TMP", "TEMP",
	"CCC_OVERRIDE_OPTIONS", "CLANG_NO_DEFAULT_CONFIG", "RC_DEBUG_OPTIONS", "CC_PRINT_OPTIONS",
	"CC_PRINT_HEADERS", "CC_LOG_DIAGNOSTICS", "SOURCE_DATE_EPOCH", "ZERO_AR_DATE", "MACOSX_DEPLOYMENT_TARGET",
	"ROCM_PATH", "HIP_PATH", "HIP_DEVICE_LIB_PATH", "HIPCC_COMPILE_FLAGS_APPEND", "HIPCC_LINK_FLAGS_APPEND",
	"CUDA_PATH", "NVPTX_ARCH", "HOME",
}

// maxHashHashHashDeps bounds the paths a memo is checked against.
const maxHashHashHashDeps = 4096

// hashHashHashKey is the memo key of a clang step, and the substitutions
// (value, mark) that make its -### output independent of the job: each
// argument in the work directory (the extracted images, named after their
// input files, and the output) becomes a mark that keeps its position and
// extension (what clang's choices depend on), then the work directory
// itself becomes workMark. The longest values come first.
func (d *driver) hashHashHashKey(argv []string, work string) (string, [][2]string) {
	var subs [][2]string
	var b strings.Builder
	b.WriteString("clang -### v1\n")
	wd, _ := os.Getwd()
	fmt.Fprintf(&b, "cwd %q\n", wd)
	for i, a := range argv {
		if work != "" && i > 0 && strings.Contains(a, work) {
			m := fmt.Sprintf("\x00offload-kit-arg%d\x00%s", i, filepath.Ext(a))
			subs = append(subs, [2]string{a, m})
			a = m
		}
		fmt.Fprintf(&b, "arg %q\n", a)
	}
	for _, e := range hashHashHashEnv {
		fmt.Fprintf(&b, "env %s=%q\n", e, d.getenv(e))
	}
	sort.SliceStable(subs, func(i, j int) bool { return len(subs[i][0]) > len(subs[j][0]) })
	if work != "" {
		subs = append(subs, [2]string{work, workMark})
	}
	return b.String(), subs
}

// hashHashHashDeps lists the paths a memoised -### output depends on;
// ok is false when it cannot be memoised.
func (d *driver) hashHashHashDeps(argv []string, cmds [][]string, work string) (deps []string, ok bool) {
	tmp := filepath.Clean(d.work.Root()) // where the work directories are made
	seen := map[string]bool{}
	// one adds p alone; up adds p and n of its parents. The work
	// directory (new each run, its files keyed as inputs) and the
	// temporary directory itself (changed all the time) are left out;
	// other paths inside TMPDIR are kept.
	skip := func(p string) bool {
		return p == tmp || (work != "" && (p == work || strings.HasPrefix(p, work+"/")))
	}
	one := func(p string) {
		p = filepath.Clean(p)
		if p == "/" || p == "." || seen[p] || skip(p) {
			return
		}
		seen[p] = true
		deps = append(deps, p)
	}
	up := func(p string, n int) {
		p = filepath.Clean(p)
		for i := 0; i <= n && p != "/" && p != "." && !skip(p); i++ {
			one(p)
			p = filepath.Dir(p)
		}
	}
	prog := argv[0]
	if !filepath.IsAbs(prog) {
		return nil, false
	}
	up(prog, 3)
	real, err := filepath.EvalSymlinks(prog)
	if err != nil {
		return nil, false
	}
	up(real, 3)
	// Installation-relative places clang looks at.
	inst := filepath.Dir(filepath.Dir(real))
	for _, rel := range []string{"lib", "lib/gcc", "lib64", "bin"} {
		one(filepath.Join(inst, rel))
	}
	// Roots clang searches for a GCC installation, crt objects and
	// libraries: the sysroot (default /) and --gcc-toolchain/
	// --gcc-install-dir, with the directories under them that it lists.
	roots := []string{"/"}
	for _, c := range append([][]string{argv}, cmds...) {
		for _, a := range c {
			for _, p := range absPaths(a) {
				up(p, 3)
			}
			for _, pre := range []string{"--sysroot=", "--gcc-toolchain=", "--gcc-install-dir=", "-isysroot"} {
				if r, ok := strings.CutPrefix(a, pre); ok && filepath.IsAbs(r) {
					roots = append(roots, r)
				}
			}
		}
	}
	for _, r := range roots {
		one(r)
		for _, rel := range []string{"lib", "lib32", "lib64", "libx32", "usr", "usr/lib", "usr/lib32", "usr/lib64", "usr/libx32",
			"usr/local", "usr/local/lib", "usr/lib/gcc", "usr/lib/gcc-cross", "usr/lib64/gcc", "lib/gcc", "lib64/gcc", "usr/bin", "bin"} {
			one(filepath.Join(r, rel))
		}
		// Triple and version directories of GCC installations.
		for _, rel := range []string{"usr/lib/gcc", "usr/lib/gcc-cross", "usr/lib64/gcc", "lib/gcc", "lib64/gcc", "lib", "usr/lib"} {
			base := filepath.Join(r, rel)
			ents, _ := os.ReadDir(base)
			for _, e := range ents {
				if !e.IsDir() || len(deps) > maxHashHashHashDeps {
					continue
				}
				t := filepath.Join(base, e.Name())
				one(t)
				if strings.Contains(rel, "gcc") {
					vs, _ := os.ReadDir(t)
					for _, v := range vs {
						one(filepath.Join(t, v.Name()))
					}
				}
			}
		}
	}
	// Program and library search directories from the environment and
	// -B: a new ld or crt object in one of them changes what clang picks.
	for _, e := range []string{"PATH", "COMPILER_PATH", "LIBRARY_PATH"} {
		for _, p := range filepath.SplitList(d.getenv(e)) {
			if filepath.IsAbs(p) {
				one(p)
			}
		}
	}
	return deps, len(deps) <= maxHashHashHashDeps
}

// absPaths returns the absolute paths an argument names: itself, or what
// follows an option prefix (-L/usr/lib, --sysroot=/, -resource-dir=...).
func absPaths(a string) []string {
	switch {
	case strings.HasPrefix(a, "/"):
		return []string{a}
	case len(a) > 2 && a[0] == '-' && strings.Contains(a, "/"):
		if i := strings.IndexByte(a, '/'); i > 0 && (a[i-1] == '=' || (i == 2 && a[0] == '-')) {
			return []string{a[i:]}
		}
	}
	return nil
}

// keyReadRecords returns one ("read:<path>", "sha256:<hex>") record per
// file the job's commands read besides its input images, and the
// identities of the programs they run. An *errUncacheable says why the job
// cannot be cached.
func (d *driver) keyReadRecords(ctx context.Context, j *linkJob) ([][2]string, error) {
	skip, _ := filepath.Abs(filepath.Dir(j.img))
	var out [][2]string
	for _, step := range j.steps {
		cmds, err := d.stepCommands(ctx, step, skip)
		if err != nil {
			return nil, err
		}
		for ci, argv := range cmds {
			r := newKeyReads(d, skip)
			if ci > 0 || isClangStep(step) {
				// A program clang runs (its own cc1 is already keyed).
				if prog := argv[0]; prog != step[0] {
					id, err := d.toolIdentity(prog)
					if err != nil {
						return nil, uncacheable("cannot identify %s: %v", quoteOdd(prog), err)
					}
					out = append(out, [2]string{"tool:" + prog, id})
				}
			}
			last := ci == len(cmds)-1
			kind := linkerKind(argv[0])
			if last && isClangStep(step) && kind == "" {
				kind = "unknown"
			}
			linker := last && (kind != "" || !isClangStep(step))
			if err := r.args(argv[1:], linker); err != nil {
				return nil, err
			}
			if linker && len(r.names) > 0 {
				switch kind {
				case "gnu":
					emulation := ""
					for i, a := range argv {
						if a == "-m" && i+1 < len(argv) {
							emulation = argv[i+1]
						}
					}
					dirs, err := d.gnuSearchDirs(ctx, argv[0], emulation)
					if err != nil {
						return nil, uncacheable("cannot read %s's search directories: %v", quoteOdd(argv[0]), err)
					}
					for _, dir := range dirs {
						r.addDir(dir)
					}
				case "lld":
				default:
					return nil, uncacheable("%s resolves -l%s over search directories offload-kit cannot know", quoteOdd(filepath.Base(argv[0])), quoteOdd(r.names[0]))
				}
				if err := r.resolve(); err != nil {
					return nil, err
				}
			}
			for _, p := range r.order {
				out = append(out, [2]string{"read:" + p, r.files[p]})
			}
		}
	}
	return out, nil
}

// keyRoots makes keys independent of where a tree is checked out (issue
// 23): an absolute path inside the link's working directory, or inside the
// directory of the program being linked (an out-of-tree build directory),
// enters the key as its position relative to that directory, behind a
// token. What such a path names is keyed by content anyway (the input
// images, the read: records), so two checkouts of one tree in different
// directories share entries. Paths that the linker writes into the image
// (-rpath, -R, -soname, --dynamic-linker, ...) stay absolute: they do
// change it.
type keyRoots struct {
	roots [][2]string // (directory, token), longest directory first
	avoid []string    // arguments holding these are left to cache.Command's own normalisation
}

func (d *driver) keyRoots(j *linkJob) keyRoots {
	var r keyRoots
	add := func(dir, tok string) {
		dir = filepath.Clean(dir)
		if !filepath.IsAbs(dir) || dir == "/" {
			return
		}
		for _, have := range r.roots {
			if have[0] == dir {
				return
			}
		}
		r.roots = append(r.roots, [2]string{dir, tok})
	}
	wd := d.env.Dir
	if wd == "" {
		wd, _ = os.Getwd()
	} else {
		wd, _ = filepath.Abs(wd)
	}
	add(wd, "\x00cwd\x00")
	if d.opt.Output != "" {
		if out, err := filepath.Abs(d.opt.Output); err == nil {
			add(filepath.Dir(out), "\x00outdir\x00")
		}
	}
	sort.SliceStable(r.roots, func(a, b int) bool { return len(r.roots[a][0]) > len(r.roots[b][0]) })
	r.avoid = append(r.avoid, filepath.Dir(j.img), j.img)
	r.avoid = append(r.avoid, j.temps...)
	for _, in := range j.g.inputs {
		r.avoid = append(r.avoid, in.path)
	}
	return r
}

// path rewrites one path (a read: or tool: record).
func (r keyRoots) path(p string) string {
	for _, root := range r.roots {
		if p == root[0] {
			return root[1]
		}
		if rest, ok := strings.CutPrefix(p, root[0]+"/"); ok {
			return root[1] + "/" + rest
		}
	}
	return p
}

// replace rewrites every occurrence of a root inside an argument that ends
// a path component (followed by '/', ',', ':', '=' or the end).
func (r keyRoots) replace(a string) string {
	for _, root := range r.roots {
		dir, tok := root[0], root[1]
		var b strings.Builder
		rest := a
		for {
			i := strings.Index(rest, dir)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			end := i + len(dir)
			if end == len(rest) || strings.IndexByte("/,:=", rest[end]) >= 0 {
				b.WriteString(rest[:i])
				b.WriteString(tok)
			} else {
				b.WriteString(rest[:end])
			}
			rest = rest[end:]
		}
		a = b.String()
	}
	return a
}

// embedsPath reports an option (alone, joined, or inside -Wl,/-Xlinker)
// whose path value the linker writes into its output.
func embedsPath(a string) bool {
	for _, w := range strings.FieldsFunc(a, func(r rune) bool { return r == ',' || r == '=' }) {
		switch {
		case w == "-R" || w == "-h" || w == "-I" || w == "--package-metadata",
			strings.HasPrefix(w, "-rpath") || strings.HasPrefix(w, "--rpath"),
			strings.HasPrefix(w, "-soname") || strings.HasPrefix(w, "--soname"),
			strings.HasPrefix(w, "-dynamic-linker") || strings.HasPrefix(w, "--dynamic-linker"),
			strings.HasPrefix(w, "-R/") || strings.HasPrefix(w, "-I/"):
			return true
		}
	}
	return false
}

// args rewrites a step's arguments (after the program), leaving alone the
// values of options that embed a path, -dumpdir's (jobKey keys it relative
// to the output) and arguments naming the job's inputs, outputs and
// temporary files.
func (r keyRoots) args(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a
		if len(r.roots) == 0 || embedsPath(a) || (i > 0 && (embedsPath(argv[i-1]) || argv[i-1] == "-dumpdir")) ||
			(i > 1 && (argv[i-1] == "-Xlinker" || argv[i-1] == "-Xoffload-linker") && embedsPath(argv[i-2])) {
			continue
		}
		skip := false
		for _, p := range r.avoid {
			if p != "" && strings.Contains(a, p) {
				skip = true
				break
			}
		}
		if !skip {
			out[i] = r.replace(a)
		}
	}
	return out
}
