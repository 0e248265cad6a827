package clopt

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testSet() *Set {
	return &Set{Prog: "tool", Path: "/bin/tool", Opts: []Opt{
		{Name: "o", Value: true}, {Name: "image", Value: true}, {Name: "archive"},
		{Name: "targets", Value: true, Comma: true},
	}}
}

func TestParse(t *testing.T) {
	r, err := testSet().Parse([]string{"-o", "x", "--image=a=b,c", "-image", "d", "in", "-archive", "-targets=a,b", "--targets", "c", "--", "-o"})
	require.NoError(t, err)
	assert.Equal(t, "x", r.Last("o"))
	assert.Equal(t, []string{"a=b,c", "d"}, r.All("image"))
	assert.True(t, r.Bool("archive"))
	assert.Equal(t, []string{"a", "b", "c"}, r.All("targets"))
	assert.Equal(t, []string{"in", "-o"}, r.Positional)
	assert.False(t, r.Has("help"))
}

func TestBooleans(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "1": true, "TRUE": true, "false": false, "0": false, "False": false} {
		r, err := testSet().Parse([]string{"--archive=" + v})
		require.NoError(t, err)
		assert.Equal(t, want, r.Bool("archive"), v)
	}
	_, err := testSet().Parse([]string{"--archive=x"})
	assert.EqualError(t, err, "tool: for the --archive option: 'x' is invalid value for boolean argument! Try 0 or 1")
}

func TestErrors(t *testing.T) {
	_, err := testSet().Parse([]string{"-o"})
	assert.EqualError(t, err, "tool: for the -o option: requires a value!")
	_, err = testSet().Parse([]string{"--imag=x"})
	assert.EqualError(t, err, "tool: Unknown command line argument '--imag=x'.  Try: '/bin/tool --help'\ntool: Did you mean '--image'?")
	_, err = testSet().Parse([]string{"-foo"})
	assert.Contains(t, err.Error(), "Did you mean '-o'?")
}

// TestAllErrors: every bad argument is reported, in order, as LLVM does.
func TestAllErrors(t *testing.T) {
	r, err := testSet().Parse([]string{"a", "--archive=x", "--foo", "-o"})
	assert.EqualError(t, err, "tool: for the --archive option: 'x' is invalid value for boolean argument! Try 0 or 1\n"+
		"tool: Unknown command line argument '--foo'.  Try: '/bin/tool --help'\ntool: Did you mean '-o'?\n"+
		"tool: for the -o option: requires a value!")
	assert.Equal(t, []string{"a"}, r.Positional)
	s := testSet()
	s.NoPositional = true
	r, err = s.Parse([]string{"-foo", "x", "-o", "v", "--", "-y"})
	assert.EqualError(t, err, "tool: Unknown command line argument '-foo'.  Try: '/bin/tool --help'\ntool: Did you mean '-o'?\n"+
		"tool: Unknown command line argument 'x'.  Try: '/bin/tool --help'\n"+
		"tool: Unknown command line argument '-y'.  Try: '/bin/tool --help'")
	assert.Equal(t, "v", r.Last("o"))
}

// FuzzParse: any argument list parses or fails with a message; never panics.
func FuzzParse(f *testing.F) {
	f.Add("-o x --image=file=a,triple=b in")
	f.Add("--archive=1 -targets=a,b,, -- -x")
	f.Add("- -= --= ---o=1 -o")
	f.Fuzz(func(t *testing.T, line string) {
		r, err := testSet().Parse(strings.Fields(line))
		require.NotNil(t, r, "what parsed is returned even with errors")
		if err != nil {
			var ce *Error
			assert.ErrorAs(t, err, &ce)
			assert.NotEmpty(t, ce.Text)
		}
	})
}
