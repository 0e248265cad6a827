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

// split is level 3 but needs nothing beyond the standard library: keep it
// so. The one exception is a leaf package of this module that itself
// imports only the standard library and owns a concept split shares with
// the rest of the tree (enumname: the String methods of its enums;
// format/syclprop: property sets, which sycldev and wrap take from split).
var stdlibOnlyLeaves = map[string]bool{
	"github.com/offload-kit/offload-kit/internal/enumname": true,
	"github.com/offload-kit/offload-kit/format/syclprop":   true,
}

func TestOnlyStdlibImports(t *testing.T) {
	checkStdlibOnly(t, ".", stdlibOnlyLeaves)
	// The allowed leaves stay standard-library only (and without os).
	for p := range stdlibOnlyLeaves {
		checkStdlibOnly(t, filepath.Join("..", strings.TrimPrefix(p, "github.com/offload-kit/offload-kit/")), nil)
	}
}

// checkStdlibOnly fails for every non-test Go file in dir that imports
// os, os/exec or a package outside the standard library, except allowed.
func checkStdlibOnly(t *testing.T, dir string, allowed map[string]bool) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files, dir)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := goparser.ParseFile(token.NewFileSet(), f, nil, goparser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if allowed[p] {
				continue
			}
			first := strings.SplitN(p, "/", 2)[0]
			assert.False(t, strings.Contains(first, "."), "%s imports %s", f, p)
			assert.False(t, p == "os/exec" || p == "os", "%s imports %s", f, p)
		}
	}
}
