package elfembed

import (
	"bytes"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// tool returns the path of an LLVM 22 tool; a missing one fails the test.
func tool(t testing.TB, name string) string {
	t.Helper()
	return llvmtools.Tool(t, name)
}

func runTool(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func embedBytes(t testing.TB, host []byte, payloads ...[]byte) []byte {
	t.Helper()
	var rs []io.ReaderAt
	var sz []int64
	for _, p := range payloads {
		rs = append(rs, bytes.NewReader(p))
		sz = append(sz, int64(len(p)))
	}
	var out bytes.Buffer
	require.NoError(t, Embed(&out, host, rs, sz))
	return out.Bytes()
}

func rewriteBytes(t testing.TB, in []byte, e Edit) []byte {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, Rewrite(&out, in, e))
	return out.Bytes()
}

func writeTemp(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

var hostTargets = []string{"x86_64-linux-gnu", "aarch64-linux-gnu", "powerpc64-linux-gnu", "mips-linux-gnu", "i386-linux-gnu", "riscv64-linux-gnu",
	"x86_64-pc-windows-msvc", "i686-pc-windows-msvc", "aarch64-pc-windows-msvc", "x86_64-pc-windows-gnu"}

// sectionLine extracts the readelf -S / readobj line(s) describing
// .llvm.offloading without the index and offset columns.
var readelfSec = regexp.MustCompile(`\]\s+(\.llvm\.offloading)\s+(\S+)\s+\S+\s+\S+\s+(\S+)\s+(\S+)\s+(\S*)\s+(\d+)\s+(\d+)\s+(\d+)`)

func offloadSectionDesc(t *testing.T, path string, coff bool) string {
	t.Helper()
	if !coff {
		out := runTool(t, "", tool(t, "llvm-readelf"), "-S", "-W", path)
		m := readelfSec.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no .llvm.offloading in %s:\n%s", path, out)
		}
		return strings.Join(m[1:], " ")
	}
	out := runTool(t, "", tool(t, "llvm-readobj"), "--sections", path)
	i := strings.Index(out, "Name: .llvm.offloading")
	if i < 0 {
		t.Fatalf("no .llvm.offloading in %s:\n%s", path, out)
	}
	blk := out[i:]
	blk = blk[:strings.Index(blk, "\n  }")]
	blk = blk[:strings.Index(blk, " (")] + blk[strings.Index(blk, ")")+1:] // the string-table offset differs
	var keep []string
	for _, l := range strings.Split(blk, "\n") {
		if strings.Contains(l, "PointerTo") || strings.Contains(l, "Number:") {
			continue
		}
		keep = append(keep, strings.TrimSpace(l))
	}
	return strings.Join(keep, "\n")
}

// TestEmbedMatchesClang embeds pkg.out and pkg2.out into plain objects and
// compares the section with what clang -fembed-offload-object produced, and
// checks that symbols and relocations are untouched and that llvm-objdump
// lists the images.
func TestEmbedMatchesClang(t *testing.T) {
	t.Parallel()
	pkg, pkg2 := readFile(t, "pkg.out"), readFile(t, "pkg2.out")
	dir := t.TempDir()
	objdump := tool(t, "llvm-objdump")
	for _, tgt := range hostTargets {
		t.Run(tgt, func(t *testing.T) {
			coff := strings.Contains(tgt, "windows")
			host := readFile(t, "hello-"+tgt+".o")
			out := embedBytes(t, host, pkg, pkg2)
			p := writeTemp(t, dir, "out-"+tgt+".o", out)
			assert.Equal(t, offloadSectionDesc(t, filepath.Join("testdata", "emb2-"+tgt+".o"), coff), offloadSectionDesc(t, p, coff))

			o, err := Parse(out)
			require.NoError(t, err)
			off := o.OffloadSections()
			if len(off) != 1 {
				t.Fatalf("%d offload sections", len(off))
			}
			assert.Equal(t, append(append([]byte{}, pkg...), pkg2...), off[0].Data)

			// Deterministic.
			assert.Equal(t, out, embedBytes(t, host, pkg, pkg2))

			// Embedding into an object that has one concatenates.
			again := embedBytes(t, readFile(t, "emb-"+tgt+".o"), pkg2)
			o2, err := Parse(again)
			require.NoError(t, err)
			assert.Equal(t, off[0].Data, o2.OffloadSections()[0].Data)

			// Symbols and relocations intact.
			if coff {
				ro := tool(t, "llvm-readobj")
				assert.Equal(t, stripCOFFSyms(runTool(t, "", ro, "--symbols", "-r", filepath.Join("testdata", "hello-"+tgt+".o"))),
					stripCOFFSyms(runTool(t, "", ro, "--symbols", "-r", p)))
			} else {
				re := tool(t, "llvm-readelf")
				assert.Equal(t, runTool(t, "", re, "-s", "-r", "-g", filepath.Join("testdata", "hello-"+tgt+".o")), runTool(t, "", re, "-s", "-r", "-g", p))
			}
			dump := runTool(t, "", objdump, "--offloading", p)
			assert.Equal(t, 2, strings.Count(dump, "OFFLOADING IMAGE"), dump)
			assert.True(t, strings.Contains(dump, "arch            gfx90a"), dump)
			assert.True(t, strings.Contains(dump, "arch            sm_80"), dump)
		})
	}
}

// stripCOFFSyms drops the file name line and the symbol-count dependent
// section numbers so that added section symbols at the end can be compared.
func stripCOFFSyms(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "File:") {
			continue
		}
		out = append(out, l)
	}
	s = strings.Join(out, "\n")
	// Added section symbols come after all original symbols.
	if i := strings.Index(s, "  Symbol {\n    Name: .llvm.offloading"); i >= 0 {
		if j := strings.Index(s[i:], "\n  }\n"); j >= 0 {
			s = s[:i] + s[i+j+5:]
		}
	}
	return s
}

// TestEmbedGCCLinkAndRun embeds into a gcc object, links it with gcc and
// runs the program.
func TestEmbedGCCLinkAndRun(t *testing.T) {
	t.Parallel()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not installed")
	}
	dir := t.TempDir()
	out := embedBytes(t, readFile(t, "hello-gcc.o"), readFile(t, "pkg.out"))
	writeTemp(t, dir, "h.o", out)
	runTool(t, dir, gcc, "h.o", "-o", "h")
	assert.Equal(t, "hello offload\n", runTool(t, dir, filepath.Join(dir, "h")))
	re := tool(t, "llvm-readelf")
	assert.Equal(t, runTool(t, "", re, "-s", "-r", "testdata/hello-gcc.o"), runTool(t, "", re, "-s", "-r", filepath.Join(dir, "h.o")))
}

// TestRelocatableLink links two embedded objects with ld.lld -r; the
// sections concatenate and llvm-objdump lists all images. The second
// object's globals are renamed with RenameSymbol to avoid clashes.
func TestRelocatableLink(t *testing.T) {
	t.Parallel()
	lld := tool(t, "ld.lld")
	dir := t.TempDir()
	a := embedBytes(t, readFile(t, "hello-x86_64-linux-gnu.o"), readFile(t, "pkg.out"))
	b := rewriteBytes(t, embedBytes(t, readFile(t, "hello-gcc.o"), readFile(t, "pkg2.out"), readFile(t, "pkg.out")),
		Edit{RenameSymbol: map[string]string{"main": "main2", "counter": "counter2"}})
	writeTemp(t, dir, "a.o", a)
	writeTemp(t, dir, "b.o", b)
	runTool(t, dir, lld, "-r", "a.o", "b.o", "-o", "r.o")
	dump := runTool(t, "", tool(t, "llvm-objdump"), "--offloading", filepath.Join(dir, "r.o"))
	assert.Equal(t, 3, strings.Count(dump, "OFFLOADING IMAGE"), dump)
	syms := runTool(t, "", tool(t, "llvm-readelf"), "-s", filepath.Join(dir, "r.o"))
	for _, s := range []string{" main\n", " main2\n", " counter\n", " counter2\n"} {
		assert.True(t, strings.Contains(syms, s), "missing %q in\n%s", s, syms)
	}
}

func TestRemoveAndRename(t *testing.T) {
	t.Parallel()
	re := tool(t, "llvm-readelf")
	dir := t.TempDir()
	for _, tgt := range []string{"x86_64-linux-gnu", "mips-linux-gnu", "powerpc64-linux-gnu"} {
		t.Run(tgt, func(t *testing.T) {
			emb := readFile(t, "emb-"+tgt+".o")
			// Removing the offload section gives back the plain object's
			// symbols, relocations and sections.
			out := rewriteBytes(t, emb, Edit{Remove: []string{".llvm.offloading"}})
			p := writeTemp(t, dir, "rm-"+tgt+".o", out)
			o, err := Parse(out)
			require.NoError(t, err)
			assert.Equal(t, 0, len(o.OffloadSections()))
			assert.Equal(t, noOffsets(runTool(t, "", re, "-s", "-r", filepath.Join("testdata", "emb-"+tgt+".o"))), noOffsets(runTool(t, "", re, "-s", "-r", p)))

			// Renaming a section renames its relocation section.
			out = rewriteBytes(t, emb, Edit{RenameSection: map[string]string{".text": ".text.renamed", ".llvm.offloading": ".llvm.offloading.relocatable"},
				RenameSymbol: map[string]string{"main": "renamed_main"}})
			p = writeTemp(t, dir, "ren-"+tgt+".o", out)
			s := runTool(t, "", re, "-S", "-s", "-r", p)
			assert.True(t, strings.Contains(s, ".text.renamed") && strings.Contains(s, ".llvm.offloading.relocatable") && strings.Contains(s, " renamed_main\n"), s)
			assert.True(t, strings.Contains(s, ".rela.text.renamed") || strings.Contains(s, ".rel.text.renamed"), s)
			o, err = Parse(out)
			require.NoError(t, err)
			assert.Equal(t, 1, len(o.OffloadSections()))
			checkELFStdlib(t, out)

			if tgt != "x86_64-linux-gnu" {
				return // .pdr (MIPS) and .opd (PPC64) also refer to .text symbols
			}
			// Removing .text drops .rela.text and the symbols defined in
			// .text; relocations in .eh_frame refer to .text, so that is an error
			// unless .eh_frame goes too.
			var sink bytes.Buffer
			err = Rewrite(&sink, emb, Edit{Remove: []string{".text"}})
			assert.True(t, err != nil, "removing .text should fail while .eh_frame relocations use it")
			out = rewriteBytes(t, emb, Edit{Remove: []string{".text", ".eh_frame"}})
			p = writeTemp(t, dir, "rmtext-"+tgt+".o", out)
			syms := runTool(t, "", re, "-s", "-r", "-S", p)
			assert.True(t, !strings.Contains(syms, " main\n") && !strings.Contains(syms, ".rela.text") && !strings.Contains(syms, ".rel.text"), syms)
			assert.True(t, strings.Contains(syms, " counter\n"), syms)
			checkELFStdlib(t, out)
		})
	}
}

var atOffset = regexp.MustCompile(`at offset 0x[0-9a-f]+`)

func noOffsets(s string) string { return atOffset.ReplaceAllString(s, "at offset X") }

func checkELFStdlib(t *testing.T, b []byte) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(b))
	require.NoError(t, err)
	_, err = f.Symbols()
	require.NoError(t, err)
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS {
			_, err := s.Data()
			require.NoError(t, err, s.Name)
		}
	}
}

// TestCOFFSectionSymbol checks that the section symbol added for a new COFF
// section matches clang's (length, checksum) and that the symbol table is
// otherwise unchanged.
func TestCOFFSectionSymbol(t *testing.T) {
	t.Parallel()
	ro := tool(t, "llvm-readobj")
	dir := t.TempDir()
	for _, tgt := range []string{"x86_64-pc-windows-msvc", "i686-pc-windows-msvc"} {
		out := embedBytes(t, readFile(t, "hello-"+tgt+".o"), readFile(t, "pkg.out"), readFile(t, "pkg2.out"))
		p := writeTemp(t, dir, tgt+".o", out)
		assert.Equal(t, secSymAux(t, runTool(t, "", ro, "--symbols", filepath.Join("testdata", "emb2-"+tgt+".o"))), secSymAux(t, runTool(t, "", ro, "--symbols", p)))
		// Concatenating updates length and checksum the same way.
		out = embedBytes(t, readFile(t, "emb-"+tgt+".o"), readFile(t, "pkg2.out"))
		p = writeTemp(t, dir, tgt+"-cat.o", out)
		assert.Equal(t, secSymAux(t, runTool(t, "", ro, "--symbols", filepath.Join("testdata", "emb2-"+tgt+".o"))), secSymAux(t, runTool(t, "", ro, "--symbols", p)))
	}
}

func secSymAux(t *testing.T, s string) string {
	t.Helper()
	i := strings.Index(s, "Name: .llvm.offloading")
	if i < 0 {
		t.Fatalf("no section symbol in\n%s", s)
	}
	s = s[i:]
	j := strings.Index(s, "Checksum")
	k := strings.Index(s[j:], "\n")
	l := strings.Index(s, "Length")
	return s[l : j+k]
}

// TestNoopRewrite checks that an empty edit keeps every section's header
// fields and contents, and that rewriting is idempotent.
func TestNoopRewrite(t *testing.T) {
	for _, name := range objectFixtures(t) {
		in := readFile(t, name)
		once := rewriteBytes(t, in, Edit{})
		twice := rewriteBytes(t, once, Edit{})
		assert.Equal(t, once, twice, name)
		a, err := Parse(in)
		require.NoError(t, err)
		b, err := Parse(once)
		require.NoError(t, err)
		assert.Equal(t, len(a.Sections), len(b.Sections), name)
		for i := range a.Sections {
			x, y := a.Sections[i], b.Sections[i]
			assert.Equal(t, x.Name, y.Name, name)
			assert.Equal(t, x.Type, y.Type, name)
			assert.Equal(t, x.Flags, y.Flags, name)
			assert.Equal(t, x.Align, y.Align, name)
			assert.Equal(t, x.Size, y.Size, name)
			assert.True(t, bytes.Equal(x.Data, y.Data), "%s: section %s contents differ", name, x.Name)
		}
		if a.Format == ELF && len(in) == len(once) {
			// Objects whose sections are already laid out in order and
			// aligned come back byte for byte.
			assert.Equal(t, in, once, name)
		}
	}
}
