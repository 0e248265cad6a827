package bundler

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/format/bundle"
)

// FuzzDriver runs -list and -unbundle (types bc, o, a, ll) over hostile
// inputs: nothing may panic.
func FuzzDriver(f *testing.F) {
	raw, _ := bundle.AppendBinary(nil, []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a"}, [][]byte{[]byte("h"), []byte("dev")}, 8)
	f.Add(raw, uint8(0))
	c, _, _ := bundle.Compress(nil, raw, bundle.CompressOptions{})
	f.Add(c, uint8(0))
	f.Add([]byte("!<arch>\nm.o/            0           0     0     644     8         `\nCCOB\x03\x00\x01\x00"), uint8(2))
	if b, err := os.ReadFile("../../../format/bundle/testdata/bundle-hip-gfx90a-llvm22.ll"); err == nil {
		f.Add(b, uint8(3))
	}
	types := []string{"bc", "o", "a", "ll"}
	f.Fuzz(func(t *testing.T, in []byte, ty uint8) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "in"), in, 0o644); err != nil {
			t.Fatal(err)
		}
		typ := "-type=" + types[int(ty)%len(types)]
		start := time.Now()
		defer func() {
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("slow input: %v", d)
			}
		}()
		runOurs(t, dir, nil, "-list", typ, "-input=in")
		runOurs(t, dir, nil, "-unbundle", typ, "-targets=hip-amdgcn-amd-amdhsa--gfx90a,host-x86_64-unknown-linux-gnu",
			"-input=in", "-output=a", "-output=b", "-allow-missing-bundles", "-check-input-archive")
	})
}
