package hardening

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/fatbin"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "regenerate testdata/hostile and its README")

// hostile is one committed corpus file. gen must be deterministic: the
// committed bytes are checked against it (TestCorpusUpToDate), so the
// generator is the record of how each file was made.
type hostile struct {
	name string
	how  string // one line for the README
	gen  func() []byte
	// valid marks inputs that are well-formed but adversarial (e.g. names
	// that would escape the output directory): tools may succeed on them,
	// and every other invariant still holds.
	valid bool
	// okFor lists CLI cases (by name prefix, "" = all) that may exit 0 on
	// this input, with the reason in how.
	okFor []string
	// costly generators (compressing GiBs) are only re-run with -update
	// or OFFLOAD_KIT_BIG=1; otherwise the committed file is trusted.
	costly bool
	// allocMiB overrides the allocation budget (MiB) for parsers and the
	// RSS budget for CLIs, for inputs bounded by a documented limit.
	allocMiB int64
}

var le = binary.LittleEndian

// ---- OffloadBinary ----

// pkg is a valid v1 OffloadBinary (ELF image kind, OpenMP).
func pkg(triple, arch string, image []byte) []byte {
	return offload.AppendBinary(nil, &offload.Image{
		ImageKind: format.ImageKind(2), OffloadKind: format.OffloadKind(1),
		Strings: []offload.KV{{Key: "triple", Value: triple}, {Key: "arch", Value: arch}},
		Image:   image,
	})
}

func seedPkg() []byte {
	return pkg("amdgcn-amd-amdhsa", "gfx90a", []byte("\x7fELF-device-image-bytes"))
}

// v1 header: magic, version u32 @4, Size u64 @8, EntryOffset u64 @16,
// EntrySize u64 @24; entry @32: kinds u16,u16, flags u32, StringOffset u64
// @40, NumStrings u64 @48, ImageOffset u64 @56, ImageSize u64 @64; string
// entries {key u64, value u64} at StringOffset.
func pkgPut64(off int, v uint64) func() []byte {
	return func() []byte {
		b := seedPkg()
		le.PutUint64(b[off:], v)
		return b
	}
}

func pkgStringEntry(b []byte) int { return int(le.Uint64(b[40:])) }

// manyStrings: one long string and n string entries pointing into it at
// successive offsets, so that copying each value would be quadratic.
func manyStrings(n, long int) []byte {
	hdr := 32 + 40
	strtab := hdr
	strs := strtab + 16*n
	img := strs + long + 1
	b := make([]byte, img+8)
	copy(b, format.OffloadBinaryMagic)
	le.PutUint32(b[4:], 1)
	le.PutUint64(b[8:], uint64(len(b)))
	le.PutUint64(b[16:], 32)
	le.PutUint64(b[24:], 40)
	le.PutUint16(b[32:], 2)
	le.PutUint16(b[34:], 1)
	le.PutUint64(b[40:], uint64(strtab))
	le.PutUint64(b[48:], uint64(n))
	le.PutUint64(b[56:], uint64(img))
	le.PutUint64(b[64:], 8)
	for i := 0; i < n; i++ {
		le.PutUint64(b[strtab+16*i:], uint64(strs+i%long))
		le.PutUint64(b[strtab+16*i+8:], uint64(strs+(i*7)%long))
	}
	for i := 0; i < long; i++ {
		b[strs+i] = 'a' + byte(i%26)
	}
	return b
}

// nestedPkg: an OffloadBinary whose image is an OffloadBinary, depth deep.
func nestedPkg(depth int) []byte {
	b := []byte("innermost")
	for i := 0; i < depth; i++ {
		b = pkg("x86_64-unknown-linux-gnu", "generic", b)
	}
	return b
}

// v3 makes a compressed (v3) OffloadBinary of one image of n zero bytes
// and then sets InflatedSize (@32) to claim, when claim != 0.
func v3(codec string, n int, claim uint64) []byte {
	b, err := offload.AppendBinaryV3(nil, []*offload.Image{{
		ImageKind: format.ImageKind(2), OffloadKind: format.OffloadKind(1),
		Strings: []offload.KV{{Key: "triple", Value: "x86_64-unknown-linux-gnu"}, {Key: "arch", Value: "generic"}},
		Image:   make([]byte, n),
	}}, codec, 0)
	if err != nil {
		panic(err)
	}
	if claim != 0 {
		le.PutUint64(b[32:], claim)
	}
	return b
}

// ---- archives ----

func arHdr(name, size string) []byte {
	h := bytes.Repeat([]byte(" "), 60)
	copy(h[0:16], name)
	copy(h[16:], "0")
	copy(h[28:], "0")
	copy(h[34:], "0")
	copy(h[40:], "644")
	copy(h[48:58], size)
	copy(h[58:], "`\n")
	return h
}

func arMember(name string, data []byte) []byte {
	b := append(arHdr(name, fmt.Sprint(len(data))), data...)
	if len(b)%2 == 1 {
		b = append(b, '\n')
	}
	return b
}

func arch(members ...[]byte) []byte {
	return append([]byte("!<arch>\n"), bytes.Join(members, nil)...)
}

func gnuArchive(ms ...ar.WriteMember) []byte {
	var buf bytes.Buffer
	if err := ar.WriteGNU(&buf, ms); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// bsdNamed writes a BSD "#1/N" member whose name bytes precede the data.
func bsdNamed(name string, data []byte) []byte {
	body := append([]byte(name), data...)
	b := append(arHdr(fmt.Sprintf("#1/%d", len(name)), fmt.Sprint(len(body))), body...)
	if len(b)%2 == 1 {
		b = append(b, '\n')
	}
	return b
}

func nestedArchive(depth int) []byte {
	b := seedPkg()
	for i := 0; i < depth; i++ {
		b = arch(arMember("n.a/", b))
	}
	return b
}

func thin(name string, size int) []byte {
	return append([]byte("!<thin>\n"), arHdr(name+"/", fmt.Sprint(size))...)
}

// ---- ELF and COFF (mutations of committed fixtures of elfembed) ----

func fixture(rel string) []byte {
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		panic(err)
	}
	return b
}

const elfFixture = "elfembed/testdata/emb-x86_64-linux-gnu.o"
const coffFixture = "elfembed/testdata/emb-x86_64-pc-windows-msvc.o"

// fixtureMut generates a copy of the fixture rel changed by f.
func fixtureMut(rel string, f func(b []byte)) func() []byte {
	return func() []byte {
		b := fixture(rel)
		f(b)
		return b
	}
}

func elfMut(f func(b []byte)) func() []byte { return fixtureMut(elfFixture, f) }

func coffMut(f func(b []byte)) func() []byte { return fixtureMut(coffFixture, f) }

// offloadShdr returns the offset of the .llvm.offloading section header.
func offloadShdr(b []byte) int {
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		panic(err)
	}
	shoff := int(le.Uint64(b[40:]))
	for i, s := range ef.Sections {
		if format.SectionType(s.Type) == format.SHT_LLVM_OFFLOADING {
			return shoff + 64*i
		}
	}
	panic("no offloading section in " + elfFixture)
}

// coffOffloadShdr returns the offset of the first section header whose
// name resolves to .llvm.offloading (a "/N" long name).
func coffOffloadShdr(b []byte) int {
	n := int(le.Uint16(b[2:]))
	opt := int(le.Uint16(b[16:]))
	symtab := int(le.Uint32(b[8:])) + 18*int(le.Uint32(b[12:]))
	for i := 0; i < n; i++ {
		h := 20 + opt + 40*i
		name := string(bytes.TrimRight(b[h:h+8], "\x00"))
		if strings.HasPrefix(name, "/") {
			var off int
			fmt.Sscan(name[1:], &off)
			if s := b[symtab+off:]; bytes.HasPrefix(s, []byte(".llvm.offloading")) {
				return h
			}
		}
	}
	panic("no .llvm.offloading in " + coffFixture)
}

// ---- bitcode ----

// bits is an LLVM bitstream writer (LSB first).
type bits struct {
	b     []byte
	n     uint64 // bit position
	width []uint // abbrev width stack
	lens  []uint64
}

func newBits() *bits { w := &bits{width: []uint{2}}; w.raw([]byte{'B', 'C', 0xC0, 0xDE}); return w }

func (w *bits) raw(p []byte) {
	for _, c := range p {
		w.fixed(uint64(c), 8)
	}
}

func (w *bits) fixed(v uint64, n uint) {
	for i := uint(0); i < n; i++ {
		if w.n/8 >= uint64(len(w.b)) {
			w.b = append(w.b, 0)
		}
		if v>>i&1 == 1 {
			w.b[w.n/8] |= 1 << (w.n % 8)
		}
		w.n++
	}
}

func (w *bits) vbr(v uint64, n uint) {
	hi := uint64(1) << (n - 1)
	for v >= hi {
		w.fixed(v&(hi-1)|hi, n)
		v >>= n - 1
	}
	w.fixed(v, n)
}

func (w *bits) align() {
	for w.n%32 != 0 {
		w.fixed(0, 1)
	}
}

func (w *bits) cur() uint { return w.width[len(w.width)-1] }

// enter writes ENTER_SUBBLOCK; length 0 means "patch on end".
func (w *bits) enter(id uint64, width uint64, length uint32) {
	w.fixed(1, w.cur())
	w.vbr(id, 8)
	w.vbr(width, 4)
	w.align()
	w.lens = append(w.lens, w.n)
	w.fixed(uint64(length), 32)
	w.width = append(w.width, uint(width))
}

func (w *bits) end() {
	w.fixed(0, w.cur())
	w.align()
	w.width = w.width[:len(w.width)-1]
	at := w.lens[len(w.lens)-1]
	w.lens = w.lens[:len(w.lens)-1]
	if le.Uint32(w.b[at/8:]) == 0 {
		le.PutUint32(w.b[at/8:], uint32((w.n-at-32)/32))
	}
}

func (w *bits) bytes() []byte { w.align(); return w.b }

// bcAbbrev: a module block whose only content is DEFINE_ABBREV(ops) and,
// when rec is not nil, a record using it (rec writes the operands).
func bcAbbrev(ops func(w *bits), rec func(w *bits)) func() []byte {
	return func() []byte {
		w := newBits()
		w.enter(8, 4, 0)
		w.fixed(2, 4) // DEFINE_ABBREV
		ops(w)
		if rec != nil {
			w.fixed(4, 4) // first application abbrev id
			rec(w)
		}
		w.end()
		return w.bytes()
	}
}

func bcNested(depth int, id uint64) []byte {
	w := newBits()
	for i := 0; i < depth; i++ {
		w.enter(id, 3, 0)
	}
	for i := 0; i < depth; i++ {
		w.end()
	}
	return w.bytes()
}

// ---- bundles ----

func bundleOf(ids []string, data [][]byte) []byte {
	b, err := bundle.AppendBinary(nil, ids, data, 1)
	if err != nil {
		panic(err)
	}
	return b
}

var twoIDs = []string{"host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx90a"}

func seedBundle() []byte { return bundleOf(twoIDs, [][]byte{[]byte("HOST"), []byte("DEVICE")}) }

// binary bundle: magic (24), count u64 @24, then per entry offset u64,
// size u64, idlen u64, id.
func bundlePut64(off int, v uint64) func() []byte {
	return func() []byte {
		b := seedBundle()
		le.PutUint64(b[off:], v)
		return b
	}
}

// ccob compresses src and then applies f to the header (v3: version u16 @4,
// method u16 @6, TotalFileSize u64 @8, UncompressedSize u64 @16, hash @24;
// v2: TotalFileSize u32 @8, UncompressedSize u32 @12, hash @16).
func ccob(src []byte, o bundle.CompressOptions, f func(b []byte)) []byte {
	b, _, err := bundle.Compress(nil, src, o)
	if err != nil {
		panic(err)
	}
	if f != nil {
		f(b)
	}
	return b
}

// ---- HCF ----

func hcfDeep(depth int) []byte {
	var b bytes.Buffer
	for i := 0; i < depth; i++ {
		b.WriteString("{.n\n")
	}
	for i := 0; i < depth; i++ {
		b.WriteString("}.n\n")
	}
	b.WriteString("__acpp_hcf_binary_appendix")
	return b.Bytes()
}

func hcfAttach(start, size string) []byte {
	return []byte("{.img\n{.__binary\nstart=" + start + "\nsize=" + size + "\n}.__binary\n}.img\n__acpp_hcf_binary_appendixDATA")
}

// ---- fatbin ----

func seedFatbin() []byte {
	b, err := fatbin.AppendFatbin(nil, []fatbin.WriteEntry{{Kind: fatbin.KindELF, SM: 90, Data: []byte("\x7fELFcubin")}})
	if err != nil {
		panic(err)
	}
	return b
}

// fatbin: header magic u32, version u16, header size u16 @6, size u64 @8;
// entry @16: kind u16, version u16, header size u32 @+4, payload size u64
// @+8, compressed size u32 @+16, ..., flags u64 @+40, uncompressed size
// u64 @+56.
func fatPut(off, width int, v uint64) func() []byte {
	return func() []byte {
		b := seedFatbin()
		switch width {
		case 2:
			le.PutUint16(b[off:], uint16(v))
		case 4:
			le.PutUint32(b[off:], uint32(v))
		default:
			le.PutUint64(b[off:], v)
		}
		return b
	}
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func rep(b []byte, n int) []byte { return bytes.Repeat(b, n) }

const max64 = ^uint64(0)

// corpus is the committed hostile corpus. Add an entry, run
//
//	go test ./internal/hardening -run TestCorpusUpToDate -update
//
// and commit the file and the regenerated README.
var corpus = []hostile{
	// --- OffloadBinary v1: overflowing fields ---
	{name: "ob-empty.bin", okFor: []string{"embed-as-package"}, how: "empty file (embed may accept it: an empty package holds no binaries)", gen: func() []byte { return nil }},
	{name: "ob-magic-only.bin", how: "the 4 magic bytes alone", gen: func() []byte { return format.OffloadBinaryMagic }},
	{name: "ob-size-max.bin", how: "v1, Size = 2^64-1", gen: pkgPut64(8, max64)},
	{name: "ob-size-neg.bin", how: "v1, Size = 2^63 (negative as int64)", gen: pkgPut64(8, 1<<63)},
	{name: "ob-size-39.bin", how: "v1, Size = 39 (smaller than the entry)", gen: pkgPut64(8, 39)},
	{name: "ob-entoff-max.bin", how: "v1, EntryOffset = 2^64-1", gen: pkgPut64(16, max64)},
	{name: "ob-entoff-wrap.bin", how: "v1, EntryOffset = 2^64-8 (EntryOffset+40 wraps)", gen: pkgPut64(16, max64-7)},
	{name: "ob-entsize-max.bin", how: "v1, EntrySize = 2^64-1", gen: pkgPut64(24, max64)},
	{name: "ob-stroff-max.bin", how: "v1, StringOffset = 2^64-1", gen: pkgPut64(40, max64)},
	{name: "ob-stroff-wrap.bin", how: "v1, StringOffset = 2^64-16", gen: pkgPut64(40, max64-15)},
	{name: "ob-numstr-max.bin", how: "v1, NumStrings = 2^64-1", gen: pkgPut64(48, max64)},
	{name: "ob-numstr-wrap.bin", how: "v1, NumStrings = 2^60 (NumStrings*16 wraps to 0)", gen: pkgPut64(48, 1<<60)},
	{name: "ob-imgoff-max.bin", how: "v1, ImageOffset = 2^64-1", gen: pkgPut64(56, max64)},
	{name: "ob-imgoff-neg.bin", how: "v1, ImageOffset = 2^63", gen: pkgPut64(56, 1<<63)},
	{name: "ob-imgsize-max.bin", how: "v1, ImageSize = 2^64-1", gen: pkgPut64(64, max64)},
	{name: "ob-imgsize-wrap.bin", how: "v1, ImageSize = 2^64-ImageOffset+1 (offset+size wraps to 1)", gen: func() []byte {
		b := seedPkg()
		le.PutUint64(b[64:], -le.Uint64(b[56:])+1)
		return b
	}},
	{name: "ob-keyoff-max.bin", how: "v1, first string entry's key offset = 2^64-1", gen: func() []byte {
		b := seedPkg()
		le.PutUint64(b[pkgStringEntry(b):], max64)
		return b
	}},
	{name: "ob-valoff-size.bin", how: "v1, first string entry's value offset = Size (one past the end)", gen: func() []byte {
		b := seedPkg()
		le.PutUint64(b[pkgStringEntry(b)+8:], le.Uint64(b[8:]))
		return b
	}},
	{name: "ob-str-unterminated.bin", how: "v1 whose strings and image run to the end without a NUL", gen: func() []byte {
		b := seedPkg()
		so := pkgStringEntry(b)
		k := le.Uint64(b[so:])
		for i := k; i < uint64(len(b)); i++ {
			b[i] = 'x'
		}
		return b
	}},
	{name: "ob-strings-quadratic.bin", how: "v1, 8000 string entries pointing into one 64 KiB string at successive offsets (quadratic copy without a budget)", gen: func() []byte { return manyStrings(8000, 64<<10) }},
	{name: "ob-overlap.bin", how: "v1 whose image range covers the header and string table (ImageOffset 0, ImageSize = Size)", valid: true, gen: func() []byte {
		b := seedPkg()
		le.PutUint64(b[56:], 0)
		le.PutUint64(b[64:], le.Uint64(b[8:]))
		return b
	}},
	{name: "ob-version-max.bin", how: "Version = 2^32-1", gen: func() []byte { b := seedPkg(); le.PutUint32(b[4:], ^uint32(0)); return b }},
	{name: "ob-trailing-garbage.bin", how: "valid v1 followed by 7 bytes that are not a binary", gen: func() []byte { return concat(seedPkg(), []byte("garbage")) }},
	{name: "ob-concat-second-bad.bin", how: "valid v1 followed by a v1 whose Size = 2^64-1", gen: func() []byte { return concat(seedPkg(), pkgPut64(8, max64)()) }},
	{name: "ob-nested-1000.bin", how: "an OffloadBinary whose image is an OffloadBinary, 1000 deep", valid: true, gen: func() []byte { return nestedPkg(1000) }},
	// --- OffloadBinary v2/v3 ---
	{name: "ob-v2-count-max.bin", how: "v2 (made with AppendBinaryV2), entry count @24 = 2^64-1", gen: func() []byte {
		b, _ := offload.AppendBinaryV2(nil, []*offload.Image{{ImageKind: 2, OffloadKind: 1, Image: []byte("x")}})
		le.PutUint64(b[24:], max64)
		return b
	}},
	{name: "ob-v2-count-wrap.bin", how: "v2, entry count = 2^61 (count*40 wraps)", gen: func() []byte {
		b, _ := offload.AppendBinaryV2(nil, []*offload.Image{{ImageKind: 2, OffloadKind: 1, Image: []byte("x")}})
		le.PutUint64(b[24:], 1<<61)
		return b
	}},
	{name: "ob-v3-claim-max.bin", how: "v3 zstd, InflatedSize = 2^64-1", gen: func() []byte { return v3("zstd", 16, max64) }},
	{name: "ob-v3-claim-small-zstd.bin", costly: true, okFor: []string{"embed-as-package"}, how: "v3 zstd of 1 GiB of zeros whose InflatedSize claims 4096 (bomb; embed may accept it: it copies v3 bodies without inflating)", gen: func() []byte { return v3("zstd", 1<<30, 4096) }},
	{name: "ob-v3-claim-small-zlib.bin", costly: true, okFor: []string{"embed-as-package"}, how: "v3 zlib of 128 MiB of zeros whose InflatedSize claims 4096 (bomb; embed may accept it: it copies v3 bodies without inflating)", gen: func() []byte { return v3("zlib", 128<<20, 4096) }},
	{name: "ob-v3-claim-big-zstd.bin", okFor: []string{"embed-as-package"}, how: "v3 zstd of 1 KiB whose InflatedSize claims 3 GiB (under DefaultMaxInflated; must fail without allocating 3 GiB; embed may accept it: it copies v3 bodies without inflating)", gen: func() []byte { return v3("zstd", 1024, 3<<30) }},
	{name: "ob-v3-true-256m.bin", costly: true, how: "v3 zstd of 256 MiB of zeros, InflatedSize true (bounded by the per-binary limit)", valid: true, allocMiB: 600, gen: func() []byte { return v3("zstd", 256<<20, 0) }},
	{name: "ob-v3-true-256m-x6.bin", costly: true, how: "six concatenated copies of ob-v3-true-256m.bin in one buffer: 1.5 GiB inflated from 50 KiB (no cumulative budget)", valid: true, allocMiB: 600, gen: func() []byte { return rep(v3("zstd", 256<<20, 0), 6) }},
	// --- archives ---
	{name: "ar-truncated-header.a", how: "!<arch> magic followed by 30 bytes of a member header", gen: func() []byte { return arch(arHdr("a.o/", "10")[:30]) }},
	{name: "ar-size-huge.a", how: "member size field 9999999999 (10 digits, no data)", gen: func() []byte { return arch(arHdr("a.o/", "9999999999")) }},
	{name: "ar-size-neg.a", how: "member size field -1", gen: func() []byte { return arch(append(arHdr("a.o/", "-1"), "xx"...)) }},
	{name: "ar-size-garbage.a", how: "member size field 12abc", gen: func() []byte { return arch(append(arHdr("a.o/", "12abc"), "xxxxxxxxxxxx"...)) }},
	{name: "ar-fmag-bad.a", how: "member header with a wrong terminator (not `\\n)", gen: func() []byte { h := arHdr("a.o/", "2"); copy(h[58:], "xx"); return arch(append(h, "ab"...)) }},
	{name: "ar-longname-oob.a", how: "GNU member name /99999999 with a 10-byte // table", gen: func() []byte { return arch(arMember("//", []byte("abcdefgh/\n")), arMember("/99999999", seedPkg())) }},
	{name: "ar-longname-noterm.a", how: "GNU // table without a /\\n terminator, member name /0", gen: func() []byte { return arch(arMember("//", []byte("abcdefghij")), arMember("/0", seedPkg())) }},
	{name: "ar-bsd-name-huge.a", how: "BSD member name #1/99999999 with 8 bytes of data", gen: func() []byte { return arch(append(arHdr("#1/99999999", "8"), "abcdefgh"...)) }},
	{name: "ar-bsd-name-newline.a", how: "BSD member named \"evil\\nname.o\" holding a package with Size 2^64-1 (the error must stay on one line)", gen: func() []byte { return arch(bsdNamed("evil\nname.o", pkgPut64(8, max64)())) }},
	{name: "ar-symtab-huge.a", okFor: []string{""}, how: "GNU symbol table / whose count is 0xFFFFFFFF, then a package member (tools may succeed: the symbol table is not needed to walk members)", gen: func() []byte {
		return arch(arMember("/", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}), arMember("p.o/", seedPkg()))
	}},
	{name: "ar-member-bad-pkg.a", how: "a GNU archive (ar.WriteGNU) whose member is ob-size-max.bin", gen: func() []byte { return gnuArchive(ar.WriteMember{Name: "bad.o", Data: pkgPut64(8, max64)()}) }},
	{name: "ar-nested-1000.a", how: "an archive holding an archive ... 1000 deep, innermost a package", gen: func() []byte { return nestedArchive(1000) }},
	{name: "ar-dotdot-names.a", how: "members named ../../x.o, /etc/passwd and a/../../y.o holding valid packages", valid: true, gen: func() []byte {
		return arch(bsdNamed("../../x.o", seedPkg()), bsdNamed("/etc/passwd", seedPkg()), bsdNamed("a/../../y.o", seedPkg()))
	}},
	{name: "thin-devzero.a", how: "thin archive whose member is /dev/zero (size field 100): reading it must not hang", gen: func() []byte { return thin("/dev/zero", 100) }},
	{name: "thin-missing.a", how: "thin archive whose member ../../../nonexistent-hardening does not exist", gen: func() []byte { return thin("../../../nonexistent-hardening", 100) }},
	// --- ELF ---
	{name: "elf-truncated-64.o", how: "the first 64 bytes (ELF header only) of " + elfFixture, gen: func() []byte { return fixture(elfFixture)[:64] }},
	{name: "elf-shnum-max.o", how: elfFixture + " with e_shnum = 0xffff", gen: elfMut(func(b []byte) { le.PutUint16(b[60:], 0xffff) })},
	{name: "elf-shoff-max.o", how: elfFixture + " with e_shoff = 2^64-64", gen: elfMut(func(b []byte) { le.PutUint64(b[40:], max64-63) })},
	{name: "elf-shentsize-0.o", how: elfFixture + " with e_shentsize = 0", gen: elfMut(func(b []byte) { le.PutUint16(b[58:], 0) })},
	{name: "elf-shstrndx-oob.o", how: elfFixture + " with e_shstrndx = 0xfffe", gen: elfMut(func(b []byte) { le.PutUint16(b[62:], 0xfffe) })},
	{name: "elf-shnum-ext-huge.o", how: elfFixture + " with e_shnum = 0 and section 0's sh_size = 2^32-1 (extended numbering)", gen: elfMut(func(b []byte) {
		le.PutUint16(b[60:], 0)
		le.PutUint64(b[int(le.Uint64(b[40:]))+32:], 0xffffffff)
	})},
	{name: "elf-offload-off-max.o", how: elfFixture + ", .llvm.offloading sh_offset = 2^64-1", gen: elfMut(func(b []byte) { le.PutUint64(b[offloadShdr(b)+24:], max64) })},
	{name: "elf-offload-size-max.o", how: elfFixture + ", .llvm.offloading sh_size = 2^64-1", gen: elfMut(func(b []byte) { le.PutUint64(b[offloadShdr(b)+32:], max64) })},
	{name: "elf-offload-wrap.o", how: elfFixture + ", .llvm.offloading sh_size = 2^64-sh_offset+16 (offset+size wraps)", gen: elfMut(func(b []byte) {
		h := offloadShdr(b)
		le.PutUint64(b[h+32:], -le.Uint64(b[h+24:])+16)
	})},
	{name: "elf-offload-bad-pkg.o", okFor: []string{"embed-as-host"}, how: elfFixture + " with the package's Size inside .llvm.offloading set to 2^64-1 (embed may use it as a host: it appends without validating existing sections, as clang does)", gen: elfMut(func(b []byte) {
		h := offloadShdr(b)
		le.PutUint64(b[int(le.Uint64(b[h+24:]))+8:], max64)
	})},
	{name: "elf-name-oob.o", how: elfFixture + ", .llvm.offloading sh_name = 0xffffffff", gen: elfMut(func(b []byte) { le.PutUint32(b[offloadShdr(b):], 0xffffffff) })},
	// --- COFF ---
	{name: "coff-truncated-20.o", how: "the first 20 bytes (file header only) of " + coffFixture, gen: func() []byte { return fixture(coffFixture)[:20] }},
	{name: "coff-nsections-max.o", how: coffFixture + " with NumberOfSections = 0xffff", gen: coffMut(func(b []byte) { le.PutUint16(b[2:], 0xffff) })},
	{name: "coff-symptr-max.o", how: coffFixture + " with PointerToSymbolTable = 0xffffffff", gen: coffMut(func(b []byte) { le.PutUint32(b[8:], 0xffffffff) })},
	{name: "coff-nsyms-max.o", how: coffFixture + " with NumberOfSymbols = 0xffffffff", gen: coffMut(func(b []byte) { le.PutUint32(b[12:], 0xffffffff) })},
	{name: "coff-optheader-max.o", how: coffFixture + " with SizeOfOptionalHeader = 0xffff", gen: coffMut(func(b []byte) { le.PutUint16(b[16:], 0xffff) })},
	{name: "coff-strtab-size-max.o", how: coffFixture + " with the string table size field = 0xffffffff", gen: coffMut(func(b []byte) {
		le.PutUint32(b[int(le.Uint32(b[8:]))+18*int(le.Uint32(b[12:])):], 0xffffffff)
	})},
	{name: "coff-longname-oob.o", how: coffFixture + ", .llvm.offloading's name field = /9999999", gen: coffMut(func(b []byte) { copy(b[coffOffloadShdr(b):], "/9999999") })},
	{name: "coff-offload-wrap.o", how: coffFixture + ", .llvm.offloading PointerToRawData = 0xfffffff0 (offset+size wraps in 32 bits)", gen: coffMut(func(b []byte) { le.PutUint32(b[coffOffloadShdr(b)+20:], 0xfffffff0) })},
	{name: "coff-offload-size-max.o", how: coffFixture + ", .llvm.offloading SizeOfRawData = 0xffffffff", gen: coffMut(func(b []byte) { le.PutUint32(b[coffOffloadShdr(b)+16:], 0xffffffff) })},
	// --- bitcode (hand-written bitstreams) ---
	{name: "bc-magic-only.bc", how: "BC C0 DE alone", gen: func() []byte { return []byte{'B', 'C', 0xC0, 0xDE} }},
	{name: "bc-abbrevwidth-0.bc", how: "module block entered with abbreviation width 0", gen: func() []byte { w := newBits(); w.enter(8, 0, 1); return w.bytes() }},
	{name: "bc-abbrevwidth-huge.bc", how: "module block entered with abbreviation width 4096", gen: func() []byte { w := newBits(); w.enter(8, 4096, 1); return w.bytes() }},
	{name: "bc-blocklen-max.bc", how: "module block whose length is 0xffffffff words", gen: func() []byte { w := newBits(); w.enter(8, 3, 0xffffffff); return w.bytes() }},
	{name: "bc-fixed-huge.bc", how: "DEFINE_ABBREV [literal 1, Fixed(4000000)] and a record using it", gen: bcAbbrev(func(w *bits) {
		w.vbr(2, 5)
		w.fixed(1, 1)
		w.vbr(1, 8)
		w.fixed(0, 1)
		w.fixed(1, 3)
		w.vbr(4000000, 5)
	}, func(w *bits) { w.fixed(max64, 64) })},
	{name: "bc-vbr-1.bc", okFor: []string{"sycl-linker"}, how: "DEFINE_ABBREV [literal 1, VBR(1)] and a record of all-ones bits (a VBR-1 never terminates; llvm-link accepts the module, so sycl-linker may succeed)", gen: bcAbbrev(func(w *bits) {
		w.vbr(2, 5)
		w.fixed(1, 1)
		w.vbr(1, 8)
		w.fixed(0, 1)
		w.fixed(2, 3)
		w.vbr(1, 5)
	}, func(w *bits) {
		for i := 0; i < 64; i++ {
			w.fixed(max64, 64)
		}
	})},
	{name: "bc-vbr-0.bc", how: "DEFINE_ABBREV [literal 1, VBR(0)] and a record using it", gen: bcAbbrev(func(w *bits) {
		w.vbr(2, 5)
		w.fixed(1, 1)
		w.vbr(1, 8)
		w.fixed(0, 1)
		w.fixed(2, 3)
		w.vbr(0, 5)
	}, func(w *bits) { w.fixed(max64, 64) })},
	{name: "bc-numops-huge.bc", how: "DEFINE_ABBREV with 2^32 operands", gen: bcAbbrev(func(w *bits) { w.vbr(1<<32, 5) }, nil)},
	{name: "bc-array-huge.bc", how: "DEFINE_ABBREV [literal 1, Array, Fixed(8)] and a record whose array length is 2^40", gen: bcAbbrev(func(w *bits) {
		w.vbr(3, 5)
		w.fixed(1, 1)
		w.vbr(1, 8)
		w.fixed(0, 1)
		w.fixed(3, 3)
		w.fixed(0, 1)
		w.fixed(1, 3)
		w.vbr(8, 5)
	}, func(w *bits) { w.vbr(1<<40, 6) })},
	{name: "bc-blob-huge.bc", how: "DEFINE_ABBREV [literal 1, Blob] and a record whose blob length is 2^40", gen: bcAbbrev(func(w *bits) {
		w.vbr(2, 5)
		w.fixed(1, 1)
		w.vbr(1, 8)
		w.fixed(0, 1)
		w.fixed(5, 3)
	}, func(w *bits) { w.vbr(1<<40, 6) })},
	{name: "bc-unabbrev-numops-huge.bc", how: "UNABBREV_RECORD with 2^40 operands in the module block", gen: func() []byte {
		w := newBits()
		w.enter(8, 4, 0)
		w.fixed(3, 4)
		w.vbr(1, 6)
		w.vbr(1<<40, 6)
		w.end()
		return w.bytes()
	}},
	{name: "bc-abbrev-id-oob.bc", how: "a record using abbreviation id 1000 that was never defined", gen: func() []byte {
		w := newBits()
		w.enter(8, 10, 0)
		w.fixed(1000, 10)
		w.end()
		return w.bytes()
	}},
	{name: "bc-nest-module-10000.bc", okFor: []string{""}, how: "module blocks nested 10000 deep (tools may succeed: it holds no embedded objects)", gen: func() []byte { return bcNested(10000, 8) }},
	{name: "bc-nest-unknown-10000.bc", how: "blocks of unknown id 100 nested 10000 deep inside a module block", gen: func() []byte {
		inner := bcNested(10000, 100)[4:]
		w := newBits()
		w.enter(8, 3, uint32(len(inner)/4))
		w.raw(inner)
		return w.bytes()
	}},
	{name: "bc-wrapper-size-max.bc", how: "bitcode wrapper header (0x0B17C0DE) with size 0xffffffff", gen: func() []byte {
		b := make([]byte, 20)
		le.PutUint32(b, 0x0B17C0DE)
		le.PutUint32(b[8:], 20)
		le.PutUint32(b[12:], 0xffffffff)
		return append(b, 'B', 'C', 0xC0, 0xDE)
	}},
	{name: "bc-wrapper-off-wrap.bc", how: "bitcode wrapper with offset 0xfffffff0 and size 0x20 (offset+size wraps in 32 bits)", gen: func() []byte {
		b := make([]byte, 20)
		le.PutUint32(b, 0x0B17C0DE)
		le.PutUint32(b[8:], 0xfffffff0)
		le.PutUint32(b[12:], 0x20)
		return append(b, 'B', 'C', 0xC0, 0xDE)
	}},
	// --- fatbin ---
	{name: "fatbin-size-max.fatbin", how: "fatbin (AppendFatbin) with container size @8 = 2^64-1", gen: fatPut(8, 8, max64)},
	{name: "fatbin-hsize-max.fatbin", how: "fatbin with header size @6 = 0xffff", gen: fatPut(6, 2, 0xffff)},
	{name: "fatbin-entry-hsize-0.fatbin", how: "fatbin whose entry header size @20 = 0 (a zero step must not loop)", gen: fatPut(20, 4, 0)},
	{name: "fatbin-entry-psize-max.fatbin", how: "fatbin whose entry payload size @24 = 2^64-1", gen: fatPut(24, 8, max64)},
	{name: "fatbin-entry-psize-neg.fatbin", how: "fatbin whose entry payload size @24 = 2^63", gen: fatPut(24, 8, 1<<63)},
	{name: "fatbin-lz4-usize-huge.fatbin", okFor: []string{"dump"}, how: "fatbin entry flagged LZ4 (flags @56) with uncompressed size @72 = 2^40 (dump may succeed: it lists headers without decompressing)", gen: func() []byte {
		b := seedFatbin()
		le.PutUint64(b[56:], le.Uint64(b[56:])|fatbin.FlagCompressedLZ4)
		le.PutUint64(b[72:], 1<<40)
		return b
	}},
	// --- HCF ---
	{name: "hcf-deep-30000.hcf", how: "HCF nodes nested 30000 deep", gen: func() []byte { return hcfDeep(30000) }},
	{name: "hcf-attach-oob.hcf", okFor: []string{"dump"}, how: "HCF __binary start=18446744073709551615 size=2 (dump may succeed: it reports the bad attachment inline)", gen: func() []byte { return hcfAttach("18446744073709551615", "2") }},
	{name: "hcf-attach-neg.hcf", okFor: []string{"dump"}, how: "HCF __binary start=-1 size=99999999999999999999 (dump may succeed: it reports the bad attachment inline)", gen: func() []byte { return hcfAttach("-1", "99999999999999999999") }},
	{name: "hcf-unterminated.hcf", how: "HCF node opened and never closed, no appendix marker", gen: func() []byte { return []byte("{.a\nk=v\n{.b\n") }},
	// --- bundles ---
	{name: "bundle-count-max.bundle", how: "binary bundle (bundle.AppendBinary) with entry count @24 = 2^64-1", gen: bundlePut64(24, max64)},
	{name: "bundle-count-wrap.bundle", how: "binary bundle with entry count = 2^62", gen: bundlePut64(24, 1<<62)},
	{name: "bundle-offset-max.bundle", how: "binary bundle, first entry offset @32 = 2^64-1", gen: bundlePut64(32, max64)},
	{name: "bundle-size-wrap.bundle", how: "binary bundle, first entry size @40 = 2^64-offset+1 (offset+size wraps)", gen: func() []byte {
		b := seedBundle()
		le.PutUint64(b[40:], -le.Uint64(b[32:])+1)
		return b
	}},
	{name: "bundle-idlen-max.bundle", how: "binary bundle, first entry id length @48 = 2^64-1", gen: bundlePut64(48, max64)},
	{name: "bundle-id-dotdot.bundle", how: "valid bundle whose ids are hip-amdgcn-amd-amdhsa--../../../x and host-../../y/z (names derived from ids must not escape)", valid: true, gen: func() []byte {
		return bundleOf([]string{"host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--../../../x", "openmp-../../y/z"}, [][]byte{[]byte("H"), []byte("D1"), []byte("D2")})
	}},
	{name: "ccob-truncated.ccob", how: "CCOB v3 header cut after 12 bytes", gen: func() []byte { return ccob([]byte("hello"), bundle.CompressOptions{}, nil)[:12] }},
	{name: "ccob-total-max.ccob", how: "CCOB v3 (bundle.Compress) with TotalFileSize = 2^64-1", gen: func() []byte {
		return ccob(seedBundle(), bundle.CompressOptions{}, func(b []byte) { le.PutUint64(b[8:], max64) })
	}},
	{name: "ccob-usize-max.ccob", how: "CCOB v3 with UncompressedSize = 2^64-1", gen: func() []byte {
		return ccob(seedBundle(), bundle.CompressOptions{}, func(b []byte) { le.PutUint64(b[16:], max64) })
	}},
	{name: "ccob-v2-total-small.ccob", how: "CCOB v2 with TotalFileSize = 3 (inside its own header)", gen: func() []byte {
		return ccob(seedBundle(), bundle.CompressOptions{Version: 2}, func(b []byte) { le.PutUint32(b[8:], 3) })
	}},
	{name: "ccob-bomb-zstd.ccob", costly: true, how: "CCOB v3 zstd of 1 GiB of zeros claiming UncompressedSize 4096 (bomb)", gen: func() []byte {
		return ccob(make([]byte, 1<<30), bundle.CompressOptions{}, func(b []byte) { le.PutUint64(b[16:], 4096) })
	}},
	{name: "ccob-bomb-zlib.ccob", costly: true, how: "CCOB v3 zlib of 128 MiB of zeros claiming UncompressedSize 4096 (bomb)", gen: func() []byte {
		return ccob(make([]byte, 128<<20), bundle.CompressOptions{Zlib: true, Level: 9}, func(b []byte) { le.PutUint64(b[16:], 4096) })
	}},
	{name: "ccob-method-bad.ccob", how: "CCOB v3 with method 7", gen: func() []byte {
		return ccob(seedBundle(), bundle.CompressOptions{}, func(b []byte) { le.PutUint16(b[6:], 7) })
	}},
	// --- nesting across formats ---
	{name: "nest-bundle-ar-pkg-bundle.bundle", how: "a bundle whose device entry is a GNU archive whose member is a package whose image is a bundle (all valid)", valid: true, gen: func() []byte {
		inner := seedBundle()
		p := pkg("amdgcn-amd-amdhsa", "gfx90a", inner)
		a := gnuArchive(ar.WriteMember{Name: "pkg.o", Data: p})
		return bundleOf([]string{"host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx90a"}, [][]byte{[]byte("HOST"), a})
	}},
	// --- names that would escape the output directory ---
	{name: "names-dotdot.bin", how: "valid v1 with triple ../../../../tmp/hardening-escape and arch /etc/passwd", valid: true, gen: func() []byte { return pkg("../../../../tmp/hardening-escape", "/etc/passwd", []byte("x")) }},
	{name: "names-dots-only.bin", how: "valid v1 with triple .. and arch .", valid: true, gen: func() []byte { return pkg("..", ".", []byte("x")) }},
	{name: "names-newline.bin", how: "valid v1 with triple \"a\\nb\" and arch \"c\\x00d\" (NUL and newline in derived names)", valid: true, gen: func() []byte { return pkg("a\nb", "c\x00d", []byte("x")) }},
	// --- LLVM bitcode for LLVM's own readers (sycl-linker and linker-wrapper
	// run them in helper processes: a crash is an error naming the input) ---
	{name: "bc-sycl-truncated.bc", how: "clang 22 SYCL device bitcode (" + syclBC + ") cut to 2/3 of its size", gen: func() []byte {
		b := fixture(syclBC)
		return b[:len(b)*2/3]
	}},
	{name: "bc-sycl-bitflip.bc", how: "the same bitcode with bit 3 flipped in every 61st byte from offset 20", gen: func() []byte {
		b := bytes.Clone(fixture(syclBC))
		for i := 20; i < len(b); i += 61 {
			b[i] ^= 0x08
		}
		return b
	}},
	{name: "bc-md-chain-200000.bc", valid: true, how: "a valid module whose named metadata is a chain of 200 000 nested nodes (internal/sycldev/testdata/md-chain-200000.bc.gz, made as its README says): LLVM 22's reader overflows its stack (llvm-dis: SIGSEGV)", gen: func() []byte {
		r, err := gzip.NewReader(bytes.NewReader(fixture("internal/sycldev/testdata/md-chain-200000.bc.gz")))
		if err != nil {
			panic(err)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			panic(err)
		}
		return b
	}},
}

// syclBC is clang 22's device bitcode of two SYCL kernels.
const syclBC = "internal/sycldev/testdata/kernels-spirv64-clang22.bc"

// corpusFile returns the path of a corpus entry.
func corpusFile(name string) string { return filepath.Join(hostileDir, name) }

func readme(data map[string][]byte) string {
	var b strings.Builder
	b.WriteString(`# Hostile inputs

Small files that try to crash, hang or exhaust the offload-kit parsers and
tools. Each is made by the generator named in the table (the Go function in
internal/hardening/corpus_test.go; regenerate with
` + "`go test ./internal/hardening -run TestCorpusUpToDate -update`" + `).
Bigger inputs (over 4 GiB) are made at test time with sparse files.
"valid" files are well-formed but adversarial: tools may accept them, and
must still keep every name inside the output directory.

Offsets are byte offsets of little-endian fields.

| file | bytes | how it was made |
|---|---|---|
`)
	for _, h := range corpus {
		how := strings.ReplaceAll(h.how, "|", "\\|")
		if h.valid {
			how += " (valid)"
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", h.name, len(data[h.name]), how)
	}
	b.WriteString(`
## Crashers found by fuzzing and by the hardening tests

Copies of regression inputs that belong to other packages' fuzz corpora
(the owners keep the originals in <pkg>/testdata/fuzz/FuzzX/):

`)
	for _, c := range crashers {
		fmt.Fprintf(&b, "- `%s`: %s\n", c.name, c.how)
	}
	return b.String()
}

// crashers are committed copies of inputs that once broke a parser or
// tool; they are run like the corpus.
var crashers = []hostile{
	{name: "crash-elfembed-rewrite-03db3dbd.o", okFor: []string{""}, how: "copy of elfembed/testdata/fuzz/FuzzRewrite/03db3dbd5752d085 (a 20-byte COFF-looking header; readers may accept it: no sections)", gen: fuzzInput("elfembed/testdata/fuzz/FuzzRewrite/03db3dbd5752d085")},
	{name: "crash-elfembed-rewrite-ebe5d6c0.o", okFor: []string{""}, how: "copy of elfembed/testdata/fuzz/FuzzRewrite/ebe5d6c0cdc263ca (a corrupt ELF32; readers may accept it: no offloading section)", gen: fuzzInput("elfembed/testdata/fuzz/FuzzRewrite/ebe5d6c0cdc263ca")},
}

// fuzzInput decodes the first []byte argument of a "go test fuzz v1" file.
func fuzzInput(rel string) func() []byte {
	return func() []byte {
		b := fixture(rel)
		for _, line := range strings.Split(string(b), "\n") {
			if lit, ok := strings.CutPrefix(line, "[]byte("); ok {
				s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
				if err != nil {
					panic(fmt.Sprintf("%s: %v", rel, err))
				}
				return []byte(s)
			}
		}
		panic(rel + ": no []byte argument")
	}
}

func TestCorpusUpToDate(t *testing.T) {
	want := map[string][]byte{}
	for _, h := range append(corpus, crashers...) {
		if _, dup := want[h.name]; dup {
			t.Fatalf("duplicate corpus name %s", h.name)
		}
		if h.costly && !*update && !big() {
			b, err := os.ReadFile(corpusFile(h.name))
			if err != nil {
				t.Errorf("%s: %v (run with -update)", h.name, err)
			}
			want[h.name] = b
			continue
		}
		want[h.name] = h.gen()
	}
	want["README.md"] = []byte(readme(want))
	if *update {
		require.NoError(t, os.MkdirAll(hostileDir, 0o755))
		for name, data := range want {
			require.NoError(t, os.WriteFile(filepath.Join(hostileDir, name), data, 0o644))
		}
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		got, err := os.ReadFile(filepath.Join(hostileDir, n))
		if err != nil {
			t.Errorf("%s: %v (run with -update)", n, err)
			continue
		}
		if !bytes.Equal(got, want[n]) {
			t.Errorf("%s differs from its generator (run with -update)", n)
		}
	}
	ents, err := os.ReadDir(hostileDir)
	require.NoError(t, err)
	for _, e := range ents {
		if _, ok := want[e.Name()]; !ok {
			t.Errorf("%s is in testdata/hostile but not in the corpus table", e.Name())
		}
	}
}
