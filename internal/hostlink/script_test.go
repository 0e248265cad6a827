package hostlink

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLinkerScript(t *testing.T) {
	libc := "/* GNU ld script\n   Use the shared library. */\nOUTPUT_FORMAT(elf64-x86-64)\n" +
		"GROUP ( /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc_nonshared.a  AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )\n"
	info := ParseScript(libc)
	assert.Equal(t, "", info.Unsure)
	assert.Equal(t, []ScriptInput{{"/lib/x86_64-linux-gnu/libc.so.6", false}, {"/usr/lib/x86_64-linux-gnu/libc_nonshared.a", false},
		{"/lib64/ld-linux-x86-64.so.2", false}}, info.Inputs)
	assert.Empty(t, info.Refs)

	info = ParseScript("SEARCH_DIR(\"=/opt/lib\") INPUT(-lfoo \"b.o\", c.a)\nEXTERN(lib3_run other) ENTRY(start)\nalias = target + 4;\nPROVIDE(p = q);")
	assert.Equal(t, "", info.Unsure)
	assert.Equal(t, []string{"=/opt/lib"}, info.SearchDirs)
	assert.Equal(t, []ScriptInput{{"foo", true}, {"b.o", false}, {"c.a", false}}, info.Inputs)
	for _, n := range []string{"lib3_run", "other", "start", "target", "q"} {
		assert.Contains(t, info.Refs, n)
	}
	assert.NotEqual(t, "", ParseScript("SECTIONS { .text : { x.o(.text) } }").Unsure)
	assert.NotEqual(t, "", ParseScript("INCLUDE other.ld").Unsure)
	assert.NotEqual(t, "", ParseScript("/* open").Unsure)
	assert.NotEqual(t, "", ParseScript("INPUT(\"a.o)").Unsure)
}

func TestParseSymbolFile(t *testing.T) {
	names, err := ParseSymbolFile("VERS_1 { global: f; g*; local: *; };\nVERS_2 { h; extern \"C++\" { \"ns::fn*\"; }; } VERS_1;")
	require.NoError(t, err)
	assert.Equal(t, []string{"VERS_1", "f", "g*", "VERS_2", "h", "VERS_1"}, names)
	names, err = ParseSymbolFile("{ a; b; };")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names)
	assert.True(t, MatchSymbol("g*", "gamma"))
	assert.False(t, MatchSymbol("g*", "alpha"))
	assert.True(t, MatchSymbol("[", "["), "a malformed pattern matches itself")
}

func TestSymbolNames(t *testing.T) {
	assert.Equal(t, []string{"f", "ADDR", ".text", "__start_x$y"}, SymbolNames("f+0x10*ADDR(.text)-__start_x$y"))
}

// FuzzParseLinkerScript checks that linker scripts and symbol files of any
// content are read without panicking.
func FuzzParseLinkerScript(f *testing.F) {
	for _, s := range []string{"GROUP ( /a.so.6 AS_NEEDED ( /b.so ) )", "EXTERN(a b) x = y + 1; /* c */",
		"SECTIONS { .t : { *(.text) } }", "{ global: f; local: *; };", "INPUT(\"q", "/*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		info := ParseScript(s)
		if info.Unsure == "" {
			for _, in := range info.Inputs {
				if in.Name == "" && !in.Lib {
					t.Fatalf("empty input name from %q", s)
				}
			}
		}
		_, _ = ParseSymbolFile(s)
		for _, n := range SymbolNames(s) {
			if n == "" || n[0] >= '0' && n[0] <= '9' {
				t.Fatalf("bad name %q", n)
			}
		}
	})
}

// TestScriptNames: the conservative reading the device-link cache key
// uses: every word outside comments may name a file.
func TestScriptNames(t *testing.T) {
	libc := "/* GNU ld script\n   Use the shared library. */\nOUTPUT_FORMAT(elf64-x86-64)\n" +
		"GROUP ( /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc_nonshared.a  AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )\n"
	assert.Equal(t, []Name{{NameFile, "OUTPUT_FORMAT"}, {NameFile, "elf64-x86-64"}, {NameFile, "GROUP"},
		{NameFile, "/lib/x86_64-linux-gnu/libc.so.6"}, {NameFile, "/usr/lib/x86_64-linux-gnu/libc_nonshared.a"},
		{NameFile, "AS_NEEDED"}, {NameFile, "/lib64/ld-linux-x86-64.so.2"}}, ScriptNames(libc))
	assert.Equal(t, []Name{{NameDir, "=/opt/lib"}, {NameFile, "INPUT"}, {NameLib, "foo"}, {NameFile, "b c.o"},
		{NameFile, "SECTIONS"}, {NameFile, ".text"}, {NameFile, ":"}, {NameFile, "x.o"}, {NameFile, ".text"}},
		ScriptNames(`SEARCH_DIR("=/opt/lib") INPUT(-lfoo "b c.o") SECTIONS { .text : { x.o(.text) } }`))
	assert.Equal(t, []Name{{NameFile, "-Lb"}, {NameFile, "-La"}}, ScriptNames("-Lb -La"), "a response file")
	assert.Equal(t, []Name{{NameFile, "a.o"}, {NameFile, `"b`}}, ScriptNames(`a.o "b`), "what can be read of a malformed file")
}
