package run

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LLVMMajor is the LLVM release whose command lines the drivers write
// (clang-linker-wrapper and clang-sycl-linker 22.1.8).
const LLVMMajor = 22

// DefaultLayouts are the bin directories of versioned LLVM installations,
// as fmt patterns of the major version: Debian and Ubuntu, Fedora and
// RHEL, Arch and Alpine.
func DefaultLayouts() []string {
	return []string{"/usr/lib/llvm-%d/bin", "/usr/lib64/llvm%d/bin", "/usr/lib/llvm%d/bin"}
}

// ToolEnv is the environment variable that names a program's path:
// OFFLOAD_KIT_CLANG, OFFLOAD_KIT_LD_LLD, OFFLOAD_KIT_LLVM_LINK, ... (the
// name upper-cased, other characters than letters and digits as '_').
func ToolEnv(name string) string {
	var b strings.Builder
	b.WriteString("OFFLOAD_KIT_")
	for _, r := range strings.ToUpper(name) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Choice is a program a Toolchain chose, and why.
type Choice struct {
	Name string // the program asked for ("clang")
	Path string // the file to run
	Why  string // where it came from, e.g. "the clang that invoked this process (pid 42)"
	// Skipped lists the candidates passed over before Path, each with the
	// reason ("/opt/bin/clang (PATH): LLVM 14 installation").
	Skipped []string
}

// Source is a directory a program may come from.
type Source struct {
	Dir string
	Why string
}

// NotFoundError is a program no source provides.
type NotFoundError struct {
	Name     string
	Searched []string // the places looked at, in order
	Skipped  []string // candidates found but rejected, with the reason
}

func (e *NotFoundError) Error() string {
	s := fmt.Sprintf("no usable '%s'", e.Name)
	if len(e.Searched) > 0 {
		s += " (searched " + strings.Join(e.Searched, ", ") + ")"
	}
	if len(e.Skipped) > 0 {
		s += "; skipped " + strings.Join(e.Skipped, "; ")
	}
	return s
}

// Toolchain chooses the LLVM programs a driver runs (clang, ld.lld,
// llvm-link, llc, llvm-spirv, ...) so that they belong to the LLVM
// installation of the link, never to an unrelated one that happens to come
// first in PATH. Find tries, in order:
//
//  1. Override(name): an explicit path (--clang-path, $OFFLOAD_KIT_CLANG, ...);
//  2. LLVMDir: an explicit LLVM bin directory (--llvm-dir, $OFFLOAD_KIT_LLVM_DIR);
//  3. Parent, when it is a clang driver (clang -B runs the linker tools as
//     its children): for clang that executable, for other tools its directory;
//  4. the installations (Layouts) of InputMajor, the LLVM release that
//     produced the inputs;
//  5. Hints: directories named by the command line (e.g. --linker-path);
//  6. ExeDir: the directory of the running tool;
//  7. the installations (Layouts) of Major;
//  8. PathList, "<name>-<major>" before "<name>".
//
// Explicit overrides (1, 2) and the parent clang itself (3) are used as
// they are. Any other candidate must belong to an acceptable LLVM release:
// Major, or the parent's (else the inputs') release. A candidate whose
// resolved directory is a known installation layout ("/usr/lib/llvm-14/bin")
// has that release; any other runs "<path> --version" once (cached) and
// must report it. Programs that are not part of LLVM (spirv-val, ocloc)
// come from Override then PathList, unchecked.
//
// A Toolchain is safe for concurrent use.
type Toolchain struct {
	Major      int // 0 means LLVMMajor
	InputMajor int // 0: unknown
	// Override returns an explicit path for a program and where it came
	// from ("--clang-path", "$OFFLOAD_KIT_CLANG"); "" for none.
	Override func(name string) (path, why string)
	// LLVMDir is an explicit LLVM bin directory; LLVMDirWhy names its origin.
	LLVMDir, LLVMDirWhy string
	// Parent is the executable of the process that started this one
	// (symlinks resolved); ParentWhy describes it.
	Parent, ParentWhy string
	Hints             []Source
	ExeDir            string
	// Layouts are fmt patterns of versioned LLVM bin directories (nil: none).
	Layouts  []string
	PathList string
	// Runner runs the --version probes (nil: Exec{}). It should not print.
	Runner Runner
	// Notify, when set, is called once per program when it is first chosen.
	Notify func(Choice)

	mu     sync.Mutex
	found  map[string]Choice
	probes map[string]probe
}

type probe struct {
	major   int
	version string
	err     error
}

func (t *Toolchain) major() int {
	if t.Major > 0 {
		return t.Major
	}
	return LLVMMajor
}

// ParentClang is the parent executable when it is a clang driver.
func (t *Toolchain) ParentClang() string {
	if t.Parent != "" && IsClangDriver(filepath.Base(t.Parent)) {
		return t.Parent
	}
	return ""
}

// Wanted is the LLVM release the link belongs to: the parent clang's (when
// its installation layout tells), else the inputs' producer's, else Major.
func (t *Toolchain) Wanted() int {
	if p := t.ParentClang(); p != "" {
		if m, ok := LayoutMajor(t.Layouts, filepath.Dir(p)); ok {
			return m
		}
	}
	if t.InputMajor > 0 {
		return t.InputMajor
	}
	return t.major()
}

func (t *Toolchain) accept(m int) bool { return m == t.Wanted() || m == t.major() }

// IsLLVMTool reports programs that belong to an LLVM installation.
func IsLLVMTool(name string) bool {
	switch name {
	case "llc", "opt", "lld", "ld.lld", "ld64.lld", "lld-link", "wasm-ld":
		return true
	}
	return strings.HasPrefix(name, "llvm-") || strings.HasPrefix(name, "clang")
}

var clangDriverRE = regexp.MustCompile(`^clang(\+\+)?(-[0-9]+(\.[0-9]+)*)?$`)

// IsClangDriver reports an executable base name of the clang driver
// (clang, clang++, clang-22, clang++-22), not clang-cl or other tools.
func IsClangDriver(base string) bool { return clangDriverRE.MatchString(base) }

var llvmVersionRE = regexp.MustCompile(`\b(?:clang version|LLVM version|LLD) ([1-9][0-9]{0,3})\.([0-9]{1,4})(?:\.([0-9]{1,4}))?`)

// ParseLLVMVersion finds an LLVM release in a --version output or an ELF
// .comment ("Debian clang version 22.1.8 (++2025...)", "LLVM version
// 22.1.8", "Debian LLD 22.1.8 (compatible with GNU linkers)") and returns
// its major version and the dotted version.
func ParseLLVMVersion(text []byte) (major int, version string, ok bool) {
	m := llvmVersionRE.FindSubmatch(text)
	if m == nil {
		return 0, "", false
	}
	major, err := strconv.Atoi(string(m[1]))
	if err != nil || major == 0 {
		return 0, "", false
	}
	version = string(m[1]) + "." + string(m[2])
	if len(m[3]) > 0 {
		version += "." + string(m[3])
	}
	return major, version, true
}

// LayoutMajor reports the major version of dir when it is one of the
// versioned installation layouts ("/usr/lib/llvm-22/bin" → 22).
func LayoutMajor(layouts []string, dir string) (int, bool) {
	dir = filepath.Clean(dir)
	for _, l := range layouts {
		pre, post, ok := strings.Cut(l, "%d")
		if !ok || !strings.HasPrefix(dir, pre) || !strings.HasSuffix(dir, post) || len(dir) <= len(pre)+len(post) {
			continue
		}
		digits := dir[len(pre) : len(dir)-len(post)]
		if n, err := strconv.Atoi(digits); err == nil && n > 0 && strconv.Itoa(n) == digits {
			return n, true
		}
	}
	return 0, false
}

// layoutDirs returns the existing installation directories of release m.
func (t *Toolchain) layoutDirs(m int) []string {
	var out []string
	for _, l := range t.Layouts {
		if strings.Contains(l, "%d") {
			out = append(out, fmt.Sprintf(l, m))
		}
	}
	return out
}

// Find chooses the program name (see Toolchain).
func (t *Toolchain) Find(ctx context.Context, name string) (Choice, error) {
	return t.find(ctx, name, nil, true)
}

// FindIn chooses a program that is not part of LLVM (ptxas, nvlink,
// fatbinary): Override, then dirs in order, then PathList, unchecked.
func (t *Toolchain) FindIn(ctx context.Context, name string, dirs []Source) (Choice, error) {
	return t.find(ctx, name, dirs, false)
}

func (t *Toolchain) find(ctx context.Context, name string, dirs []Source, llvm bool) (Choice, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.found[name]; ok {
		return c, nil
	}
	s := &search{t: t, ctx: ctx, c: Choice{Name: name}}
	if llvm && IsLLVMTool(name) {
		s.llvm(name)
	} else {
		s.other(name, dirs)
	}
	if !s.done {
		return Choice{}, &NotFoundError{Name: name, Searched: s.searched, Skipped: s.c.Skipped}
	}
	if t.found == nil {
		t.found = map[string]Choice{}
	}
	t.found[name] = s.c
	if t.Notify != nil {
		t.Notify(s.c)
	}
	return s.c, nil
}

// search is one Find in progress.
type search struct {
	t        *Toolchain
	ctx      context.Context
	c        Choice
	done     bool
	searched []string
}

func (s *search) override(name string) {
	if s.t.Override == nil {
		return
	}
	if p, why := s.t.Override(name); p != "" {
		s.c.Path, s.c.Why, s.done = p, why, true
	}
}

func (s *search) other(name string, dirs []Source) {
	if s.override(name); s.done {
		return
	}
	for _, d := range dirs {
		if d.Dir == "" {
			continue
		}
		s.searched = append(s.searched, d.Why)
		if p := filepath.Join(d.Dir, name); isExecutable(p) {
			s.c.Path, s.c.Why, s.done = p, d.Why, true
			return
		}
	}
	if s.t.PathList != "" {
		s.searched = append(s.searched, "PATH")
	}
	if p, ok := FindProgram(name, nil, s.t.PathList); ok && !strings.ContainsRune(name, '/') {
		s.c.Path, s.c.Why, s.done = p, "PATH", true
	}
}

func (s *search) llvm(name string) {
	t := s.t
	if s.override(name); s.done {
		return
	}
	if t.LLVMDir != "" {
		s.searched = append(s.searched, t.LLVMDirWhy)
		if s.try(filepath.Join(t.LLVMDir, name), t.LLVMDirWhy, true) {
			return
		}
	}
	if p := t.ParentClang(); p != "" {
		dir := filepath.Dir(p)
		s.searched = append(s.searched, t.ParentWhy)
		if name == "clang" {
			// clang++ as a device linker would add the C++ runtime.
			if s.try(filepath.Join(dir, "clang"), t.ParentWhy, true) || s.try(p, t.ParentWhy, true) {
				return
			}
		} else if s.try(filepath.Join(dir, name), t.ParentWhy, false) {
			return
		}
	}
	if t.InputMajor > 0 {
		why := fmt.Sprintf("the LLVM %d installation that produced the inputs", t.InputMajor)
		for _, d := range t.layoutDirs(t.InputMajor) {
			s.searched = append(s.searched, d)
			if s.try(filepath.Join(d, name), why+" ("+d+")", false) {
				return
			}
		}
	}
	for _, h := range t.Hints {
		s.searched = append(s.searched, h.Why)
		if s.try(filepath.Join(h.Dir, name), h.Why, false) {
			return
		}
	}
	if t.ExeDir != "" {
		s.searched = append(s.searched, "the tool's own directory")
		if s.try(filepath.Join(t.ExeDir, name), "the tool's own directory", false) {
			return
		}
	}
	why := fmt.Sprintf("the LLVM %d installation", t.major())
	for _, d := range t.layoutDirs(t.major()) {
		s.searched = append(s.searched, d)
		if s.try(filepath.Join(d, name), why+" ("+d+")", false) {
			return
		}
	}
	if t.PathList == "" {
		return
	}
	s.searched = append(s.searched, "PATH")
	var names []string
	for _, m := range []int{t.Wanted(), t.major()} {
		if v := fmt.Sprintf("%s-%d", name, m); !slices.Contains(names, v) {
			names = append(names, v)
		}
	}
	names = append(names, name)
	for _, n := range names {
		for _, d := range filepath.SplitList(t.PathList) {
			if d != "" && s.try(filepath.Join(d, n), "PATH", false) {
				return
			}
		}
	}
}

// try accepts p when it is executable and, unless trusted, of an
// acceptable LLVM release; a rejection is recorded in Skipped.
func (s *search) try(p, why string, trusted bool) bool {
	if !isExecutable(p) {
		return false
	}
	if trusted {
		s.c.Path, s.c.Why, s.done = p, why, true
		return true
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		real = p
	}
	if m, ok := LayoutMajor(s.t.Layouts, filepath.Dir(real)); ok {
		if !s.t.accept(m) {
			s.skip(p, why, fmt.Sprintf("part of LLVM %d, not %s", m, s.t.acceptable()))
			return false
		}
		s.c.Path, s.c.Why, s.done = p, why, true
		return true
	}
	pr := s.t.probe(s.ctx, p)
	switch {
	case pr.err != nil:
		s.skip(p, why, pr.err.Error())
		return false
	case !s.t.accept(pr.major):
		s.skip(p, why, fmt.Sprintf("its --version reports LLVM %s, not %s", pr.version, s.t.acceptable()))
		return false
	}
	s.c.Path, s.c.Why, s.done = p, why+", LLVM "+pr.version+" by --version", true
	return true
}

func (s *search) skip(p, why, reason string) {
	s.c.Skipped = append(s.c.Skipped, fmt.Sprintf("%s (%s): %s", p, why, reason))
}

func (t *Toolchain) acceptable() string {
	if w := t.Wanted(); w != t.major() {
		return fmt.Sprintf("%d or %d", w, t.major())
	}
	return strconv.Itoa(t.major())
}

// probeTimeout bounds one --version run (a hung program is rejected).
const probeTimeout = 10 * time.Second

// probe runs "p --version" once per path.
func (t *Toolchain) probe(ctx context.Context, p string) probe {
	if pr, ok := t.probes[p]; ok {
		return pr
	}
	r := t.Runner
	if r == nil {
		r = Exec{}
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var out bytes.Buffer
	var pr probe
	if err := r.Run(ctx, &Cmd{Args: []string{p, "--version"}, Stdout: &out}); err != nil {
		pr.err = fmt.Errorf("'%s --version' failed", filepath.Base(p))
		if e, ok := err.(*Error); ok && len(e.Stderr) > 0 {
			line, _, _ := strings.Cut(strings.TrimSpace(string(e.Stderr)), "\n")
			pr.err = fmt.Errorf("'%s --version' failed: %s", filepath.Base(p), line)
		}
	} else if m, v, ok := ParseLLVMVersion(out.Bytes()); ok {
		pr.major, pr.version = m, v
	} else {
		pr.err = fmt.Errorf("'%s --version' names no LLVM release", filepath.Base(p))
	}
	if t.probes == nil {
		t.probes = map[string]probe{}
	}
	t.probes[p] = pr
	return pr
}

// ParentRelease is the LLVM release of the clang that invoked this process
// (clang -B runs the linker tools as its children): its installation
// layout, else its --version (run once per path). ok is false when the
// parent is not a clang driver or names no release.
func (t *Toolchain) ParentRelease(ctx context.Context) (major int, why string, ok bool) {
	p := t.ParentClang()
	if p == "" {
		return 0, "", false
	}
	if m, ok := LayoutMajor(t.Layouts, filepath.Dir(p)); ok {
		return m, "the invoking clang " + p, true
	}
	pr := t.probe(ctx, p)
	if pr.err != nil {
		return 0, "", false
	}
	return pr.major, fmt.Sprintf("the invoking clang %s (--version: %s)", p, pr.version), true
}
