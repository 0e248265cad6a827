package optable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testTable mirrors a slice of clang-linker-wrapper's LinkerWrapperOpts.td.
func testTable() *Table {
	dd := []string{"--", "-"}
	return MustNew([]Option{
		{ID: "linker_path", Prefixes: []string{"--"}, Name: "linker-path=", Kind: Joined, Flags: 1},
		{ID: "dry_run", Prefixes: []string{"--"}, Name: "dry-run", Kind: Flag, Flags: 1},
		{ID: "mllvm", Prefixes: []string{"-"}, Name: "mllvm", Kind: Separate, Flags: 1},
		{ID: "offload_opt", Prefixes: dd, Name: "offload-opt=", Kind: Joined, Flags: 1},
		{ID: "o", Prefixes: []string{"-"}, Name: "o", Kind: JoinedOrSeparate},
		{ID: "output_eq", Prefixes: []string{"--"}, Name: "output=", Kind: Joined, Alias: "o"},
		{ID: "output", Prefixes: []string{"--"}, Name: "output", Kind: Separate, Alias: "o"},
		{ID: "L", Prefixes: []string{"-"}, Name: "L", Kind: JoinedOrSeparate},
		{ID: "library_path", Prefixes: dd, Name: "library-path", Kind: Separate, Alias: "L"},
		{ID: "l", Prefixes: []string{"-"}, Name: "l", Kind: JoinedOrSeparate},
		{ID: "rpath", Prefixes: dd, Name: "rpath", Kind: Separate},
		{ID: "rpath_eq", Prefixes: dd, Name: "rpath=", Kind: Joined, Alias: "rpath"},
		{ID: "v", Prefixes: dd, Name: "v", Kind: Flag},
		{ID: "version", Prefixes: dd, Name: "version", Kind: Flag},
		{ID: "relocatable", Prefixes: dd, Name: "relocatable", Kind: Flag},
		{ID: "r", Prefixes: []string{"-"}, Name: "r", Kind: Flag, Alias: "relocatable"},
		{ID: "out", Prefixes: []string{"/", "-", "/?", "-?"}, Name: "out:", Kind: Joined},
		{ID: "Wl", Prefixes: []string{"-"}, Name: "Wl,", Kind: CommaJoined},
	})
}

func render(args []Arg) []string {
	var out []string
	for i := range args {
		out = args[i].Render(out)
	}
	return out
}

func TestParseRender(t *testing.T) {
	tests := []struct {
		in, want string
		ids      string // space-separated IDs ("<in>" input, "<unk>" unknown)
	}{
		{"--linker-path=/usr/bin/ld", "--linker-path=/usr/bin/ld", "linker_path"},
		{"-lomp -l omp", "-l omp -l omp", "l l"},
		{"-L/x -L /y --library-path /z -library-path /w", "-L /x -L /y -L /z -L /w", "L L L L"},
		{"--output=a --output b -o c -oc", "-o a -o b -o c -o c", "o o o o"},
		{"-output", "-o utput", "o"},
		{"-rpath=/a -rpath /b --rpath=/c", "--rpath /a -rpath /b --rpath /c", "rpath rpath rpath"},
		{"-r --relocatable -relocatable", "--relocatable --relocatable -relocatable", "relocatable relocatable relocatable"},
		{"-v --v -verbose --version", "-v --v -verbose --version", "v v <unk> version"},
		{"--hash-style=gnu -m elf_x86_64 -pie", "--hash-style=gnu -m elf_x86_64 -pie", "<unk> <unk> <in> <unk>"},
		{"/lib/crt1.o a.o - --", "/lib/crt1.o a.o - --", "<in> <in> <in> <unk>"},
		{"/out:x.exe -out:y", "/out:x.exe -out:y", "out out"},
		{"-mllvm -x --offload-opt=-y -offload-opt=-z", "-mllvm -x --offload-opt=-y -offload-opt=-z", "mllvm offload_opt offload_opt"},
		{"-Wl,a,b", "-Wl,a,b", "Wl"},
		{"--dry-run --dry-runx", "--dry-run --dry-runx", "dry_run <unk>"},
		{"--linker-path", "--linker-path", "<unk>"},
	}
	tb := testTable()
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			args, err := tb.Parse(strings.Fields(tc.in))
			require.NoError(t, err)
			assert.Equal(t, strings.Fields(tc.want), render(args))
			var ids []string
			for _, a := range args {
				switch {
				case a.Unknown:
					ids = append(ids, "<unk>")
				case a.IsInput():
					ids = append(ids, "<in>")
				default:
					ids = append(ids, a.Opt.ID)
				}
			}
			assert.Equal(t, tc.ids, strings.Join(ids, " "))
		})
	}
}

func TestCommaJoinedValues(t *testing.T) {
	args, err := testTable().Parse([]string{"-Wl,a,,b"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "", "b"}, args[0].Values)
}

func TestMissingArgument(t *testing.T) {
	for _, in := range []string{"-o", "-mllvm", "--output", "a.o -L"} {
		_, err := testTable().Parse(strings.Fields(in))
		var me *MissingArgError
		require.ErrorAs(t, err, &me, in)
		assert.Equal(t, strings.Fields(in)[len(strings.Fields(in))-1]+": missing argument", err.Error())
	}
}

func TestNewRejectsBadTables(t *testing.T) {
	_, err := New([]Option{{ID: "a", Prefixes: []string{"-"}, Name: "a"}, {ID: "a", Prefixes: []string{"-"}, Name: "b"}})
	assert.Error(t, err)
	_, err = New([]Option{{ID: "a", Prefixes: []string{"-"}, Name: "a", Alias: "zz"}})
	assert.Error(t, err)
	_, err = New([]Option{{ID: "a", Name: "a"}})
	assert.Error(t, err)
}

func TestTokenizeGNU(t *testing.T) {
	tests := map[string][]string{
		`a b  c`:                  {"a", "b", "c"},
		`"sp ace" a\ b 'c d'`:     {"sp ace", "a b", "c d"},
		`x"y z"w`:                 {"xy zw"},
		`"" ''`:                   {"", ""},
		`'a\b' "a\"b"`:            {`a\b`, `a"b`},
		"\xef\xbb\xbf-o\nout\r\n": {"-o", "out"},
		``:                        nil,
	}
	for in, want := range tests {
		assert.Equal(t, want, TokenizeGNU(in), "%q", in)
	}
}

func TestExpandResponseFiles(t *testing.T) {
	dir := t.TempDir()
	r1 := filepath.Join(dir, "r1")
	r2 := filepath.Join(dir, "r2")
	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.WriteFile(r1, []byte(`-o "sp ace" @`+r2+"\n"), 0o644))
	require.NoError(t, os.WriteFile(r2, []byte("--hash-style=gnu\n"), 0o644))
	require.NoError(t, os.WriteFile(loop, []byte("@"+loop), 0o644))

	got, err := ExpandResponseFiles([]string{"a", "@" + r1, "@missing", "@"}, os.ReadFile)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "-o", "sp ace", "--hash-style=gnu", "@missing", "@"}, got)

	_, err = ExpandResponseFiles([]string{"@" + loop}, os.ReadFile)
	assert.ErrorContains(t, err, "recursive expansion")

	_, err = ExpandResponseFiles([]string{"@x"}, func(string) ([]byte, error) { return nil, fs.ErrPermission })
	assert.True(t, errors.Is(err, fs.ErrPermission))
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"--linker-path=/usr/bin/ld -o a a.o -lomp",
		"-mllvm", "-o", "--output=x -rpath=/a -r -- -",
		`"sp ace" a\ b 'c d' x"y`,
		"/out:a -Wl,a,b --dry-run",
	} {
		f.Add(s)
	}
	tb := testTable()
	f.Fuzz(func(t *testing.T, s string) {
		toks := TokenizeGNU(s)
		args, err := tb.Parse(toks)
		if err != nil {
			var me *MissingArgError
			if !errors.As(err, &me) {
				t.Fatalf("unexpected error type %T", err)
			}
			return
		}
		// Every input token is consumed exactly once, in order.
		var raw []string
		for _, a := range args {
			raw = append(raw, a.Raw...)
		}
		if strings.Join(raw, "\x00") != strings.Join(toks, "\x00") || len(raw) != len(toks) {
			t.Fatalf("raw args %q != tokens %q", raw, toks)
		}
		// Rendering then reparsing is stable.
		r1 := render(args)
		args2, err := tb.Parse(r1)
		if err != nil {
			t.Fatalf("reparse of %q: %v", r1, err)
		}
		if r2 := render(args2); strings.Join(r1, "\x00") != strings.Join(r2, "\x00") {
			t.Fatalf("render not stable: %q -> %q", r1, r2)
		}
	})
}
