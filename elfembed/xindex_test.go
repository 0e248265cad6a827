package elfembed

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/require"
)

// TestRemoveSymtabShndxRefused: removing the extended section index table
// of a kept symbol table would leave its symbols' SHN_XINDEX with nothing
// to resolve them (FuzzRewrite found a rewrite whose output no longer
// parsed); it is refused, and removing every other section still works.
func TestRemoveSymtabShndxRefused(t *testing.T) {
	// An object with more than 65280 sections has a .symtab_shndx.
	dir := t.TempDir()
	var src bytes.Buffer
	for i := 0; i < 65300; i++ {
		src.WriteString(".section .s")
		src.WriteString(itoa(i))
		src.WriteString(",\"a\"\n.byte 1\n")
	}
	src.WriteString(".globl g\ng: .byte 0\n")
	asm := filepath.Join(dir, "x.s")
	require.NoError(t, os.WriteFile(asm, src.Bytes(), 0o644))
	obj := filepath.Join(dir, "x.o")
	if out, err := exec.Command("gcc", "-c", asm, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	in, err := os.ReadFile(obj)
	require.NoError(t, err)
	o, err := Parse(in)
	require.NoError(t, err)
	require.NotNil(t, o.Section(".symtab_shndx"), "the object has an extended index table")
	var out bytes.Buffer
	err = Rewrite(&out, in, Edit{Remove: []string{".symtab_shndx"}})
	require.Error(t, err)
	require.True(t, errors.Is(err, format.ErrUnsupported), "%v", err)
	require.Contains(t, err.Error(), "cannot remove .symtab_shndx")
	out.Reset()
	require.NoError(t, Rewrite(&out, in, Edit{Remove: []string{".s7"}}))
	_, err = Parse(out.Bytes())
	require.NoError(t, err)
}

func itoa(i int) string {
	var b [12]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}

// TestNullSymbolNamesRemovedSection: a null symbol whose st_shndx names a
// removed section is written with SHN_UNDEF. It was written as uint16(-1),
// which is SHN_XINDEX, and the output no longer rewrote (FuzzRewrite, in
// CI).
func TestNullSymbolNamesRemovedSection(t *testing.T) {
	in, err := os.ReadFile("testdata/hello-x86_64-linux-gnu.o")
	require.NoError(t, err)
	o, err := Parse(in)
	require.NoError(t, err)
	sym, com := o.Section(".symtab"), o.Section(".note.GNU-stack")
	require.NotNil(t, sym)
	require.NotNil(t, com)
	in = append([]byte{}, in...)
	o.ByteOrder.PutUint16(in[sym.Offset+6:], uint16(com.Index)) // symbol 0's st_shndx
	var out bytes.Buffer
	require.NoError(t, Rewrite(&out, in, Edit{Remove: []string{".note.GNU-stack"}}))
	o2, err := Parse(out.Bytes())
	require.NoError(t, err)
	s2 := o2.Section(".symtab")
	require.NotNil(t, s2)
	require.Equal(t, uint16(0), o2.ByteOrder.Uint16(s2.Data[6:]), "symbol 0's section index")
	require.NoError(t, Rewrite(io.Discard, out.Bytes(), Edit{}))
}
