package llvmpool

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/internal/run"
)

// LibNames are the file names of libLLVM of release major in a library
// directory, most specific first: Debian's "libLLVM.so.22.1", the older
// "libLLVM-22.so", then the development link "libLLVM.so".
func LibNames(major int) []string {
	return []string{fmt.Sprintf("libLLVM.so.%d.1", major), fmt.Sprintf("libLLVM-%d.so", major), "libLLVM.so"}
}

// candidates lists the libraries the first helper tries, in order:
//
//  1. Mode, when it names a file;
//  2. the library directory of the link's LLVM: the lib directory beside
//     the llc the Toolchain chooses, then what "llvm-config --libdir" of
//     that installation says (not asked for a distribution's
//     /usr/lib/llvm-<major>/bin, whose library the soname finds);
//  3. the LLVM-<major> directory, /usr/lib/llvm-<major>/lib;
//  4. the soname, "libLLVM.so.<major>.1", which the dynamic loader finds
//     where the distribution installs it (Debian's libllvm22:
//     /usr/lib/x86_64-linux-gnu).
//
// Each must be of release Major (the helper checks LLVMGetVersion).
func (p *Pool) candidates(ctx context.Context) []string {
	var l libList
	if m := p.cfg.Mode; m != "" && m != "auto" && m != "process" {
		l.add(m)
	}
	if t := p.cfg.Tools; t != nil {
		// the installation of the llc the link would run: its lib
		// directory, else what its llvm-config says (one process, spared
		// for the distribution's own LLVM-<major> layout, whose library
		// the soname finds)
		if c, err := t.Find(ctx, "llc"); err == nil {
			bin := filepath.Dir(c.Path)
			l.inDir(filepath.Join(filepath.Dir(bin), "lib"), p.cfg.Major)
			if !standardLayout(bin, p.cfg.Major) {
				if dir := p.libdir(ctx, filepath.Join(bin, "llvm-config")); dir != "" {
					l.inDir(dir, p.cfg.Major)
				}
			}
		} else if c, err := t.Find(ctx, "llvm-config"); err == nil {
			if dir := p.libdir(ctx, c.Path); dir != "" {
				l.inDir(dir, p.cfg.Major)
			}
		}
	}
	l.fallback(p.cfg.Major)
	return l.out
}

// guessCandidates is candidates without a Toolchain (Prespawn's list,
// made before the tool has read its options): Mode, the LLVM-<major>
// directory, the soname.
func guessCandidates(mode string, major int) []string {
	var l libList
	if mode != "" && mode != "auto" && mode != "process" {
		l.add(mode)
	}
	l.fallback(major)
	return l.out
}

// libList is a list of candidate libraries without repeats.
type libList struct {
	out  []string
	seen map[string]bool
}

func (l *libList) add(path string) {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if !l.seen[path] {
		l.seen[path] = true
		l.out = append(l.out, path)
	}
}

// inDir adds the libLLVM files of release major that dir holds.
func (l *libList) inDir(dir string, major int) {
	for _, n := range LibNames(major) {
		if st, err := os.Stat(filepath.Join(dir, n)); err == nil && st.Mode().IsRegular() {
			l.add(filepath.Join(dir, n))
		}
	}
}

// fallback adds the last resorts: the LLVM-<major> directory, the soname.
func (l *libList) fallback(major int) {
	l.inDir(fmt.Sprintf("/usr/lib/llvm-%d/lib", major), major)
	l.add(LibNames(major)[0])
}

// standardLayout reports a bin directory of a distribution's versioned
// LLVM installation of release major (run.DefaultLayouts).
func standardLayout(bin string, major int) bool {
	for _, l := range run.DefaultLayouts() {
		if filepath.Clean(bin) == fmt.Sprintf(l, major) {
			return true
		}
	}
	return false
}

// libdir runs "llvm-config --libdir" (Debian's llvm-config also complains
// about missing static libraries on stderr; only stdout counts).
func (p *Pool) libdir(ctx context.Context, llvmConfig string) string {
	r := p.cfg.Runner
	if r == nil {
		r = run.Exec{}
	}
	var out bytes.Buffer
	if err := r.Run(ctx, &run.Cmd{Args: []string{llvmConfig, "--libdir"}, Stdout: &out}); err != nil {
		return ""
	}
	dir, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	if !filepath.IsAbs(dir) {
		return ""
	}
	return dir
}
