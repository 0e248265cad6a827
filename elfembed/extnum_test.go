package elfembed

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
)

// manySections builds a minimal little-endian ELF64 ET_REL with n
// sections (n > 0xff00 needs extended numbering: e_shnum = 0 and
// e_shstrndx = SHN_XINDEX, the real values in section 0). Sections 1..10
// are named ".a", the rest ".s"; the last is .shstrtab.
func manySections(n int) []byte {
	le := binary.LittleEndian
	strtab := []byte("\x00.a\x00.s\x00.shstrtab\x00")
	shoff := 64 + len(strtab)
	shoff = (shoff + 7) &^ 7
	b := make([]byte, shoff+n*64)
	copy(b, "\x7fELF\x02\x01\x01")
	le.PutUint16(b[16:], format.ET_REL)
	le.PutUint16(b[18:], uint16(elf.EM_X86_64))
	le.PutUint32(b[20:], 1)
	le.PutUint64(b[40:], uint64(shoff))
	le.PutUint16(b[52:], 64)
	le.PutUint16(b[58:], 64)
	strIdx := n - 1
	if n >= format.SHN_LORESERVE {
		le.PutUint16(b[60:], 0)
		le.PutUint64(b[shoff+32:], uint64(n))
	} else {
		le.PutUint16(b[60:], uint16(n))
	}
	if strIdx >= format.SHN_LORESERVE {
		le.PutUint16(b[62:], format.SHN_XINDEX)
		le.PutUint32(b[shoff+40:], uint32(strIdx))
	} else {
		le.PutUint16(b[62:], uint16(strIdx))
	}
	copy(b[64:], strtab)
	for i := 1; i < n; i++ {
		h := b[shoff+i*64:]
		name := uint32(4) // ".s"
		if i <= 10 {
			name = 1
		}
		typ := format.SHT_PROGBITS
		off, size := uint64(64), uint64(0)
		if i == strIdx {
			name, typ, size = 7, format.SHT_STRTAB, uint64(len(strtab))
		}
		le.PutUint32(h[0:], name)
		le.PutUint32(h[4:], uint32(typ))
		le.PutUint64(h[24:], off)
		le.PutUint64(h[32:], size)
		le.PutUint64(h[48:], 1)
	}
	return b
}

func TestExtendedSectionNumbering(t *testing.T) {
	const n = 0xff05
	in := manySections(n)
	o, err := Parse(in)
	require.NoError(t, err)
	assert.Equal(t, n, len(o.Sections))
	assert.Equal(t, ".shstrtab", o.Sections[n-1].Name)
	assert.Equal(t, ".a", o.Sections[1].Name)

	out := embedBytes(t, in, readFile(t, "pkg.out"))
	o, err = Parse(out)
	require.NoError(t, err)
	assert.Equal(t, n+1, len(o.Sections))
	assert.Equal(t, 1, len(o.OffloadSections()))
	f, err := elf.NewFile(bytes.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, n+1, len(f.Sections))
	assert.Equal(t, ".llvm.offloading", f.Sections[n].Name)

	// Dropping ten sections goes back below SHN_LORESERVE: plain numbering.
	small := rewriteBytes(t, out, Edit{Remove: []string{".a"}})
	assert.Equal(t, uint16(n+1-10), binary.LittleEndian.Uint16(small[60:]))
	assert.Equal(t, uint16(n-1-10), binary.LittleEndian.Uint16(small[62:]))
	o, err = Parse(small)
	require.NoError(t, err)
	assert.Equal(t, ".shstrtab", o.Sections[n-11].Name)

	if testing.Short() {
		return
	}
	re := tool(t, "llvm-readelf")
	p := writeTemp(t, t.TempDir(), "many.o", out)
	h := runTool(t, "", re, "-h", p)
	assert.True(t, strings.Contains(h, "Number of section headers:         0 (65286)"), h)
	assert.True(t, strings.Contains(h, "Section header string table index: 65535 (65284)"), h)
}
