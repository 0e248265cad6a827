package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driver/kernels"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/offload-kit/offload-kit/internal/version"
)

// parse runs the root command with args and captures what the chosen
// subcommand would receive, without running any driver.
func parse(t *testing.T, args ...string) (string, any, error) {
	t.Helper()
	var gotCmd string
	var gotOpts any
	env := &packager.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Tool: "offload-packager"}
	root := newRootCmd(env, func(cmd string, opts any) error {
		gotCmd, gotOpts = cmd, opts
		return nil
	})
	args, err := dispatch(root, args)
	if err != nil {
		return "", nil, err
	}
	root.SetArgs(args)
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	_, err = root.ExecuteC()
	return gotCmd, gotOpts, err
}

func TestExtractFlags(t *testing.T) {
	cmd, opts, err := parse(t, "extract", "lib.a", "--triple=amdgcn-amd-amdhsa", "--arch=gfx90a", "--kind=hip", "-d", "out", "--image=file=x.bc,kind=openmp")
	require.NoError(t, err)
	assert.Equal(t, "extract", cmd)
	ex := opts.(packager.ExtractOptions)
	assert.Equal(t, "lib.a", ex.Input)
	assert.Equal(t, "out", ex.OutDir)
	assert.Equal(t, []string{"file=x.bc,kind=openmp", "triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip"}, ex.Images)
}

// TestExtractRawAndHelp: --raw reaches the driver, and the help names
// the files every container's entries get.
func TestExtractRawAndHelp(t *testing.T) {
	_, opts, err := parse(t, "extract", "--raw", "k.o")
	require.NoError(t, err)
	assert.True(t, opts.(packager.ExtractOptions).Raw)
	out, _, code := runIn(t, t.TempDir(), "offload-packager", "extract", "--help")
	assert.Equal(t, 0, code)
	for _, name := range []string{"<stem>-<triple>-<arch>.<index>.<ext>", "<file>.<bundle>.<entry ID>",
		"<file>.fatbin<f>.<entry>.<sm_NN>.<cubin|ptx>", "<stem>.<image>.<bc|spv|ptx|bin>", "--raw", "extract.md"} {
		assert.Contains(t, out, name)
	}
}

func TestExtractEmptyArchFilter(t *testing.T) {
	_, opts, err := parse(t, "extract", "a.o", "--arch=")
	require.NoError(t, err)
	assert.Equal(t, []string{"arch="}, opts.(packager.ExtractOptions).Images)
}

func TestDumpFlags(t *testing.T) {
	_, opts, err := parse(t, "dump", "--json", "--all", "a.o", "b.a")
	require.NoError(t, err)
	assert.Equal(t, packager.DumpOptions{Files: []string{"a.o", "b.a"}, All: true, JSON: true}, opts)
	_, _, err = parse(t, "dump")
	assert.Error(t, err, "dump needs a file")
}

func TestEmbedFlags(t *testing.T) {
	_, opts, err := parse(t, "embed", "-o", "fat.o", "host.o", "a.pkg", "b.pkg")
	require.NoError(t, err)
	assert.Equal(t, packager.EmbedOptions{Output: "fat.o", Host: "host.o", Packages: []string{"a.pkg", "b.pkg"}}, opts)
	_, _, err = parse(t, "embed", "host.o", "a.pkg")
	var fe *cli.FlagError
	assert.ErrorAs(t, err, &fe)
}

func TestKernelsFlags(t *testing.T) {
	cmd, opts, err := parse(t, "kernels", "--json", "--sort", "regs", "--top", "5", "--families", "--duplicates", "--html", "map.html", "a.so", "b.a")
	require.NoError(t, err)
	assert.Equal(t, "kernels", cmd)
	assert.Equal(t, kernels.Options{Files: []string{"a.so", "b.a"}, JSON: true, Sort: "regs", Top: 5, Families: true, Duplicates: true, HTML: "map.html"}, opts)
	_, opts, err = parse(t, "kernels", "x.o")
	require.NoError(t, err)
	assert.Equal(t, kernels.Options{Files: []string{"x.o"}, Sort: "size", Top: kernels.DefaultTop}, opts, "defaults")
	_, opts, err = parse(t, "kernels", "--all", "--arch", "gfx90a,sm_100f", "x.o")
	require.NoError(t, err)
	assert.Equal(t, kernels.Options{Files: []string{"x.o"}, Sort: "size", Arch: []string{"gfx90a", "sm_100f"}}, opts, "--all")
	for _, sort := range []string{"size", "name", "regs", "lds", "scratch"} {
		_, opts, err = parse(t, "kernels", "--sort="+sort, "x.o")
		require.NoError(t, err)
		assert.Equal(t, sort, opts.(kernels.Options).Sort)
	}
	var fe *cli.FlagError
	for _, args := range [][]string{{"kernels", "--sort=bytes", "x.o"}, {"kernels", "--top=-1", "x.o"}, {"kernels", "--top=x", "x.o"}, {"kernels", "--bogus", "x.o"}, {"kernels", "--all", "--top=3", "x.o"}} {
		cmd, _, err = parse(t, args...)
		assert.ErrorAs(t, err, &fe, "%v", args)
		assert.Empty(t, cmd, "%v: the driver is not called", args)
	}
	_, _, err = parse(t, "kernels")
	assert.Error(t, err, "kernels needs a file")

	cmd, opts, err = parse(t, "kernels", "diff", "--json", "--top", "3", "old.so", "new.so")
	require.NoError(t, err)
	assert.Equal(t, "kernels diff", cmd)
	assert.Equal(t, kernels.DiffOptions{A: "old.so", B: "new.so", Format: "json", Top: 3}, opts)
	_, opts, err = parse(t, "kernels", "diff", "--format=md", "--all", "--fail-on", "spills>0,regs+8,size+5%", "--budget-file", "b.txt", "old.so", "new.so")
	require.NoError(t, err)
	assert.Equal(t, kernels.DiffOptions{A: "old.so", B: "new.so", Format: "md", FailOn: "spills>0,regs+8,size+5%", BudgetFile: "b.txt"}, opts)
	for _, args := range [][]string{{"kernels", "diff", "a.so"}, {"kernels", "diff", "a", "b", "c"}, {"kernels", "diff", "--top=-2", "a", "b"},
		{"kernels", "diff", "--format=xml", "a", "b"}, {"kernels", "diff", "--fail-on=spills>x", "a", "b"}, {"kernels", "diff", "--fail-on=bytes+1", "a", "b"}} {
		cmd, _, err = parse(t, args...)
		assert.Error(t, err, "%v", args)
		assert.Empty(t, cmd)
	}
}

// create and bundle take LLVM's option syntax; bundle passes its
// arguments through untouched.
func TestVerbatimSubcommands(t *testing.T) {
	cmd, opts, err := parse(t, "create", "-o", "x", "-image=file=a.o,triple=t", "--image", "file=b")
	require.NoError(t, err)
	assert.Equal(t, "create", cmd)
	assert.Equal(t, packager.CreateOptions{Output: "x", Images: []string{"file=a.o,triple=t", "file=b"}}, opts)
	cmd, opts, err = parse(t, "bundle", "-type=o", "-list", "-input=a.o")
	require.NoError(t, err)
	assert.Equal(t, "bundle", cmd)
	assert.Equal(t, []string{"-type=o", "-list", "-input=a.o"}, opts)
}

func TestPersonality(t *testing.T) {
	for argv0, want := range map[string]string{
		"/usr/bin/llvm-offload-binary":    "llvm-offload-binary",
		"llvm-offload-binary-22":          "llvm-offload-binary",
		"./clang-offload-packager":        "clang-offload-packager",
		"bin/clang-offload-bundler":       "clang-offload-bundler",
		"x86_64-clang-offload-bundler-22": "clang-offload-bundler",
		"offload-packager":                "",
	} {
		assert.Equal(t, want, personality(argv0), argv0)
	}
}

func TestRunPersonalityMessages(t *testing.T) {
	var out, errb bytes.Buffer
	code := realMain("/opt/x/llvm-offload-binary", []string{"a", "b"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 1, code)
	assert.Equal(t, "llvm-offload-binary: Too many positional arguments specified!\nCan specify at most 1 positional arguments: See: /opt/x/llvm-offload-binary --help\n", errb.String())
	errb.Reset()
	code = realMain("offload-packager", []string{"extract", "/nonexistent/x.o"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 1, code)
	assert.Equal(t, "offload-packager: error: '/nonexistent/x.o': No such file or directory\n", errb.String())
}

// TestDispatch: the first argument (after -v) picks offload-packager's own
// command line or llvm-offload-binary's.
func TestDispatch(t *testing.T) {
	for _, c := range []struct {
		args     []string
		wantCmd  string
		wantOpts any
	}{
		{[]string{"-o", "out.pkg", "--image=file=x.o,triple=t,kind=openmp"}, "llvm-offload-binary", []string{"-o", "out.pkg", "--image=file=x.o,triple=t,kind=openmp"}},
		{[]string{"in.pkg", "--image=kind=openmp"}, "llvm-offload-binary", []string{"in.pkg", "--image=kind=openmp"}},
		{[]string{"-v", "in.pkg"}, "llvm-offload-binary", []string{"in.pkg"}},
		{[]string{"--verbose", "-v", "-o", "x"}, "llvm-offload-binary", []string{"-o", "x"}},
		{[]string{"./dump", "--image=kind=hip"}, "llvm-offload-binary", []string{"./dump", "--image=kind=hip"}},
		{[]string{"--image=kind=hip", "dump"}, "llvm-offload-binary", []string{"--image=kind=hip", "dump"}},
		{[]string{"-image=kind=hip", "-archive", "in.a"}, "llvm-offload-binary", []string{"-image=kind=hip", "-archive", "in.a"}},
		{[]string{"--", "-o"}, "llvm-offload-binary", []string{"--", "-o"}},
		{[]string{"dumpy.o"}, "llvm-offload-binary", []string{"dumpy.o"}},
		{[]string{"dump", "a.o"}, "dump", packager.DumpOptions{Files: []string{"a.o"}}},
		{[]string{"-v", "dump", "--json", "a.o"}, "dump", packager.DumpOptions{Files: []string{"a.o"}, JSON: true}},
		{[]string{"extract", "a.o"}, "extract", packager.ExtractOptions{Input: "a.o"}},
		{[]string{"create", "-o=p", "--image=file=a"}, "create", packager.CreateOptions{Output: "p", Images: []string{"file=a"}}},
		{[]string{"embed", "-o", "f.o", "h.o", "p"}, "embed", packager.EmbedOptions{Output: "f.o", Host: "h.o", Packages: []string{"p"}}},
		{[]string{"bundle", "-list"}, "bundle", []string{"-list"}},
	} {
		cmd, opts, err := parse(t, c.args...)
		require.NoError(t, err, "%q", c.args)
		assert.Equal(t, c.wantCmd, cmd, "%q", c.args)
		assert.Equal(t, c.wantOpts, opts, "%q", c.args)
	}
	// Nothing, help and version are offload-packager's own.
	for _, args := range [][]string{nil, {"-v"}, {"--help"}, {"-h"}, {"--version"}, {"help", "dump"}} {
		cmd, _, err := parse(t, args...)
		assert.NoError(t, err, "%q", args)
		assert.Equal(t, "", cmd, "%q", args)
	}
}

// flagErrors parses each command line of cases (split at spaces) and
// checks that it fails with a *cli.FlagError reading its text.
func flagErrors(t *testing.T, cases map[string]string) {
	t.Helper()
	for args, want := range cases {
		_, _, err := parse(t, strings.Fields(args)...)
		var fe *cli.FlagError
		require.ErrorAs(t, err, &fe, args)
		assert.Equal(t, want, err.Error(), args)
	}
}

// TestCreateOnlyCreates: what llvm-offload-binary would extract, print its
// usage for or package as an empty file is an error for create.
func TestCreateOnlyCreates(t *testing.T) {
	flagErrors(t, map[string]string{
		"create pkg.out":                       "create: unexpected input file 'pkg.out': create only packages (-o OUTPUT --image=file=F,triple=T,...); to extract, use 'offload-packager extract pkg.out'",
		"create -o x in.pkg --image=file=a":    "create: unexpected input file 'in.pkg': create only packages (-o OUTPUT --image=file=F,triple=T,...); to extract, use 'offload-packager extract in.pkg'",
		"create --image=file=a,triple=t":       "create: -o OUTPUT is required",
		"create":                               "create: -o OUTPUT is required",
		"create -o x":                          "create: no --image=file=F,triple=T,... given: nothing to package",
		"create -o x --image=file=a --archive": "create: --archive applies to extraction ('offload-packager extract --archive')",
		"create -o x -imag=file=a":             "create: Unknown command line argument '-imag=file=a'.  Try: 'offload-packager create --help' Did you mean '--image'?",
		"create -o":                            "create: for the -o option: requires a value!",
	})
	// Through run: one error line, exit 1, nothing written.
	dir := t.TempDir()
	t.Chdir(dir)
	var out, errb bytes.Buffer
	require.NoError(t, os.WriteFile("pkg.out", []byte("x"), 0o644))
	assert.Equal(t, 1, realMain("offload-packager", []string{"create", "pkg.out"}, strings.NewReader(""), &out, &errb))
	assert.Equal(t, "offload-packager: error: create: unexpected input file 'pkg.out': create only packages (-o OUTPUT --image=file=F,triple=T,...); to extract, use 'offload-packager extract pkg.out'\n", errb.String())
	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 1, "nothing extracted")
}

// TestOneDashLongOptions: GNU-style subcommands name the right spelling
// when a long option is given with one dash.
func TestOneDashLongOptions(t *testing.T) {
	flagErrors(t, map[string]string{
		"dump -all a.o":               "unknown shorthand flag 'a' in -all; did you mean --all?",
		"dump a.o -json":              "unknown shorthand flag 'j' in -json; did you mean --json?",
		"extract a.o -output-dir=out": "unknown shorthand flag 'o' in -output-dir=out; did you mean --output-dir?",
		"extract a.o -triple=t":       "unknown shorthand flag 't' in -triple=t; did you mean --triple?",
		"extract a.o -image=kind=hip": "unknown shorthand flag 'i' in -image=kind=hip; did you mean --image?",
		"embed -output fat.o h.o p":   "-output is -o with the value 'utput'; did you mean --output?",
		"-v dump -verbose a.o":        "-verbose is -v with the value 'erbose'; did you mean --verbose?",
	})
	// Values, short clusters and anything after "--" are left alone.
	for _, args := range []string{"extract a.o -d -all", "extract a.o -dout", "dump -- -all", "dump --all a.o", "extract a.o --arch -all"} {
		_, _, err := parse(t, strings.Fields(args)...)
		assert.NoError(t, err, args)
	}
	var out, errb bytes.Buffer
	assert.Equal(t, 1, realMain("offload-packager", []string{"dump", "-all", "a.o"}, strings.NewReader(""), &out, &errb))
	assert.Equal(t, "offload-packager: error: unknown shorthand flag 'a' in -all; did you mean --all?\n", errb.String())
}

// TestVersionEverywhere: one --version line format for the umbrella, every
// subcommand, the bare syntax and every personality.
func TestVersionEverywhere(t *testing.T) {
	line := version.Line("offload-packager") + "\n"
	for _, args := range [][]string{
		{"--version"}, {"-v", "--version"}, {"dump", "--version"}, {"extract", "--version"}, {"embed", "--version"},
		{"create", "--version"}, {"bundle", "--version"}, {"-o", "x", "--version"}, {"in.pkg", "-version"},
	} {
		var out, errb bytes.Buffer
		code := realMain("offload-packager", args, strings.NewReader(""), &out, &errb)
		assert.Equal(t, 0, code, "%q: %s", args, errb.String())
		assert.Equal(t, line, out.String(), "%q", args)
	}
	for _, argv0 := range []string{"/usr/bin/llvm-offload-binary", "clang-offload-packager", "bin/clang-offload-bundler"} {
		var out, errb bytes.Buffer
		assert.Equal(t, 0, realMain(argv0, []string{"--version"}, strings.NewReader(""), &out, &errb))
		assert.Equal(t, version.Line(cli.Stem(argv0))+"\n", out.String())
	}
}

// TestVersionInjected builds the command with the -X flag of make build
// and checks that --version reports the injected release.
func TestVersionInjected(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	require.NoError(t, err)
	const x = "-X github.com/offload-kit/offload-kit/internal/version.release="
	require.Contains(t, string(mk), x+"$$(git describe --tags --always --dirty", "make build injects the version")
	bin := filepath.Join(t.TempDir(), "offload-packager")
	build := exec.Command("go", "build", "-ldflags", x+"v9.8.7-1-gdeadbee-dirty", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	b, err := build.CombinedOutput()
	require.NoError(t, err, "%s", b)
	require.NoError(t, os.Symlink(bin, filepath.Join(filepath.Dir(bin), "clang-offload-bundler")))
	for _, c := range []struct{ exe, arg, prog string }{
		{bin, "--version", "offload-packager"},
		{bin, "dump", "offload-packager"},
		{filepath.Join(filepath.Dir(bin), "clang-offload-bundler"), "--version", "clang-offload-bundler"},
	} {
		args := []string{c.arg}
		if c.arg == "dump" {
			args = append(args, "--version")
		}
		out, err := exec.Command(c.exe, args...).Output()
		require.NoError(t, err)
		assert.Equal(t, "offload-kit "+c.prog+" version v9.8.7-1-gdeadbee-dirty (compatible with LLVM 22.1.8)\n", string(out))
	}
}

// llvmBin holds the LLVM 22 tools the differential tests compare with
// (scripts/install-deps.sh installs them).
const llvmBin = llvmtools.Dir

// execIn runs an LLVM tool in dir.
func execIn(t *testing.T, dir, tool string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(llvmBin, tool), args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", tool, err)
	}
	return out.String(), errb.String(), code
}

// runIn runs ours in-process in dir with argv[0] argv0.
func runIn(t *testing.T, dir, argv0 string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code = realMain(argv0, args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// seed makes a directory holding files.
func seed(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
	return dir
}

// tree lists the regular files under dir with their contents.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[rel] = string(b)
		return err
	}))
	return m
}

// inputs are the device "images" of the differential tests: any bytes
// will do for llvm-offload-binary and for clang-offload-bundler -type=bc.
var inputs = map[string]string{
	"a.bin":          "AAAA image a\n",
	"b bin":          "BBBB image with a space in its name\n",
	"q'uote.bin":     "QQQQ\n",
	`back\slash.bin`: "\\\\\n",
	"sub/c.bin":      strings.Repeat("C", 100),
}

// llvmPackage is a package llvm-offload-binary made from inputs.
func llvmPackage(t *testing.T) string {
	t.Helper()
	dir := seed(t, inputs)
	_, stderr, code := execIn(t, dir, "llvm-offload-binary", "-o", "p.pkg",
		"--image=file=a.bin,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp",
		"--image=file=b bin,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip",
		"--image=file=sub/c.bin,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(filepath.Join(dir, "p.pkg"))
	require.NoError(t, err)
	return string(b)
}

// TestBareSyntaxParity: bare offload-packager takes llvm-offload-binary's
// command lines with the same files written, output, messages (the
// program name aside) and exit codes.
func TestBareSyntaxParity(t *testing.T) {
	pkg := llvmPackage(t)
	const prog = "offload-packager"
	for _, args := range [][]string{
		{"-o", "out.pkg", "--image=file=a.bin,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp"},
		{"-o=out.pkg", "-image=file=b bin,triple=t,arch=a,kind=hip", "--image", "file=sub/c.bin,triple=u,feature=+x"},
		{"--image=file=a.bin,triple=t", "-o", "out.pkg"},
		{"p.pkg", "--image=kind=openmp"},
		{"p.pkg", "--image=arch=gfx90a,file=one.bin"},
		// Not "p.pkg" alone: LLVM 22.1.8 extracts nothing without --image,
		// offload-kit everything (README: newer LLVM's behaviour).
		{"p.pkg", "--image=kind=hip,file=hip.a", "--archive"},
		{"-archive", "p.pkg", "-image=file=all.a"},
		{"p.pkg", "--image=kind=sycl"},
		{"--", "p.pkg", "--image=arch=sm_90"},
		{"-o", "x", "p.pkg"},
		{"p.pkg", "b"},
		{"missing.pkg", "--image=kind=openmp"},
		{"-o", "x", "--image=triple=t"},
		{"-imag"},
		{"--foo", "--bar", "p.pkg", "x"},
		{"--archive=x", "-o"},
		{"-o"},
		{"--", "-o"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			files := map[string]string{"p.pkg": pkg}
			for k, v := range inputs {
				files[k] = v
			}
			a, b := seed(t, files), seed(t, files)
			wo, we, wc := execIn(t, a, "llvm-offload-binary", args...)
			we = strings.ReplaceAll(strings.ReplaceAll(we, filepath.Join(llvmBin, "llvm-offload-binary"), prog), "llvm-offload-binary", prog)
			goOut, goErr, goCode := runIn(t, b, prog, args...)
			assert.Equal(t, wc, goCode, "exit code")
			assert.Equal(t, wo, goOut, "stdout")
			assert.Equal(t, we, goErr, "stderr")
			assert.Equal(t, tree(t, a), tree(t, b), "files")
		})
	}
}

// rspCases are response-file contents that name one argument, with what
// LLVM's GNU tokenizer makes of them. llvm-offload-binary, given the
// response file alone, reports that argument as a missing input file, so
// it shows the token it read.
var rspCases = map[string]string{
	"plain":                      "word",
	"single quotes":              `'a b'`,
	"backslash in single quotes": `'a\b'`,
	"escaped quote":              `"a\"b"`,
	"mixed":                      `x"y z"w'v'`,
	"escaped space":              `a\ b`,
	"final backslash":            `a\`,
	"unterminated":               `"open quote`,
	"empty":                      `"" ''`,
	"escaped escape":             `\\\\`,
	"escaped hash":               `\#x`,
	"separators":                 "\r\n\t tok \t\r\n",
	"utf-8 bom":                  "\xef\xbb\xbfbom",
	"utf-16le bom":               "\xff\xfeu\x00t\x00f\x00",
	"utf-16be bom":               "\xfe\xff\x00u\x00t\x00f",
	"nested":                     "@sub/nest.rsp",
	"missing nested":             "@nope.rsp",
	"quoted at":                  `'@sub/nest.rsp'`,
	"at only":                    `'@'x`,
}

// TestResponseFileParity: the same response files give the same
// arguments to our personalities as to LLVM's tools.
func TestResponseFileParity(t *testing.T) {
	files := map[string]string{
		// Nested names are relative to the current directory, not to the
		// file naming them: "@inner.rsp" in sub/nest.rsp is ./inner.rsp.
		"sub/nest.rsp":  "@inner.rsp",
		"inner.rsp":     "from-cwd",
		"sub/inner.rsp": "from-sub",
	}
	for name, content := range rspCases {
		files["case-"+strings.ReplaceAll(name, " ", "_")+".rsp"] = content
	}
	dir := seed(t, files)
	for name := range rspCases {
		rsp := "@case-" + strings.ReplaceAll(name, " ", "_") + ".rsp"
		t.Run(name, func(t *testing.T) {
			for _, tool := range []string{"llvm-offload-binary", "clang-offload-bundler"} {
				args := []string{rsp}
				if tool == "clang-offload-bundler" {
					args = append(args, "-type=bc") // its positional-argument error echoes the token
				}
				wo, we, wc := execIn(t, dir, tool, args...)
				goOut, goErr, goCode := runIn(t, dir, filepath.Join(llvmBin, tool), args...)
				assert.Equal(t, wc, goCode, "%s: exit code", tool)
				assert.Equal(t, wo, goOut, "%s: stdout", tool)
				assert.Equal(t, we, goErr, "%s: stderr", tool)
			}
		})
	}
	// The bundler personality after a response file left as a literal
	// argument: every LLVM message, the missing -type included.
	wo, we, wc := execIn(t, dir, "clang-offload-bundler", "@nonexistent", "x")
	goOut, goErr, goCode := runIn(t, dir, filepath.Join(llvmBin, "clang-offload-bundler"), "@nonexistent", "x")
	assert.Equal(t, []any{wo, we, wc}, []any{goOut, goErr, goCode})
}

// TestResponseFileErrors: where LLVM prints why a response file cannot be
// expanded and goes on (clang-offload-bundler) or crashes
// (llvm-offload-binary), we print the same reason as one error line and
// exit 1.
func TestResponseFileErrors(t *testing.T) {
	dir := seed(t, map[string]string{"loop.rsp": "-x @again.rsp", "again.rsp": "@loop.rsp", "f": ""})
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	for _, arg := range []string{"@loop.rsp", "@d", "@f/x", "@"} {
		for _, tool := range []string{"llvm-offload-binary", "clang-offload-bundler"} {
			_, we, wc := execIn(t, dir, tool, arg)
			reason, _, _ := strings.Cut(we, "\n")
			require.NotEmpty(t, reason)
			assert.NotEqual(t, 0, wc, "%s %s", tool, arg)
			argv0 := filepath.Join(llvmBin, tool)
			goOut, goErr, goCode := runIn(t, dir, argv0, arg)
			assert.Equal(t, 1, goCode, "%s %s", tool, arg)
			assert.Empty(t, goOut)
			assert.Equal(t, argv0+": error: "+reason+"\n", goErr, "%s %s", tool, arg)
		}
		_, goErr, goCode := runIn(t, dir, "offload-packager", "dump", arg)
		assert.Equal(t, 1, goCode)
		assert.True(t, strings.HasPrefix(goErr, "offload-packager: error: "), goErr)
	}
}

// TestResponseFilesEverywhere: for each subcommand, personality and the
// bare syntax, arguments read from a response file (quoted as a build
// system would) act exactly as the same arguments given directly.
func TestResponseFilesEverywhere(t *testing.T) {
	pkg := llvmPackage(t)
	// A host object for embed, made by clang.
	hostDir := seed(t, map[string]string{"h.c": "int main(void) { return 0; }\n"})
	_, stderr, code := execIn(t, hostDir, "clang", "-c", "h.c", "-o", "h.o")
	require.Equal(t, 0, code, stderr)
	host, err := os.ReadFile(filepath.Join(hostDir, "h.o"))
	require.NoError(t, err)

	// LLVM's quoting, not a shell's: a backslash escapes inside single
	// quotes too.
	quote := func(args []string) string {
		var b strings.Builder
		for i, a := range args {
			if i%2 == 0 {
				b.WriteString("'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(a) + "'\n")
			} else {
				b.WriteString(`"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(a) + "\" \t")
			}
		}
		return b.String()
	}
	for _, c := range []struct {
		argv0 string
		args  []string
	}{
		{"offload-packager", []string{"create", "-o", "out pkg", "--image=file=b bin,triple=t,arch=a,kind=hip", "--image", `file=back\slash.bin,triple=x y`}},
		{"offload-packager", []string{"-o", "out pkg", "--image=file=q'uote.bin,triple=t"}},
		{"offload-packager", []string{"p.pkg", "--image=kind=hip,file=x y.bin"}},
		{"offload-packager", []string{"extract", "p.pkg", "--kind=cuda", "-d", "out dir"}},
		{"offload-packager", []string{"dump", "p.pkg", "--all"}},
		{"offload-packager", []string{"dump", "--json", "p.pkg"}},
		{"offload-packager", []string{"embed", "-o", "fat o", "h.o", "p.pkg"}},
		{"offload-packager", []string{"bundle", "-type=bc", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a", "-input=a.bin", "-input=b bin", "-output=bundle out"}},
		{"offload-packager", []string{"extract", "p.pkg", "-image=kind=hip"}},
		{"llvm-offload-binary", []string{"-o", "o'k", `--image=file=back\slash.bin,triple=t`}},
		{"clang-offload-packager", []string{"p.pkg", "--image=kind=openmp,file=o mp"}},
		{"clang-offload-bundler", []string{"-type=bc", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a", "-input=q'uote.bin", "-input=b bin", "-output=bundle out"}},
		{"clang-offload-bundler", []string{"-type=bc", "-list", "-input"}},
	} {
		t.Run(c.argv0+" "+strings.Join(c.args, " "), func(t *testing.T) {
			files := map[string]string{"p.pkg": pkg, "h.o": string(host)}
			for k, v := range inputs {
				files[k] = v
			}
			a, b := seed(t, files), seed(t, files)
			require.NoError(t, os.Mkdir(filepath.Join(a, "out dir"), 0o755))
			require.NoError(t, os.Mkdir(filepath.Join(b, "out dir"), 0o755))
			wo, we, wc := runIn(t, a, c.argv0, c.args...)
			// The whole command line in one file, and the last half in a
			// nested one.
			half := len(c.args) / 2
			rsp := quote(c.args[:half]) + " @nested.rsp"
			require.NoError(t, os.WriteFile(filepath.Join(b, "args.rsp"), []byte(rsp), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(b, "nested.rsp"), []byte(quote(c.args[half:])), 0o644))
			argsRsp := "@args.rsp"
			var pre []string
			if c.argv0 == "offload-packager" && c.args[0] != "-o" && c.args[0] != "p.pkg" {
				pre = []string{c.args[0]} // the subcommand stays on the command line
				require.NoError(t, os.WriteFile(filepath.Join(b, "args.rsp"), []byte(quote(c.args[1:half])+" @nested.rsp"), 0o644))
			}
			goOut, goErr, goCode := runIn(t, b, c.argv0, append(pre, argsRsp)...)
			assert.Equal(t, wc, goCode, "exit code: %s", goErr)
			assert.Equal(t, wo, goOut, "stdout")
			assert.Equal(t, we, goErr, "stderr")
			ta, tb := tree(t, a), tree(t, b)
			delete(tb, "args.rsp")
			delete(tb, "nested.rsp")
			assert.Equal(t, ta, tb, "files")
			assert.Greater(t, len(ta), len(files)-1)
		})
	}
}

// TestResponseFileToolParity: whole command lines in response files (with
// quoting, nesting and a literal @name) give byte-identical outputs from
// LLVM's tools and ours.
func TestResponseFileToolParity(t *testing.T) {
	for _, c := range []struct {
		tool string
		rsp  map[string]string
	}{
		{"llvm-offload-binary", map[string]string{
			"args.rsp": `-o "out pkg" '--image=file=b bin,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip' @more.rsp`,
			"more.rsp": "--image=file=back\\\\slash.bin,triple=x\\ y,kind=openmp\r\n-image \"file=q'uote.bin,triple=t\"",
		}},
		{"llvm-offload-binary", map[string]string{
			"args.rsp": `p.pkg '--image=kind=hip,file=x y.bin' --image=kind=cuda,file="c.a" --archive`,
		}},
		{"clang-offload-bundler", map[string]string{
			"args.rsp": `-type=bc -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a '-input=a.bin' @more.rsp`,
			"more.rsp": `-input="b bin" -output=out\ bundle`,
		}},
		{"clang-offload-bundler", map[string]string{
			// Compressed output is left out: zstd bytes are not canonical.
			"args.rsp": `-type=bc -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a "-input=b bin" '-input=q\'uote.bin' -output=bundle -bundle-align=64`,
		}},
	} {
		t.Run(c.tool+" "+c.rsp["args.rsp"], func(t *testing.T) {
			files := map[string]string{"p.pkg": llvmPackage(t)}
			for k, v := range inputs {
				files[k] = v
			}
			for k, v := range c.rsp {
				files[k] = v
			}
			a, b := seed(t, files), seed(t, files)
			wo, we, wc := execIn(t, a, c.tool, "@args.rsp")
			goOut, goErr, goCode := runIn(t, b, filepath.Join(llvmBin, c.tool), "@args.rsp")
			require.Equal(t, 0, wc, we)
			assert.Equal(t, []any{wo, we, wc}, []any{goOut, goErr, goCode})
			ta, tb := tree(t, a), tree(t, b)
			assert.Equal(t, ta, tb, "files")
			assert.Greater(t, len(ta), len(files), "something was written")
		})
	}
}

// TestSuggestions: a mistyped subcommand or option is one error line
// naming the nearest one (exit 1), never an llvm-offload-binary command
// line that fails for another reason or writes files; an existing file
// of that name is still an input, and typos of llvm-offload-binary's own
// options keep LLVM's message (TestBareSyntaxParity).
func TestSuggestions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dumpp", "x.o"}, "'dumpp' is neither a command nor a file; did you mean 'dump'?"},
		{[]string{"kernal", "x.o"}, "'kernal' is neither a command nor a file; did you mean 'kernels'?"},
		{[]string{"extrct"}, "'extrct' is neither a command nor a file; did you mean 'extract'?"},
		{[]string{"--al", "x.o"}, "unknown option '--al'; did you mean 'dump --all'?"},
		{[]string{"--jsn", "x.o"}, "unknown option '--jsn'; did you mean 'dump --json'?"},
		{[]string{"dump", "--al", "x.o"}, "unknown flag: --al; did you mean --all?"},
		{[]string{"dump", "-al", "x.o"}, "unknown shorthand flag: 'a' in -al; did you mean --all?"},
		{[]string{"extract", "--rw", "x.o"}, "unknown flag: --rw; did you mean --raw?"},
		{[]string{"dump", "--frobnicate", "x.o"}, "unknown flag: --frobnicate"},
		{[]string{"help", "dumpp"}, "unknown help topic 'dumpp'; did you mean 'dump'?"},
		{[]string{"help", "frobnicate"}, "unknown help topic 'frobnicate'"},
	} {
		out, errb, code := runIn(t, t.TempDir(), "offload-packager", c.args...)
		assert.Equal(t, 1, code, "%q", c.args)
		assert.Empty(t, out, "%q", c.args)
		assert.Equal(t, "offload-packager: error: "+c.want+"\n", errb, "%q", c.args)
	}
	// A file named like a typo is an input.
	dir := seed(t, map[string]string{"dumpp": "text"})
	_, errb, code := runIn(t, dir, "offload-packager", "dumpp")
	assert.Equal(t, 1, code)
	assert.Equal(t, "offload-packager: error: dumpp: no device images\n", errb)
}

// TestBareListsOnly: "offload-packager FILE" without --image writes
// nothing, lists what extract would write and exits 0.
func TestBareListsOnly(t *testing.T) {
	fb, err := os.ReadFile("../../format/fatbin/testdata/elf_ptx_zstd.fatbin")
	require.NoError(t, err)
	dir := seed(t, map[string]string{"x.fatbin": string(fb)})
	out, errb, code := runIn(t, dir, "offload-packager", "x.fatbin")
	assert.Equal(t, 0, code, errb)
	assert.Equal(t, "x.fatbin holds 2 device images; nothing was written. 'offload-packager extract x.fatbin' writes:\n"+
		"  x.fatbin.fatbin0.0.sm_90.cubin\n  x.fatbin.fatbin0.1.sm_90.ptx\n", out)
	assert.Equal(t, map[string]string{"x.fatbin": string(fb)}, tree(t, dir))
}

// TestBundleHelpUsage: bundle --help shows the subcommand's usage line.
func TestBundleHelpUsage(t *testing.T) {
	out, _, code := runIn(t, t.TempDir(), "offload-packager", "bundle", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "\nUSAGE: offload-packager bundle [options]\n")
	help, _, _ := runIn(t, t.TempDir(), "offload-packager", "help", "bundle")
	assert.Contains(t, help, "offload-packager bundle -type=T -targets=")
	assert.NotContains(t, help, "<clang-offload-bundler arguments>")
	root, _, _ := runIn(t, t.TempDir(), "offload-packager", "--help")
	assert.Regexp(t, `(?m)^  kernels +Per-kernel`, root)
	assert.Contains(t, root, "(create, extract, dump, kernels, embed, bundle,")
}

// TestCompletion: cobra's completion protocol (what the installed bash
// and zsh scripts call) completes extract's --kind values and the
// LLVM-syntax options of create and bundle, in the spelling typed.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "extract", "--kind", "h"}, "openmp\ncuda\nhip\nsycl\n:4\n"}, // the shell filters
		{[]string{"__complete", "bundle", "-typ"}, "-type=\n:6\n"},
		{[]string{"__complete", "bundle", "--unb"}, "--unbundle\n:4\n"},
		{[]string{"__complete", "create", "--ima"}, "--image=\n:6\n"},
		{[]string{"__complete", "create", "x"}, ":0\n"},
		{[]string{"__complete", "dum"}, "dump\tList the offload images in files (llvm-objdump --offloading)\n:4\n"},
	} {
		out, _, code := runIn(t, t.TempDir(), "offload-packager", c.args...)
		assert.Equal(t, 0, code, "%q", c.args)
		assert.Equal(t, c.want, out, "%q", c.args)
	}
}
