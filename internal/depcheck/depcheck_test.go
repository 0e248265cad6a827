// Package depcheck enforces the import levels and effect rules of
// docs/architecture.md over the whole module, from source, and checks
// that page's package table against the tree. Nested modules (bench/)
// are not part of the module and are not walked.
package depcheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const mod = "github.com/offload-kit/offload-kit/"

type file struct {
	pkg     string // module-relative directory
	path    string
	test    bool
	imports []string
	src     string
}

func load(t *testing.T) []file {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var files []file
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "bin" || d.Name() == "build") && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() && p != root && isModule(p) {
			return filepath.SkipDir // a nested module (bench/): not this module's
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		fi := file{pkg: filepath.ToSlash(rel), path: p, test: strings.HasSuffix(p, "_test.go"), src: string(src)}
		for _, im := range f.Imports {
			s, _ := strconv.Unquote(im.Path.Value)
			fi.imports = append(fi.imports, s)
		}
		files = append(files, fi)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found only %d Go files; walking the wrong tree?", len(files))
	}
	return files
}

// isModule reports whether dir is the root of a Go module.
func isModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// level of a module package; -1 for packages the levels do not cover
// (tools like scripts/testsummary).
func level(pkg string) int {
	switch {
	case pkg == "internal/binio", pkg == "internal/mmapfile", pkg == "internal/xxhash", pkg == "internal/version", pkg == "internal/atomicfile", pkg == "internal/progress":
		return 0
	case pkg == "internal/release": // the LLVM release a run behaves as, and the facts that differ between releases (stdlib only)
		return 0
	case pkg == "internal/enumname": // the one name table shape behind small enums' String methods (stdlib only)
		return 0
	case pkg == "internal/testutil/llvmtools", pkg == "internal/testutil/cudatools": // test support: where the LLVM 22 oracle tools and CUDA's host tools are (over testfiles' Executable check)
		return 1
	case pkg == "internal/testutil/testfiles": // test support: a package's testdata files by glob, for tables and fuzz seeds (stdlib only)
		return 0
	case pkg == "format", pkg == "internal/zstdpipe": // zstdpipe: zstd for format/bundle and the packager's kernels report, so not under format/bundle
		return 1
	case pkg == "format/triple": // llvm::Triple and target IDs: below format/bundle and internal/sycldev, which both use it
		return 1
	case pkg == "internal/llvm": // the libLLVM binding: stdlib and purego only
		return 1
	case pkg == "internal/hostlink": // the one model of the host link line, -l search and linker scripts (stdlib only), for linkwrap's archive selection and cache key
		return 1
	case strings.HasPrefix(pkg, "format/"), pkg == "elfembed":
		return 2
	case pkg == "internal/run", pkg == "internal/workdir", pkg == "internal/phase", pkg == "internal/objw", pkg == "internal/cache":
		return 2
	case pkg == "split", pkg == "internal/wrap", pkg == "internal/scan":
		return 3
	case pkg == "internal/llvmpool": // helper processes serving internal/llvm
		return 3
	case pkg == "internal/testutil/clitest": // test support: the packager's and kernels' tests' command, llvm-objdump and documented-JSON helpers (over llvmtools and internal/run, which runs the commands)
		return 3
	case pkg == "internal/testutil/buildgrid": // test support: a real BuildGrid (REAPI cache) server for the remote-cache tests (over internal/run, which runs bgd; no gRPC)
		return 3
	case pkg == "internal/testutil/llvmhelp": // test support: --help pages against LLVM's; above optable (which it filters) and internal/run (which runs the LLVM tool)
		return 3
	case pkg == "internal/driverenv": // the one driver environment (streams, environment, clock, CPUs, tool lookup)
		return 3
	case pkg == "internal/driver/kernels":
		return 6 // "5½": the kernels report, over internal/driver/packager's walker (packager.Walk)
	case pkg == "internal/sycldev":
		return 4 // "3½": sycl-linker's driver (options, Run) and the SYCL device-link pipeline over split, which linker-wrapper (level 5) also runs in-process
	case strings.HasPrefix(pkg, "internal/driver/"):
		return 5
	case pkg == "internal/cli/diag", pkg == "internal/cli/clopt", pkg == "internal/cli/optable":
		return 2 // pure: argument parsing and diagnostics, used by drivers
	case pkg == "internal/cli":
		return 6
	case strings.HasPrefix(pkg, "cmd/"):
		return 7
	}
	return -1
}

func TestImportLevels(t *testing.T) {
	for _, f := range load(t) {
		if f.test {
			continue
		}
		lf := level(f.pkg)
		for _, im := range f.imports {
			if !strings.HasPrefix(im, mod) {
				continue
			}
			dep := strings.TrimPrefix(im, mod)
			ld := level(dep)
			switch {
			case lf < 0:
			case ld < 0:
				t.Errorf("%s imports %s, which has no level", f.path, dep)
			case ld >= lf && !(ld == lf && sameFamily(f.pkg, dep)):
				t.Errorf("%s (level %d) imports %s (level %d): only lower levels may be imported", f.path, lf, dep, ld)
			}
		}
	}
}

// sameFamily allows a package to import its own sub-packages at the same
// level (internal/cli → internal/cli/clopt).
func sameFamily(a, b string) bool { return strings.HasPrefix(b, a+"/") }

func TestEffectRules(t *testing.T) {
	for _, f := range load(t) {
		if f.test || strings.HasPrefix(f.pkg, "scripts") {
			continue
		}
		for _, im := range f.imports {
			switch {
			case im == "os/exec" && f.pkg != "internal/run":
				t.Errorf("%s imports os/exec: only internal/run may run processes", f.path)
			case strings.HasPrefix(im, "github.com/spf13/cobra") && !strings.HasPrefix(f.pkg, "cmd/") && f.pkg != "internal/cli":
				t.Errorf("%s imports cobra: only cmd/ and internal/cli may", f.path)
			case strings.HasPrefix(im, "github.com/ebitengine/purego") && f.pkg != "internal/llvm":
				t.Errorf("%s imports purego: only internal/llvm may (it makes a binary dynamically linked)", f.path)
			case strings.HasPrefix(im, "github.com/klauspost/") && f.pkg != "format/bundle" && f.pkg != "format/offload" && f.pkg != "internal/zstdpipe":
				t.Errorf("%s imports klauspost: only format/bundle, format/offload (v3 bodies) and internal/zstdpipe (huff0) may", f.path)
			case (strings.HasPrefix(im, "google.golang.org/grpc") || strings.HasPrefix(im, "github.com/bazelbuild/remote-apis") ||
				strings.HasPrefix(im, "google.golang.org/genproto") || strings.HasPrefix(im, "google.golang.org/protobuf")) && f.pkg != "internal/cache":
				t.Errorf("%s imports %s: only internal/cache may (the REAPI remote cache and its manifests)", f.path, im)
			}
		}
		if strings.Contains(f.src, "os.Exit(") && !(strings.HasPrefix(f.pkg, "cmd/") && strings.HasSuffix(f.path, "main.go")) {
			t.Errorf("%s calls os.Exit: only cmd/*/main.go may", f.path)
		}
	}
}

// TestStaticTools: offload-packager never links the libLLVM binding
// (purego makes a CGO_ENABLED=0 binary dynamically linked against libc);
// only sycl-linker and linker-wrapper may.
func TestStaticTools(t *testing.T) {
	deps := map[string][]string{}
	for _, f := range load(t) {
		if !f.test {
			deps[f.pkg] = append(deps[f.pkg], f.imports...)
		}
	}
	seen := map[string]string{}
	var walk func(pkg, from string)
	walk = func(pkg, from string) {
		if _, ok := seen[pkg]; ok {
			return
		}
		seen[pkg] = from
		for _, im := range deps[pkg] {
			if strings.HasPrefix(im, mod) {
				walk(strings.TrimPrefix(im, mod), pkg)
			} else if _, ok := seen[im]; !ok {
				seen[im] = pkg
			}
		}
	}
	walk("cmd/offload-packager", "")
	require := func(bad string) {
		if from, ok := seen[bad]; ok {
			t.Errorf("cmd/offload-packager reaches %s (imported by %s): it must stay statically linked", bad, from)
		}
	}
	require("internal/llvm")
	require("github.com/ebitengine/purego")
	if len(seen) < 10 {
		t.Fatalf("walked only %d packages from cmd/offload-packager", len(seen))
	}
}
