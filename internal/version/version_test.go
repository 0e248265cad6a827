package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLine(t *testing.T) {
	old := release
	t.Cleanup(func() { release = old })
	release = "v1.2.3-4-gabcdef0-dirty"
	assert.Equal(t, "v1.2.3-4-gabcdef0-dirty", Kit())
	assert.Equal(t, "offload-kit llvm-offload-binary version v1.2.3-4-gabcdef0-dirty (compatible with LLVM 22.1.8)", Line("llvm-offload-binary"))
	release = ""
	assert.NotEmpty(t, Kit(), "falls back to build info or devel")
}

func TestFromInfo(t *testing.T) {
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, ""},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "0123456789ab-dirty"},
		{debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}}, "abc"},
	} {
		assert.Equal(t, c.want, fromInfo(&c.bi))
	}
}
