package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDocRef: a test binary has no docs/ beside its directory, so a
// document is named where an installation keeps it; SetDocDir (the man
// pages) names the given directory.
func TestDocRef(t *testing.T) {
	assert.Equal(t, "", DocDir())
	assert.Equal(t, "share/doc/offload-kit/cache.md of the installation", DocRef("cache.md"))
	t.Cleanup(func() { docOverride = nil })
	SetDocDir("/usr/share/doc/offload-kit")
	assert.Equal(t, "/usr/share/doc/offload-kit/cache.md", DocRef("cache.md"))
}
