package hardening

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// escapingPkg returns a package whose triple climbs out of any directory
// under / and lands in target: names derived from it by joining with a
// directory would escape into target.
func escapingPkg(target string) []byte {
	return pkg(strings.Repeat("../", 12)+strings.TrimPrefix(target, "/")+"/esc", "x", []byte("image"))
}

// TestDerivedNamesStayInside runs every tool that derives file names from
// strings inside an input (extract's output names, linker-wrapper's
// temporary files) over a package whose triple is a ../ path into a
// watched directory, which must stay empty.
func TestDerivedNamesStayInside(t *testing.T) {
	cases := []struct {
		name, tool string
		args       func(in, out string) []string
	}{
		{"extract", "offload-packager", func(in, out string) []string { return []string{"extract", in, "-d", out} }},
		{"extract-llvm", "llvm-offload-binary", func(in, out string) []string { return []string{in, "--image=kind=openmp"} }},
		{"linker-wrapper", "linker-wrapper", func(in, out string) []string {
			return []string{"--host-triple=x86_64-unknown-linux-gnu", "--linker-path=/bin/true", "-o", filepath.Join(out, "a.out"), in}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := toolPath(t, c.tool)
			watched := t.TempDir()
			root := t.TempDir()
			tmp := filepath.Join(root, "tmp")
			out := filepath.Join(root, "out")
			require.NoError(t, os.Mkdir(tmp, 0o755))
			require.NoError(t, os.Mkdir(out, 0o755))
			in := filepath.Join(root, "esc.bin")
			require.NoError(t, os.WriteFile(in, escapingPkg(watched), 0o644))
			res := runGuarded(guard{Dir: out, Env: []string{"TMPDIR=" + tmp}}, append([]string{bin}, c.args(in, out)...)...)
			if got := tree(t, watched); len(got) > 0 {
				t.Errorf("%s wrote outside its directories: %v in %s (exit %d, stderr %q)", c.name, got, watched, res.Code, res.Stderr)
			}
			for _, p := range tree(t, out) {
				if strings.Contains(p, "/") {
					t.Errorf("%s created a subdirectory path %s", c.name, p)
				}
			}
			if crashed(res.Stderr) {
				t.Errorf("%s crashed: %s", c.name, head(res.Stderr, 5))
			}
		})
	}
}

// TestSymlinkAtOutput plants a symlink to a victim file at the output
// path of each writing command and checks the victim is never written
// through it, whether the command fails (hostile input) or succeeds (the
// atomic rename replaces the link).
func TestSymlinkAtOutput(t *testing.T) {
	hostPath := filepath.Join(repoRoot, "elfembed/testdata/hello-x86_64-linux-gnu.o")
	pkgPath := filepath.Join(repoRoot, "elfembed/testdata/pkg.out")
	bad := corpusFile("ob-size-max.bin")
	type tc struct {
		name, tool string
		args       func(out string) []string
		ok         bool
	}
	cases := []tc{
		{"embed", "offload-packager", func(o string) []string { return []string{"embed", "-o", o, hostPath, pkgPath} }, true},
		{"embed-bad", "offload-packager", func(o string) []string { return []string{"embed", "-o", o, hostPath, bad} }, false},
		{"create", "offload-packager", func(o string) []string {
			return []string{"create", "-o", o, "--image=file=" + hostPath + ",triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp"}
		}, true},
		{"create-missing", "offload-packager", func(o string) []string {
			return []string{"create", "-o", o, "--image=file=/nonexistent-hardening,triple=x,arch=y,kind=openmp"}
		}, false},
		{"extract-file", "offload-packager", func(o string) []string {
			return []string{"extract", pkgPath, "--image=kind=hip,file=" + o}
		}, true},
		{"unbundle", "clang-offload-bundler", func(o string) []string {
			return []string{"-unbundle", "-type=o", "-input=" + corpusFile("nest-bundle-ar-pkg-bundle.bundle"),
				"-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-output=" + o}
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := toolPath(t, c.tool)
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim")
			require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o644))
			link := filepath.Join(dir, "out.o")
			require.NoError(t, os.Symlink(victim, link))
			res := runGuarded(guard{Dir: dir}, append([]string{bin}, c.args(link)...)...)
			for _, s := range notYet {
				if strings.Contains(string(res.Stderr), s) {
					t.Skipf("%s: %s", c.tool, res.Stderr)
				}
			}
			if got, _ := os.ReadFile(victim); !bytes.Equal(got, []byte("precious")) {
				t.Errorf("wrote through the symlink into the victim (exit %d, stderr %q)", res.Code, res.Stderr)
			}
			fi, err := os.Lstat(link)
			switch {
			case err != nil:
				t.Errorf("output path gone: %v", err)
			case c.ok && res.Code == 0 && fi.Mode()&os.ModeSymlink != 0:
				t.Errorf("succeeded but the output is still the symlink (where did it write?)")
			case !c.ok && fi.Mode()&os.ModeSymlink == 0:
				t.Errorf("failed but replaced the symlink")
			}
			if c.ok && res.Code != 0 {
				t.Errorf("exit %d: %s", res.Code, res.Stderr)
			}
			if !c.ok && res.Code != 1 {
				t.Errorf("exit %d, want 1: %s", res.Code, res.Stderr)
			}
			for _, p := range tree(t, dir) {
				if strings.HasPrefix(p, ".") {
					t.Errorf("left temporary %s", p)
				}
			}
		})
	}
}

var _ = time.Second
