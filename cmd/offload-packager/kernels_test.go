package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKernelsDiffUsageErrors: a budget that does not parse, a bad
// --format, --all with --top: one "offload-packager: error:" line, exit 1,
// nothing on stdout, before any input is read.
func TestKernelsDiffUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"kernels", "diff", "--fail-on", "spills>0,regs+x", "/nonexistent/a", "/nonexistent/b"},
			`--fail-on: budget rule "regs+x": "x" is not a whole number of 0 or more`},
		{[]string{"kernels", "diff", "--fail-on", "ticks>1", "/nonexistent/a", "/nonexistent/b"},
			`--fail-on: budget rule "ticks>1": unknown metric "ticks" (one of size, regs, sgprs, vgprs, agprs, spills, lds, scratch)`},
		{[]string{"kernels", "diff", "--format=html", "/nonexistent/a", "/nonexistent/b"}, `--format: "html" is not one of text, json, md`},
		{[]string{"kernels", "diff", "--all", "--top=3", "/nonexistent/a", "/nonexistent/b"}, `--all and --top exclude each other`},
		{[]string{"kernels", "--sort=bytes", "/nonexistent/a"}, `--sort: "bytes" is not one of size, name, regs, lds, scratch`},
	} {
		var out, errb bytes.Buffer
		code := realMain("offload-packager", c.args, strings.NewReader(""), &out, &errb)
		assert.Equal(t, 1, code, "%v", c.args)
		assert.Equal(t, "offload-packager: error: "+c.msg+"\n", errb.String(), "%v", c.args)
		assert.Empty(t, out.String(), "%v", c.args)
	}
}

// TestKernelsCompletion: --sort completes its keys, --arch the targets of
// the files already on the command line (processors and target IDs),
// diff's --format its formats.
func TestKernelsCompletion(t *testing.T) {
	complete := func(args ...string) []string {
		var out, errb bytes.Buffer
		code := realMain("offload-packager", append([]string{"__complete"}, args...), strings.NewReader(""), &out, &errb)
		assert.Equal(t, 0, code, errb.String())
		var vals []string
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if !strings.HasPrefix(l, ":") && l != "" {
				vals = append(vals, strings.SplitN(l, "\t", 2)[0])
			}
		}
		return vals
	}
	assert.Equal(t, []string{"size", "name", "regs", "lds", "scratch"}, complete("kernels", "--sort", ""))
	co, err := filepath.Abs("../../format/codeobj/testdata/kern-gfx90a-clang22.co")
	assert.NoError(t, err)
	fb, err := filepath.Abs("../../format/codeobj/testdata/cuda13/kernels-sm90-nvcc13.fatbin")
	assert.NoError(t, err)
	assert.Equal(t, []string{"gfx90a", "sm_90"}, complete("kernels", co, fb, "--arch", ""))
	assert.Equal(t, []string{"sm_90"}, complete("kernels", co, fb, "--arch", "sm"))
	assert.Contains(t, complete("kernels", "--arch", "sm_10"), "sm_100f", "no file yet: the common targets")
	assert.Equal(t, []string{"text", "json", "md"}, complete("kernels", "diff", "--format", ""))
}
