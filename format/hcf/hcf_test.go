package hcf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.tree")

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func fixtures(t testing.TB) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "*.hcf"))
	require.NoError(t, err)
	if len(names) == 0 {
		t.Fatal("no fixtures in testdata/*.hcf")
	}
	return names
}

// The reference fixtures parse to exactly the trees AdaptiveCpp's own
// parser produced.
func TestFixtureTrees(t *testing.T) {
	for _, name := range fixtures(t) {
		base := strings.TrimSuffix(filepath.Base(name), ".hcf")
		t.Run(base, func(t *testing.T) {
			f, err := Parse(read(t, base+".hcf"))
			require.NoError(t, err)
			assert.Equal(t, string(read(t, base+".tree")), f.Tree())
			assert.Equal(t, Marker, f.Marker)
		})
	}
}

// The C++ serializer is deterministic: rewriting the parsed tree gives the
// same bytes, except where the reader drops white space (edge.hcf's value
// with a trailing space).
func TestRoundTrip(t *testing.T) {
	for _, name := range fixtures(t) {
		base := strings.TrimSuffix(filepath.Base(name), ".hcf")
		t.Run(base, func(t *testing.T) {
			in := read(t, base+".hcf")
			f, err := Parse(in)
			require.NoError(t, err)
			out, err := f.Bytes()
			require.NoError(t, err)
			if base == "edge" {
				assert.Equal(t, string(bytes.Replace(in, []byte("spaces \n"), []byte("spaces\n"), 1)), string(out))
			} else {
				assert.Equal(t, in, out)
			}
			g, err := Parse(out)
			require.NoError(t, err)
			assert.Equal(t, f.Tree(), g.Tree())
			// AppendTo appends.
			pre, err := f.AppendTo([]byte("xy"))
			require.NoError(t, err)
			assert.Equal(t, append([]byte("xy"), out...), pre)
		})
	}
}

// Building edge.hcf through the API, as the C++ test program did, gives the
// fixture byte for byte (the writer keeps the trailing space).
func TestBuildEdge(t *testing.T) {
	f := New()
	f.Root.Set("object-id", "7")
	f.Root.Set("note", "value with = sign and spaces ")
	c := f.Root.Subnode("a").Subnode("b").Subnode("c")
	c.Set("deep", "yes")
	require.NoError(t, f.Attach(c, []byte("contains __acpp_hcf_binary_appendix marker inside payload")))
	e, err := f.Root.AddChild("empty-node")
	require.NoError(t, err)
	require.NoError(t, f.Attach(e, nil))
	out, err := f.Bytes()
	require.NoError(t, err)
	assert.Equal(t, string(read(t, "edge.hcf")), string(out))
}

// spec §5: 390 bytes with a known SHA-256.
func TestSpecExample(t *testing.T) {
	f := New()
	f.Root.Set("object-id", "42")
	f.Root.Set("generator", "demo")
	img := f.Root.Subnode("images").Subnode("llvm-ir.global")
	img.Set("variant", "global-module")
	img.Set("format", "llvm-ir")
	require.NoError(t, f.Attach(img, []byte{0x42, 0x43, 0xC0, 0xDE}))
	k := f.Root.Subnode("kernels").Subnode("_Z6kernelv")
	_, err := k.setList("image-providers", []string{"llvm-ir.global"})
	require.NoError(t, err)
	p := k.Subnode("parameters").Subnode("0")
	for _, kv := range [][2]string{{"byte-offset", "0"}, {"byte-size", "8"}, {"original-index", "0"}, {"type", "pointer"}} {
		p.Set(kv[0], kv[1])
	}
	out, err := f.Bytes()
	require.NoError(t, err)
	assert.Equal(t, 390, len(out))
	sum := sha256.Sum256(out)
	assert.Equal(t, "17801c33d55cf5738634ece1ea956bb7da2e3703bcc2b965390734393b6cd10c", hex.EncodeToString(sum[:]))
	assert.Equal(t, 360, bytes.Index(out, []byte(Marker)))

	g, err := Parse(out)
	require.NoError(t, err)
	assert.Equal(t, 360, g.HeaderSize)
	a, err := g.Attachment(g.Root.Lookup("images", "llvm-ir.global"))
	require.NoError(t, err)
	assert.Equal(t, []byte{0x42, 0x43, 0xC0, 0xDE}, a)
	// The __binary node itself also resolves.
	a2, err := g.Attachment(g.Root.Lookup("images", "llvm-ir.global", BinaryNode))
	require.NoError(t, err)
	assert.Equal(t, a, a2)
	assert.Equal(t, []string{"llvm-ir.global"}, g.Root.Lookup("kernels", "_Z6kernelv", "image-providers").List())
	v, ok := g.Root.Lookup("kernels", "_Z6kernelv", "parameters", "0").Get("type")
	assert.True(t, ok)
	assert.Equal(t, "pointer", v)
}

func TestAttachments(t *testing.T) {
	f, err := Parse(read(t, "sscp.hcf"))
	require.NoError(t, err)
	bc, err := f.Attachment(f.Root.Lookup("images", "llvm-ir.global"))
	require.NoError(t, err)
	assert.True(t, format.IsBitcode(bc))
	assert.Len(t, bc, 64)
	assert.Nil(t, f.Root.Lookup("images", "nope", "x"))
	assert.Equal(t, []string{"fast-math"}, f.Root.Lookup("kernels", "_Z13kernel_singlev", "compile-flags").List())
	assert.Equal(t, []string{}, f.Root.Lookup("kernels", "_Z13kernel_singlev", "compile-options").List())
	assert.True(t, HasAttachment(f.Root.Lookup("images", "llvm-ir.global")))
	assert.False(t, HasAttachment(f.Root.Lookup("kernels")))

	e, err := Parse(read(t, "edge.hcf"))
	require.NoError(t, err)
	p, err := e.Attachment(e.Root.Lookup("a", "b", "c"))
	require.NoError(t, err)
	assert.Equal(t, "contains __acpp_hcf_binary_appendix marker inside payload", string(p))
	z, err := e.Attachment(e.Root.Child("empty-node"))
	require.NoError(t, err)
	assert.Len(t, z, 0)
	v, _ := e.Root.Get("note")
	assert.Equal(t, "value with = sign and spaces", v)
}

func TestAttachmentErrors(t *testing.T) {
	mk := func(kvs ...KV) *File {
		f := New()
		f.Appendix = []byte("0123456789")
		f.Root.Subnode("x").Subnode(BinaryNode).Values = kvs
		return f
	}
	cases := []struct {
		name string
		f    *File
		err  error
	}{
		{"no start", mk(KV{"size", "1"}), format.ErrCorrupt},
		{"no size", mk(KV{"start", "1"}), format.ErrCorrupt},
		{"bad start", mk(KV{"start", " 1"}, KV{"size", "1"}), format.ErrCorrupt},
		{"negative", mk(KV{"start", "-1"}, KV{"size", "1"}), format.ErrCorrupt},
		{"past end", mk(KV{"start", "5"}, KV{"size", "6"}), format.ErrTruncated},
		{"overflow", mk(KV{"start", "18446744073709551615"}, KV{"size", "2"}), format.ErrTruncated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.f.Attachment(c.f.Root.Child("x"))
			assert.Nil(t, b)
			assert.ErrorIs(t, err, c.err)
		})
	}
	f := New()
	_, err := f.Attachment(f.Root)
	assert.ErrorIs(t, err, format.ErrCorrupt)
	_, err = f.Attachment(nil)
	assert.ErrorIs(t, err, format.ErrCorrupt)
	ok := mk(KV{"start", "2"}, KV{"size", "3"})
	b, err := ok.Attachment(ok.Root.Child("x"))
	require.NoError(t, err)
	assert.Equal(t, "234", string(b))
	assert.Contains(t, ok.Tree(), "attachment /x size=3 first=234\n")
	assert.Contains(t, mk(KV{"start", "9"}, KV{"size", "9"}).Tree(), "attachment /x error=")
}

// AdaptiveCpp's parser keeps spaces around '='; the documented example in
// doc/hcf.md therefore fails there. Lenient mode reads it as intended.
const docExample = `a = 123
b = 456
{.mynode
  x = y
  {.__binary
    start = 0
    size = 4
  }.__binary
}.mynode
__acpp_hcf_binary_appendix` + "\x01\x02\x03\x04"

func TestSpacesAroundEquals(t *testing.T) {
	f, err := Parse([]byte(docExample))
	require.NoError(t, err)
	assert.Equal(t, []KV{{"a ", " 123"}, {"b ", " 456"}}, f.Root.Values)
	_, err = f.Attachment(f.Root.Child("mynode"))
	assert.ErrorIs(t, err, format.ErrCorrupt) // no "start" key, only "start "

	l, err := ParseWith([]byte(docExample), Options{Lenient: true})
	require.NoError(t, err)
	assert.Equal(t, []KV{{"a", "123"}, {"b", "456"}}, l.Root.Values)
	b, err := l.Attachment(l.Root.Child("mynode"))
	require.NoError(t, err)
	assert.Equal(t, []byte{1, 2, 3, 4}, b)
	golden(t, "doc-example-lenient.tree", l.Tree())
	golden(t, "doc-example-strict.tree", f.Tree())
}

// golden compares got with testdata/golden/name, rewriting it under -update.
// (The reference *.tree files written by AdaptiveCpp are never rewritten.)
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update")
	assert.Equal(t, string(want), got)
}

func TestParseQuirks(t *testing.T) {
	t.Run("same name nested", func(t *testing.T) {
		in := "{.a\n{.a\nk=v\n}.a\n}.a\n" + Marker
		f, err := Parse([]byte(in))
		require.NoError(t, err)
		assert.Equal(t, "node [a]\n  node [a]\n    kv k = [v]\n", f.Tree())
		out, err := f.Bytes()
		require.NoError(t, err)
		assert.Equal(t, in, string(out))
	})
	t.Run("crlf and indentation", func(t *testing.T) {
		f, err := Parse([]byte("x=1\r\n  {.n\r\n\t y=2 \r\n}.n\r\n\r\n" + Marker))
		require.NoError(t, err)
		assert.Equal(t, "kv x = [1]\nnode [n]\n  kv y = [2]\n", f.Tree())
	})
	t.Run("value with equals, empty key and value, duplicates", func(t *testing.T) {
		f, err := Parse([]byte("x=a=b\n=\nx=second\n" + Marker))
		require.NoError(t, err)
		assert.Equal(t, []KV{{"x", "a=b"}, {"", ""}, {"x", "second"}}, f.Root.Values)
		v, _ := f.Root.Get("x")
		assert.Equal(t, "a=b", v)
	})
	t.Run("node line wins over equals", func(t *testing.T) {
		f, err := Parse([]byte("{.a=b\n}.a=b\n" + Marker))
		require.NoError(t, err)
		assert.Equal(t, "a=b", f.Root.Children[0].Name)
	})
	t.Run("legacy marker", func(t *testing.T) {
		f, err := Parse([]byte("object-id=1\n" + LegacyMarker + "xyz"))
		require.NoError(t, err)
		assert.Equal(t, LegacyMarker, f.Marker)
		assert.Equal(t, "xyz", string(f.Appendix))
		out, err := f.Bytes()
		require.NoError(t, err)
		assert.Equal(t, "object-id=1\n"+LegacyMarker+"xyz", string(out))
	})
	t.Run("first marker wins", func(t *testing.T) {
		f, err := Parse([]byte("a=1\n" + LegacyMarker + Marker))
		require.NoError(t, err)
		assert.Equal(t, Marker, string(f.Appendix))
	})
	t.Run("lenient duplicates", func(t *testing.T) {
		in := []byte("{.a\n}.a\n{.a\n}.a\n" + Marker)
		_, err := Parse(in)
		assert.ErrorIs(t, err, format.ErrCorrupt)
		f, err := ParseWith(in, Options{Lenient: true})
		require.NoError(t, err)
		assert.Len(t, f.Root.Children, 2)
	})
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("{.n\n", MaxDepth+1) + strings.Repeat("}.n\n", MaxDepth+1) + Marker
	cases := []struct {
		name, in string
		err      error
		off      int64
		msg      string
	}{
		{"no marker", "a=1\n", format.ErrMagic, 4, "no __acpp_hcf_binary_appendix marker"},
		{"empty", "", format.ErrMagic, 0, "marker"},
		{"missing end marker", "a=1\n{.images\n{.x\n}.x\n" + Marker, format.ErrCorrupt, 4, `line 2: node "images" has no end marker }.images`},
		{"missing nested end", "{.a\n  {.b\n}.a\n" + Marker, format.ErrCorrupt, 10, `line 3: end marker "}.a", but node "b" opened at line 2 is still open`},
		{"stray end", "a=1\n}.a\n" + Marker, format.ErrCorrupt, 4, "line 2: end marker \"}.a\" without an open node"},
		{"garbage", "a=1\n\nhello world\n" + Marker, format.ErrCorrupt, 5, `line 3: "hello world" is neither`},
		{"too deep", deep, format.ErrLimit, int64(4 * MaxDepth), "nested deeper"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse([]byte(c.in))
			assert.Nil(t, f)
			assert.ErrorIs(t, err, c.err)
			var fe *format.FormatError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, c.off, fe.Off, "%v", err)
			assert.Contains(t, err.Error(), c.msg)
		})
	}
}

func TestWriteErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(f *File)
	}{
		{"newline in value", func(f *File) { f.Root.Set("a", "x\ny") }},
		{"equals in key", func(f *File) { f.Root.Set("a=b", "x") }},
		{"newline in key", func(f *File) { f.Root.Set("a\n", "x") }},
		{"key opens node", func(f *File) { f.Root.Set(" {.a", "x") }},
		{"marker in value", func(f *File) { f.Root.Set("a", "x"+Marker) }},
		{"legacy marker in key", func(f *File) { f.Root.Set(LegacyMarker, "x") }},
		{"marker in name", func(f *File) { f.Root.Subnode("n" + Marker) }},
		{"name with space", func(f *File) { f.Root.Subnode("n ") }},
		{"name with newline", func(f *File) { f.Root.Subnode("a\nb") }},
		{"duplicate siblings", func(f *File) {
			f.Root.Children = append(f.Root.Children, NewNode("d"), NewNode("d"))
		}},
		{"kv reads as end marker", func(f *File) { f.Root.Subnode("x=1").Set("}.x", "1") }},
		{"bad marker", func(f *File) { f.Marker = "nope" }},
		{"no root", func(f *File) { f.Root = nil }},
		{"too deep", func(f *File) {
			n := f.Root
			for range MaxDepth + 2 {
				n = n.Subnode("n")
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := New()
			c.build(f)
			out, err := f.AppendTo([]byte("keep"))
			assert.ErrorIs(t, err, format.ErrUnsupported)
			assert.Equal(t, "keep", string(out))
		})
	}
	f := New()
	_, err := f.Root.AddChild("x")
	require.NoError(t, err)
	_, err = f.Root.AddChild("x")
	assert.ErrorIs(t, err, format.ErrCorrupt)
	_, err = f.Root.setList("x", nil)
	assert.ErrorIs(t, err, format.ErrCorrupt)
	_, err = f.Root.setList("l", []string{"a", "a"})
	assert.ErrorIs(t, err, format.ErrCorrupt)
	assert.ErrorIs(t, f.Attach(f.Root.Child("x"), nil), nil)
	assert.ErrorIs(t, f.Attach(f.Root.Child("x"), nil), format.ErrCorrupt)
}

// The appendix of a parsed file must not be appended into the caller's
// buffer.
func TestAttachDoesNotClobberInput(t *testing.T) {
	in := append(read(t, "minimal.hcf"), "tail"...)
	buf := in[:len(in)-4]
	f, err := Parse(buf)
	require.NoError(t, err)
	require.NoError(t, f.Attach(f.Root, []byte("XXXX")))
	assert.Equal(t, "tail", string(in[len(in)-4:]))
	out, err := f.Bytes()
	require.NoError(t, err)
	g, err := Parse(out)
	require.NoError(t, err)
	b, err := g.Attachment(g.Root)
	require.NoError(t, err)
	assert.Equal(t, "XXXX", string(b))
	assert.Contains(t, g.Tree(), "attachment / size=4 first=XXXX\n")
}

// Large inputs stay linear: many siblings, many markers, a long header
// that fails on its last line.
func TestLargeInputs(t *testing.T) {
	var sb strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&sb, "{.n%d\n}.n%d\n", i, i)
	}
	sb.WriteString(Marker)
	f, err := Parse([]byte(sb.String()))
	require.NoError(t, err)
	assert.Len(t, f.Root.Children, 20000)
	out, err := f.Bytes()
	require.NoError(t, err)
	assert.Equal(t, sb.String(), string(out))

	many := bytes.Repeat([]byte("\x00a=1\n"+Marker), 5000)
	assert.Len(t, Find(many), 5000)

	long := append(bytes.Repeat([]byte("{.x\n"), 1), bytes.Repeat([]byte("k=v\n"), 200000)...)
	long = append(long, Marker...)
	locs := Find(long)
	require.Len(t, locs, 1)
	assert.Equal(t, int64(4), locs[0].Offset)
}
