package linkwrap

import (
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/hostlink"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ldArgsOf parses a wrapper command line and returns the host-linker
// meaning of its arguments (hostlink after the wrapper's table) as "kind:value" strings.
func ldArgsOf(t *testing.T, args ...string) []string {
	t.Helper()
	o, err := ParseArgs(args)
	require.NoError(t, err)
	var out []string
	for _, a := range parseLdArgs(o.Args) {
		out = append(out, ldKindNames[a.Kind]+":"+a.Value)
	}
	return out
}

var ldKindNames = map[hostlink.Kind]string{
	hostlink.File: "file", hostlink.Lib: "lib", hostlink.LibPath: "L", hostlink.WholeArchive: "whole", hostlink.NoWholeArchive: "nowhole",
	hostlink.Static: "static", hostlink.Dynamic: "dynamic", hostlink.PushState: "push", hostlink.PopState: "pop",
	hostlink.StartLib: "startlib", hostlink.EndLib: "endlib", hostlink.Ref: "ref", hostlink.RefGlob: "glob", hostlink.Expr: "expr",
	hostlink.Script: "script", hostlink.SymFile: "symfile", hostlink.Wrap: "wrap", hostlink.Unsure: "unsure",
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
			if _, ok := ldKindNames[a.Kind]; !ok {
				t.Fatalf("unexpected kind %d", a.Kind)
			}
		}
	})
}
