package optable

import (
	"strings"
	"testing"
)

// TestWriteHelpLayout pins LLVM's OptTable::printHelp rules: names sorted
// as StrCmpOptionName sorts them, metavars ("<value>" by default, after a
// space for separate values), a column as wide as the longest name of at
// most 23 characters, longer names alone on their line, multi-line help
// indented, hidden options only on request, and the [offload-kit] mark.
func TestWriteHelpLayout(t *testing.T) {
	d2 := []string{"--"}
	d1 := []string{"-"}
	tab := MustNew([]Option{
		{ID: "help", Prefixes: d2, Name: "help", Kind: Flag, Help: "Help"},
		{ID: "help_hidden", Prefixes: d2, Name: "help-hidden", Kind: Flag, Help: "More help"},
		{ID: "tt", Prefixes: d2, Name: "trace=", Kind: Joined, MetaVar: "<file>", Help: "Trace"},
		{ID: "ttg", Prefixes: d2, Name: "trace-granularity=", Kind: Joined, MetaVar: "<number>", Help: "Granularity"},
		{ID: "L", Prefixes: d1, Name: "L", Kind: JoinedOrSeparate, MetaVar: "<dir>", Help: "Search <dir>"},
		{ID: "l", Prefixes: d1, Name: "l", Kind: JoinedOrSeparate, Help: "Link"},
		{ID: "libs", Prefixes: d2, Name: "libs=", Kind: CommaJoined, Help: "Libraries"},
		{ID: "long", Prefixes: d2, Name: "twenty-four-characters", Kind: Flag, Help: "Long\nsecond line"},
		{ID: "x", Prefixes: d2, Name: "exactly-21-characters", Kind: Flag, Help: "Fits", Extension: true},
		{ID: "sep", Prefixes: d2, Name: "out", Kind: Separate, Alias: "tt", Hidden: true, Help: "Alias"},
		{ID: "nohelp", Prefixes: d2, Name: "quiet", Kind: Flag},
	})
	var b strings.Builder
	if err := tab.WriteHelp(&b, "tool [options]", "A tool.", false); err != nil {
		t.Fatal(err)
	}
	want := "OVERVIEW: A tool.\n\nUSAGE: tool [options]\n\nOPTIONS:\n" +
		"  --exactly-21-characters Fits [offload-kit]\n" +
		"  --help-hidden           More help\n" +
		"  --help                  Help\n" +
		"  --libs=<value>          Libraries\n" +
		"  -L <dir>                Search <dir>\n" +
		"  -l <value>              Link\n" +
		"  --trace-granularity=<number>\n" +
		"                          Granularity\n" +
		"  --trace=<file>          Trace\n" +
		"  --twenty-four-characters\n" +
		"                          Long\n" +
		"                          second line\n"
	if b.String() != want {
		t.Errorf("help:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	tab.WriteHelp(&b, "tool", "T", true)
	if !strings.Contains(b.String(), "\n  --out <value>           Alias\n") {
		t.Errorf("--help-hidden lists hidden options with help text:\n%s", b.String())
	}
	if strings.Contains(b.String(), "quiet") {
		t.Errorf("an option without help text is never listed:\n%s", b.String())
	}
}

func TestCompareNames(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"help-hidden", "help", -1}, {"L", "l", -1}, {"library-path=", "library=", -1},
		{"Zeta", "alpha", 1}, {"o", "override-image=", 1}, {"x", "x", 0},
	} {
		if got := compareNames(c.a, c.b); got != c.want {
			t.Errorf("compareNames(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
