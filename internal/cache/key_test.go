package cache

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// baseCommand is a typical device-link job whose temporary files live under
// tmp.
func baseCommand(tmp string) Command {
	return Command{
		Tool: Tool{Name: "clang", Identity: "sha256:aaaa", Version: "clang version 22.1.0"},
		Args: []string{
			"--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-O3",
			"-o", tmp + "/a.out-gfx90a.img",
			tmp + "/in0-gfx90a.o", tmp + "/in1-gfx90a.o",
			"-Wl,--save-temps=" + tmp,
		},
		Inputs: []File{
			{Name: "input0", Path: tmp + "/in0-gfx90a.o", SHA256: sha256.Sum256([]byte("zero"))},
			{Name: "input1", Path: tmp + "/in1-gfx90a.o", SHA256: sha256.Sum256([]byte("one"))},
		},
		Outputs:  []File{{Name: "image", Path: tmp + "/a.out-gfx90a.img"}},
		TempDirs: []string{tmp},
		Env:      []string{"HIP_PATH=/opt/rocm", "ROCM_PATH=/opt/rocm"},
	}
}

func mustKey(t *testing.T, c Command) Key {
	t.Helper()
	k, err := c.Key()
	require.NoError(t, err)
	return k
}

func TestKeySensitivity(t *testing.T) {
	base := mustKey(t, baseCommand("/tmp/lw-1234"))

	same := map[string]func(c *Command){
		"other temp dir": func(c *Command) { *c = baseCommand("/var/tmp/other-99") },
		"env order":      func(c *Command) { c.Env = []string{"ROCM_PATH=/opt/rocm", "HIP_PATH=/opt/rocm"} },
	}
	for name, mutate := range same {
		c := baseCommand("/tmp/lw-1234")
		mutate(&c)
		assert.Equal(t, base, mustKey(t, c), name)
	}

	different := map[string]func(c *Command){
		"input hash":    func(c *Command) { c.Inputs[1].SHA256[0] ^= 1 },
		"input order":   func(c *Command) { c.Inputs[0], c.Inputs[1] = c.Inputs[1], c.Inputs[0] },
		"input name":    func(c *Command) { c.Inputs[0].Name = "first" },
		"argument":      func(c *Command) { c.Args[1] = "-mcpu=gfx942" },
		"extra arg":     func(c *Command) { c.Args = append(c.Args, "-g") },
		"arg split":     func(c *Command) { c.Args = append([]string{"--target=amdgcn-amd-amdhsa-mcpu=gfx90a"}, c.Args[2:]...) },
		"tool identity": func(c *Command) { c.Tool.Identity = "sha256:bbbb" },
		"tool version":  func(c *Command) { c.Tool.Version = "clang version 22.1.1" },
		"tool name":     func(c *Command) { c.Tool.Name = "lld" },
		"env value":     func(c *Command) { c.Env[0] = "HIP_PATH=/opt/rocm-7" },
		"env added":     func(c *Command) { c.Env = append(c.Env, "LLVM_FOO=1") },
		"env removed":   func(c *Command) { c.Env = c.Env[:1] },
		"output name":   func(c *Command) { c.Outputs[0].Name = "img" },
		"extra":         func(c *Command) { c.Extra = [][2]string{{"rsp", "-O2"}} },
		"non-temp path": func(c *Command) { c.Args = append(c.Args, "-L/opt/rocm/lib") },
	}
	seen := map[Key]string{base: "base"}
	for name, mutate := range different {
		c := baseCommand("/tmp/lw-1234")
		mutate(&c)
		k := mustKey(t, c)
		if prev, dup := seen[k]; dup {
			t.Errorf("%s: key equals that of %s", name, prev)
		}
		seen[k] = name
	}
}

func TestKeyBuilderUnambiguous(t *testing.T) {
	var a, b, c, d KeyBuilder
	a.AddArg("ab")
	b.AddArg("a")
	b.AddArg("b")
	c.AddTool("x", "y", "")
	d.AddTool("x", "", "y")
	assert.NotEqual(t, a.Sum(), b.Sum())
	assert.NotEqual(t, c.Sum(), d.Sum())
	assert.Equal(t, a.Sum(), a.Sum(), "Sum must not change the builder")

	var e1, e2 KeyBuilder
	e1.AddEnv("A", "1")
	e1.AddEnv("B", "2")
	e2.AddEnv("B", "2")
	e2.AddEnv("A", "0")
	e2.AddEnv("A", "1") // replaces
	assert.Equal(t, e1.Sum(), e2.Sum())

	k := a.Sum()
	p, err := ParseKey(k.String())
	require.NoError(t, err)
	assert.Equal(t, k, p)
	_, err = ParseKey("abc")
	assert.Error(t, err)
}

func TestNormalizerLongestFirst(t *testing.T) {
	var n Normalizer
	n.AddPath("/t/a.o", "in:a")
	n.AddPath("/t/a.o.bc", "in:b")
	n.AddPath("/t", "tmp")
	assert.Equal(t, "-x=\x00in:b\x00,\x00in:a\x00,\x00tmp\x00/c", n.Replace("-x=/t/a.o.bc,/t/a.o,/t/c"))
}

func TestCommandKeyReadsInputs(t *testing.T) {
	dir := t.TempDir()
	p := writeTestFile(t, filepath.Join(dir, "in.o"), []byte("device code"))
	c := Command{Tool: Tool{Name: "t"}, Args: []string{p}, Inputs: []File{{Name: "in", Path: p}}}
	k1 := mustKey(t, c)
	c.Inputs[0].SHA256 = sha256.Sum256([]byte("device code"))
	assert.Equal(t, k1, mustKey(t, c), "computed hash equals the supplied one")

	writeTestFile(t, p, []byte("other code"))
	c.Inputs[0].SHA256 = [32]byte{}
	assert.NotEqual(t, k1, mustKey(t, c))

	for _, bad := range []Command{
		{Inputs: []File{{Name: "x"}}},                                                    // no hash, no path
		{Inputs: []File{{Name: "../x", SHA256: [32]byte{1}}}},                            // bad name
		{Inputs: []File{{Name: "x", SHA256: [32]byte{1}}}, Outputs: []File{{Name: "x"}}}, // duplicate
		{Inputs: []File{{Name: "x", Path: filepath.Join(dir, "missing")}}},
	} {
		_, err := bad.Key()
		assert.Error(t, err, "%+v", bad)
	}
}

func TestToolIdentity(t *testing.T) {
	dir := t.TempDir()
	a := writeTestFile(t, filepath.Join(dir, "a", "clang"), []byte("#!binary 1"))
	b := writeTestFile(t, filepath.Join(dir, "b", "clang"), []byte("#!binary 1"))
	ia, err := ToolIdentity(a, IdentifyByContent)
	require.NoError(t, err)
	ib, err := ToolIdentity(b, IdentifyByContent)
	require.NoError(t, err)
	assert.Equal(t, ia, ib, "content identity does not depend on the install path")
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, ia)

	sa, err := ToolIdentity(a, IdentifyByStat)
	require.NoError(t, err)
	assert.Contains(t, sa, a)

	c := openCache(t, Options{Dir: t.TempDir()})
	m1, err := c.ToolIdentity(a)
	require.NoError(t, err)
	assert.Equal(t, ia, m1)
	writeTestFile(t, a, []byte("#!binary 2 (rebuilt)"))
	m2, err := c.ToolIdentity(a)
	require.NoError(t, err)
	assert.NotEqual(t, m1, m2, "memo is keyed by size and mtime")

	_, err = ToolIdentity(filepath.Join(dir, "none"), IdentifyByContent)
	assert.Error(t, err)
	_, err = os.Stat(a)
	require.NoError(t, err)
}

func TestFilterEnv(t *testing.T) {
	env := []string{"PATH=/bin", "ROCM_PATH=/opt/rocm", "LLVM_X=1", "LLVM_Y=2", "HOME=/root", "BAD"}
	assert.Equal(t, []string{"LLVM_X=1", "LLVM_Y=2", "ROCM_PATH=/opt/rocm"}, FilterEnv(env, "ROCM_PATH", "LLVM_*", "CUDA_PATH"))
}
