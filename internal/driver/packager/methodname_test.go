package packager

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offload-kit/offload-kit/format/bundle"
)

// TestMethodName: dump names CCOB compression methods by the bundle
// codec's table, and an unknown one in dump's lowercase spelling.
func TestMethodName(t *testing.T) {
	assert.Equal(t, "zlib", methodName(bundle.Zlib))
	assert.Equal(t, "zstd", methodName(bundle.Zstd))
	assert.Equal(t, "method(7)", methodName(7))
}
