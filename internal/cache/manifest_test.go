package cache

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// appendBytesField appends a length-delimited protobuf field, for building
// hostile encodings by hand.
func appendBytesField(b []byte, field int, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, protowire.Number(field), protowire.BytesType), v)
}

func sampleManifest() *manifest {
	return &manifest{
		Files: []manifestFile{
			{Name: "image", Hash: sha256.Sum256([]byte("img")), Size: 3, Executable: true},
			{Name: "image.map", Hash: sha256.Sum256(nil), Size: 0},
			{Name: "sub/side.txt", Hash: sha256.Sum256([]byte("side")), Size: 4},
		},
		Stdout: []byte("out"),
		Stderr: []byte("warning: x\n"),
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := sampleManifest()
	got, err := unmarshalManifest(m.marshal())
	require.NoError(t, err)
	assert.Equal(t, m, got)
	f, ok := got.file("image.map")
	assert.True(t, ok)
	assert.Equal(t, int64(0), f.Size)
	_, ok = got.file("nope")
	assert.False(t, ok)

	empty, err := unmarshalManifest((&manifest{}).marshal())
	require.NoError(t, err)
	assert.Empty(t, empty.Files)
}

func TestManifestRejects(t *testing.T) {
	good := sampleManifest().marshal()
	cases := map[string][]byte{
		"truncated":  good[:len(good)-3],
		"garbage":    []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"),
		"exit code":  append(append([]byte(nil), good...), 0x20, 0x01),
		"output dir": appendBytesField(append([]byte(nil), good...), 3, nil),
		"bad name":   (&manifest{Files: []manifestFile{{Name: "../escape"}}}).marshal(),
		"abs name":   (&manifest{Files: []manifestFile{{Name: "/etc/passwd"}}}).marshal(),
		"duplicate":  (&manifest{Files: []manifestFile{{Name: "a"}, {Name: "a"}}}).marshal(),
		"short hash": appendBytesField(nil, 2, appendBytesField(appendBytesField(nil, 1, []byte("a")), 2, appendBytesField(nil, 1, []byte("abcd")))),
		"no digest":  appendBytesField(nil, 2, appendBytesField(nil, 1, []byte("a"))),
		"wrong wire": {0x10, 0x01},
		"zero field": {0x00, 0x01},
	}
	for name, b := range cases {
		m, err := unmarshalManifest(b)
		assert.ErrorIs(t, err, ErrCorrupt, name)
		assert.Nil(t, m, name)
	}
}

func FuzzManifest(f *testing.F) {
	f.Add(sampleManifest().marshal())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := unmarshalManifest(b)
		if err != nil {
			if m != nil {
				t.Fatal("error with a non-nil manifest")
			}
			return
		}
		again, err := unmarshalManifest(m.marshal())
		if err != nil {
			t.Fatalf("re-encoded manifest does not parse: %v", err)
		}
		assert.Equal(t, m.Files, again.Files)
	})
}

var update = flag.Bool("update", false, "rewrite testdata/*.golden files")

// goldenKey is the key the golden manifest is sealed for: bytes 0..31.
func goldenKey() Key {
	var k Key
	for i := range k {
		k[i] = byte(i)
	}
	return k
}

// TestManifestGolden pins the ActionResult encoding, binding included. The
// v1 golden file (the same fields, worker "offload-kit/cache/v1") was
// checked with an independent protobuf decoder (protobufjs, against the
// REAPI remote_execution.proto messages); v2 only lengthens the worker
// string; see docs/cache.md.
func TestManifestGolden(t *testing.T) {
	golden := filepath.Join("testdata", "actionresult.golden")
	got := sampleManifest().seal(goldenKey(), nil)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, got, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	m, err := openManifest(want, goldenKey(), nil)
	require.NoError(t, err)
	assert.Equal(t, sampleManifest().Files, m.Files)
}

// TestManifestBinding: an entry opens only under the key (and secret) it
// was sealed for; any change to its meaning breaks the MAC.
func TestManifestBinding(t *testing.T) {
	k1, k2 := testKey(1), testKey(2)
	sealed := sampleManifest().seal(k1, nil)
	_, err := openManifest(sealed, k1, nil)
	require.NoError(t, err)

	_, err = openManifest(sealed, k2, nil)
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.ErrorContains(t, err, "belongs to key "+k1.String())

	_, err = openManifest(sampleManifest().marshal(), k1, nil)
	assert.ErrorContains(t, err, "not bound")

	_, err = openManifest(sealed, k1, []byte("team secret"))
	assert.ErrorContains(t, err, "MAC")
	withSecret := sampleManifest().seal(k1, []byte("team secret"))
	_, err = openManifest(withSecret, k1, []byte("team secret"))
	require.NoError(t, err)

	// A forger who rewrites the key in the binding but cannot recompute
	// the MAC, or who edits the content under a valid binding.
	forged := bytes.Replace(sealed, []byte(k1.String()), []byte(k2.String()), 1)
	_, err = openManifest(forged, k2, nil)
	assert.ErrorContains(t, err, "MAC")
	m := sampleManifest()
	m.Key, m.MAC = k1, sampleManifest().mac(k1, nil)
	m.Stderr = []byte("clang: error: fake\n")
	_, err = openManifest(m.marshal(), k1, nil)
	assert.ErrorContains(t, err, "MAC")

	// Tool output over 1 MiB is rejected when decoding.
	big := &manifest{Stderr: bytes.Repeat([]byte("x"), maxInlineOutput+1)}
	_, err = openManifest(big.seal(k1, nil), k1, nil)
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.ErrorContains(t, err, "exceeds")
}

// TestManifestWireTypeErrors pins the error for a field of the wrong wire
// type at every message level the manifest decoder reads.
func TestManifestWireTypeErrors(t *testing.T) {
	file := func(fields []byte) []byte { return appendBytesField(nil, 2, fields) }
	digest := func(fields []byte) []byte {
		return file(appendBytesField(appendBytesField(nil, 1, []byte("a")), 2, fields))
	}
	cases := []struct {
		b    []byte
		want string
	}{
		{[]byte{0x10, 0x01}, "field 2: wire type 0, want 2"},
		{appendBytesField(nil, 4, nil), "field 4: wire type 2, want 0"},
		{[]byte{0x28, 0x01}, "field 5: wire type 0, want 2"},
		{[]byte{0x38, 0x01}, "field 7: wire type 0, want 2"},
		{[]byte{0x48, 0x01}, "field 9: wire type 0, want 2"},
		{appendBytesField(nil, 9, []byte{0x08, 0x01}), "field 1: wire type 0, want 2"},
		{file([]byte{0x08, 0x01}), "output file 0: field 1: wire type 0, want 2"},
		{file([]byte{0x10, 0x01}), "output file 0: field 2: wire type 0, want 2"},
		{file(appendBytesField(nil, 4, nil)), "output file 0: field 4: wire type 2, want 0"},
		{digest([]byte{0x08, 0x01}), "output file 0: field 1: wire type 0, want 2"},
		{digest(appendBytesField(nil, 2, nil)), "output file 0: field 2: wire type 2, want 0"},
	}
	for _, c := range cases {
		_, err := unmarshalManifest(c.b)
		assert.EqualError(t, err, "manifest: "+c.want+": "+ErrCorrupt.Error(), "% x", c.b)
	}
}
