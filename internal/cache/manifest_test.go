package cache

import (
	"crypto/sha256"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

// TestManifestGolden pins the ActionResult encoding. The golden file was
// checked with an independent protobuf decoder (protobufjs, against the
// REAPI remote_execution.proto messages); see docs/cache.md.
func TestManifestGolden(t *testing.T) {
	golden := filepath.Join("testdata", "actionresult.golden")
	got := sampleManifest().marshal()
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, got, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}
