package split

import (
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// split is level 3 but needs nothing beyond the standard library: keep it so.
func TestOnlyStdlibImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := goparser.ParseFile(token.NewFileSet(), f, nil, goparser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			first := strings.SplitN(p, "/", 2)[0]
			assert.False(t, strings.Contains(first, "."), "%s imports %s", f, p)
			assert.False(t, p == "os/exec" || p == "os", "%s imports %s", f, p)
		}
	}
}
