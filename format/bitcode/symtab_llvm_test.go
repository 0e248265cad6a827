package bitcode_test

// Cross-checks of Symbols / ArchiveSymbols against LLVM 22: llvm-nm for
// the symbols, and llvm-ar / llvm-offload-binary --archive for archives
// written by ar.WriteGNUWith with a bitcode-aware SymbolFunc. The test
// (not the package) imports format/ar; the two packages stay independent.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/bitcode"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/offload-kit/offload-kit/internal/testutil/tmproot"
)

const llvmBin = llvmtools.Dir

// archiveSymbols is the SymbolFunc a driver passes to ar.WriteGNUWith.
func archiveSymbols(data []byte) ([]string, bool, error) {
	if format.Identify(data) == format.KindBitcode {
		names, err := bitcode.ArchiveSymbols(data)
		if err != nil {
			return nil, false, err
		}
		return names, true, nil
	}
	return ar.ObjectSymbols(data)
}

type corpus struct {
	dir  string
	bc   []string // bitcode files with an irsymtab
	asBC []string // llvm-as output: no irsymtab, but the IR fallback works
	obj  string   // an ELF object
	// stripped are copies of bc and asBC without irsymtab
	stripped []string
	fat      []fatObj // host objects with bitcode device images
	err      error
}

type fatObj struct{ file, kind string }

var (
	corpusOnce sync.Once
	theCorpus  corpus
)

func tool(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("LLVM cross-check skipped in -short mode")
	}
	return llvmtools.Tool(t, name)
}

func run(dir, name string, args ...string) error {
	cmd := exec.Command(filepath.Join(llvmBin, name), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// getCorpus compiles the inputs once per test binary.
func getCorpus(t *testing.T) *corpus {
	t.Helper()
	tool(t, "clang")
	corpusOnce.Do(func() {
		c := &theCorpus
		c.dir, c.err = os.MkdirTemp("", "bitcode-symtab-")
		if c.err != nil {
			return
		}
		src, _ := filepath.Abs("testdata/symtab")
		in := func(n string) string { return filepath.Join(src, n) }
		steps := []struct {
			tool string
			args []string
		}{
			{"opt", []string{in("kinds.ll"), "-o", "kinds.bc"}},
			{"opt", []string{in("macho.ll"), "-o", "macho.bc"}},
			{"opt", []string{in("coff32.ll"), "-o", "coff32.bc"}},
			{"opt", []string{in("anon.ll"), "-o", "anon.bc"}},
			{"opt", []string{in("coffw.ll"), "-o", "coffw.bc"}},
			{"opt", []string{in("coffx.ll"), "-o", "coffx.bc"}},
			{"llvm-as", []string{in("kinds.ll"), "-o", "kinds-as.bc"}},
			{"llvm-as", []string{in("anon.ll"), "-o", "anon-as.bc"}},
			{"llvm-as", []string{in("macho.ll"), "-o", "macho-as.bc"}},
			{"llvm-as", []string{in("coff32.ll"), "-o", "coff32-as.bc"}},
			{"llvm-as", []string{"kinds-noasm.ll", "-o", "kinds-noasm-as.bc"}},
			{"llvm-cat", []string{"-b", "-o", "two-as.bc", "anon-as.bc", "kinds-noasm-as.bc"}},
			{"clang", []string{"-fcommon", "-flto", "-c", in("uncommon.c"), "-o", "uncommon-flto.bc"}},
			{"clang", []string{"-fcommon", "-flto=thin", "-c", in("uncommon.c"), "-o", "uncommon-thin.bc"}},
			{"clang", []string{"--target=x86_64-apple-darwin", "-fcommon", "-flto", "-c", in("uncommon.c"), "-o", "uncommon-darwin.bc"}},
			{"clang", []string{"-fcommon", "-c", in("uncommon.c"), "-o", "uncommon.o"}},
			{"clang", []string{"-x", "hip", "--offload-new-driver", "--offload-arch=gfx90a", "--offload-arch=gfx1100",
				"-nogpuinc", "-nogpulib", "-fgpu-rdc", "-I", src, "-c", in("k.hip"), "-o", "hip.o"}},
			{"clang++", []string{"-fsycl", "-c", in("s.cpp"), "-o", "sycl.o"}},
			{"clang++", []string{"-flto=thin", "-fsplit-lto-unit", "-fwhole-program-vtables", "-fvisibility=hidden",
				"-c", in("split.cpp"), "-o", "split.bc"}},
			{"clang", []string{"-fopenmp", "-fopenmp-targets=amdgcn-amd-amdhsa", "-Xopenmp-target=amdgcn-amd-amdhsa",
				"-march=gfx90a", "-nogpulib", "-foffload-lto", "-c", in("omp.c"), "-o", "omp.o"}},
		}
		// kinds.ll without its module asm, for the IR fallback.
		var ll []byte
		if ll, c.err = os.ReadFile(in("kinds.ll")); c.err != nil {
			return
		}
		var noasm []string
		for _, l := range strings.Split(string(ll), "\n") {
			if !strings.HasPrefix(l, "module asm") {
				noasm = append(noasm, l)
			}
		}
		if c.err = os.WriteFile(filepath.Join(c.dir, "kinds-noasm.ll"), []byte(strings.Join(noasm, "\n")), 0o644); c.err != nil {
			return
		}
		for _, s := range steps {
			if c.err = run(c.dir, s.tool, s.args...); c.err != nil {
				return
			}
		}
		c.bc = []string{"kinds.bc", "macho.bc", "coff32.bc", "anon.bc", "coffw.bc", "coffx.bc", "split.bc", "uncommon-flto.bc", "uncommon-thin.bc", "uncommon-darwin.bc"}
		c.asBC = []string{"anon-as.bc", "macho-as.bc", "kinds-noasm-as.bc", "two-as.bc"}
		c.obj = "uncommon.o"
		c.fat = []fatObj{{"hip.o", "hip"}, {"sycl.o", "sycl"}, {"omp.o", "openmp"}}
		// The device images, for llvm-nm.
		for _, f := range c.fat {
			a := f.file + ".a"
			if c.err = run(c.dir, "llvm-offload-binary", f.file, "--archive", "--image=kind="+f.kind+",file="+a); c.err != nil {
				return
			}
			b, err := os.ReadFile(filepath.Join(c.dir, a))
			if err != nil {
				c.err = err
				return
			}
			arc, err := ar.Parse(b)
			if err != nil {
				c.err = err
				return
			}
			for i, m := range arc.Members {
				n := fmt.Sprintf("%s-image%d.bc", f.file, i)
				if c.err = os.WriteFile(filepath.Join(c.dir, n), m.Data, 0o644); c.err != nil {
					return
				}
				c.bc = append(c.bc, n)
			}
		}
		// The same files without their irsymtab, for the IR fallback
		// (llvm-ar never reads the irsymtab).
		for _, f := range append(append([]string{}, c.bc...), c.asBC...) {
			if f == "kinds.bc" || f == "coff32.bc" { // module asm, stdcall: see TestNoIrsymtab
				continue
			}
			var b []byte
			if b, c.err = os.ReadFile(filepath.Join(c.dir, f)); c.err != nil {
				return
			}
			n := strings.TrimSuffix(f, ".bc") + "-nosymtab.bc"
			if c.err = os.WriteFile(filepath.Join(c.dir, n), bitcode.StripSymtab(b), 0o644); c.err != nil {
				return
			}
			c.stripped = append(c.stripped, n)
		}
	})
	if theCorpus.err != nil {
		t.Fatal(theCorpus.err)
	}
	return &theCorpus
}

func TestMain(m *testing.M) {
	code := tmproot.Run(m) // clang leaves directories in TMPDIR
	if theCorpus.dir != "" {
		os.RemoveAll(theCorpus.dir)
	}
	os.Exit(code)
}

func readIn(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// nmChar is the type letter llvm-nm prints for an IR symbol.
func nmChar(s *bitcode.Symbol) byte {
	var c byte
	switch {
	case s.IsUndefined() && s.IsWeak():
		return 'w'
	case s.IsUndefined():
		return 'U'
	case s.IsCommon():
		return 'C'
	case s.IsWeak():
		return 'W'
	case s.IsExecutable():
		c = 't'
	default:
		c = 'd'
	}
	if s.IsGlobal() {
		c -= 'a' - 'A'
	}
	return c
}

// TestSymbolsAgainstLLVMNm compares Symbols with `llvm-nm --no-sort`,
// which lists the same ModuleSymbolTable minus format-specific symbols.
func TestSymbolsAgainstLLVMNm(t *testing.T) {
	nm := tool(t, "llvm-nm")
	c := getCorpus(t)
	files := append([]string{}, c.bc...)
	fixtures, _ := filepath.Glob("testdata/*.bc")
	for _, f := range fixtures {
		abs, _ := filepath.Abs(f)
		files = append(files, abs)
	}
	checked := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			path := f
			if !filepath.IsAbs(path) {
				path = filepath.Join(c.dir, f)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			syms, err := bitcode.Symbols(data)
			if errors.Is(err, format.ErrUnsupported) {
				t.Skipf("no irsymtab: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(nm, "--no-sort", path).CombinedOutput()
			if err != nil {
				t.Fatalf("llvm-nm: %v\n%s", err, out)
			}
			var got []string
			anon := 0
			for i := range syms {
				if syms[i].IsFormatSpecific() {
					continue
				}
				name := syms[i].Name
				// llvm-nm's Mangler numbers only the unnamed globals it prints.
				if syms[i].IRName == "" && strings.HasPrefix(name, "__unnamed_") {
					anon++
					name = fmt.Sprint("__unnamed_", anon)
				}
				got = append(got, fmt.Sprintf("%c %s", nmChar(&syms[i]), name))
			}
			var want []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if l = strings.TrimSpace(l); l != "" {
					want = append(want, strings.TrimLeft(l, "- "))
				}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("Symbols:\n%s\nllvm-nm:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			checked++
		})
	}
	if checked < 10 {
		t.Errorf("only %d files cross-checked", checked)
	}
}

// TestArchiveLLVMAr compares WriteGNUWith(archiveSymbols) with
// `llvm-ar rcD --format=gnu` over bitcode, objects and plain files.
func TestArchiveLLVMAr(t *testing.T) {
	tool(t, "llvm-ar")
	c := getCorpus(t)
	if err := os.WriteFile(filepath.Join(c.dir, "notes_with_a_long_name.txt"), []byte("odd"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"kinds.bc"},
		{"macho.bc", "coff32.bc"},
		append([]string{}, c.bc...),
		{"notes_with_a_long_name.txt", "uncommon-flto.bc", c.obj, "uncommon-thin.bc", "hip.o-image0.bc"},
		{"notes_with_a_long_name.txt", "omp.o-image0.bc"},
		append([]string{c.obj}, c.asBC...),
		{"anon.bc", "anon-as.bc"},
		c.stripped,
	}
	for _, f := range c.stripped {
		cases = append(cases, []string{f})
	}
	for i, files := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			out := fmt.Sprintf("case%d.a", i)
			os.Remove(filepath.Join(c.dir, out))
			if err := run(c.dir, "llvm-ar", append([]string{"rcD", "--format=gnu", out}, files...)...); err != nil {
				t.Fatal(err)
			}
			var members []ar.WriteMember
			for _, f := range files {
				members = append(members, ar.WriteMember{Name: f, Data: readIn(t, c.dir, f)})
			}
			var got bytes.Buffer
			if err := ar.WriteGNUWith(&got, members, ar.Options{Symbols: archiveSymbols}); err != nil {
				t.Fatal(err)
			}
			want := readIn(t, c.dir, out)
			if !bytes.Equal(want, got.Bytes()) {
				t.Errorf("archive differs from llvm-ar's\ngot  %q\nwant %q", head(got.Bytes()), head(want))
			}
		})
	}
}

func head(b []byte) []byte { return b[:min(len(b), 600)] }

// TestArchiveOffloadBinary compares WriteGNUWith(archiveSymbols) with
// `llvm-offload-binary --archive` for HIP, SYCL and OpenMP fat objects
// whose images are bitcode.
func TestArchiveOffloadBinary(t *testing.T) {
	c := getCorpus(t)
	for _, f := range c.fat {
		t.Run(f.kind, func(t *testing.T) {
			want := readIn(t, c.dir, f.file+".a")
			arc, err := ar.Parse(want)
			if err != nil {
				t.Fatal(err)
			}
			var members []ar.WriteMember
			for _, m := range arc.Members {
				if format.Identify(m.Data) != format.KindBitcode {
					t.Fatalf("member %s is not bitcode", m.Name)
				}
				members = append(members, ar.WriteMember{Name: m.Name, Data: m.Data})
			}
			var got bytes.Buffer
			if err := ar.WriteGNUWith(&got, members, ar.Options{Symbols: archiveSymbols}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got.Bytes()) {
				t.Errorf("archive differs from llvm-offload-binary's\ngot  %q\nwant %q", head(got.Bytes()), head(want))
			}
			// Without the hook the symbol table is missing.
			got.Reset()
			if err := ar.WriteGNU(&got, members); err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(want, got.Bytes()) || !bytes.HasPrefix(want, []byte("!<arch>\n/ ")) {
				t.Errorf("expected LLVM's archive to have a symbol table that WriteGNU omits")
			}
		})
	}
}

// TestNoIrsymtab: files without an irsymtab (llvm-as output of modules
// with asm or without a data layout, or stripped): Symbols says so with
// format.ErrUnsupported; ArchiveSymbols falls back to the IR unless the IR
// needs what only LLVM can do (module asm here).
func TestNoIrsymtab(t *testing.T) {
	c := getCorpus(t)
	for _, f := range append([]string{"kinds-as.bc"}, c.stripped...) {
		data := readIn(t, c.dir, f)
		if _, err := bitcode.Symbols(data); !errors.Is(err, format.ErrUnsupported) {
			t.Errorf("%s: Symbols: %v, want ErrUnsupported", f, err)
		}
	}
	for name, data := range map[string][]byte{
		"kinds-as.bc":     readIn(t, c.dir, "kinds-as.bc"),
		"stripped kinds":  bitcode.StripSymtab(readIn(t, c.dir, "kinds.bc")),
		"stripped coff32": bitcode.StripSymtab(readIn(t, c.dir, "coff32.bc")),
	} {
		if _, err := bitcode.ArchiveSymbols(data); !errors.Is(err, format.ErrUnsupported) {
			t.Errorf("%s: ArchiveSymbols: %v, want ErrUnsupported", name, err)
		}
	}
	if len(c.stripped) < 10 {
		t.Errorf("only %d stripped files", len(c.stripped))
	}
}
