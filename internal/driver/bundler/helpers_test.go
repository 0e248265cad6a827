package bundler

import (
	"bytes"
	"context"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

var oracle = llvmtools.Path("clang-offload-bundler")

func needOracle(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("differential test skipped in -short mode")
	}
	if _, err := os.Stat(oracle); err != nil {
		t.Skip("clang-offload-bundler 22 not installed")
	}
}

type result struct {
	stdout, stderr string
	code           int
}

// runOurs runs our personality in dir with env vars envs ("K=V").
func runOurs(t *testing.T, dir string, envs []string, args ...string) result {
	t.Helper()
	var so, se bytes.Buffer
	m := map[string]string{}
	for _, kv := range envs {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	env := &Env{driverenv.Env{Stdout: &so, Stderr: &se, Tool: oracle, Dir: dir, Stdin: strings.NewReader(""),
		LookupEnv: func(k string) (string, bool) { v, ok := m[k]; return v, ok }, Now: time.Now}}
	err := Main(context.Background(), env, oracle, args)
	code := diag.ExitCode(&se, oracle, err)
	return result{so.String(), se.String(), code}
}

// runTheirs runs the reference tool in dir.
func runTheirs(t *testing.T, dir string, envs []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(oracle, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + llvmtools.Dir + ":/usr/bin:/bin"}, envs...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running oracle: %v", err)
	}
	return result{so.String(), se.String(), code}
}

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// codeLike returns n bytes of compressible, code-like data.
func codeLike(n int, seed uint32) []byte {
	words := []string{"mov", "add", "s_load_dword", "v_mad_f32", "ret", "call", "r0", "r1", "v3", "s[4:5]", "0x10", "0x7fff", "\n", "\t", ", ", "global_load"}
	var b bytes.Buffer
	x := seed | 1
	for b.Len() < n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b.WriteString(words[x%uint32(len(words))])
		if x%7 == 0 {
			b.WriteByte(byte(x >> 8))
		}
	}
	return b.Bytes()[:n]
}
