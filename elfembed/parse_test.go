package elfembed

import (
	"bytes"
	"debug/elf"
	"debug/pe"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func objectFixtures(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob("testdata/*.o")
	require.NoError(t, err)
	if len(m) == 0 {
		t.Fatal("no fixtures")
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

func TestParseFixtures(t *testing.T) {
	pkg, pkg2 := readFile(t, "pkg.out"), readFile(t, "pkg2.out")
	for _, name := range objectFixtures(t) {
		t.Run(name, func(t *testing.T) {
			buf := readFile(t, name)
			o, err := Parse(buf)
			require.NoError(t, err)
			checkAgainstStdlib(t, buf, o)
			var want []byte
			switch {
			case strings.HasPrefix(name, "emb2-"):
				want = append(append([]byte{}, pkg...), pkg2...)
			case strings.HasPrefix(name, "emb-"), strings.HasPrefix(name, "entries-"):
				want = pkg
			}
			off := o.OffloadSections()
			if want == nil {
				assert.Equal(t, 0, len(off))
				return
			}
			if len(off) != 1 {
				t.Fatalf("%d offload sections", len(off))
			}
			s := off[0]
			assert.Equal(t, ".llvm.offloading", s.Name)
			assert.Equal(t, want, s.Data)
			assert.Equal(t, uint64(8), s.Align)
			if o.Format == ELF {
				assert.Equal(t, format.SHT_LLVM_OFFLOADING, s.Type)
				assert.Equal(t, uint64(shfExclude), s.Flags)
				assert.Equal(t, uint16(format.ET_REL), o.Type)
			} else {
				assert.Equal(t, uint64(0x02400800), s.Flags)
			}
		})
	}
}

// checkAgainstStdlib compares the section table with debug/elf or debug/pe.
func checkAgainstStdlib(t *testing.T, buf []byte, o *Object) {
	t.Helper()
	switch o.Format {
	case ELF:
		f, err := elf.NewFile(bytes.NewReader(buf))
		require.NoError(t, err)
		assert.Equal(t, len(f.Sections), len(o.Sections))
		assert.Equal(t, uint16(f.Machine), o.Machine)
		assert.Equal(t, f.ByteOrder, o.ByteOrder)
		for i, s := range f.Sections {
			g := o.Sections[i]
			assert.Equal(t, s.Name, g.Name)
			assert.Equal(t, format.SectionType(s.Type), g.Type)
			assert.Equal(t, uint64(s.Flags), g.Flags)
			assert.Equal(t, s.Addralign, g.Align)
			if i == 0 {
				continue
			}
			assert.Equal(t, int64(s.Offset), g.Offset)
			assert.Equal(t, int64(s.FileSize), g.Size)
			if s.Type != elf.SHT_NOBITS {
				d, err := s.Data()
				require.NoError(t, err)
				if !bytes.Equal(d, g.Data) && !(len(d) == 0 && len(g.Data) == 0) {
					t.Errorf("section %s data differs", s.Name)
				}
			} else if g.Data != nil {
				t.Errorf("NOBITS section %s has data", s.Name)
			}
		}
	case COFF:
		f, err := pe.NewFile(bytes.NewReader(buf))
		require.NoError(t, err)
		assert.Equal(t, f.Machine, o.Machine)
		assert.Equal(t, len(f.Sections), len(o.Sections))
		for i, s := range f.Sections {
			g := o.Sections[i]
			assert.Equal(t, s.Name, g.Name)
			assert.Equal(t, uint64(s.Characteristics), g.Flags)
			assert.Equal(t, int64(s.Size), g.Size)
		}
	}
}

func TestParseErrors(t *testing.T) {
	elf64 := readFile(t, "hello-x86_64-linux-gnu.o")
	coff := readFile(t, "hello-x86_64-pc-windows-msvc.o")
	mut := func(b []byte, off int, v ...byte) []byte {
		c := append([]byte{}, b...)
		copy(c[off:], v)
		return c
	}
	shoff := int(le64(elf64[0x28:]))
	tests := []struct {
		name string
		in   []byte
		err  error
	}{
		{"empty", nil, format.ErrMagic},
		{"ident only", []byte("\x7fELF\x02\x01"), format.ErrTruncated},
		{"bad class", mut(elf64, 4, 9), format.ErrCorrupt},
		{"bad data", mut(elf64, 5, 9), format.ErrCorrupt},
		{"short header", elf64[:40], format.ErrTruncated},
		{"truncated shdrs", elf64[:len(elf64)-10], format.ErrTruncated},
		{"bad shentsize", mut(elf64, 0x3a, 12), format.ErrCorrupt},
		{"huge shoff", mut(elf64, 0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), format.ErrTruncated},
		{"bad shstrndx", mut(elf64, 0x3e, 0xf0), format.ErrCorrupt},
		{"section past end", mut(elf64, shoff+64+24, 0xff, 0xff, 0xff, 0), format.ErrTruncated},
		{"bad name", mut(elf64, shoff+64, 0xff, 0xff, 0, 0), format.ErrCorrupt},
		{"coff truncated", coff[:30], format.ErrTruncated},
		{"coff section past end", mut(coff, 20+16, 0xff, 0xff, 0xff, 0), format.ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Parse(tt.in)
			if err == nil {
				t.Fatal("no error")
			}
			assert.True(t, o == nil)
			assert.True(t, errors.Is(err, tt.err), "%v", err)
			var fe *format.FormatError
			require.ErrorAs(t, err, &fe)
		})
	}
}

func le64(b []byte) uint64 {
	return uint64(le32(b)) | uint64(le32(b[4:]))<<32
}

// TestParseErrorOffsets: errors about e_shoff point at e_shoff, whose
// offset differs between ELF64 (0x28) and ELF32 (0x20).
func TestParseErrorOffsets(t *testing.T) {
	for _, tc := range []struct {
		file string
		off  int
		size int
	}{
		{"hello-x86_64-linux-gnu.o", 0x28, 8},
		{"emb-i386-linux-gnu.o", 0x20, 4},
	} {
		t.Run(tc.file, func(t *testing.T) {
			in := readFile(t, tc.file)
			for name, mutate := range map[string]func([]byte){
				"past end": func(b []byte) {
					for i := 0; i < tc.size; i++ {
						b[tc.off+i] = 0xff
					}
				},
				"no table": func(b []byte) {
					for i := 0; i < tc.size; i++ {
						b[tc.off+i] = 0
					}
				},
			} {
				b := append([]byte{}, in...)
				mutate(b)
				_, err := Parse(b)
				var fe *format.FormatError
				require.ErrorAs(t, err, &fe, name)
				assert.Equal(t, int64(tc.off), fe.Off, "%s: %v", name, err)
			}
		})
	}
}
