package wrap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawBytes is a .prop byte-array value: the 8-byte little-endian bit count,
// then data (spec sycl.md §7.2).
func rawBytes(data ...byte) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, uint64(len(data))*8), data...)
}

// syclPropImages are images with property sets covering every value type,
// an empty set, an empty byte array, an image without properties between
// two with, and repeated property names across images.
func syclPropImages() []SYCLImage {
	return []SYCLImage{
		{Triple: "spirv64-unknown-unknown", Image: []byte("SPIRV"), Symbols: []string{"k1", "k2"}, ImageKind: 6,
			PropertySets: syclprop.Sets{
				{Name: "SYCL/devicelib req mask", Props: []syclprop.Prop{{Name: "DeviceLibReqMask", Type: syclprop.Uint32, U32: 1}}},
				{Name: "SYCL/device requirements", Props: []syclprop.Prop{
					{Name: "aspects", Type: syclprop.ByteArray, Bytes: rawBytes(6, 0, 0, 0)},
					{Name: "reqd_sub_group_size", Type: syclprop.Uint32, U32: 0xffffffff},
				}},
				{Name: "SYCL/specialization constants", Props: []syclprop.Prop{
					{Name: "_ZTS2sc", Type: syclprop.ByteArray, Bytes: rawBytes(0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0)},
				}},
				{Name: "SYCL/specialization constants default values", Props: []syclprop.Prop{
					{Name: "all", Type: syclprop.ByteArray, Bytes: rawBytes(42, 0, 0, 0)},
				}},
				{Name: "SYCL/misc properties", Props: []syclprop.Prop{
					{Name: "sanUsed", Type: syclprop.String, Bytes: []byte("asan")},
					{Name: "empty", Type: syclprop.ByteArray},
				}},
				{Name: "SYCL/kernel param opt"},
			}},
		{Triple: "spirv64-unknown-unknown", Image: []byte("IMG2")},
		{Triple: "spirv64-unknown-unknown", Image: []byte("IMG3"), Symbols: []string{"k3"},
			PropertySets: syclprop.Sets{
				{Name: "SYCL/device requirements", Props: []syclprop.Prop{{Name: "aspects", Type: syclprop.ByteArray, Bytes: rawBytes()}}},
			}},
	}
}

// TestSYCLPropertyRegistration links the property-set object with the
// recording stub runtime and checks what the runtime walks through
// PropertiesBegin/End: every set, property, type and value, for each host
// (and the Windows x64 templates run on Linux).
func TestSYCLPropertyRegistration(t *testing.T) {
	src, err := filepath.Abs("testdata/sycl/stub.c")
	require.NoError(t, err)
	inc := stubInclude(t)
	images := syclPropImages()
	want := `register version=1 images=3 null=1,1
 image 0 version=3 kind=8 format=6 target="spirv64-unknown-unknown" compile="" link="" size=5 fnv=` + fnv([]byte("SPIRV")) + ` props=0,0 entries=2
  entry reserved=0 version=1 kind=8 flags=0 addr=(nil) name=k1 size=0 data=0 aux=(nil)
  entry reserved=0 version=1 kind=8 flags=0 addr=(nil) name=k2 size=0 data=0 aux=(nil)
  propset "SYCL/devicelib req mask" props=1
   prop "DeviceLibReqMask" type=1 value=1
  propset "SYCL/device requirements" props=2
   prop "aspects" type=2 size=12 value=200000000000000006000000
   prop "reqd_sub_group_size" type=1 value=4294967295
  propset "SYCL/specialization constants" props=1
   prop "_ZTS2sc" type=2 size=20 value=6000000000000000000000000000000004000000
  propset "SYCL/specialization constants default values" props=1
   prop "all" type=2 size=12 value=20000000000000002a000000
  propset "SYCL/misc properties" props=2
   prop "sanUsed" type=3 size=5 value="asan"
   prop "empty" type=2 size=0 value=
  propset "SYCL/kernel param opt" props=0
 image 1 version=3 kind=8 format=0 target="spirv64-unknown-unknown" compile="" link="" size=4 fnv=` + fnv([]byte("IMG2")) + ` props=1,1 entries=0
 image 2 version=3 kind=8 format=0 target="spirv64-unknown-unknown" compile="" link="" size=4 fnv=` + fnv([]byte("IMG3")) + ` props=0,0 entries=1
  entry reserved=0 version=1 kind=8 flags=0 addr=(nil) name=k3 size=0 data=0 aux=(nil)
  propset "SYCL/device requirements" props=1
   prop "aspects" type=2 size=8 value=0000000000000000
main: llvm_offload_entries holds 3 entries: k1/8 k2/8 k3/8
unregister same=1
`
	for _, h := range hostEnvs(t) {
		t.Run(h.name, func(t *testing.T) {
			dir := t.TempDir()
			obj, err := SYCL(Options{Triple: h.triple}, images)
			require.NoError(t, err)
			writeFile(t, dir, "sycl.o", obj)
			runCmd(t, dir, h.cc, inc, "-o", "prog", src, "sycl.o")
			assert.Equal(t, want, h.exec(t, dir, "prog"))
			if h.name == "x86_64" {
				win, err := SYCL(Options{Triple: hostTriple, winABI: true}, images)
				require.NoError(t, err)
				writeFile(t, dir, "win.o", win)
				runCmd(t, dir, h.cc, "-DMS_ABI", inc, "-o", "win", src, "win.o")
				assert.Equal(t, want, h.exec(t, dir, "win"))
			}
		})
	}
}

// TestSYCLNoPropertiesUnchanged: empty (non-nil) property sets give the
// same bytes as none, so objects for images without properties are what
// LLVM 22's layout is.
func TestSYCLNoPropertiesUnchanged(t *testing.T) {
	for _, triple := range []string{hostTriple, "aarch64-unknown-linux-gnu", winTriple} {
		base := []SYCLImage{{Triple: "spirv64", Image: []byte("SPV"), Symbols: []string{"k"}}}
		empty := []SYCLImage{{Triple: "spirv64", Image: []byte("SPV"), Symbols: []string{"k"}, PropertySets: syclprop.Sets{}}}
		a, err := SYCL(Options{Triple: triple}, base)
		require.NoError(t, err)
		b, err := SYCL(Options{Triple: triple}, empty)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(a, b), triple)
	}
}

func TestSYCLPropertyErrors(t *testing.T) {
	for _, tc := range []struct {
		set  syclprop.Set
		want string
	}{
		{syclprop.Set{Name: "a\x00b"}, "name contains NUL"},
		{syclprop.Set{Name: "s", Props: []syclprop.Prop{{Name: "p\x00", Type: syclprop.Uint32}}}, "name contains NUL"},
		{syclprop.Set{Name: "s", Props: []syclprop.Prop{{Name: "p", Type: syclprop.String, Bytes: []byte("a\x00")}}}, "contains NUL"},
		{syclprop.Set{Name: "s", Props: []syclprop.Prop{{Name: "p", Type: 0}}}, `property "p": unsupported type 0`},
		{syclprop.Set{Name: "s", Props: []syclprop.Prop{{Name: "p", Type: 4}}}, "unsupported type 4"},
	} {
		_, err := SYCL(Options{Triple: hostTriple}, []SYCLImage{{}, {PropertySets: syclprop.Sets{tc.set}}})
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), "wrap: sycl image 1: ")
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

// TestSYCLPropertiesReadBack reads the property-set objects back with
// llvm-readobj (sections with their data, relocations, symbols) and walks
// descriptor → device images → PropertiesBegin/End → sets → properties →
// names and values through the relocations alone, for x86-64 ELF, AArch64
// ELF and x86-64 COFF. Everything must equal the input, every pointer must
// be relocated with the format's 64-bit absolute type, and the arrays and
// strings must carry intel's names.
func TestSYCLPropertiesReadBack(t *testing.T) {
	readobj := tool(t, "llvm-readobj")
	dir := t.TempDir()
	images := syclPropImages()
	for _, tc := range []struct{ name, triple, abs64 string }{
		{"x86_64", hostTriple, "R_X86_64_64"},
		{"aarch64", "aarch64-unknown-linux-gnu", "R_AARCH64_ABS64"},
		{"win", winTriple, "IMAGE_REL_AMD64_ADDR64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := SYCL(Options{Triple: tc.triple}, images)
			require.NoError(t, err)
			file := tc.name + ".o"
			writeFile(t, dir, file, obj)
			r := parseReadobj(t, runCmd(t, dir, readobj, "--sections", "--section-data", "--relocs", "--expand-relocs", "--symbols", file))
			r.abs64 = tc.abs64

			desc := r.sym(t, ".sycl_offloading.descriptor")
			n := int(binary.LittleEndian.Uint16(r.data(t, desc, 2)))
			require.Equal(t, len(images), n)
			imgs, ok := r.deref(t, desc.plus(8))
			require.True(t, ok, "device image array")
			assert.Equal(t, r.sym(t, ".sycl_offloading.device_images"), imgs)
			for i, im := range images {
				at := imgs.plus(80*uint64(i) + 64)
				begin, okb := r.deref(t, at)
				end, oke := r.deref(t, at.plus(8))
				if len(im.PropertySets) == 0 {
					assert.False(t, okb || oke, "image %d: PropertiesBegin/End are null", i)
					continue
				}
				require.True(t, okb && oke, "image %d: PropertiesBegin/End relocated", i)
				require.Equal(t, begin.sec, end.sec)
				assert.True(t, strings.HasPrefix(r.symAt(begin), "__sycl_offload_prop_sets_arr"), "image %d: set array symbol %q", i, r.symAt(begin))
				require.Equal(t, uint64(len(im.PropertySets))*24, end.off-begin.off, "image %d: set count", i)
				for si, set := range im.PropertySets {
					s := begin.plus(24 * uint64(si))
					name, ok := r.deref(t, s)
					require.True(t, ok)
					assert.Equal(t, set.Name, r.cstring(t, name), "image %d set %d", i, si)
					assert.True(t, strings.HasPrefix(r.symAt(name), "SYCL_PropSetName"), "set name symbol %q", r.symAt(name))
					pb, okb := r.deref(t, s.plus(8))
					pe, oke := r.deref(t, s.plus(16))
					if len(set.Props) == 0 {
						assert.False(t, okb || oke, "empty set %q: null, null", set.Name)
						continue
					}
					require.True(t, okb && oke)
					assert.True(t, strings.HasPrefix(r.symAt(pb), "__sycl_offload_prop_sets_arr"), "property array symbol %q", r.symAt(pb))
					require.Equal(t, uint64(len(set.Props))*32, pe.off-pb.off, "set %q: property count", set.Name)
					for pi, p := range set.Props {
						q := pb.plus(32 * uint64(pi))
						pn, ok := r.deref(t, q)
						require.True(t, ok)
						assert.Equal(t, p.Name, r.cstring(t, pn))
						assert.True(t, strings.HasPrefix(r.symAt(pn), "prop"), "property name symbol %q", r.symAt(pn))
						typ := binary.LittleEndian.Uint32(r.data(t, q, 16))
						size := binary.LittleEndian.Uint64(r.data(t, q, 24))
						assert.Equal(t, uint32(p.Type), typ, "%q type", p.Name)
						val, hasVal := r.deref(t, q.plus(8))
						switch p.Type {
						case syclprop.Uint32:
							assert.False(t, hasVal, "%q: UINT32 ValAddr is null", p.Name)
							assert.Equal(t, uint64(p.U32), size, "%q: value inline in ValSize", p.Name)
						case syclprop.ByteArray:
							assert.Equal(t, uint64(len(p.Bytes)), size, "%q: ValSize is the raw size", p.Name)
							if len(p.Bytes) == 0 {
								assert.False(t, hasVal)
								continue
							}
							require.True(t, hasVal)
							assert.Equal(t, p.Bytes, r.bytes(t, val, size), "%q: raw value, bit-count prefix included", p.Name)
							assert.True(t, strings.HasPrefix(r.symAt(val), "prop_val"), "value symbol %q", r.symAt(val))
						case syclprop.String:
							require.True(t, hasVal)
							assert.Equal(t, uint64(len(p.Bytes)+1), size)
							assert.Equal(t, string(p.Bytes), r.cstring(t, val))
						}
					}
				}
			}
			assert.Greater(t, r.checked, 0)
		})
	}
}

// readobjView is what TestSYCLPropertiesReadBack needs of llvm-readobj's
// output: section bytes, relocations by section and offset, and symbols.
type readobjView struct {
	secs    map[string][]byte
	relocs  map[string]map[uint64]roReloc
	syms    map[string]loc
	symAtOf map[loc]string // first non-section symbol at a location
	abs64   string
	checked int // relocations dereferenced
}

type roReloc struct {
	typ, sym string
	addend   int64 // RELA addend (ELF); COFF keeps it in place
}

// loc is a section and an offset in it.
type loc struct {
	sec string
	off uint64
}

func (l loc) plus(n uint64) loc { return loc{l.sec, l.off + n} }

// parseReadobj reads llvm-readobj --sections --section-data --relocs
// --expand-relocs --symbols output (ELF or COFF).
func parseReadobj(t *testing.T, out string) *readobjView {
	t.Helper()
	r := &readobjView{secs: map[string][]byte{}, relocs: map[string]map[uint64]roReloc{}, syms: map[string]loc{}, symAtOf: map[loc]string{}}
	// name strips readobj's " (index)" / " (hex bytes)" suffix.
	name := func(v string) string {
		if i := strings.Index(v, " ("); i >= 0 {
			return v[:i]
		}
		return v
	}
	num := func(v string) uint64 {
		n, err := strconv.ParseUint(name(v), 0, 64)
		require.NoError(t, err, "number %q", v)
		return n
	}
	var block, sec, relSec string
	var rel roReloc
	var relOff uint64
	var sym struct {
		name, sec string
		value     uint64
	}
	for _, raw := range strings.Split(out, "\n") {
		l := strings.TrimSpace(raw)
		k, v, _ := strings.Cut(l, ": ")
		switch {
		case l == "Sections [" || l == "Relocations [" || l == "Symbols [":
			block = l
		case block == "Sections [" && k == "Name":
			sec = name(v)
		case block == "Sections [" && len(l) > 6 && l[4] == ':' && strings.Contains(l, "|"):
			// "0000: 00000000 01000000 ... |....|"
			hex := strings.Join(strings.Fields(l[5:strings.Index(l, "|")]), "")
			for i := 0; i+2 <= len(hex); i += 2 {
				b, err := strconv.ParseUint(hex[i:i+2], 16, 8)
				require.NoError(t, err, "section data line %q", l)
				r.secs[sec] = append(r.secs[sec], byte(b))
			}
		case block == "Relocations [" && strings.HasPrefix(l, "Section (") && strings.HasSuffix(l, "{"):
			f := strings.Fields(l)
			relSec = strings.TrimPrefix(f[2], ".rela") // ELF: .rela<target>
			if r.relocs[relSec] == nil {
				r.relocs[relSec] = map[uint64]roReloc{}
			}
		case block == "Relocations [" && k == "Offset":
			relOff, rel = num(v), roReloc{}
		case block == "Relocations [" && k == "Type":
			rel.typ = name(v)
		case block == "Relocations [" && k == "Symbol":
			rel.sym = name(v)
		case block == "Relocations [" && k == "Addend":
			rel.addend = int64(num(v)) // printed as 64-bit hex: -4 is 0xFFFFFFFFFFFFFFFC
		case block == "Relocations [" && l == "}" && rel.typ != "":
			r.relocs[relSec][relOff] = rel
			rel = roReloc{}
		case block == "Symbols [" && k == "Name":
			sym.name = name(v)
			if v == "" || strings.HasPrefix(v, "(") {
				sym.name = ""
			}
		case block == "Symbols [" && k == "Value":
			sym.value = num(v)
		case block == "Symbols [" && k == "Section":
			sym.sec = name(v)
		case block == "Symbols [" && l == "}":
			if sym.name != "" && sym.sec != "" && sym.sec != "Undefined" && sym.name != sym.sec {
				r.syms[sym.name] = loc{sym.sec, sym.value}
				if _, dup := r.symAtOf[loc{sym.sec, sym.value}]; !dup {
					r.symAtOf[loc{sym.sec, sym.value}] = sym.name
				}
			}
			sym.name, sym.sec, sym.value = "", "", 0
		}
	}
	require.NotEmpty(t, r.secs, "no section data parsed")
	require.NotEmpty(t, r.relocs, "no relocations parsed")
	return r
}

func (r *readobjView) sym(t *testing.T, name string) loc {
	t.Helper()
	l, ok := r.syms[name]
	require.True(t, ok, "symbol %s", name)
	return l
}

// symAt names the symbol defined at l ("" if none).
func (r *readobjView) symAt(l loc) string { return r.symAtOf[l] }

// data returns the section bytes from l+off on.
func (r *readobjView) data(t *testing.T, l loc, off uint64) []byte {
	t.Helper()
	d := r.secs[l.sec]
	require.True(t, l.off+off <= uint64(len(d)), "%s+0x%x out of range", l.sec, l.off+off)
	return d[l.off+off:]
}

func (r *readobjView) bytes(t *testing.T, l loc, n uint64) []byte {
	t.Helper()
	d := r.data(t, l, 0)
	require.True(t, n <= uint64(len(d)), "%d bytes at %s+0x%x", n, l.sec, l.off)
	return d[:n]
}

func (r *readobjView) cstring(t *testing.T, l loc) string {
	t.Helper()
	d := r.data(t, l, 0)
	n := bytes.IndexByte(d, 0)
	require.True(t, n >= 0, "unterminated string at %s+0x%x", l.sec, l.off)
	return string(d[:n])
}

// deref resolves the pointer slot at l: false for a null (unrelocated,
// zero) slot. The relocation must be the format's 64-bit absolute type; its
// target is a section (a section symbol) or a defined symbol, plus the
// addend (RELA on ELF, stored in the slot on COFF).
func (r *readobjView) deref(t *testing.T, l loc) (loc, bool) {
	t.Helper()
	rel, ok := r.relocs[l.sec][l.off]
	slot := binary.LittleEndian.Uint64(r.data(t, l, 0))
	if !ok {
		require.Equal(t, uint64(0), slot, "unrelocated non-null pointer at %s+0x%x", l.sec, l.off)
		return loc{}, false
	}
	r.checked++
	require.Equal(t, r.abs64, rel.typ, "relocation at %s+0x%x", l.sec, l.off)
	target := loc{sec: rel.sym}
	if s, ok := r.syms[rel.sym]; ok {
		target = s
	} else {
		_, isSec := r.secs[rel.sym]
		require.True(t, isSec, "relocation at %s+0x%x against unknown %q", l.sec, l.off, rel.sym)
	}
	target.off += uint64(rel.addend) + slot
	return target, true
}

// String helps failure messages.
func (l loc) String() string { return fmt.Sprintf("%s+0x%x", l.sec, l.off) }
