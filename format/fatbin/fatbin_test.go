package fatbin

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// zstdDecode is a Decompressor over klauspost/compress (test only: the
// package itself does not import a zstd implementation).
func zstdDecode(dst, src []byte, size int64) ([]byte, error) {
	d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(64<<20), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.DecodeAll(src, dst)
}

// wantEntry is what the fixtures' entries must decode to. Image names a
// testdata file the decoded image must equal ("" to skip).
type wantEntry struct {
	kind         EntryKind
	sm           int
	hsize        int
	size         int64
	comp         Compression
	csize, usize int64
	major, minor uint16
	flags        uint64
	ident, opts  string
	image        string
}

var fileTests = []struct {
	name    string
	entries []wantEntry
}{
	{"saxpy.fatbin", []wantEntry{
		{KindELF, 90, 64, 4200, CompressNone, 0, 0, 1, 8, 0x11, "", "", "saxpy.linked.cubin"},
	}},
	{"rdc.fatbin", []wantEntry{
		{KindELF, 90, 64, 5864, CompressNone, 0, 0, 1, 8, 0x11, "", "", ""},
	}},
	{"elf_ptx.fatbin", []wantEntry{
		{KindELF, 90, 64, 4200, CompressNone, 0, 0, 1, 8, 0x11, "", "", "saxpy.linked.cubin"},
		{KindPTX, 90, 80, 480, CompressZstd, 475, 1206, 8, 0, 0x8011, "", "", "saxpy.cuobjdump.ptx"},
	}},
	{"elf_ptx_mode_none.fatbin", []wantEntry{
		{KindELF, 90, 64, 4200, CompressNone, 0, 0, 1, 8, 0x11, "", "", "saxpy.linked.cubin"},
		{KindPTX, 90, 80, 1208, CompressNone, 0, 0, 8, 0, 0x11, "", "", "saxpy.cuobjdump.ptx"},
	}},
	{"elf_ptx_zstd.fatbin", []wantEntry{
		{KindELF, 90, 64, 1136, CompressZstd, 1132, 4200, 1, 8, 0x8011, "", "", "saxpy.linked.cubin"},
		{KindPTX, 90, 80, 480, CompressZstd, 475, 1206, 8, 0, 0x8011, "", "", "saxpy.cuobjdump.ptx"},
	}},
	{"elf_ptx_lz4.fatbin", []wantEntry{
		{KindELF, 90, 64, 1528, CompressLZ4, 1524, 4200, 1, 8, 0x2011, "", "", "saxpy.linked.cubin"},
		{KindPTX, 90, 80, 624, CompressLZ4, 622, 1206, 8, 0, 0x2011, "", "", "saxpy.cuobjdump.ptx"},
	}},
	{"lz4_multi.fatbin", []wantEntry{
		{KindELF, 90, 64, 1696, CompressLZ4, 1696, 4712, 1, 8, 0x2011, "", "", "saxpy.cubin"},
		{KindELF, 90, 64, 1528, CompressLZ4, 1524, 4200, 1, 8, 0x2011, "", "", "saxpy.linked.cubin"},
		{KindPTX, 90, 80, 624, CompressLZ4, 622, 1206, 8, 0, 0x2011, "", "", "saxpy.cuobjdump.ptx"},
		{KindPTX, 80, 80, 624, CompressLZ4, 622, 1206, 8, 0, 0x2011, "", "", "saxpy.cuobjdump.ptx"},
	}},
	{"ident_opts.fatbin", []wantEntry{
		{KindELF, 90, 80, 4200, CompressNone, 0, 0, 1, 8, 0x11, "saxpy_ident", "", "saxpy.linked.cubin"},
		{KindPTX, 90, 96, 480, CompressZstd, 475, 1206, 8, 0, 0x8011, "saxpy_ident", "-O3", "saxpy.cuobjdump.ptx"},
	}},
	{"debug_devc.fatbin", []wantEntry{
		{KindELF, 90, 64, 1208, CompressZstd, 1204, 4712, 1, 8, 0x8013, "", "", "saxpy.cubin"},
	}},
}

func TestParseFixtures(t *testing.T) {
	for _, tt := range fileTests {
		t.Run(tt.name, func(t *testing.T) {
			buf := read(t, tt.name)
			files, err := Parse(buf)
			require.NoError(t, err)
			require.Len(t, files, 1)
			f := files[0]
			assert.Equal(t, int64(0), f.Offset)
			assert.Equal(t, uint16(1), f.Version)
			assert.Equal(t, int64(len(buf)), f.End())
			require.Len(t, f.Entries, len(tt.entries))
			for i, w := range tt.entries {
				e := &f.Entries[i]
				assert.Equal(t, w.kind, e.Kind, "entry %d kind", i)
				assert.Equal(t, w.sm, e.SM, "entry %d sm", i)
				assert.Equal(t, w.hsize, e.HeaderSize, "entry %d header size", i)
				assert.Equal(t, w.size, e.Size, "entry %d size", i)
				assert.Equal(t, int64(len(e.Data)), e.Size)
				assert.Equal(t, e.HeaderOffset+int64(e.HeaderSize), e.Offset)
				assert.Equal(t, w.comp, e.Compression, "entry %d compression", i)
				assert.Equal(t, w.comp != CompressNone, e.Compressed)
				assert.Equal(t, w.csize, e.CompressedSize, "entry %d compressed size", i)
				assert.Equal(t, w.usize, e.UncompressedSize, "entry %d uncompressed size", i)
				assert.Equal(t, w.major, e.Major, "entry %d major", i)
				assert.Equal(t, w.minor, e.Minor, "entry %d minor", i)
				assert.Equal(t, w.flags, e.Flags, "entry %d flags", i)
				assert.Equal(t, w.ident, e.Ident)
				assert.Equal(t, w.opts, e.PTXASOptions)
				assert.Equal(t, uint16(0x0101), e.Version)
				// Payloads are padded to 8 bytes.
				assert.Zero(t, e.Size%8)
				if e.Compressed {
					assert.Equal(t, (e.CompressedSize+7)&^7, e.Size)
				}
				img, err := e.ImageWith(zstdDecode)
				require.NoError(t, err, "entry %d", i)
				if w.image != "" {
					assert.Equal(t, read(t, w.image), img, "entry %d image", i)
				}
				switch e.Kind {
				case KindELF:
					assert.True(t, bytes.HasPrefix(img, []byte("\x7fELF")))
				case KindPTX:
					assert.Contains(t, string(img), ".version 8.0")
				}
				if e.Compression == CompressZstd {
					_, err := e.Uncompressed()
					assert.ErrorIs(t, err, format.ErrUnsupported)
					var fe *format.FormatError
					assert.ErrorAs(t, err, &fe)
				}
			}
		})
	}
}

// saxpy.fatbin is fatbinary's wrapping of saxpy.linked.cubin: a 16-byte
// container header, a 64-byte entry header and the cubin verbatim.
func TestSaxpyPayloadIsLinkedCubin(t *testing.T) {
	buf := read(t, "saxpy.fatbin")
	cubin := read(t, "saxpy.linked.cubin")
	assert.Equal(t, HeaderSize+EntryHeaderSize+len(cubin), len(buf))
	assert.Equal(t, cubin, buf[HeaderSize+EntryHeaderSize:])
	files, err := Parse(buf)
	require.NoError(t, err)
	e := files[0].Entries[0]
	assert.Equal(t, int64(80), e.Offset)
	assert.Equal(t, cubin, e.Data)
	// The relocatable saxpy.cubin is a different (unlinked) image.
	assert.NotEqual(t, read(t, "saxpy.cubin"), e.Data)
}

func TestWriteByteIdentical(t *testing.T) {
	cubin := read(t, "saxpy.linked.cubin")
	ptx := read(t, "saxpy.cuobjdump.ptx")
	cases := []struct {
		name    string
		entries []WriteEntry
	}{
		{"saxpy.fatbin", []WriteEntry{{Kind: KindELF, SM: 90, Data: cubin}}},
		{"elf_ptx_mode_none.fatbin", []WriteEntry{{Kind: KindELF, SM: 90, Data: cubin}, {Kind: KindPTX, SM: 90, Data: ptx}}},
	}
	rdc, err := Parse(read(t, "rdc.fatbin"))
	require.NoError(t, err)
	cases = append(cases, struct {
		name    string
		entries []WriteEntry
	}{"rdc.fatbin", []WriteEntry{{Kind: KindELF, SM: 90, Data: rdc[0].Entries[0].Data}}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, Write(&out, c.entries))
			assert.Equal(t, read(t, c.name), out.Bytes())
		})
	}
	// ident_opts.fatbin: its ELF entry is uncompressed and must match
	// byte for byte; the PTX entry is zstd-compressed there, so compare
	// everything but the compression fields.
	want := read(t, "ident_opts.fatbin")
	got, err := AppendFatbin(nil, []WriteEntry{
		{Kind: KindELF, SM: 90, Data: cubin, Ident: "saxpy_ident"},
		{Kind: KindPTX, SM: 90, Data: ptx, Ident: "saxpy_ident", PTXASOptions: "-O3"},
	})
	require.NoError(t, err)
	elfEnd := HeaderSize + 80 + len(cubin)
	assert.Equal(t, want[HeaderSize:elfEnd], got[HeaderSize:elfEnd])
	gf, err := Parse(got)
	require.NoError(t, err)
	wf, err := Parse(want)
	require.NoError(t, err)
	g, w := gf[0].Entries[1], wf[0].Entries[1]
	assert.Equal(t, want[w.HeaderOffset:w.HeaderOffset+8], got[g.HeaderOffset:g.HeaderOffset+8], "kind, version, header size")
	assert.Equal(t, want[w.HeaderOffset+0x14:w.HeaderOffset+0x28], got[g.HeaderOffset+0x14:g.HeaderOffset+0x28])
	assert.Equal(t, want[w.HeaderOffset+64:w.Offset], got[g.HeaderOffset+64:g.Offset], "identifier and options")
}

func TestRoundTrip(t *testing.T) {
	for _, tt := range fileTests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := Parse(read(t, tt.name))
			require.NoError(t, err)
			var ws []WriteEntry
			for _, e := range files[0].Entries {
				img, err := e.ImageWith(zstdDecode)
				require.NoError(t, err)
				ws = append(ws, WriteEntry{Kind: e.Kind, SM: e.SM, Data: img, Major: e.Major, Minor: e.Minor,
					Flags: e.Flags &^ (FlagCompressedLZ4 | FlagCompressedZstd), Ident: e.Ident, PTXASOptions: e.PTXASOptions})
			}
			out, err := AppendFatbin(nil, ws)
			require.NoError(t, err)
			back, err := Parse(out)
			require.NoError(t, err)
			require.Len(t, back[0].Entries, len(ws))
			for i, e := range back[0].Entries {
				img, err := e.Image()
				require.NoError(t, err)
				assert.Equal(t, ws[i].Data, img)
				assert.Equal(t, ws[i].Kind, e.Kind)
				assert.Equal(t, ws[i].SM, e.SM)
				assert.Equal(t, ws[i].Major, e.Major)
				assert.Equal(t, ws[i].Minor, e.Minor)
				assert.Equal(t, ws[i].Ident, e.Ident)
				assert.Equal(t, ws[i].PTXASOptions, e.PTXASOptions)
				assert.Equal(t, ws[i].Flags, e.Flags)
				assert.False(t, e.Compressed)
			}
		})
	}
}

func TestConcatenated(t *testing.T) {
	a := read(t, "saxpy.fatbin")
	b := read(t, "elf_ptx_lz4.fatbin")
	buf := append(append(append([]byte{}, a...), make([]byte, 8)...), b...)
	buf = append(buf, 0, 0, 0) // trailing section padding
	files, err := Parse(buf)
	require.NoError(t, err)
	require.Len(t, files, 2)
	assert.Equal(t, int64(0), files[0].Offset)
	assert.Equal(t, int64(len(a)+8), files[1].Offset)
	e := files[1].Entries[0]
	assert.Equal(t, int64(len(a)+8+HeaderSize+EntryHeaderSize), e.Offset)
	img, err := e.Uncompressed()
	require.NoError(t, err)
	assert.Equal(t, read(t, "saxpy.linked.cubin"), img)

	// Garbage after a container is an error.
	_, err = Parse(append(append([]byte{}, a...), 1, 2, 3, 4))
	assert.ErrorIs(t, err, format.ErrTruncated)
}

// sectionData returns a section's bytes from a host object.
func sectionData(t *testing.T, f *elf.File, name string) []byte {
	t.Helper()
	s := f.Section(name)
	require.NotNil(t, s, name)
	b, err := s.Data()
	require.NoError(t, err)
	return b
}

// nvcc -c objects: .nv_fatbin (whole-program) or __nv_relfatbin (-rdc)
// holds the fat binary; .nvFatBinSegment holds the wrapper whose data
// pointer is relocated against that section.
func TestHostObjects(t *testing.T) {
	cases := []struct {
		obj, section string
		want         []wantEntry
	}{
		{"kern_nvcc.o", ".nv_fatbin", []wantEntry{
			{kind: KindELF, sm: 80, size: 3368, comp: CompressNone},
			{kind: KindELF, sm: 90, size: 3968, comp: CompressNone},
			{kind: KindPTX, sm: 90, size: 400, comp: CompressZstd, csize: 393, usize: 913},
		}},
		{"saxpy_clang_host.o", ".nv_fatbin", []wantEntry{
			{kind: KindELF, sm: 90, size: 4200, comp: CompressNone, image: "saxpy.linked.cubin"},
		}},
		{"saxpy_clang_host_rdc.o", "__nv_relfatbin", []wantEntry{
			{kind: KindELF, sm: 90, size: 4200, comp: CompressNone, image: "saxpy.linked.cubin"},
		}},
		{"kern_nvcc_rdc.o", "__nv_relfatbin", []wantEntry{
			{kind: KindELF, sm: 90, size: 1216, comp: CompressZstd, csize: 1209, usize: 4712},
			{kind: KindPTX, sm: 90, size: 464, comp: CompressZstd, csize: 460, usize: 1201, opts: "--compile-only  "},
		}},
	}
	for _, c := range cases {
		t.Run(c.obj, func(t *testing.T) {
			f, err := elf.Open(filepath.Join("testdata", c.obj))
			require.NoError(t, err)
			defer f.Close()
			files, err := Parse(sectionData(t, f, c.section))
			require.NoError(t, err)
			require.Len(t, files, 1)
			require.Len(t, files[0].Entries, len(c.want))
			for i, w := range c.want {
				e := &files[0].Entries[i]
				assert.Equal(t, w.kind, e.Kind)
				assert.Equal(t, w.sm, e.SM)
				assert.Equal(t, w.size, e.Size)
				assert.Equal(t, w.comp, e.Compression)
				assert.Equal(t, w.csize, e.CompressedSize)
				assert.Equal(t, w.usize, e.UncompressedSize)
				assert.Equal(t, w.opts, e.PTXASOptions)
				img, err := e.ImageWith(zstdDecode)
				require.NoError(t, err)
				if w.image != "" {
					assert.Equal(t, read(t, w.image), img)
				}
				if e.Kind == KindELF {
					ef, err := elf.NewFile(bytes.NewReader(img))
					require.NoError(t, err)
					assert.Equal(t, elf.EM_CUDA, ef.Machine)
				} else {
					assert.Contains(t, string(img), ".entry _Z5saxpyifPKfPf")
				}
			}

			w, err := ParseWrapper(sectionData(t, f, ".nvFatBinSegment"))
			require.NoError(t, err)
			assert.Equal(t, &Wrapper{Magic: WrapperMagic, Version: 1}, w)
			enc, err := w.AppendBinary(nil)
			require.NoError(t, err)
			assert.Equal(t, sectionData(t, f, ".nvFatBinSegment"), enc)

			// One R_X86_64_64 at offset 8 against the fat binary section.
			rela := sectionData(t, f, ".rela.nvFatBinSegment")
			require.Len(t, rela, 24)
			assert.Equal(t, uint64(8), binary.LittleEndian.Uint64(rela))
			info := binary.LittleEndian.Uint64(rela[8:])
			assert.Equal(t, elf.R_X86_64_64, elf.R_X86_64(elf.R_TYPE64(info)))
			syms, err := f.Symbols()
			require.NoError(t, err)
			sym := syms[elf.R_SYM64(info)-1]
			assert.Equal(t, c.section, f.Sections[sym.Section].Name)
		})
	}
}

func TestWrapperErrors(t *testing.T) {
	good, _ := (&Wrapper{Magic: WrapperMagic, Version: 1}).AppendBinary(nil)
	_, err := ParseWrapper(good[:23])
	assert.ErrorIs(t, err, format.ErrTruncated)
	bad := append([]byte{}, good...)
	bad[0] = 0
	_, err = ParseWrapper(bad)
	assert.ErrorIs(t, err, format.ErrMagic)
	bad = append([]byte{}, good...)
	bad[4] = 9
	_, err = ParseWrapper(bad)
	assert.ErrorIs(t, err, format.ErrVersion)
}

// put patches a little-endian field of a copy of b.
func put(b []byte, off int, v uint64, size int) []byte {
	c := append([]byte{}, b...)
	switch size {
	case 2:
		binary.LittleEndian.PutUint16(c[off:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(c[off:], uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(c[off:], v)
	}
	return c
}

func TestHostile(t *testing.T) {
	good := read(t, "ident_opts.fatbin")
	e1 := 16 // first entry header
	cases := []struct {
		name string
		buf  []byte
		err  error
		off  int64
	}{
		{"empty", nil, format.ErrTruncated, 0},
		{"short header", good[:15], format.ErrTruncated, 8},
		{"bad magic", put(good, 0, 0x12345678, 4), format.ErrMagic, 0},
		{"version", put(good, 4, 2, 2), format.ErrVersion, 4},
		{"header size", put(good, 6, 8, 2), format.ErrCorrupt, 6},
		{"container too big", put(good, 8, 1<<62, 8), format.ErrTruncated, 8},
		{"container size overflow", put(good, 8, ^uint64(0), 8), format.ErrTruncated, 8},
		{"entry header too small", put(good, e1+4, 8, 4), format.ErrCorrupt, int64(e1 + 4)},
		{"entry header too big", put(good, e1+4, 1<<31, 4), format.ErrCorrupt, int64(e1 + 4)},
		{"payload past end", put(good, e1+8, 1<<40, 8), format.ErrTruncated, int64(e1 + 8)},
		{"payload overflow", put(good, e1+8, ^uint64(0), 8), format.ErrTruncated, int64(e1 + 8)},
		{"ident outside header", put(good, e1+0x24, 100, 4), format.ErrCorrupt, int64(e1 + 0x20)},
		{"options outside header", put(good, e1+0x14, 78, 4), format.ErrCorrupt, int64(e1 + 0x14)},
		{"both compressions", put(good, e1+0x28, 0xa011, 8), format.ErrCorrupt, int64(e1 + 0x28)},
		{"compressed size", put(put(good, e1+0x28, 0x2011, 8), e1+0x10, 5000, 4), format.ErrCorrupt, int64(e1 + 0x10)},
		{"container ends mid entry", put(good, 8, 40, 8), format.ErrTruncated, int64(e1 + 40)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files, err := Parse(c.buf)
			require.Error(t, err)
			assert.Nil(t, files)
			assert.ErrorIs(t, err, c.err)
			var fe *format.FormatError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, c.off, fe.Off, "%v", err)
		})
	}
	// Every truncation fails cleanly.
	for n := range len(good) - 1 {
		files, err := Parse(good[:n])
		if err == nil || files != nil {
			t.Fatalf("truncated to %d: files=%v err=%v", n, files, err)
		}
	}
}

func TestLZ4Hostile(t *testing.T) {
	buf := read(t, "elf_ptx_lz4.fatbin")
	files, err := Parse(buf)
	require.NoError(t, err)
	e := files[0].Entries[0]
	stream := e.Stream()
	cases := []struct {
		name string
		src  []byte
		size int64
		err  error
	}{
		{"size too large for input", stream, int64(len(stream))*255 + 65, format.ErrLimit},
		{"size too small", stream, 100, format.ErrCorrupt},
		{"size too large", stream, 4201, format.ErrCorrupt},
		{"negative", stream, -1, format.ErrLimit},
		{"truncated", stream[:len(stream)/2], 4200, format.ErrCorrupt},
		{"zero offset", []byte{0x10, 'a', 0, 0}, 10, format.ErrCorrupt},
		{"offset before start", []byte{0x10, 'a', 2, 0}, 10, format.ErrCorrupt},
		{"literal run past end", []byte{0xf0, 0xff, 0xff}, 100, format.ErrCorrupt},
		{"match length past end", []byte{0x1f, 'a', 1, 0, 0xff}, 1000, format.ErrCorrupt},
		{"long match overflows size", []byte{0x1f, 'a', 1, 0, 0xff, 0xff, 0x10}, 600, format.ErrCorrupt},
		{"offset cut", []byte{0x10, 'a', 1}, 10, format.ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := decodeLZ4(c.src, c.size, 0)
			assert.Nil(t, out)
			assert.ErrorIs(t, err, c.err)
		})
	}
	// A valid overlapping match: "a" then 9 copies at distance 1.
	out, err := decodeLZ4([]byte{0x15, 'a', 1, 0, 0x00}, 10, 0)
	require.NoError(t, err)
	assert.Equal(t, "aaaaaaaaaa", string(out))
	// Long literal run with 0xff continuation: 15+255+5 = 275 literals.
	src := append([]byte{0xf0, 0xff, 5}, bytes.Repeat([]byte{'x'}, 275)...)
	out, err = decodeLZ4(src, 275, 0)
	require.NoError(t, err)
	assert.Len(t, out, 275)
}

func TestZstdDecoderErrors(t *testing.T) {
	files, err := Parse(read(t, "elf_ptx_zstd.fatbin"))
	require.NoError(t, err)
	e := files[0].Entries[0]
	_, err = e.UncompressedWith(func(dst, src []byte, size int64) ([]byte, error) { return nil, errors.New("boom") })
	assert.ErrorIs(t, err, format.ErrCorrupt)
	_, err = e.UncompressedWith(func(dst, src []byte, size int64) ([]byte, error) { return []byte("short"), nil })
	assert.ErrorIs(t, err, format.ErrCorrupt)
	e.UncompressedSize = 1 << 50
	_, err = e.UncompressedWith(zstdDecode)
	assert.ErrorIs(t, err, format.ErrLimit)
}

func TestWriteErrors(t *testing.T) {
	_, err := AppendFatbin(nil, []WriteEntry{{Kind: 7, Data: []byte{1}}})
	assert.ErrorIs(t, err, format.ErrUnsupported)
	_, err = AppendFatbin(nil, []WriteEntry{{Kind: KindELF, Flags: FlagCompressedZstd}})
	assert.ErrorIs(t, err, format.ErrUnsupported)
	_, err = AppendFatbin(nil, []WriteEntry{{Kind: KindPTX, Ident: "a\x00b"}})
	assert.ErrorIs(t, err, format.ErrCorrupt)
	// Empty container.
	b, err := AppendFatbin(nil, nil)
	require.NoError(t, err)
	files, err := Parse(b)
	require.NoError(t, err)
	assert.Empty(t, files[0].Entries)
}

func TestPTXVersion(t *testing.T) {
	for in, want := range map[string][2]uint16{
		"//\n.version 8.0\n.target sm_90": {8, 0},
		".version\t12.10\n":               {12, 10},
		"no directive":                    {0, 0},
		".version 8":                      {0, 0},
		".version 99999.1":                {0, 0},
	} {
		a, b := ptxVersion([]byte(in))
		assert.Equal(t, want, [2]uint16{a, b}, in)
	}
}

func TestOpen(t *testing.T) {
	files, err := open(filepath.Join("testdata", "saxpy.fatbin"))
	require.NoError(t, err)
	assert.Len(t, files, 1)
	_, err = open(filepath.Join("testdata", "saxpy.ptx"))
	assert.ErrorIs(t, err, format.ErrMagic)
	assert.Contains(t, err.Error(), "saxpy.ptx: ")
}

func TestStrings(t *testing.T) {
	assert.Equal(t, "ptx", KindPTX.String())
	assert.Equal(t, "elf", KindELF.String())
	assert.Equal(t, "kind(9)", EntryKind(9).String())
	assert.Equal(t, "lz4", CompressLZ4.String())
	assert.Equal(t, "compression(7)", Compression(7).String())
	files, err := Parse(read(t, "elf_ptx_lz4.fatbin"))
	require.NoError(t, err)
	assert.Equal(t, "elf sm_90 1528 bytes (lz4, 4200 uncompressed)", files[0].Entries[0].String())
}
