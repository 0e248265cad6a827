package clopt

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/version"
)

func helpSet() *Set {
	return &Set{Prog: "tool", Path: "/bin/tool", Overview: "Does things.\nTwo lines.\n", Positional: "<input>", Category: "tool options",
		Opts: []Opt{
			{Name: "zeta", Help: "Last by name"},
			{Name: "o", Value: true, Meta: "file", Help: "Output"},
			{Name: "level", Value: true, Meta: "uint", Help: "A level"},
			{Name: "mode", Value: true, Help: "Mode:\n  a - first\n  b - second"},
			{Name: "secret", Hidden: true, Help: "Hidden one"},
			{Name: "h", Unlisted: true, Help: "Alias for -help"},
		}}
}

func help(s *Set, categorized, hidden bool) string {
	var b strings.Builder
	s.WriteHelp(&b, categorized, hidden)
	return b.String()
}

// TestWriteHelp: the layout rules of cl::opt's printers (the byte-for-byte
// comparison with the real tools is in the packager and bundler tests).
func TestWriteHelp(t *testing.T) {
	head := "OVERVIEW: Does things.\nTwo lines.\n\nUSAGE: tool [options] <input>\n\nOPTIONS:\n"
	assert.Equal(t, head+`
Generic Options:

  --help          - Display available options (--help-hidden for more)
  --help-list     - Display list of available options (--help-list-hidden for more)
  --version       - Display the version of this program

tool options:

  --level=<uint>  - A level
  --mode=<string> - Mode:
                      a - first
                      b - second
  -o <file>       - Output
  --zeta          - Last by name
`, help(helpSet(), true, false))
	assert.Equal(t, head+`  --help          - Display available options (--help-hidden for more)
  --level=<uint>  - A level
  --mode=<string> - Mode:
                      a - first
                      b - second
  -o <file>       - Output
  --version       - Display the version of this program
  --zeta          - Last by name
`, help(helpSet(), false, false))
	hidden := help(helpSet(), false, true)
	for _, o := range []string{"--help-hidden ", "--help-list ", "--help-list-hidden ", "--print-options ", "--print-all-options ", "--secret "} {
		assert.Contains(t, hidden, "\n  "+o, "hidden options are listed")
	}
	assert.NotContains(t, hidden, "Alias for -help", "unlisted options never are")
	assert.Equal(t, strings.Count(hidden, "\n  --"), strings.Count(help(helpSet(), true, true), "\n  --"), "both hidden forms list the same options")

	// No category: --help is the flat form; no overview, no positional.
	s := &Set{Prog: "p", Opts: []Opt{{Name: "a-very-long-option-name", Help: "x"}}}
	assert.Equal(t, "USAGE: p [options]\n\nOPTIONS:\n  --a-very-long-option-name - x\n"+
		"  --help                    - Display available options (--help-hidden for more)\n"+
		"  --version                 - Display the version of this program\n", help(s, true, false))
}

// TestAction: --help and --version act when met, as in LLVM: the
// arguments after them are not parsed, the errors before them are kept.
func TestAction(t *testing.T) {
	r, err := testSet().Parse([]string{"-o", "x", "--help-list", "--bogus", "-o"})
	require.NoError(t, err)
	assert.Equal(t, HelpList, r.Action)
	assert.Equal(t, "x", r.Last("o"))

	r, err = testSet().Parse([]string{"--bogus", "-version", "--help"})
	assert.EqualError(t, err, "tool: Unknown command line argument '--bogus'.  Try: '/bin/tool --help'\ntool: Did you mean '-o'?")
	assert.Equal(t, Version, r.Action)

	r, err = testSet().Parse([]string{"--help=false", "--version=1", "--print-options", "in"})
	assert.EqualError(t, err, "tool: for the --help option: does not allow a value! 'false' specified.\n"+
		"tool: for the --version option: does not allow a value! '1' specified.\n"+
		"tool: Unknown command line argument '--print-options'.  Try: '/bin/tool --help'\ntool: Did you mean '--version'?")
	assert.Empty(t, r.Action)
	assert.Equal(t, []string{"in"}, r.Positional)

	var b strings.Builder
	s := helpSet()
	for action, want := range map[string]string{
		"":             "",
		Version:        version.Line("tool") + "\n",
		Help:           help(s, true, false),
		HelpHidden:     help(s, true, true),
		HelpList:       help(s, false, false),
		HelpListHidden: help(s, false, true),
	} {
		b.Reset()
		assert.Equal(t, action != "", s.Act(&b, &Result{Action: action}), action)
		assert.Equal(t, want, b.String(), action)
	}
}
