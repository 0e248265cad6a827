package bundler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStreamedUnbundleMatchesReference unbundles compressed bundles large
// enough for the windowed decoder (≥ 16 MiB), made by the reference
// (one long-window frame) and by us (several frames), for several target
// selections, and compares files, stdout, stderr and exit codes with the
// reference. Binary bundles go straight to the outputs; the text bundle
// and the stdout output take the temporary-file path.
func TestStreamedUnbundleMatchesReference(t *testing.T) {
	needOracle(t)
	dir := t.TempDir()
	write(t, dir, "host.bin", realCode(t, 3<<20))
	write(t, dir, "a.bin", codeLike(14<<20, 5))
	write(t, dir, "b.bin", codeLike(5<<20, 9))
	targets := "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx1100"
	ll := strings.Repeat("define void @f() {\n  ret void\n}\n", 600000) // ~18 MiB of text
	write(t, dir, "host.ll", []byte(ll))
	write(t, dir, "dev.ll", []byte(ll[:len(ll)/2]))

	type bundleCase struct{ name, typ string }
	var made []bundleCase
	for _, who := range []string{"theirs", "ours"} {
		for _, typ := range []string{"bc", "o"} {
			out := fmt.Sprintf("%s-%s.ccob", who, typ)
			args := []string{"-type=" + typ, targets, "-input=host.bin", "-input=a.bin", "-input=b.bin", "-output=" + out, "-compress"}
			if typ == "o" {
				args[2] = "-input=/dev/null"
			}
			run := runOurs
			if who == "theirs" {
				run = runTheirs
			}
			require.Equal(t, 0, run(t, dir, nil, args...).code)
			made = append(made, bundleCase{out, typ})
		}
		out := who + "-ll.ccob"
		run := runOurs
		if who == "theirs" {
			run = runTheirs
		}
		require.Equal(t, 0, run(t, dir, nil, "-type=ll", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a",
			"-input=host.ll", "-input=dev.ll", "-output="+out, "-compress").code)
		made = append(made, bundleCase{out, "ll"})
	}

	selections := [][]string{
		{"host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx1100"},
		{"hip-amdgcn-amd-amdhsa--gfx1100"},
		{"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a"},
		{"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx1100"},
		{"hip-amdgcn-amd-amdhsa--gfx803"},
	}
	for _, b := range made {
		for si, sel := range selections {
			for _, extra := range [][]string{nil, {"-allow-missing-bundles"}} {
				name := fmt.Sprintf("%s/%d/%s", b.name, si, strings.Join(extra, ""))
				t.Run(name, func(t *testing.T) {
					args := append([]string{"-unbundle", "-type=" + b.typ, "-input=" + b.name, "-targets=" + strings.Join(sel, ",")}, extra...)
					var to, oo []string
					for i := range sel {
						to = append(to, fmt.Sprintf("-output=t%d", i))
						oo = append(oo, fmt.Sprintf("-output=o%d", i))
						os.Remove(filepath.Join(dir, fmt.Sprintf("t%d", i)))
						os.Remove(filepath.Join(dir, fmt.Sprintf("o%d", i)))
					}
					rt := runTheirs(t, dir, nil, append(args, to...)...)
					ro := runOurs(t, dir, nil, append(args, oo...)...)
					require.Equal(t, rt, ro)
					for i := range sel {
						tb, terr := os.ReadFile(filepath.Join(dir, fmt.Sprintf("t%d", i)))
						ob, oerr := os.ReadFile(filepath.Join(dir, fmt.Sprintf("o%d", i)))
						if ro.code != 0 {
							// The reference may leave the outputs it wrote before
							// failing; we never leave partial outputs.
							require.True(t, os.IsNotExist(oerr), "output %d left after an error", i)
							continue
						}
						require.Equal(t, terr == nil, oerr == nil, "output %d exists for one tool only", i)
						require.True(t, string(tb) == string(ob), "output %d differs (%d vs %d bytes)", i, len(tb), len(ob))
					}
				})
			}
		}
	}

	t.Run("stdout", func(t *testing.T) {
		args := []string{"-unbundle", "-type=bc", "-input=theirs-bc.ccob", "-targets=hip-amdgcn-amd-amdhsa--gfx1100", "-output=-"}
		rt := runTheirs(t, dir, nil, args...)
		ro := runOurs(t, dir, nil, args...)
		require.Equal(t, rt.code, ro.code)
		require.True(t, rt.stdout == ro.stdout, "stdout differs (%d vs %d bytes)", len(rt.stdout), len(ro.stdout))
	})

	t.Run("one output named twice", func(t *testing.T) {
		args := []string{"-unbundle", "-type=bc", "-input=ours-bc.ccob", "-targets=hip-amdgcn-amd-amdhsa--gfx1100,hip-amdgcn-amd-amdhsa--gfx90a"}
		rt := runTheirs(t, dir, nil, append(args, "-output=tt", "-output=tt")...)
		ro := runOurs(t, dir, nil, append(args, "-output=oo", "-output=oo")...)
		require.Equal(t, rt, ro)
		require.True(t, string(read(t, dir, "tt")) == string(read(t, dir, "oo")), "outputs differ")
	})

	t.Run("no sparse view", func(t *testing.T) {
		defer func(a func(int) ([]byte, error), h int64) { anonView, heapViewMax = a, h }(anonView, heapViewMax)
		anonView = func(int) ([]byte, error) { return nil, errors.New("no address space") }
		heapViewMax = 0
		args := []string{"-unbundle", "-type=bc", "-input=theirs-bc.ccob", "-targets=hip-amdgcn-amd-amdhsa--gfx1100,host-x86_64-unknown-linux-gnu"}
		rt := runTheirs(t, dir, nil, append(args, "-output=nv0", "-output=nv1")...)
		ro := runOurs(t, dir, nil, append(args, "-output=nw0", "-output=nw1")...)
		require.Equal(t, rt, ro)
		for i := 0; i < 2; i++ {
			require.True(t, string(read(t, dir, fmt.Sprintf("nv%d", i))) == string(read(t, dir, fmt.Sprintf("nw%d", i))), "output %d differs", i)
		}
	})

	t.Run("corrupt stream leaves nothing", func(t *testing.T) {
		good := read(t, dir, "theirs-bc.ccob")
		for _, at := range []int{len(good) / 2, len(good) - 100} {
			bad := append([]byte(nil), good...)
			for i := at; i < at+16; i++ {
				bad[i] ^= 0xa5
			}
			sub := t.TempDir()
			write(t, sub, "bad.ccob", bad)
			r := runOurs(t, sub, nil, "-unbundle", "-type=bc", "-input=bad.ccob",
				"-targets=hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx1100", "-output=x", "-output=y")
			require.Equal(t, 1, r.code, r.stderr)
			require.Contains(t, r.stderr, "Failed to decompress input")
			require.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
			ents, _ := os.ReadDir(sub)
			require.Len(t, ents, 1, "only the input is left: %v", ents)
		}
	})
}
