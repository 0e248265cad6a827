package elfembed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemoveEachSectionMatchesObjcopy removes every section of a few
// objects in turn, with Rewrite and with llvm-objcopy --remove-section:
// both must agree on success or failure, and on success on the section
// table, symbols, relocations and groups.
func TestRemoveEachSectionMatchesObjcopy(t *testing.T) {
	t.Parallel()
	objcopy := tool(t, "llvm-objcopy")
	fixtures := []string{"cxx-x86_64-linux-gnu.o", "emb2-mips-linux-gnu.o"}
	if testing.Short() {
		fixtures = fixtures[:1]
	}
	for _, fix := range fixtures {
		in := readFile(t, fix)
		o, err := Parse(in)
		require.NoError(t, err)
		dir := t.TempDir()
		seen := map[string]bool{}
		for _, s := range o.Sections[1:] {
			if seen[s.Name] || s.Name == ".strtab" || s.Name == ".shstrtab" {
				continue
			}
			seen[s.Name] = true
			want := filepath.Join(dir, "want.o")
			os.Remove(want)
			cmd := exec.Command(objcopy, "--remove-section="+s.Name, filepath.Join("testdata", fix), want)
			oerr := cmd.Run()
			var buf strings.Builder
			rerr := Rewrite(&buf, in, Edit{Remove: []string{s.Name}})
			if (oerr == nil) != (rerr == nil) {
				t.Errorf("%s: removing %s: llvm-objcopy error %v, Rewrite error %v", fix, s.Name, oerr, rerr)
				continue
			}
			if rerr != nil {
				continue
			}
			got := writeTemp(t, dir, "got.o", []byte(buf.String()))
			assert.Equal(t, elfDump(t, want), elfDump(t, got), "%s -%s", fix, s.Name)
		}
	}
}

// TestCOFFRemoveEachSectionMatchesObjcopy does the same for a COFF object
// with COMDAT and associative sections (removing a COMDAT leader removes
// its associated .pdata/.xdata). The .llvm_addrsig section symbol is left
// out of the comparison: we renumber the table and recompute its checksum,
// llvm-objcopy keeps the stale bytes.
func TestCOFFRemoveEachSectionMatchesObjcopy(t *testing.T) {
	t.Parallel()
	objcopy, ro := tool(t, "llvm-objcopy"), tool(t, "llvm-readobj")
	const fix = "cxx-x86_64-pc-windows-msvc.o"
	in := readFile(t, fix)
	o, err := Parse(in)
	require.NoError(t, err)
	dir := t.TempDir()
	seen := map[string]bool{}
	dump := func(p string) string {
		s := runTool(t, "", ro, "--symbols", "-r", p)
		s = s[strings.Index(s, "Format:"):]
		return dropCOFFSym(s, ".llvm_addrsig")
	}
	for _, s := range o.Sections {
		if seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		want := filepath.Join(dir, "want.o")
		os.Remove(want)
		oerr := exec.Command(objcopy, "--remove-section="+s.Name, filepath.Join("testdata", fix), want).Run()
		var buf strings.Builder
		rerr := Rewrite(&buf, in, Edit{Remove: []string{s.Name}})
		if (oerr == nil) != (rerr == nil) {
			t.Errorf("removing %s: llvm-objcopy error %v, Rewrite error %v", s.Name, oerr, rerr)
			continue
		}
		if rerr != nil {
			continue
		}
		got := writeTemp(t, dir, "got.o", []byte(buf.String()))
		assert.Equal(t, dump(want), dump(got), "-%s", s.Name)
	}
}

// dropCOFFSym removes the llvm-readobj block of the symbol called name.
func dropCOFFSym(s, name string) string {
	i := strings.Index(s, "  Symbol {\n    Name: "+name+"\n")
	if i < 0 {
		return s
	}
	j := strings.Index(s[i:], "\n  }\n")
	if j < 0 {
		return s
	}
	return s[:i] + s[i+j+5:]
}
