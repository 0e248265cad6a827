// Package packaging tests `make install`, `make uninstall` and `make deb`
// (Makefile, packaging/*.sh): what is installed, that every installed name
// runs as the tool it names, that the man pages and completions work, that
// the Debian package installs into a scratch root with dpkg and that both
// uninstalls leave nothing behind.
package packaging

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	tools     = []string{"offload-packager", "linker-wrapper", "sycl-linker"}
	llvmNames = map[string]string{ // LLVM name -> the tool it links to
		"llvm-offload-binary":    "offload-packager",
		"clang-offload-packager": "offload-packager",
		"clang-offload-bundler":  "offload-packager",
		"clang-linker-wrapper":   "linker-wrapper",
		"clang-sycl-linker":      "sycl-linker",
	}
	// helpMarks: what --help must print under each name, proving the
	// argv[0] personality (the LLVM names print the LLVM tool's usage).
	helpMarks = map[string]*regexp.Regexp{
		"offload-packager":       regexp.MustCompile(`offload-packager \[command\]`),
		"linker-wrapper":         regexp.MustCompile(`USAGE: linker-wrapper `),
		"sycl-linker":            regexp.MustCompile(`USAGE: sycl-linker `),
		"llvm-offload-binary":    regexp.MustCompile(`USAGE: llvm-offload-binary `),
		"clang-offload-packager": regexp.MustCompile(`USAGE: clang-offload-packager `),
		"clang-offload-bundler":  regexp.MustCompile(`USAGE: clang-offload-bundler `),
		"clang-linker-wrapper":   regexp.MustCompile(`USAGE: clang-linker-wrapper `),
		"clang-sycl-linker":      regexp.MustCompile(`USAGE: (clang-)?sycl-linker `),
	}
	// Man pages every install has (besides offload-packager-<command>.1
	// for each further subcommand); the value is a link's target.
	manPages = map[string]string{
		"offload-packager.1": "", "offload-packager-create.1": "", "offload-packager-extract.1": "",
		"offload-packager-dump.1": "", "offload-packager-embed.1": "", "offload-packager-bundle.1": "",
		"llvm-offload-binary.1": "", "clang-offload-bundler.1": "", "linker-wrapper.1": "", "sycl-linker.1": "",
		"clang-offload-packager.1": "llvm-offload-binary.1",
		"clang-linker-wrapper.1":   "linker-wrapper.1",
		"clang-sycl-linker.1":      "sycl-linker.1",
	}
)

// repo is the repository root; make runs there with BIN and BUILD in a
// temporary directory, so the test never touches the checkout's bin/.
func repo(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs("..")
	require.NoError(t, err)
	return r
}

func sh(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), "%s %s\n%s", name, strings.Join(args, " "), out.String())
	return out.String()
}

func makeIn(t *testing.T, scratch string, args ...string) string {
	t.Helper()
	base := []string{"--no-print-directory", "-C", repo(t), "BIN=" + filepath.Join(scratch, "bin"), "BUILD=" + filepath.Join(scratch, "build")}
	// Not the settings of a make that runs this test (make test).
	clean := []string{"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL="}
	return sh(t, repo(t), clean, "make", append(base, args...)...)
}

// files lists the non-directories under root (slash paths relative to it).
func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	}))
	sort.Strings(out)
	return out
}

// checkNames runs every installed name from bindir: --version and --help
// exit 0, --help shows the personality of the name.
func checkNames(t *testing.T, bindir string) {
	t.Helper()
	for _, name := range append(append([]string{}, tools...), keys(llvmNames)...) {
		p := filepath.Join(bindir, name)
		if target, ok := llvmNames[name]; ok {
			got, err := os.Readlink(p)
			require.NoError(t, err, name)
			assert.Equal(t, target, got, "%s links to", name)
		}
		v := sh(t, bindir, nil, p, "--version")
		assert.Contains(t, v, "22.1.8", "%s --version", name)
		h := sh(t, bindir, nil, p, "--help")
		assert.Regexp(t, helpMarks[name], h, "%s --help", name)
	}
}

func keys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// checkManPages: the expected pages and links are there, nothing else but
// further offload-packager subcommand pages, every page renders with groff
// without a warning, and no template placeholder is left.
func checkManPages(t *testing.T, mandir, suffix string) {
	t.Helper()
	ents, err := os.ReadDir(mandir)
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, e := range ents {
		name := strings.TrimSuffix(e.Name(), suffix)
		seen[name] = true
		target, known := manPages[name]
		if !known {
			assert.Regexp(t, `^offload-packager-[a-z-]+\.1$`, name, "unexpected man page")
		}
		p := filepath.Join(mandir, e.Name())
		if target != "" {
			got, err := os.Readlink(p)
			require.NoError(t, err, name)
			assert.Equal(t, target+suffix, got, "%s links to", name)
			continue
		}
		src := p
		if suffix == ".gz" {
			src = sh(t, mandir, nil, "zcat", p)
		} else {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			src = string(b)
		}
		assert.NotRegexp(t, `@[A-Z]+@`, src, "%s: placeholder left", name)
		cmd := exec.Command("groff", "-man", "-ww", "-z")
		cmd.Stdin = strings.NewReader(src)
		out, err := cmd.CombinedOutput()
		assert.NoError(t, err, name)
		assert.Empty(t, string(out), "groff warnings for %s", name)
	}
	for name := range manPages {
		assert.True(t, seen[name], "man page %s missing", name)
	}
	// The hand-written pages carry the tool's option list.
	for page, opt := range map[string]string{"linker-wrapper.1": `\-\-linker\-path`, "llvm-offload-binary.1": `\-\-image`,
		"clang-offload-bundler.1": `\-\-unbundle`, "sycl-linker.1": `\-\-module\-split\-mode`} {
		var src string
		if suffix == ".gz" {
			src = sh(t, mandir, nil, "zcat", page+suffix)
		} else {
			b, _ := os.ReadFile(filepath.Join(mandir, page))
			src = string(b)
		}
		assert.Contains(t, src, opt, page)
	}
}

// checkBashCompletion sources the installed completion of each name after
// Debian's bash-completion (which they build on), as its loader does (the
// file named after the command), and completes a word with the function
// that `complete -p` names: subcommands and option values of
// offload-packager (cobra's V2 script asks the binary found on PATH),
// and the options of every tool with LLVM's command line.
func checkBashCompletion(t *testing.T, dir, bindir string) {
	t.Helper()
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"offload-packager", "d"}, "dump"},
		{[]string{"offload-packager", "extract", "--kind", "h"}, "hip"},
		{[]string{"offload-packager", "bundle", "-typ"}, "-type="},
		{[]string{"offload-packager", "create", "--ima"}, "--image="},
		{[]string{"linker-wrapper", "--linker-pa"}, "--linker-path="},
		{[]string{"clang-linker-wrapper", "--dry-r"}, "--dry-run"},
		{[]string{"sycl-linker", "--module-split"}, "--module-split-mode="},
		{[]string{"clang-sycl-linker", "--ir-output"}, "--ir-output-only"},
		{[]string{"llvm-offload-binary", "--ima"}, "--image="},
		{[]string{"clang-offload-packager", "--arch"}, "--archive"},
		{[]string{"clang-offload-bundler", "--unb"}, "--unbundle"},
	} {
		script := `set -e; source /usr/share/bash-completion/bash_completion; source "$1"; shift
fn=$(complete -p "$1" | sed -n 's/.* -F \([^ ]*\) .*/\1/p'); [ -n "$fn" ]
set +e # cobra's functions end some steps with a failing test
compopt() { :; } # only valid inside a real completion
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; echo "${COMPREPLY[@]}"`
		args := append([]string{"-c", script, "bash", filepath.Join(dir, c.words[0])}, c.words...)
		out := sh(t, bindir, []string{"PATH=" + bindir + ":" + os.Getenv("PATH")}, "bash", args...)
		assert.Equal(t, c.want, strings.TrimSpace(out), "%q", c.words)
	}
}

// checkZshCompletion: every name has a zsh completion that names it.
func checkZshCompletion(t *testing.T, dir string) {
	t.Helper()
	for _, name := range append(append([]string{}, tools...), keys(llvmNames)...) {
		b, err := os.ReadFile(filepath.Join(dir, "_"+name))
		require.NoError(t, err, name)
		first, _, _ := strings.Cut(string(b), "\n")
		assert.Regexp(t, `^#compdef( [a-z-]+)* `+regexp.QuoteMeta(name)+`( |$)`, first, name)
	}
}

// checkDocs: the documentation the help texts and man pages cite is
// installed in docdir, and the installed offload-packager's help names
// it there (binDocdir: docdir as the installed binary finds it, under
// DESTDIR; docdir: as the man pages name it, under PREFIX).
func checkDocs(t *testing.T, bindir, binDocdir, mandir, docdir, suffix string) {
	t.Helper()
	for _, doc := range []string{"README.md", "extract.md", "dump-json.md", "kernels-json.md", "bundle.md", "fatbin.md", "linker-wrapper.md", "sycl-linker.md", "formats/offload-binary.md"} {
		assert.FileExists(t, filepath.Join(binDocdir, doc))
	}
	cited := regexp.MustCompile(`share/doc/offload-kit/[A-Za-z0-9_./-]*\.md`)
	for _, args := range [][]string{{"--help"}, {"extract", "--help"}, {"dump", "--help"}, {"help", "bundle"}} {
		h := sh(t, bindir, nil, filepath.Join(bindir, "offload-packager"), args...)
		for _, m := range cited.FindAllString(h, -1) {
			assert.FileExists(t, filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(binDocdir))), m), "%q cites %s", args, m)
		}
	}
	h := sh(t, bindir, nil, filepath.Join(bindir, "offload-packager"), "extract", "--help")
	assert.Contains(t, h, filepath.Join(binDocdir, "extract.md"))
	page := filepath.Join(mandir, "offload-packager-extract.1"+suffix)
	var src string
	if suffix == ".gz" {
		src = sh(t, mandir, nil, "zcat", page)
	} else {
		b, err := os.ReadFile(page)
		require.NoError(t, err)
		src = string(b)
	}
	assert.Contains(t, src, filepath.Join(docdir, "extract.md"))
}

// TestMakeInstall: make install into a DESTDIR under PREFIX=/usr/local,
// then make uninstall.
func TestMakeInstall(t *testing.T) {
	scratch := t.TempDir()
	dest := filepath.Join(scratch, "dest")
	makeIn(t, scratch, "install", "PREFIX=/usr/local", "DESTDIR="+dest)
	prefix := filepath.Join(dest, "usr/local")

	checkNames(t, filepath.Join(prefix, "bin"))
	for _, tool := range tools {
		fi, err := os.Stat(filepath.Join(prefix, "bin", tool))
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o755), fi.Mode().Perm(), tool)
	}
	checkManPages(t, filepath.Join(prefix, "share/man/man1"), "")
	checkBashCompletion(t, filepath.Join(prefix, "share/bash-completion/completions"), filepath.Join(prefix, "bin"))
	checkZshCompletion(t, filepath.Join(prefix, "share/zsh/site-functions"))
	zsh, err := os.ReadFile(filepath.Join(prefix, "share/zsh/site-functions/_offload-packager"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(zsh), "#compdef offload-packager"), "zsh completion header")
	checkDocs(t, filepath.Join(prefix, "bin"), filepath.Join(prefix, "share/doc/offload-kit"), filepath.Join(prefix, "share/man/man1"), "/usr/local/share/doc/offload-kit", "")
	lic, err := os.ReadFile(filepath.Join(prefix, "share/doc/offload-kit/LICENSE"))
	require.NoError(t, err)
	assert.Contains(t, string(lic), "Apache License\n                           Version 2.0, January 2004")

	// Everything installed is under the prefix, and uninstall removes it all.
	for _, f := range files(t, dest) {
		assert.True(t, strings.HasPrefix(f, "usr/local/"), f)
	}
	makeIn(t, scratch, "uninstall", "PREFIX=/usr/local", "DESTDIR="+dest)
	assert.Empty(t, files(t, dest), "files left after make uninstall")
}

// TestDebVersion: git describe forms become valid, ordered Debian versions.
func TestDebVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3":                  "1.2.3",
		"v1.2.3-rc1":              "1.2.3~rc1",
		"v1.2.3-4-gabc1234":       "1.2.3+4.gabc1234",
		"v1.2.3-4-gabc1234-dirty": "1.2.3+4.gabc1234.dirty",
		"2.0_beta":                "2.0.beta",
	} {
		assert.Equal(t, want, strings.TrimSpace(sh(t, ".", nil, "./deb-version.sh", in)), in)
	}
	// Untagged: ordered by the commit count, before any release, also
	// when the abbreviated hash starts with a digit.
	got := strings.TrimSpace(sh(t, ".", nil, "./deb-version.sh", "abc1234-dirty"))
	assert.Regexp(t, `^0~git[0-9]+\.abc1234\+dirty$`, got)
	assert.Regexp(t, `^0~git[0-9]+\.08ec2f0$`, strings.TrimSpace(sh(t, ".", nil, "./deb-version.sh", "08ec2f0")))
	// dpkg agrees with the intended order.
	for _, pair := range [][2]string{{"1.2.3~rc1", "1.2.3"}, {"1.2.3", "1.2.3+4.gabc1234"}, {"1.2.3+4.gabc1234", "1.2.4"}, {got, "0.1"}} {
		assert.NoError(t, exec.Command("dpkg", "--compare-versions", pair[0], "lt", pair[1]).Run(), "%s < %s", pair[0], pair[1])
	}
}

var debVersion = regexp.MustCompile(`^[0-9][A-Za-z0-9.+~]*$`)

// TestDeb builds the package, checks its fields and contents, installs it
// with dpkg into a scratch root (its own dpkg database), runs the installed
// names, and purges it again.
func TestDeb(t *testing.T) {
	scratch := t.TempDir()
	out := makeIn(t, scratch, "deb")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	deb := lines[len(lines)-1]
	require.FileExists(t, deb)
	require.True(t, strings.HasPrefix(deb, filepath.Join(scratch, "build")+"/"), deb)

	field := func(name string) string {
		return strings.TrimSpace(sh(t, scratch, nil, "dpkg-deb", "--field", deb, name))
	}
	assert.Equal(t, "offload-kit", field("Package"))
	assert.Equal(t, "amd64", field("Architecture"))
	assert.Regexp(t, debVersion, field("Version"))
	assert.Equal(t, "offload-kit_"+field("Version")+"_amd64.deb", filepath.Base(deb))
	assert.Empty(t, field("Depends"))
	assert.Empty(t, field("Pre-Depends"))
	assert.Equal(t, "clang-22, lld-22", field("Suggests"))
	contents := sh(t, scratch, nil, "dpkg-deb", "--contents", deb)
	assert.Contains(t, contents, "./usr/bin/llvm-offload-binary -> offload-packager")
	assert.Contains(t, contents, "./usr/share/doc/offload-kit/copyright")
	assert.Contains(t, contents, "./usr/share/doc/offload-kit/extract.md")

	// A scratch root with an empty dpkg database.
	root := filepath.Join(scratch, "root")
	for _, d := range []string{"info", "updates", "triggers"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, "var/lib/dpkg", d), 0o755))
	}
	for _, f := range []string{"status", "available"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, "var/lib/dpkg", f), nil, 0o644))
	}
	dpkg := func(args ...string) string {
		return sh(t, scratch, nil, "dpkg", append([]string{"--root=" + root, "--force-not-root", "--force-script-chrootless", "--log=/dev/null"}, args...)...)
	}
	dpkg("-i", deb)
	assert.Contains(t, dpkg("-s", "offload-kit"), "Status: install ok installed")
	bindir := filepath.Join(root, "usr/bin")
	checkNames(t, bindir)
	checkManPages(t, filepath.Join(root, "usr/share/man/man1"), ".gz")
	checkBashCompletion(t, filepath.Join(root, "usr/share/bash-completion/completions"), bindir)
	checkZshCompletion(t, filepath.Join(root, "usr/share/zsh/vendor-completions"))
	checkDocs(t, bindir, filepath.Join(root, "usr/share/doc/offload-kit"), filepath.Join(root, "usr/share/man/man1"), "/usr/share/doc/offload-kit", ".gz")
	copyright, err := os.ReadFile(filepath.Join(root, "usr/share/doc/offload-kit/copyright"))
	require.NoError(t, err)
	assert.Contains(t, string(copyright), "Apache License, Version 2.0")
	assert.Contains(t, string(copyright), "=== github.com/spf13/cobra@")

	// The installed tools work: pack with the LLVM name, list with ours.
	work := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(work, "dev.bin"), []byte("device code"), 0o644))
	sh(t, work, nil, filepath.Join(bindir, "llvm-offload-binary"), "-o", "pkg.out",
		"--image=file=dev.bin,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp")
	assert.Contains(t, sh(t, work, nil, filepath.Join(bindir, "offload-packager"), "dump", "pkg.out"), "x86_64-unknown-linux-gnu")

	// Every file the package lists is installed; purging removes them all.
	for _, f := range strings.Split(strings.TrimSpace(dpkg("-L", "offload-kit")), "\n") {
		_, err := os.Lstat(filepath.Join(root, f))
		assert.NoError(t, err, f)
	}
	dpkg("--purge", "offload-kit")
	for _, f := range files(t, root) {
		assert.True(t, strings.HasPrefix(f, "var/lib/dpkg/"), "left after purge: %s", f)
	}
	_, err = os.Stat(filepath.Join(root, "usr"))
	assert.True(t, os.IsNotExist(err), "usr/ left after purge")
}
