package wrap

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

const hostTriple = "x86_64-unknown-linux-gnu"

// tool returns the path of an LLVM 22 tool (or, for a tool LLVM does not
// ship such as gcc, a PATH tool); a missing tool fails the test, and only
// -short skips it.
func tool(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs external tools; skipped under -short")
	}
	if p := llvmtools.Path(name); fileExists(p) {
		return p
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found in %s or on PATH (scripts/install-deps.sh installs it)", name, llvmtools.Dir)
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// stubInclude is the -I option for testdata/include at the repository root:
// the C headers (offload_abi.h, ms_abi.h) that the stub runtimes under
// testdata include.
func stubInclude(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/include")
	require.NoError(t, err)
	return "-I" + dir
}

// runCmd runs a command in dir and returns its stdout; it fails the test
// with the command line and output on error.
func runCmd(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("running %s %s failed: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// packV1 builds a version-1 OffloadBinary (offload-binary.md §3) with the
// string entries in the given order.
func packV1(imageKind, offloadKind uint16, image []byte, kv ...string) []byte {
	n := len(kv) / 2
	strtab := []byte{0}
	offs := make([]uint64, len(kv))
	base := uint64(72 + 16*n)
	for i, s := range kv {
		offs[i] = base + uint64(len(strtab))
		strtab = append(strtab, s...)
		strtab = append(strtab, 0)
	}
	imgOff := align8(base + uint64(len(strtab)))
	size := align8(imgOff + uint64(len(image)))
	le := binary.LittleEndian
	b := make([]byte, 0, size)
	b = append(b, 0x10, 0xff, 0x10, 0xad)
	b = le.AppendUint32(b, 1)
	b = le.AppendUint64(b, size)
	b = le.AppendUint64(b, 32)
	b = le.AppendUint64(b, 40)
	b = le.AppendUint16(b, imageKind)
	b = le.AppendUint16(b, offloadKind)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, 72)
	b = le.AppendUint64(b, uint64(n))
	b = le.AppendUint64(b, imgOff)
	b = le.AppendUint64(b, uint64(len(image)))
	for i := 0; i < n; i++ {
		b = le.AppendUint64(b, offs[2*i])
		b = le.AppendUint64(b, offs[2*i+1])
	}
	b = append(b, strtab...)
	b = append(b, make([]byte, imgOff-uint64(len(b)))...)
	b = append(b, image...)
	b = append(b, make([]byte, size-uint64(len(b)))...)
	return b
}

func align8(x uint64) uint64 { return (x + 7) &^ 7 }

// writeFile writes b to dir/name and returns the path.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// golden compares got with testdata/<name>.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("missing golden file (run go test -update): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden (run go test -update to refresh):\n--- got ---\n%s", p, got)
	}
}
