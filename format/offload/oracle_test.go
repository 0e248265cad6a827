package offload

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const llvmBin = llvmtools.Dir

// oracle returns the path of an LLVM 22 tool (-short skips the test; a
// missing tool fails it).
func oracle(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("oracle tests skipped in -short mode")
	}
	return llvmtools.Tool(t, name)
}

// packageGo is what llvm-offload-binary -o X --image=... writes, computed
// with this package: one v1 binary per file, concatenated.
func packageGo(dir string, images []string) ([]byte, error) {
	var out []byte
	for _, im := range images {
		ordered := PackagerOrder(ParseImageArg(im))
		var files, kind string
		hasFile := false
		var strs []KV
		for _, kv := range ordered {
			switch kv.Key {
			case "file":
				files, hasFile = kv.Value, true
			case "kind":
				kind = kv.Value
			default:
				strs = append(strs, kv)
			}
		}
		if !hasFile {
			return nil, fmt.Errorf("'file' is a required image arguments")
		}
		for _, f := range strings.Split(files, ",") {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				return nil, err
			}
			out = AppendBinary(out, &Image{
				ImageKind:   ImageKindFor(f, data),
				OffloadKind: format.ParseOffloadKind(kind),
				Strings:     strs,
				Image:       data,
			})
		}
	}
	return out, nil
}

// randKey returns a key of a random length class (0, 1–3, 4–8, 9–16,
// 17–32, 33–64, 65–128, >128), without ',' or '='.
func randKey(r *rand.Rand) string {
	classes := [][2]int{{0, 0}, {1, 3}, {4, 8}, {9, 16}, {17, 32}, {33, 64}, {65, 128}, {129, 300}}
	c := classes[r.IntN(len(classes))]
	if c[1] == 0 && r.IntN(4) != 0 { // empty keys rarely
		c = classes[1+r.IntN(3)]
	}
	n := c[0] + r.IntN(c[1]-c[0]+1)
	const alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+.:/ \xc3\xa9\xff\x01"
	var b strings.Builder
	for range n {
		b.WriteByte(alpha[r.IntN(len(alpha))])
	}
	return b.String()
}

func randValue(r *rand.Rand, keys []string) string {
	switch r.IntN(8) {
	case 0:
		return ""
	case 1: // share a suffix with something (tail merging)
		if len(keys) > 0 {
			k := keys[r.IntN(len(keys))]
			return k[r.IntN(len(k)+1):]
		}
	case 2:
		return "x86_64-unknown-linux-gnu"
	case 3:
		return "gnu"
	case 4:
		return "a=b=c"
	}
	return randKey(r)
}

var testFiles = []string{"a.o", "b.bc", "c.cubin", "d.fatbin", "e.s", "f.spv", "g", "h.bin", "bc.o", "wrap.txt", "e.o", "dir.x/k"}

func writeTestFiles(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "dir.x"), 0o755))
	for i, f := range testFiles {
		data := bytes.Repeat([]byte{byte('A' + i)}, i*3)
		switch f {
		case "bc.o":
			data = append([]byte("BC\xc0\xde"), data...)
		case "wrap.txt":
			data = append([]byte{0xde, 0xc0, 0x17, 0x0b}, data...)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o644))
	}
}

func randImageArg(r *rand.Rand) string {
	var pieces []string
	nfile := 1 + r.IntN(2)
	if r.IntN(10) == 0 {
		nfile = 3
	}
	for range nfile {
		pieces = append(pieces, "file="+testFiles[r.IntN(len(testFiles))])
	}
	var keys []string
	nkeys := r.IntN(12)
	switch r.IntN(5) {
	case 0:
		nkeys = 40 + r.IntN(120) // forces one or two rehashes
	case 1:
		nkeys = 45 + r.IntN(6) // around the 48th key
	}
	common := []string{"triple", "arch", "feature", "symbols", "kind", "foo"}
	for range nkeys {
		var k string
		switch {
		case r.IntN(5) == 0:
			k = common[r.IntN(len(common))]
		case len(keys) > 0 && r.IntN(8) == 0:
			k = keys[r.IntN(len(keys))] // repeated key
		default:
			k = randKey(r)
		}
		keys = append(keys, k)
		switch r.IntN(10) {
		case 0:
			pieces = append(pieces, k) // no '='
		case 1:
			pieces = append(pieces, k+"=")
		default:
			if k == "kind" {
				pieces = append(pieces, "kind="+[]string{"openmp", "cuda", "hip", "sycl", "bogus", "OpenMP"}[r.IntN(6)])
			} else {
				pieces = append(pieces, k+"="+randValue(r, keys))
			}
		}
	}
	r.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
	return strings.Join(pieces, ",")
}

func TestPackagerDifferential(t *testing.T) {
	tool := oracle(t, "llvm-offload-binary")
	dumpTool := oracle(t, "llvm-objdump")
	dir := t.TempDir()
	writeTestFiles(t, dir)

	const cases = 210
	r := rand.New(rand.NewPCG(0x0ff10ad, 22))
	sets := make([][]string, cases)
	for i := range sets {
		n := 1
		if r.IntN(4) == 0 {
			n = 2 + r.IntN(3)
		}
		for range n {
			sets[i] = append(sets[i], randImageArg(r))
		}
	}
	sets[0] = []string{"file=h.bin,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp"}
	sets[1] = []string{"file=a.o,file=b.bc,triple=t,x=linux-gnu,y=u,arch=gnu"}

	var wg sync.WaitGroup
	var mu sync.Mutex
	failures, compared, maxKeys := 0, 0, 0
	work := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range work {
				out := filepath.Join(dir, fmt.Sprintf("out%d.bin", i))
				args := []string{"-o", out}
				for _, im := range sets[i] {
					args = append(args, "--image="+im)
				}
				cmd := exec.Command(tool, args...)
				cmd.Dir = dir
				stderr, err := cmd.CombinedOutput()
				want, rerr := os.ReadFile(out)
				got, gerr := packageGo(dir, sets[i])
				var dumpWant, dumpGot string
				if rerr == nil && i%30 == 0 { // read the oracle's output back
					var o bytes.Buffer
					dc := exec.Command(dumpTool, "--offloading", out)
					dc.Stdout = &o
					if dc.Run() == nil {
						dumpWant = o.String()
					}
					bins, perr := ParseAll(want, ReadOptions{})
					if perr != nil {
						dumpGot = perr.Error()
					} else {
						dumpGot = dumpText(bins)
					}
				}
				mu.Lock()
				switch {
				case err != nil || rerr != nil:
					if gerr == nil {
						failures++
						t.Errorf("case %d: oracle failed (%v %v: %s) but Go succeeded; args %q", i, err, rerr, stderr, sets[i])
					}
				case gerr != nil:
					failures++
					t.Errorf("case %d: Go failed: %v", i, gerr)
				default:
					compared++
					bins, _ := ParseAll(got, ReadOptions{})
					for _, b := range bins {
						maxKeys = max(maxKeys, len(b.Strings))
					}
				}
				if dumpWant != dumpGot {
					failures++
					t.Errorf("case %d: llvm-objdump --offloading differs:\n%s\nours:\n%s", i, dumpWant, dumpGot)
				}
				switch {
				case err != nil || rerr != nil || gerr != nil:
				case !bytes.Equal(want, got):
					failures++
					if failures < 4 {
						t.Errorf("case %d: bytes differ (oracle %d bytes, Go %d); args %q\noracle:%s\ngo:    %s",
							i, len(want), len(got), sets[i], describe(want), describe(got))
					}
				}
				mu.Unlock()
				os.Remove(out)
			}
		})
	}
	for i := range sets {
		work <- i
	}
	close(work)
	wg.Wait()
	if failures > 0 {
		t.Fatalf("%d of %d cases differ", failures, cases)
	}
	t.Logf("%d cases compared byte for byte; largest string map %d keys", compared, maxKeys)
	assert.True(t, compared >= 200, "only %d cases compared", compared)
	assert.True(t, maxKeys > 96, "no case forced two rehashes (max %d keys)", maxKeys)
}

// describe lists the string keys of each binary, for failure messages.
func describe(b []byte) string {
	bins, err := ParseAll(b, ReadOptions{})
	if err != nil {
		return err.Error()
	}
	var s strings.Builder
	for _, bin := range bins {
		fmt.Fprintf(&s, " [%v %v", bin.ImageKind, bin.OffloadKind)
		for _, kv := range bin.Strings {
			fmt.Fprintf(&s, " %.12q", kv.Key)
		}
		s.WriteString("]")
	}
	return s.String()
}
