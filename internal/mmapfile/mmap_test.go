package mmapfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegularFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(p, []byte("hello"), 0o644))
	f, err := Open(p)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(f.Data))
	require.NoError(t, f.Close())
	require.NoError(t, f.Close(), "Close twice is harmless")
}

func TestEmptyFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "e")
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	f, err := Open(p)
	require.NoError(t, err)
	assert.Empty(t, f.Data)
}

// /dev/null is a valid empty input (clang-offload-bundler -input=/dev/null);
// /dev/zero would never end and must be refused without reading it all.
func TestDevices(t *testing.T) {
	f, err := Open("/dev/null")
	require.NoError(t, err)
	assert.Empty(t, f.Data)
	_, err = Open("/dev/zero")
	assert.ErrorContains(t, err, "not a regular file")
}

func TestDirectory(t *testing.T) {
	_, err := Open(t.TempDir())
	assert.ErrorContains(t, err, "is a directory")
}
