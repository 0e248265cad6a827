package ar

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "regenerate testdata fixtures with the LLVM oracle tools")

// tool returns the path of an LLVM 22 tool; a missing one fails the test.
func tool(t *testing.T, name string) string {
	t.Helper()
	return llvmtools.Tool(t, name)
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

var memberFiles = []string{"odd.txt", "even.txt", "a_very_long_member_name_for_testing.txt", "hello.o"}

func TestParseFixtures(t *testing.T) {
	tests := []struct {
		file  string
		kind  string
		thin  bool
		names []string
	}{
		{"gnu.a", "gnu", false, memberFiles},
		{"bsd.a", "bsd", false, memberFiles},
		{"darwin.a", "bsd", false, memberFiles},
		{"plain-gnu.a", "gnu", false, memberFiles[:3]},
		{"coff.a", "gnu", false, []string{"odd.txt", "a_very_long_member_name_for_testing.txt", "hello.obj"}},
		{"thin.a", "thin", true, []string{"odd.txt", "a_very_long_member_name_for_testing.txt", "hello.o"}},
		{"offload-archive.a", "gnu", false, []string{"sub/mm.out", "sub/mm.out"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			buf := readFile(t, tt.file)
			a, err := Parse(buf)
			require.NoError(t, err)
			assert.Equal(t, tt.kind, a.Kind)
			assert.Equal(t, tt.thin, a.Thin)
			var names []string
			for _, m := range a.Members {
				names = append(names, m.Name)
				if tt.thin {
					assert.True(t, m.Data == nil)
					assert.Equal(t, int64(-1), m.Offset)
					want := readFile(t, m.Name)
					assert.Equal(t, int64(len(want)), m.Size)
					continue
				}
				assert.Equal(t, buf[m.Offset:m.Offset+m.Size], m.Data)
				if tt.file == "offload-archive.a" {
					continue
				}
				want := readFile(t, m.Name)
				// Darwin pads members to 8 bytes inside the recorded size.
				if len(m.Data) < len(want) {
					t.Fatalf("member %s short", m.Name)
				}
				assert.Equal(t, want, m.Data[:len(want)], m.Name)
				assert.Equal(t, strings.Repeat("\n", len(m.Data)-len(want)), string(m.Data[len(want):]))
			}
			assert.Equal(t, tt.names, names)

			// The oracle lists the same names.
			out, err := exec.Command(tool(t, "llvm-ar"), "t", filepath.Join("testdata", tt.file)).Output()
			require.NoError(t, err)
			var oracle []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if tt.thin {
					l = filepath.Base(l) // llvm-ar t prints thin members with the archive's directory
				}
				oracle = append(oracle, l)
			}
			if tt.file == "offload-archive.a" {
				oracle = tt.names
			}
			assert.Equal(t, oracle, names)
		})
	}
}

func TestParseOffloadMembers(t *testing.T) {
	a, err := Parse(readFile(t, "offload-archive.a"))
	require.NoError(t, err)
	if len(a.Members) != 2 {
		t.Fatalf("%d members", len(a.Members))
	}
	assert.Equal(t, readFile(t, "a.bin"), a.Members[0].Data)
	assert.Equal(t, readFile(t, "b.bin"), a.Members[1].Data)
}

// TestWriteGNUFixtures compares WriteGNU with the committed oracle outputs.
func TestWriteGNUFixtures(t *testing.T) {
	var members []WriteMember
	for _, n := range memberFiles[:3] {
		members = append(members, WriteMember{Name: n, Data: readFile(t, n)})
	}
	var buf bytes.Buffer
	require.NoError(t, WriteGNU(&buf, members))
	assert.Equal(t, readFile(t, "plain-gnu.a"), buf.Bytes())

	buf.Reset()
	require.NoError(t, WriteGNU(&buf, []WriteMember{
		{Name: "sub/mm.out", Data: readFile(t, "a.bin")},
		{Name: "sub/mm.out", Data: readFile(t, "b.bin")},
	}))
	assert.Equal(t, readFile(t, "offload-archive.a"), buf.Bytes())
}

// TestWriteGNUDifferentialLLVMAr runs llvm-ar over fresh plain files with
// names of every length class and compares bytes.
func TestWriteGNUDifferentialLLVMAr(t *testing.T) {
	ar := tool(t, "llvm-ar")
	dir := t.TempDir()
	names := []string{"x", "fifteen_chars_a", "sixteen_chars_ab", "x", "a.bin", "long_name_number_two.data", "fifteen_chars_a"}
	var members []WriteMember
	args := []string{"qcD", "--format=gnu", "out.a"}
	for i, n := range names {
		data := bytes.Repeat([]byte{byte('a' + i)}, i*3+1)
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), data, 0o644))
		args = append(args, n)
	}
	// "q" appends duplicates; the file content is what is on disk at the end.
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		members = append(members, WriteMember{Name: n, Data: data})
	}
	cmd := exec.Command(ar, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	want, err := os.ReadFile(filepath.Join(dir, "out.a"))
	require.NoError(t, err)
	var got bytes.Buffer
	require.NoError(t, WriteGNU(&got, members))
	assert.Equal(t, string(want), got.String())
}

// TestWriteGNUDifferentialOffloadBinary extracts images with
// `llvm-offload-binary --archive` and compares with WriteGNU.
func TestWriteGNUDifferentialOffloadBinary(t *testing.T) {
	ob := tool(t, "llvm-offload-binary")
	dir := t.TempDir()
	hello := readFile(t, "hello.o")
	files := map[string]string{"a.bin": "even", "b.bin": "odd", "c.o": string(hello)}
	for n, d := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(d), 0o644))
	}
	for _, input := range []string{"mm.out", "a_rather_long_input_name.out", "sub/dir/pkg.out"} {
		t.Run(input, func(t *testing.T) {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(input)), 0o755))
			run := func(args ...string) {
				cmd := exec.Command(ob, args...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, string(out))
			}
			run("-o", input,
				"--image=file=a.bin,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip",
				"--image=file=b.bin,triple=amdgcn-amd-amdhsa,arch=gfx1030,kind=hip",
				"--image=file=c.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp")
			run(input, "--archive", "--image=file=out.a,kind=hip")
			want, err := os.ReadFile(filepath.Join(dir, "out.a"))
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, WriteGNU(&got, []WriteMember{{input, []byte("even")}, {input, []byte("odd")}}))
			assert.Equal(t, string(want), got.String())

			// An ELF object image: the archive gets a symbol table.
			run(input, "--archive", "--image=file=obj.a,kind=openmp")
			want, err = os.ReadFile(filepath.Join(dir, "obj.a"))
			require.NoError(t, err)
			got.Reset()
			require.NoError(t, WriteGNU(&got, []WriteMember{{input, hello}}))
			assert.Equal(t, string(want), got.String())
			assert.True(t, bytes.HasPrefix(want, []byte("!<arch>\n/ ")), "no symbol table in %q", want[:16])
		})
	}
}

func TestRoundTrip(t *testing.T) {
	members := []WriteMember{
		{"a", nil}, {"b.txt", []byte("1")}, {"a/b/c", []byte("22")}, {"very_long_member_name.bin", []byte("333")}, {"a/b/c", []byte("4444")},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteGNU(&buf, members))
	a, err := Parse(buf.Bytes())
	require.NoError(t, err)
	if len(a.Members) != len(members) {
		t.Fatalf("%d members", len(a.Members))
	}
	for i, m := range a.Members {
		assert.Equal(t, members[i].Name, m.Name)
		assert.Equal(t, len(members[i].Data), len(m.Data))
		assert.Equal(t, string(members[i].Data), string(m.Data))
	}

	var empty bytes.Buffer
	require.NoError(t, WriteGNU(&empty, nil))
	assert.Equal(t, "!<arch>\n", empty.String())
	a, err = Parse(empty.Bytes())
	require.NoError(t, err)
	assert.Equal(t, 0, len(a.Members))

	assert.True(t, nil != WriteGNU(&empty, []WriteMember{{Name: "bad\nname"}}))
	assert.True(t, nil != WriteGNU(&empty, []WriteMember{{Name: ""}}))
}

func TestIsArchive(t *testing.T) {
	assert.True(t, IsArchive([]byte("!<arch>\nxx")))
	assert.True(t, IsArchive([]byte("!<thin>\n")))
	assert.True(t, !IsArchive([]byte("!<arch>")))
	assert.True(t, !IsArchive([]byte("\x7fELF")))
}

func TestParseErrors(t *testing.T) {
	gnu := readFile(t, "gnu.a")
	hdr := func(name, size string) string {
		return padRight(name, 16) + padRight("0", 12) + padRight("0", 6) + padRight("0", 6) + padRight("644", 8) + padRight(size, 10) + "`\n"
	}
	tests := []struct {
		name string
		in   string
		err  error
		off  int64
	}{
		{"magic", "!<arch", format.ErrMagic, 0},
		{"bigaf", "<bigaf>\n", format.ErrUnsupported, 0},
		{"short header", "!<arch>\nabc", format.ErrTruncated, 8},
		{"bad terminator", "!<arch>\n" + hdr("a/", "1")[:58] + "xx", format.ErrCorrupt, 66},
		{"bad size", "!<arch>\n" + hdr("a/", "-1"), format.ErrCorrupt, 56},
		{"huge size", "!<arch>\n" + hdr("a/", "9999999999") + "x", format.ErrTruncated, 8},
		{"data past end", string(gnu[:len(gnu)-10]), format.ErrTruncated, -1},
		{"long name without table", "!<arch>\n" + hdr("/0", "0"), format.ErrCorrupt, 8},
		{"long name out of range", "!<arch>\n" + hdr("//", "4") + "ab/\n" + hdr("/4", "0"), format.ErrCorrupt, 72},
		{"long name unterminated", "!<arch>\n" + hdr("//", "2") + "ab" + hdr("/0", "0"), format.ErrCorrupt, 70},
		{"bsd name too long", "!<arch>\n" + hdr("#1/20", "4") + "abcd", format.ErrCorrupt, 8},
		{"bsd name past end", "!<arch>\n" + hdr("#1/20", "20") + "abcd", format.ErrTruncated, 68},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			assert.True(t, a == nil)
			assert.True(t, errors.Is(err, tt.err), "%v", err)
			var fe *format.FormatError
			require.ErrorAs(t, err, &fe)
			if tt.off >= 0 {
				assert.Equal(t, tt.off, fe.Off, "%v", err)
			}
		})
	}
}

// TestUpdateFixtures regenerates the oracle fixtures (go test -run Update -update).
func TestUpdateFixtures(t *testing.T) {
	if !*update {
		t.Skip("use -update to regenerate")
	}
	ar, ob := tool(t, "llvm-ar"), tool(t, "llvm-offload-binary")
	run := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = "testdata"
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	for _, f := range []string{"gnu", "bsd", "darwin"} {
		os.Remove(filepath.Join("testdata", f+".a"))
		run(ar, append([]string{"--format=" + f, "rcD", f + ".a"}, memberFiles...)...)
	}
	os.Remove("testdata/thin.a")
	run(ar, "rcDT", "thin.a", "odd.txt", "a_very_long_member_name_for_testing.txt", "hello.o")
	os.Remove("testdata/coff.a")
	run(ar, "--format=coff", "rcD", "coff.a", "odd.txt", "a_very_long_member_name_for_testing.txt", "hello.obj")
	os.Remove("testdata/plain-gnu.a")
	run(ar, append([]string{"--format=gnu", "rcD", "plain-gnu.a"}, memberFiles[:3]...)...)
	run(ob, "-o", "sub/mm.out", "--image=file=a.bin,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip",
		"--image=file=b.bin,triple=amdgcn-amd-amdhsa,arch=gfx1030,kind=hip")
	run(ob, "sub/mm.out", "--archive", "--image=file=offload-archive.a,kind=hip")
}
