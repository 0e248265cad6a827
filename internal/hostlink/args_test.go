package hostlink

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

var kindNames = map[Kind]string{
	Ignore: "ignore", File: "file", Lib: "lib", LibPath: "L", WholeArchive: "whole", NoWholeArchive: "nowhole",
	Static: "static", Dynamic: "dynamic", PushState: "push", PopState: "pop", StartLib: "startlib", EndLib: "endlib",
	Ref: "ref", RefGlob: "glob", Expr: "expr", Script: "script", SymFile: "symfile", Wrap: "wrap", Unsure: "unsure",
	Sysroot: "sysroot",
}

// TestParseArgv: a device linker's whole command line, as clang -### prints
// it, with the argument places each meaning covers.
func TestParseArgv(t *testing.T) {
	for _, tc := range []struct {
		argv string
		want []string // kind:value@index+n
	}{
		{"-L/a -L /b --library-path=/c --library-path /d", []string{"L:/a@0+1", "L:/b@1+2", "L:/c@3+1", "L:/d@4+2"}},
		{"-lfoo -l bar --library=baz --library qux -l:x.a", []string{"lib:foo@0+1", "lib:bar@1+2", "lib:baz@3+1", "lib:qux@4+2", "lib::x.a@6+1"}},
		{"-o out --output=o2 a.o --sysroot=/s --sysroot /t", []string{"ignore:out@0+2", "ignore:o2@2+1", "file:a.o@3+1", "sysroot:/s@4+1", "sysroot:/t@5+2"}},
		{"-T s.ld -Tt.ld --script=u.ld -dT v.ld -Ttext 0", []string{"script:s.ld@0+2", "script:t.ld@2+1", "script:u.ld@3+1", "script:v.ld@4+2"}},
		{"-m elf_x86_64 -plugin /p.so -Bstatic -lS -Bdynamic --whole-archive x.a --no-whole-archive",
			[]string{"static:@4+1", "lib:S@5+1", "dynamic:@6+1", "whole:@7+1", "file:x.a@8+1", "nowhole:@9+1"}},
		{"-u sym --frobnicate -", []string{"ref:sym@0+2", "unsure:--frobnicate@2+1"}},
		{"-l", nil},
	} {
		t.Run(tc.argv, func(t *testing.T) {
			var got []string
			for _, a := range ParseArgv(strings.Fields(tc.argv)) {
				got = append(got, kindNames[a.Kind]+":"+a.Value+"@"+strconv.Itoa(a.Index)+"+"+strconv.Itoa(a.N))
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzParseArgv: any argv gives arguments in order, inside argv.
func FuzzParseArgv(f *testing.F) {
	for _, s := range []string{"-L /a -lb -o x", "--sysroot -T", "-u x -e y --defsym=a=b -Ttext 0 --start-lib a.o"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Fields(line)
		prev := -1
		for _, a := range ParseArgv(argv) {
			if a.Index < prev || a.N < 1 || a.Index+a.N > len(argv) {
				t.Fatalf("bad place %d+%d in %q", a.Index, a.N, argv)
			}
			if _, ok := kindNames[a.Kind]; !ok {
				t.Fatalf("unexpected kind %d", a.Kind)
			}
			prev = a.Index
		}
	})
}
