package linkwrap

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ldArgsOf parses a wrapper command line and returns the host-linker
// meaning of its arguments as "kind:value" strings.
func ldArgsOf(t *testing.T, args ...string) []string {
	t.Helper()
	o, err := ParseArgs(args)
	require.NoError(t, err)
	var out []string
	for _, a := range parseLdArgs(o.Args) {
		out = append(out, ldKindNames[a.kind]+":"+a.value)
	}
	return out
}

var ldKindNames = map[ldKind]string{
	ldFile: "file", ldLib: "lib", ldLibPath: "L", ldWholeArchive: "whole", ldNoWholeArchive: "nowhole",
	ldStatic: "static", ldDynamic: "dynamic", ldPushState: "push", ldPopState: "pop",
	ldStartLib: "startlib", ldEndLib: "endlib", ldRef: "ref", ldRefGlob: "glob", ldExpr: "expr",
	ldScript: "script", ldSymFile: "symfile", ldWrap: "wrap", ldUnsure: "unsure",
}

func TestParseLdArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		// What clang 22 passes for -Wl,-u,lib3_run and friends (split at commas).
		{[]string{"m.o", "lib3.a", "-u", "lib3_run"}, []string{"file:m.o", "file:lib3.a", "ref:lib3_run"}},
		{[]string{"-ulib3_run"}, []string{"ref:lib3_run"}},
		{[]string{"--undefined=a", "--undefined", "b", "-undefined=c"}, []string{"ref:a", "ref:b", "ref:c"}},
		{[]string{"--require-defined=a", "--require-defined", "b"}, []string{"ref:a", "ref:b"}},
		{[]string{"-e", "start", "-estart2", "--entry=s3", "--entry", "s4", "-entry", "s5"}, []string{"ref:start", "ref:start2", "ref:s3", "ref:s4", "ref:s5"}},
		{[]string{"-init", "i", "-fini=f"}, []string{"ref:i", "ref:f"}},
		{[]string{"--undefined-glob=lib*", "--export-dynamic-symbol", "x?"}, []string{"glob:lib*", "glob:x?"}},
		{[]string{"--defsym=x=f+4", "--defsym", "y=g"}, []string{"expr:x=f+4", "expr:y=g"}},
		{[]string{"-T", "a.ld", "-Tb.ld", "--script=c.ld", "-Ttext=0x1000", "-Ttext", "0x2000", "-Tbss=0"}, []string{"script:a.ld", "script:b.ld", "script:c.ld"}},
		{[]string{"--version-script=v.map", "--dynamic-list", "d.list"}, []string{"symfile:v.map", "symfile:d.list"}},
		{[]string{"--wrap=malloc", "-wrap", "free"}, []string{"wrap:malloc", "wrap:free"}},
		{[]string{"-Bstatic", "-lx", "-Bdynamic", "-static", "-dy"}, []string{"static:", "lib:x", "dynamic:", "static:", "dynamic:"}},
		{[]string{"--push-state", "--whole-archive", "a.a", "--pop-state"}, []string{"push:", "whole:", "file:a.a", "pop:"}},
		{[]string{"--start-lib", "a.o", "--end-lib", "--start-group", "-(", "b.a", "--end-group", "-)"}, []string{"startlib:", "file:a.o", "endlib:", "file:b.a"}},
		// clang's default link line: values are not inputs, nothing is unsure.
		{[]string{"--hash-style=gnu", "--build-id", "--eh-frame-hdr", "-m", "elf_x86_64", "-pie", "-dynamic-linker", "/lib64/ld-linux-x86-64.so.2",
			"-o", "app", "/usr/lib/crt1.o", "-L/usr/lib", "--as-needed", "-lgcc_s", "--no-as-needed", "-z", "relro", "-znow", "-plugin", "/p.so",
			"-plugin-opt=mcpu=x86-64", "--lto-O2", "-soname", "libx.so", "-h", "liby.so", "-O1", "--gc-sections", "-s", "-E", "-rpath", "/r"},
			[]string{"file:/usr/lib/crt1.o", "L:/usr/lib", "lib:gcc_s"}},
		// Unknown options, a missing value, a short flag with junk.
		{[]string{"--frobnicate"}, []string{"unsure:--frobnicate"}},
		{[]string{"-u"}, []string{"unsure:-u"}},
		{[]string{"-sx"}, []string{"unsure:-sx"}},
		{[]string{"-c", "script.mri"}, []string{"unsure:script.mri"}},
		// GNU abbreviations of long options.
		{[]string{"--require=x"}, []string{"ref:x"}},
		// The wrapper's own options never reach the model.
		{[]string{"--wrapper-verbose", "--device-archives=lazy", "--linker-path=/usr/bin/ld", "-r"}, nil},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			assert.Equal(t, tc.want, ldArgsOf(t, tc.args...))
		})
	}
}

func TestParseLinkerScript(t *testing.T) {
	libc := "/* GNU ld script\n   Use the shared library. */\nOUTPUT_FORMAT(elf64-x86-64)\n" +
		"GROUP ( /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc_nonshared.a  AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )\n"
	info := parseLinkerScript(libc)
	assert.Equal(t, "", info.unsure)
	assert.Equal(t, []scriptInput{{"/lib/x86_64-linux-gnu/libc.so.6", false}, {"/usr/lib/x86_64-linux-gnu/libc_nonshared.a", false},
		{"/lib64/ld-linux-x86-64.so.2", false}}, info.inputs)
	assert.Empty(t, info.refs)

	info = parseLinkerScript("SEARCH_DIR(\"=/opt/lib\") INPUT(-lfoo \"b.o\", c.a)\nEXTERN(lib3_run other) ENTRY(start)\nalias = target + 4;\nPROVIDE(p = q);")
	assert.Equal(t, "", info.unsure)
	assert.Equal(t, []string{"=/opt/lib"}, info.searchDirs)
	assert.Equal(t, []scriptInput{{"foo", true}, {"b.o", false}, {"c.a", false}}, info.inputs)
	for _, n := range []string{"lib3_run", "other", "start", "target", "q"} {
		assert.Contains(t, info.refs, n)
	}
	assert.NotEqual(t, "", parseLinkerScript("SECTIONS { .text : { x.o(.text) } }").unsure)
	assert.NotEqual(t, "", parseLinkerScript("INCLUDE other.ld").unsure)
	assert.NotEqual(t, "", parseLinkerScript("/* open").unsure)
	assert.NotEqual(t, "", parseLinkerScript("INPUT(\"a.o)").unsure)
}

func TestParseSymbolFile(t *testing.T) {
	names, err := parseSymbolFile("VERS_1 { global: f; g*; local: *; };\nVERS_2 { h; extern \"C++\" { \"ns::fn*\"; }; } VERS_1;")
	require.NoError(t, err)
	assert.Equal(t, []string{"VERS_1", "f", "g*", "VERS_2", "h", "VERS_1"}, names)
	names, err = parseSymbolFile("{ a; b; };")
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names)
	assert.True(t, matchSymbol("g*", "gamma"))
	assert.False(t, matchSymbol("g*", "alpha"))
	assert.True(t, matchSymbol("[", "["), "a malformed pattern matches itself")
}

func TestSymbolNames(t *testing.T) {
	assert.Equal(t, []string{"f", "ADDR", ".text", "__start_x$y"}, symbolNames("f+0x10*ADDR(.text)-__start_x$y"))
}

// FuzzParseLdArgs checks that any wrapper command line gives a host-link
// model without panicking and that every unknown argument is accounted for.
func FuzzParseLdArgs(f *testing.F) {
	for _, s := range []string{"-u x m.o lib.a", "--defsym=a=b -T s.ld -Ttext 0", "-Bstatic -lfoo --push-state --pop-state",
		"--start-lib a.o --end-lib -e", "-plugin-opt=x --lto-O3 -z now -c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		o, err := ParseArgs(strings.Fields(line))
		if err != nil {
			return
		}
		for _, a := range parseLdArgs(o.Args) {
			if _, ok := ldKindNames[a.kind]; !ok {
				t.Fatalf("unexpected kind %d", a.kind)
			}
		}
	})
}

// FuzzParseLinkerScript checks that linker scripts and symbol files of any
// content are read without panicking.
func FuzzParseLinkerScript(f *testing.F) {
	for _, s := range []string{"GROUP ( /a.so.6 AS_NEEDED ( /b.so ) )", "EXTERN(a b) x = y + 1; /* c */",
		"SECTIONS { .t : { *(.text) } }", "{ global: f; local: *; };", "INPUT(\"q", "/*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		info := parseLinkerScript(s)
		if info.unsure == "" {
			for _, in := range info.inputs {
				if in.name == "" && !in.lib {
					t.Fatalf("empty input name from %q", s)
				}
			}
		}
		_, _ = parseSymbolFile(s)
		for _, n := range symbolNames(s) {
			if n == "" || n[0] >= '0' && n[0] <= '9' {
				t.Fatalf("bad name %q", n)
			}
		}
	})
}
