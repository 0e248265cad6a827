package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
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
	root.SetArgs(args)
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	_, err := root.ExecuteC()
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

// LLVM-syntax subcommands pass their arguments through untouched.
func TestVerbatimSubcommands(t *testing.T) {
	cmd, opts, err := parse(t, "create", "-o", "x", "-image=file=a.o,triple=t", "--image", "file=b")
	require.NoError(t, err)
	assert.Equal(t, "create", cmd)
	assert.Equal(t, []string{"-o", "x", "-image=file=a.o,triple=t", "--image", "file=b"}, opts)
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
	code := run("/opt/x/llvm-offload-binary", []string{"a", "b"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 1, code)
	assert.Equal(t, "llvm-offload-binary: Too many positional arguments specified!\nCan specify at most 1 positional arguments: See: /opt/x/llvm-offload-binary --help\n", errb.String())
	errb.Reset()
	code = run("offload-packager", []string{"extract", "/nonexistent/x.o"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 1, code)
	assert.Equal(t, "offload-packager: error: '/nonexistent/x.o': No such file or directory\n", errb.String())
}
