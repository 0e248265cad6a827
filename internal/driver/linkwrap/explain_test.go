package linkwrap

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/run"
)

func TestProgName(t *testing.T) {
	assert.Equal(t, "clang-linker-wrapper", ProgName("/opt/bin/clang-linker-wrapper"))
	assert.Equal(t, "clang-linker-wrapper", ProgName("clang-linker-wrapper-22"))
	assert.Equal(t, "linker-wrapper", ProgName("/usr/bin/linker-wrapper"))
	assert.Equal(t, "linker-wrapper", ProgName("ld"))
}

func TestApplyEnv(t *testing.T) {
	env := map[string]string{
		"OFFLOAD_KIT_CACHE_DIR":              "/env/cache",
		"OFFLOAD_KIT_CACHE_REMOTE":           "http://env:8080",
		"OFFLOAD_KIT_CACHE_MAX_SIZE":         "2G",
		"OFFLOAD_KIT_CACHE_REMOTE_HEADER":    "Authorization: Bearer x",
		"OFFLOAD_KIT_CACHE_REMOTE_READ_ONLY": "1",
		"OFFLOAD_KIT_CACHE_SECRET_FILE":      "/env/secret",
		"OFFLOAD_KIT_VERBOSE":                "1",
	}
	getenv := &driverenv.Env{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	o, err := ParseArgs([]string{"a.o"})
	require.NoError(t, err)
	require.NoError(t, o.ApplyEnv(getenv))
	assert.Equal(t, "/env/cache", o.CacheDir)
	assert.Equal(t, "http://env:8080", o.CacheRemote)
	assert.Equal(t, int64(2<<30), o.CacheMaxSize)
	assert.Equal(t, []string{"Authorization: Bearer x"}, o.CacheRemoteHeaders)
	assert.True(t, o.CacheRemoteReadOnly && o.Summary && !o.Verbose)
	assert.Equal(t, "/env/secret", o.CacheSecretFile)

	// Flags win over the environment.
	o, err = ParseArgs([]string{"--cache-dir=/flag", "--cache-max-size=512M", "--cache-remote=https://flag",
		"--cache-remote-header=X-A: 1", "--cache-secret-file=/flag/secret", "a.o"})
	require.NoError(t, err)
	require.NoError(t, o.ApplyEnv(getenv))
	assert.Equal(t, "/flag", o.CacheDir)
	assert.Equal(t, "https://flag", o.CacheRemote)
	assert.Equal(t, int64(512<<20), o.CacheMaxSize)
	assert.Equal(t, []string{"X-A: 1"}, o.CacheRemoteHeaders)
	assert.Equal(t, "/flag/secret", o.CacheSecretFile)

	for k, want := range map[string]string{
		"OFFLOAD_KIT_CACHE_MAX_SIZE":      "OFFLOAD_KIT_CACHE_MAX_SIZE=lots: expected a byte count",
		"OFFLOAD_KIT_CACHE_REMOTE_HEADER": "OFFLOAD_KIT_CACHE_REMOTE_HEADER: expected <name>:<value>",
	} {
		o, err := ParseArgs(nil)
		require.NoError(t, err)
		assert.ErrorContains(t, o.ApplyEnv(&driverenv.Env{LookupEnv: driverenv.FromGetenv(func(n string) string {
			if n == k {
				return "lots"
			}
			return ""
		})}), want)
	}
}

func TestExplain(t *testing.T) {
	var w bytes.Buffer
	err := Explain(&w, "clang-linker-wrapper", &run.Error{Args: []string{"/usr/bin/clang-22", "-o", "x.img"}, ExitCode: 1})
	assert.Equal(t, diag.Reported{Code: 1}, err)
	assert.Equal(t, "clang-linker-wrapper: error: 'clang-22' failed with exit code 1\n"+
		"clang-linker-wrapper: note: the failing command was:\n"+` "/usr/bin/clang-22" -o x.img`+"\n"+
		"clang-linker-wrapper: note: its output is above; rerun with --save-temps to keep the intermediate files it read, or --wrapper-verbose to print every command\n",
		w.String())

	w.Reset()
	err = Explain(&w, "linker-wrapper", &ToolError{Tool: "clang", Hint: "install clang-22", Searched: []string{"PATH"}, Skipped: []string{"/usr/bin/clang: LLVM 14"}})
	assert.Equal(t, diag.Reported{Code: 1}, err)
	assert.Equal(t, "linker-wrapper: error: unable to find a usable 'clang'; install clang-22\n"+
		"linker-wrapper: note: searched PATH\nlinker-wrapper: note: skipped /usr/bin/clang: LLVM 14\n", w.String())

}

// TestExplainEscapesLikeDiag: an error holding control characters is
// printed on one line with the escapes every tool uses (diag.OneLine).
func TestExplainEscapesLikeDiag(t *testing.T) {
	msg := "in.bin: member a\nb\x07\x0b\x1b[2J: bad"
	var w bytes.Buffer
	err := Explain(&w, "linker-wrapper", errors.New(msg))
	require.Error(t, err)
	assert.Equal(t, `in.bin: member a\nb\x07\x0b\x1b[2J: bad`, err.Error())
	assert.Equal(t, diag.OneLine(msg), err.Error())
	assert.Empty(t, w.String())
	plain := errors.New("in.bin: bad")
	assert.Same(t, plain, Explain(&w, "linker-wrapper", plain))
}
