package linkwrap

// Regression tests for the hardening findings (docs/hardening.md): odd
// triples name the input, names derived from triples and arches stay in
// their directory, thin-archive members must be regular files, and the
// memory held by inflated (v3) images is capped.

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pkgFor(triple, arch string, image []byte) []byte {
	return offload.AppendBinary(nil, &offload.Image{ImageKind: format.ImgObject, OffloadKind: format.OfkOpenMP,
		Strings: []offload.KV{{Key: "triple", Value: triple}, {Key: "arch", Value: arch}}, Image: image})
}

// listTree returns every path under root, relative to it.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != root {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func TestOddTripleNamesInput(t *testing.T) {
	for _, tc := range []struct{ triple, want string }{
		{"a\nb", `"a\nb" linking is not supported`},
		{"..", `".." linking is not supported`},
		{"../../tmp/escape", `"../../tmp/escape" linking is not supported`},
		{"mips-unknown-linux-gnu", `mips linking is not supported`},
	} {
		t.Run(strings.ReplaceAll(tc.triple, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "odd.bin")
			require.NoError(t, os.WriteFile(in, pkgFor(tc.triple, "x", []byte("image")), 0o644))
			before := listTree(t, dir)
			inv := invoke(t, dir, touchOutput, "--linker-path=/usr/bin/ld", "-o", "$D/out/a.out", in)
			require.Error(t, inv.err)
			assert.Equal(t, in+": "+tc.want, inv.err.Error())
			assert.True(t, !strings.Contains(inv.err.Error(), "\n"), "one line")
			assert.Equal(t, 0, len(inv.fake.Commands()), "nothing runs")
			assert.Equal(t, before, listTree(t, dir), "nothing written")
		})
	}
}

// TestDerivedNamesStayInside: triples and arches full of "/" and ".." reach
// temporary names (and --save-temps names) only as one sanitised component.
func TestDerivedNamesStayInside(t *testing.T) {
	for _, saveTemps := range []bool{false, true} {
		for _, tc := range []struct{ triple, arch string }{
			{"x86_64-unknown-linux-gnu", "/etc/passwd"},
			{"x86_64-../../../../../../../../tmp/hardening-escape", "generic"},
			{"x86_64-unknown-linux-gnu", "../../x\n"},
		} {
			t.Run(fmt.Sprintf("save-temps=%v/%q/%q", saveTemps, tc.triple, tc.arch), func(t *testing.T) {
				dir := t.TempDir()
				out := filepath.Join(dir, "out")
				require.NoError(t, os.Mkdir(out, 0o755))
				in := filepath.Join(dir, "in.bin")
				require.NoError(t, os.WriteFile(in, pkgFor(tc.triple, tc.arch, []byte("\x7fELF image")), 0o644))
				var paths []string
				handler := func(c *run.Cmd) error {
					for _, a := range c.Args {
						if filepath.IsAbs(a) && (strings.HasSuffix(a, ".o") || strings.HasSuffix(a, ".img")) {
							paths = append(paths, a)
						}
					}
					return touchOutput(c)
				}
				args := []string{"--linker-path=/usr/bin/ld", "-o", filepath.Join(out, "a.out"), in}
				if saveTemps {
					args = append([]string{"--save-temps"}, args...)
				}
				inv := invoke(t, dir, handler, args...)
				require.NoError(t, inv.err, inv.stderr.String())
				require.True(t, len(paths) >= 3, "device input, image and wrapper object: %v", paths)
				for _, p := range paths {
					if saveTemps {
						assert.Equal(t, out, filepath.Dir(p), "save-temps name %q", p)
					} else {
						assert.True(t, strings.HasPrefix(filepath.Base(filepath.Dir(p)), "offload-kit-"), "temporary %q outside the work dir", p)
					}
					assert.True(t, !strings.ContainsAny(filepath.Base(p), "\n/"), p)
				}
				for _, p := range listTree(t, dir) {
					assert.True(t, p == "in.bin" || p == "out" || strings.HasPrefix(p, "out/") && !strings.Contains(p[4:], "/"), "stray %s", p)
				}
			})
		}
	}
}

// thinArchive is a GNU thin archive with one member named name.
func thinArchive(name string, size int) []byte {
	hdr := fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d`\n", name+"/", "0", "0", "0", "644", size)
	return append([]byte("!<thin>\n"), hdr...)
}

func TestThinArchiveMemberMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	for _, tc := range []struct{ member, want string }{
		{"/dev/zero", "thin archive member /dev/zero: not a regular file (a character device)"},
		{"fifo", "thin archive member fifo: not a regular file (a named pipe)"},
		{"sub", "thin archive member sub: not a regular file (a directory)"},
	} {
		if tc.member == "fifo" {
			if err := mkfifo(filepath.Join(dir, "fifo")); err != nil {
				t.Logf("no fifo: %v", err)
				continue
			}
		}
		lib := filepath.Join(dir, "libthin.a")
		require.NoError(t, os.WriteFile(lib, thinArchive(tc.member, 100), 0o644))
		inv := invoke(t, dir, touchOutput, "--linker-path=/usr/bin/ld", "-o", "$D/a.out", lib)
		require.Error(t, inv.err)
		assert.Equal(t, lib+": "+tc.want, inv.err.Error())
	}
	// A regular member is read (mapped) and scanned.
	obj := filepath.Join(dir, "dev.bin")
	require.NoError(t, os.WriteFile(obj, pkgFor("x86_64-unknown-linux-gnu", "generic", []byte("\x7fELF")), 0o644))
	lib := filepath.Join(dir, "libok.a")
	require.NoError(t, os.WriteFile(lib, thinArchive("dev.bin", 0), 0o644))
	inv := invoke(t, dir, touchOutput, "--linker-path=/usr/bin/ld", "--device-archives=llvm22", "--should-extract=generic", "-o", "$D/a.out", lib)
	require.NoError(t, inv.err, inv.stderr.String())
	assert.Equal(t, 2, len(inv.fake.Commands()), "device link and host link")
}

func TestInflatedImagesAreCapped(t *testing.T) {
	dir := t.TempDir()
	v3 := func(n int) []byte {
		b, err := offload.AppendBinaryV3(nil, []*offload.Image{{ImageKind: format.ImgObject, OffloadKind: format.OfkOpenMP,
			Strings: []offload.KV{{Key: "triple", Value: "x86_64-unknown-linux-gnu"}, {Key: "arch", Value: "generic"}},
			Image:   make([]byte, n)}}, "zstd", 0)
		require.NoError(t, err)
		return b[:binary.LittleEndian.Uint64(b[8:])] // no padding: LLVM 22 steps by Size
	}
	one := filepath.Join(dir, "one.bin")
	three := filepath.Join(dir, "three.bin")
	require.NoError(t, os.WriteFile(one, v3(40<<10), 0o644))
	require.NoError(t, os.WriteFile(three, append(append(v3(40<<10), v3(40<<10)...), v3(40<<10)...), 0o644))

	// Within one input.
	inv := invoke(t, dir, touchOutput, "--linker-path=/usr/bin/ld", "--wrapper-max-inflated=64K", "-o", "$D/a.out", three)
	require.Error(t, inv.err)
	assert.True(t, strings.HasPrefix(inv.err.Error(), three+": inflated size"), inv.err.Error())
	assert.Contains(t, inv.err.Error(), "--wrapper-max-inflated")
	assert.Equal(t, 0, len(inv.fake.Commands()))

	// Across inputs: the budget is shared.
	inv = invoke(t, dir, touchOutput, "--linker-path=/usr/bin/ld", "--wrapper-max-inflated=64K", "-o", "$D/a.out", one, one)
	require.Error(t, inv.err)
	assert.True(t, strings.HasPrefix(inv.err.Error(), one+": inflated size"), inv.err.Error())

	// Under the limit (and with the default) the images link.
	inv = invoke(t, dir, touchOutput, "--linker-path=/usr/bin/ld", "--wrapper-max-inflated=1M", "-o", "$D/a.out", three)
	require.NoError(t, inv.err, inv.stderr.String())
	inv = invoke(t, dir, touchOutput, "--linker-path=/usr/bin/ld", "-o", "$D/a.out", one, three)
	require.NoError(t, inv.err, inv.stderr.String())

	_, err := ParseArgs([]string{"--wrapper-max-inflated=0"})
	assert.Error(t, err)
}

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
