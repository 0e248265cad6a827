package optable

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
					ids = append(ids, string(a.Opt.ID))
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
		`a b  c`:              {"a", "b", "c"},
		`"sp ace" a\ b 'c d'`: {"sp ace", "a b", "c d"},
		`x"y z"w`:             {"xy zw"},
		`"" '' a""b`:          {"ab"},        // empty tokens are dropped
		`'a\b' "a\"b"`:        {"ab", `a"b`}, // backslash escapes in both quotes
		`'a\'b'`:              {"a'b"},
		"-o\nout\r\n":         {"-o", "out"},
		"a\vb\fc":             {"a\vb\fc"}, // only space, tab, CR, LF separate
		`a\`:                  {`a\`},      // a final backslash is kept
		`'a\`:                 {`a\`},
		`"unterminated x`:     {"unterminated x"},
		"\\\n":                {"\n"},
		``:                    nil,
	}
	for in, want := range tests {
		assert.Equal(t, want, TokenizeGNU(in), "%q", in)
	}
}

// memFS is a ResponseFS over a map of cleaned paths; "<dir>" marks a
// directory.
type memFS map[string]string

func (m memFS) Getwd() (string, error) { return "/w", nil }
func (m memFS) Stat(name string) (fs.FileInfo, error) {
	if _, ok := m[path.Clean(name)]; ok {
		return memInfo(path.Clean(name)), nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}
func (m memFS) ReadFile(name string) ([]byte, error) {
	if m[path.Clean(name)] == "<dir>" {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	return []byte(m[path.Clean(name)]), nil
}

type memInfo string

func (i memInfo) Name() string       { return string(i) }
func (i memInfo) Size() int64        { return 0 }
func (i memInfo) Mode() fs.FileMode  { return 0 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

func TestExpandResponseFilesMem(t *testing.T) {
	m := memFS{
		"/w/r1":      `-o "sp ace" @r2 @missing`,
		"/w/r2":      "--hash-style=gnu\n",
		"/w/sub/r3":  "@r2", // relative to the current directory, not sub/
		"/w/sub":     "<dir>",
		"/w/loop":    "x @./loop",
		"/w/utf16":   "\xff\xfe-\x00o\x00 \x00a\x00",
		"/w/utf16be": "\xfe\xff\x00-\x00o",
		"/w/bad16":   "\xff\xfe\x00\xd8",
		"/w/bom8":    "\xef\xbb\xbf-v",
	}
	got, err := ExpandResponseFiles([]string{"a", "@r1", "@sub/r3", "@/abs/missing", "@utf16", "@utf16be", "@bom8"}, m)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "-o", "sp ace", "--hash-style=gnu", "@missing", "--hash-style=gnu", "@/abs/missing", "-o", "a", "-o", "-v"}, got)

	for arg, msg := range map[string]string{
		"@loop":  "recursive expansion of: '/w/loop'",
		"@sub/":  "cannot not open file '/w/sub/': Is a directory",
		"@bad16": "Could not convert UTF16 to UTF8",
	} {
		_, err = ExpandResponseFiles([]string{arg}, m)
		assert.EqualError(t, err, msg, arg)
	}
}

func TestExpandResponseFilesOS(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("loop", []byte("@lnk"), 0o644))
	require.NoError(t, os.Symlink("loop", "lnk"))
	require.NoError(t, os.WriteFile("r", []byte("-x"), 0o644))
	_, err := ExpandResponseFiles([]string{"@loop"}, osFS{})
	assert.EqualError(t, err, "recursive expansion of: '"+dir+"/loop'", "the same file under another name")
	_, err = ExpandResponseFiles([]string{"@r/x"}, osFS{})
	assert.EqualError(t, err, "cannot not open file '"+dir+"/r/x': Not a directory")
	_, err = ExpandResponseFiles([]string{"@"}, osFS{})
	assert.EqualError(t, err, "cannot not open file '"+dir+"': Is a directory")

	// A chain deeper than the limit, and a fan-out past the argument cap.
	for i := 0; i <= maxRspDepth; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "d"+strconv.Itoa(i)), []byte("@d"+strconv.Itoa(i+1)), 0o644))
	}
	_, err = ExpandResponseFiles([]string{"@d0"}, osFS{})
	assert.ErrorContains(t, err, "nested more than 64 deep")
	require.NoError(t, os.WriteFile("f0", []byte(strings.Repeat("x ", 4096)), 0o644))
	for i := 1; i < 3; i++ {
		require.NoError(t, os.WriteFile("f"+strconv.Itoa(i), []byte(strings.Repeat("@f"+strconv.Itoa(i-1)+" ", 1024)), 0o644))
	}
	_, err = ExpandResponseFiles([]string{"@f2"}, osFS{})
	assert.ErrorContains(t, err, "more than 4194304 arguments")
}

type osFS struct{}

func (osFS) Getwd() (string, error)                { return os.Getwd() }
func (osFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }
func (osFS) ReadFile(name string) ([]byte, error)  { return os.ReadFile(name) }

func FuzzTokenizeGNU(f *testing.F) {
	for _, s := range []string{`a "b c" 'd\'e' f\ g \`, "\"x", "'", "a\tb\r\nc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := TokenizeGNU(s)
		// Quoting every token back and re-tokenizing gives the same tokens.
		var b strings.Builder
		for _, tok := range toks {
			b.WriteByte('"')
			for i := 0; i < len(tok); i++ {
				if tok[i] == '"' || tok[i] == '\\' {
					b.WriteByte('\\')
				}
				b.WriteByte(tok[i])
			}
			b.WriteString("\" ")
		}
		if again := TokenizeGNU(b.String()); strings.Join(again, "\x00") != strings.Join(toks, "\x00") || len(again) != len(toks) {
			t.Fatalf("%q -> %q -> %q", s, toks, again)
		}
	})
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

// FuzzExpandResponseFiles: two response files naming each other in any
// way expand without panicking, and every "@name" left names no file.
func FuzzExpandResponseFiles(f *testing.F) {
	f.Add("x @b '@a'", "y @/w/a")
	f.Add("@./b", `"@a" @c`)
	f.Add("\xff\xfe@\x00b\x00", "@a @a @a")
	f.Fuzz(func(t *testing.T, a, b string) {
		m := memFS{"/w/a": a, "/w/b": b}
		out, err := ExpandResponseFiles([]string{"@a", "z"}, m)
		if err != nil {
			return
		}
		for _, s := range out {
			if strings.HasPrefix(s, "@") {
				if _, err := m.Stat((&expander{fsys: m}).mustAbs(s[1:])); err == nil {
					t.Fatalf("%q left unexpanded in %q", s, out)
				}
			}
		}
	})
}

func (x *expander) mustAbs(name string) string {
	p, _ := x.abs(name)
	return p
}
