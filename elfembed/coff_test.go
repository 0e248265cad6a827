package elfembed

import (
	"encoding/binary"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCOFFRemoveAndRename removes the embedded section from clang's output
// and compares with the plain object clang made from the same source; then
// renames sections and symbols.
func TestCOFFRemoveAndRename(t *testing.T) {
	t.Parallel()
	ro := tool(t, "llvm-readobj")
	dir := t.TempDir()
	for _, tgt := range []string{"x86_64-pc-windows-msvc", "i686-pc-windows-msvc"} {
		t.Run(tgt, func(t *testing.T) {
			out := rewriteBytes(t, readFile(t, "emb-"+tgt+".o"), Edit{Remove: []string{".llvm.offloading"}})
			p := writeTemp(t, dir, "rm-"+tgt+".o", out)
			o, err := Parse(out)
			require.NoError(t, err)
			assert.Equal(t, 0, len(o.OffloadSections()))
			assert.Equal(t, stripCOFFSyms(runTool(t, "", ro, "--symbols", "-r", filepath.Join("testdata", "hello-"+tgt+".o"))),
				stripCOFFSyms(runTool(t, "", ro, "--symbols", "-r", p)))

			main, counter := "main", "counter"
			if strings.HasPrefix(tgt, "i686") {
				main, counter = "_main", "_counter"
			}
			out = rewriteBytes(t, readFile(t, "emb-"+tgt+".o"), Edit{
				RenameSection: map[string]string{".text": ".text$renamed_long", ".llvm.offloading": ".llvm.offloading.relocatable"},
				RenameSymbol:  map[string]string{main: "a_much_longer_main_name", counter: "cnt"},
			})
			p = writeTemp(t, dir, "ren-"+tgt+".o", out)
			s := runTool(t, "", ro, "--symbols", "-r", "--sections", p)
			for _, want := range []string{"Name: .text$renamed_long", "Name: .llvm.offloading.relocatable", "Name: a_much_longer_main_name", "Name: cnt\n"} {
				assert.True(t, strings.Contains(s, want), "missing %q in\n%s", want, s)
			}
			o, err = Parse(out)
			require.NoError(t, err)
			assert.Equal(t, 1, len(o.OffloadSections()))
			assert.Equal(t, readFile(t, "pkg.out"), o.OffloadSections()[0].Data)
			dump := runTool(t, "", tool(t, "llvm-objdump"), "--offloading", p)
			assert.Equal(t, 1, strings.Count(dump, "OFFLOADING IMAGE"), dump)
		})
	}
}

// toBigobj converts a regular COFF object into the equivalent bigobj
// (/bigobj) object: a 56-byte header and 20-byte symbol records. LLVM only
// writes bigobj for objects with more than 65279 sections, too large for a
// fixture, so tests make them this way.
func toBigobj(t testing.TB, in []byte) []byte {
	t.Helper()
	le := binary.LittleEndian
	nsec := int(le.Uint16(in[2:]))
	symPtr := int(le.Uint32(in[8:]))
	nsyms := int(le.Uint32(in[12:]))
	if le.Uint16(in[16:]) != 0 {
		t.Fatal("optional header")
	}
	const shift = 56 - 20
	out := make([]byte, 56)
	le.PutUint16(out[0:], 0)
	le.PutUint16(out[2:], 0xffff)
	le.PutUint16(out[4:], 2)
	copy(out[6:8], in[0:2])
	copy(out[8:12], in[4:8])
	copy(out[12:28], []byte{0xC7, 0xA1, 0xBA, 0xD1, 0xEE, 0xBA, 0xA9, 0x4B, 0xAF, 0x20, 0xFA, 0xF6, 0x6A, 0xA4, 0xDC, 0xB8})
	le.PutUint32(out[44:], uint32(nsec))
	newSymPtr := symPtr + shift
	le.PutUint32(out[48:], uint32(newSymPtr))
	le.PutUint32(out[52:], uint32(nsyms))
	for i := 0; i < nsec; i++ {
		h := append([]byte{}, in[20+i*40:20+(i+1)*40]...)
		for _, o := range []int{20, 24, 28} {
			if v := le.Uint32(h[o:]); v != 0 {
				le.PutUint32(h[o:], v+shift)
			}
		}
		out = append(out, h...)
	}
	out = append(out, in[20+nsec*40:symPtr]...)
	for i := 0; i < nsyms; {
		r := in[symPtr+i*18:]
		rec := make([]byte, 20)
		copy(rec, r[:12])
		le.PutUint32(rec[12:], uint32(int32(int16(le.Uint16(r[12:])))))
		copy(rec[16:], r[14:18])
		out = append(out, rec...)
		naux := int(r[17])
		for k := 1; k <= naux; k++ {
			aux := make([]byte, 20)
			copy(aux, in[symPtr+(i+k)*18:symPtr+(i+k+1)*18])
			out = append(out, aux...)
		}
		i += 1 + naux
	}
	out = append(out, in[symPtr+nsyms*18:]...)
	return out
}

func TestBigobj(t *testing.T) {
	t.Parallel()
	ro := tool(t, "llvm-readobj")
	dir := t.TempDir()
	for _, tgt := range []string{"x86_64-pc-windows-msvc", "i686-pc-windows-msvc"} {
		t.Run(tgt, func(t *testing.T) {
			reg := readFile(t, "emb-"+tgt+".o")
			big := toBigobj(t, reg)
			p := writeTemp(t, dir, "big-"+tgt+".o", big)
			// The oracle accepts our converted file and sees the same symbols.
			assert.Equal(t, stripCOFFSyms(runTool(t, "", ro, "--symbols", "-r", filepath.Join("testdata", "emb-"+tgt+".o"))),
				stripCOFFSyms(runTool(t, "", ro, "--symbols", "-r", p)))

			ro1, err := Parse(reg)
			require.NoError(t, err)
			bo, err := Parse(big)
			require.NoError(t, err)
			assert.Equal(t, len(ro1.Sections), len(bo.Sections))
			for i := range ro1.Sections {
				assert.Equal(t, ro1.Sections[i].Name, bo.Sections[i].Name)
				assert.Equal(t, ro1.Sections[i].Data, bo.Sections[i].Data)
				assert.Equal(t, ro1.Sections[i].Flags, bo.Sections[i].Flags)
			}

			// Embed into bigobj: concatenates, symbols intact.
			out := embedBytes(t, big, readFile(t, "pkg2.out"))
			q := writeTemp(t, dir, "bigemb-"+tgt+".o", out)
			dump := runTool(t, "", tool(t, "llvm-objdump"), "--offloading", q)
			assert.Equal(t, 2, strings.Count(dump, "OFFLOADING IMAGE"), dump)
			assert.Equal(t, secSymAux(t, runTool(t, "", ro, "--symbols", filepath.Join("testdata", "emb2-"+tgt+".o"))), secSymAux(t, runTool(t, "", ro, "--symbols", q)))
			// Removing it again gives the plain object's symbols.
			out = rewriteBytes(t, toBigobj(t, readFile(t, "emb2-"+tgt+".o")), Edit{Remove: []string{".llvm.offloading"}})
			q = writeTemp(t, dir, "bigrm-"+tgt+".o", out)
			assert.Equal(t, stripCOFFSyms(runTool(t, "", ro, "--symbols", "-r", filepath.Join("testdata", "hello-"+tgt+".o"))),
				stripCOFFSyms(runTool(t, "", ro, "--symbols", "-r", q)))
			// Adding a new section to a bigobj.
			out = rewriteBytes(t, big, Edit{Add: []NewSection{{Name: "__CLANG_OFFLOAD_BUNDLE__host-x86_64", Flags: 0x40000840, Align: 1, Data: strings.NewReader("\x00"), Size: 1}}})
			o, err := Parse(out)
			require.NoError(t, err)
			s := o.Section("__CLANG_OFFLOAD_BUNDLE__host-x86_64")
			assert.True(t, s != nil)
			assert.Equal(t, []byte{0}, s.Data)
			q = writeTemp(t, dir, "bigadd-"+tgt+".o", out)
			runTool(t, "", ro, "--sections", "--symbols", q)
		})
	}
}

// TestCOFFLinks links rewritten COFF objects with lld-link (the embedded
// section is IMAGE_SCN_LNK_REMOVE, so it disappears) and parses the PE
// image.
func TestCOFFLinks(t *testing.T) {
	t.Parallel()
	lld := tool(t, "lld-link")
	dir := t.TempDir()
	for _, tgt := range []string{"x86_64-pc-windows-msvc", "i686-pc-windows-msvc"} {
		out := embedBytes(t, readFile(t, "hello-"+tgt+".o"), readFile(t, "pkg.out"), readFile(t, "pkg2.out"))
		writeTemp(t, dir, tgt+".o", out)
		runTool(t, dir, lld, "/dll", "/noentry", "/nodefaultlib", "/force:unresolved", "/out:"+tgt+".dll", tgt+".o")
		img := readFileAbs(t, filepath.Join(dir, tgt+".dll"))
		o, err := Parse(img)
		require.NoError(t, err)
		assert.Equal(t, COFF, o.Format)
		assert.Equal(t, 0, len(o.OffloadSections()))
		checkAgainstStdlib(t, img, o)
		assert.True(t, o.Section(".text") != nil)
		// Images are read, not rewritten.
		assert.True(t, Rewrite(io.Discard, img, Edit{}) != nil)
	}
}
