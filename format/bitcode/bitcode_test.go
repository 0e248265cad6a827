package bitcode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const llvmBin = llvmtools.Dir

type wantObj struct {
	global string
	data   []byte // literal bytes, or
	file   string // bytes of testdata/<file>
}

var fixtures = []struct {
	file string
	want []wantObj
}{
	{"host-one-flto.bc", []wantObj{{global: "llvm.embedded.object", file: "pkg-openmp.out"}}},
	{"host-one-thinlto.bc", []wantObj{{global: "llvm.embedded.object", file: "pkg-sycl.out"}}},
	{"host-one-emitllvm.bc", []wantObj{{global: "llvm.embedded.object", file: "pkg-openmp.out"}}},
	{"host-one-darwin.bc", []wantObj{{global: "llvm.embedded.object", file: "pkg-openmp.out"}}},
	{"lib-two-flto.bc", []wantObj{
		{global: "llvm.embedded.object", file: "pkg-openmp.out"},
		{global: "llvm.embedded.object.1", file: "pkg-sycl.out"},
	}},
	{"linked.bc", []wantObj{
		{global: "llvm.embedded.object", file: "pkg-openmp.out"},
		{global: "llvm.embedded.object.2", file: "pkg-openmp.out"},
		{global: "llvm.embedded.object.1", file: "pkg-sycl.out"},
	}},
	{"debug-g-flto.bc", []wantObj{{global: "llvm.embedded.object", file: "pkg-sycl.out"}}},
	{"omp-x86_64.bc", nil}, // checked against llvm-dis in TestAgainstLLVMDis
	{"none.bc", nil},
	{"several.bc", []wantObj{
		{global: "llvm.embedded.object", data: []byte{0xFF}},
		{global: "llvm.embedded.object.1", data: []byte{0x00, 0x80, 0xFE, 0x10, 0xAD, 0xE2, 0x82}},
		{global: "llvm.embedded.object.2", data: []byte("abcdefgh\x00")},
		{global: "llvm.embedded.object.3", data: []byte{1, 2, 0xFF, 4}},
		{global: "llvm.embedded.object.4", data: []byte{0x02, 0x01, 0xFE, 0xFF}},
	}},
	{"nometa.bc", []wantObj{
		{global: "a", data: []byte{0x10, 0xFF, 0x10}},
		{global: "b", data: []byte{0xAD, 0x01}},
	}},
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func TestFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/*.bc")
	require.NoError(t, err)
	require.True(t, len(files) > 0, "no fixtures")
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			objs, err := EmbeddedObjects(readTestdata(t, fx.file))
			require.NoError(t, err)
			if fx.file == "omp-x86_64.bc" {
				require.Len(t, objs, 1)
				assert.True(t, bytes.HasPrefix(objs[0].Data, format.OffloadBinaryMagic))
				return
			}
			require.Len(t, objs, len(fx.want))
			for i, w := range fx.want {
				data := w.data
				if w.file != "" {
					data = readTestdata(t, w.file)
				}
				assert.Equal(t, w.global, objs[i].Global, "object %d", i)
				assert.Equal(t, OffloadingSection, objs[i].Section, "object %d", i)
				assert.Equal(t, data, objs[i].Data, "object %d", i)
			}
		})
	}
}

// wrap puts bc behind a 20-byte bitcode wrapper header, with pad bytes
// between the header and the bitcode.
func wrap(bc []byte, pad int) []byte {
	h := make([]byte, 20+pad)
	binary.LittleEndian.PutUint32(h[0:], 0x0B17C0DE)
	binary.LittleEndian.PutUint32(h[4:], 0)
	binary.LittleEndian.PutUint32(h[8:], uint32(20+pad))
	binary.LittleEndian.PutUint32(h[12:], uint32(len(bc)))
	binary.LittleEndian.PutUint32(h[16:], 0x01000007)
	return append(h, bc...)
}

func TestWrapperHeader(t *testing.T) {
	bc := readTestdata(t, "lib-two-flto.bc")
	want, err := EmbeddedObjects(bc)
	require.NoError(t, err)
	got, err := EmbeddedObjects(append(wrap(bc, 12), 0, 0, 0)) // trailing bytes after the bitcode
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// Errors inside wrapped bitcode carry offsets into the whole buffer.
	cut := bc[:len(bc)/2&^3]
	_, errRaw := EmbeddedObjects(cut)
	_, errWrapped := EmbeddedObjects(wrap(cut, 12))
	var fr, fw *format.FormatError
	require.ErrorAs(t, errRaw, &fr)
	require.ErrorAs(t, errWrapped, &fw)
	assert.Equal(t, fr.Off+32, fw.Off)
	require.ErrorIs(t, errWrapped, format.ErrTruncated)
}

func TestErrors(t *testing.T) {
	bc := readTestdata(t, "host-one-flto.bc")
	badWrap := wrap(bc, 0)
	binary.LittleEndian.PutUint32(badWrap[12:], uint32(len(bc)+4))
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, format.ErrMagic},
		{"elf", []byte("\x7fELF\x02\x01\x01\x00"), format.ErrMagic},
		{"magic only", []byte("BC\xC0\xDE"), format.ErrCorrupt},
		{"length not multiple of 4", bc[:len(bc)-1], format.ErrCorrupt},
		{"truncated", bc[:len(bc)/2&^3], format.ErrTruncated},
		{"short wrapper", badWrap[:12], format.ErrTruncated},
		{"wrapper past end", badWrap, format.ErrTruncated},
		{"two modules", readTestdata(t, "two-modules.bc"), format.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := EmbeddedObjects(tt.in)
			assert.True(t, objs == nil, "non-nil result")
			require.ErrorIs(t, err, tt.want)
			var fe *format.FormatError
			require.ErrorAs(t, err, &fe)
			assert.True(t, fe.Off >= 0, "offset %d", fe.Off)
			assert.True(t, fe.Off <= int64(len(tt.in)), "offset %d", fe.Off)
		})
	}
}

// TestMutations flips bytes of small fixtures: no panic, and an error
// always comes with a nil result and a *format.FormatError.
func TestMutations(t *testing.T) {
	for _, name := range []string{"several.bc", "host-one-thinlto.bc"} {
		orig := readTestdata(t, name)
		buf := make([]byte, len(orig))
		for i := 4; i < len(orig); i++ {
			for _, x := range []byte{0x01, 0xFF} {
				copy(buf, orig)
				buf[i] ^= x
				objs, err := EmbeddedObjects(buf)
				if err != nil {
					require.True(t, objs == nil, "non-nil result with error")
					var fe *format.FormatError
					require.ErrorAs(t, err, &fe, "%s byte %d ^ %#x", name, i, x)
				}
			}
		}
	}
}

// TestAgainstLLVMDis cross-checks every fixture with the i8 arrays that
// llvm-dis prints for the globals !llvm.embedded.objects lists.
func TestAgainstLLVMDis(t *testing.T) {
	if testing.Short() {
		t.Skip("needs LLVM tools")
	}
	dis := filepath.Join(llvmBin, "llvm-dis")
	if _, err := os.Stat(dis); err != nil {
		t.Skip("llvm-dis not found")
	}
	for _, fx := range fixtures {
		if fx.file == "several.bc" || fx.file == "nometa.bc" {
			continue // DATA arrays and the fallback are covered by TestFixtures
		}
		t.Run(fx.file, func(t *testing.T) {
			out, err := exec.Command(dis, filepath.Join("testdata", fx.file), "-o", "-").Output()
			require.NoError(t, err)
			want := disObjects(t, string(out))
			got, err := EmbeddedObjects(readTestdata(t, fx.file))
			require.NoError(t, err)
			require.Len(t, got, len(want))
			for i := range want {
				assert.Equal(t, want[i].Global, got[i].Global)
				assert.Equal(t, want[i].Data, got[i].Data)
			}
		})
	}
}

var (
	reGlobal = regexp.MustCompile(`(?m)^@([\w.$]+) = .*?constant \[\d+ x i8\] c"((?:[^"\\]|\\[0-9A-Fa-f]{2}|\\\\)*)"`)
	reNode   = regexp.MustCompile(`(?m)^!(\d+) = !\{ptr @([\w.$]+), !"\.llvm\.offloading"\}`)
	reNamed  = regexp.MustCompile(`(?m)^!llvm\.embedded\.objects = !\{(.*)\}`)
)

func disObjects(t *testing.T, ll string) []Object {
	globals := map[string][]byte{}
	for _, m := range reGlobal.FindAllStringSubmatch(ll, -1) {
		globals[m[1]] = unescapeIR(t, m[2])
	}
	nodes := map[string]string{}
	for _, m := range reNode.FindAllStringSubmatch(ll, -1) {
		nodes[m[1]] = m[2]
	}
	var objs []Object
	m := reNamed.FindStringSubmatch(ll)
	if m == nil {
		return nil
	}
	for _, op := range strings.Split(m[1], ",") {
		g, ok := nodes[strings.TrimPrefix(strings.TrimSpace(op), "!")]
		require.True(t, ok, "node %s", op)
		data, ok := globals[g]
		require.True(t, ok, "global %s", g)
		objs = append(objs, Object{Global: g, Section: OffloadingSection, Data: data})
	}
	return objs
}

func unescapeIR(t *testing.T, s string) []byte {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		if s[i+1] == '\\' {
			out = append(out, '\\')
			i++
			continue
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		require.NoError(t, err)
		out = append(out, byte(v))
		i += 2
	}
	return out
}

func TestErrorsAreFormatErrors(t *testing.T) {
	var fe *format.FormatError
	_, err := EmbeddedObjects([]byte("BC\xC0\xDE\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"))
	require.True(t, err != nil, "no error")
	assert.True(t, errors.As(err, &fe))
}

// TestMetadataPath checks that every fixture with !llvm.embedded.objects is
// resolved through the metadata (all its record codes known), not through
// the section fallback.
func TestMetadataPath(t *testing.T) {
	for _, fx := range fixtures {
		data, base, err := unwrap(readTestdata(t, fx.file))
		require.NoError(t, err)
		s := &stream{data: data, base: base}
		m, _, err := s.parseTop()
		require.NoError(t, err, fx.file)
		wantNamed := fx.file != "none.bc" && fx.file != "nometa.bc"
		assert.Equal(t, wantNamed, m.haveNamed, "%s: named metadata", fx.file)
		assert.True(t, !m.mdUnusable, "%s: unknown metadata code", fx.file)
		if wantNamed {
			_, followed, err := m.followMetadata(s)
			require.NoError(t, err, fx.file)
			assert.True(t, followed, "%s: metadata not followed", fx.file)
		}
	}
}

// TestRandomMutations applies random edits (byte sets, interesting 32-bit
// values, deletions, zero-filled insertions) to every fixture.
func TestRandomMutations(t *testing.T) {
	files, err := filepath.Glob("testdata/*.bc")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 2))
	vals := []uint32{0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFF, 0x100, 0x40}
	var seeds [][]byte
	for _, f := range files {
		seeds = append(seeds, readTestdata(t, filepath.Base(f)))
	}
	n := 5000
	if testing.Short() {
		n = 500
	}
	for range n {
		i := r.IntN(len(seeds))
		name := files[i]
		b := append([]byte(nil), seeds[i]...)
		for range 1 + r.IntN(4) {
			if len(b) < 8 {
				break
			}
			switch r.IntN(4) {
			case 0:
				b[r.IntN(len(b))] = byte(r.IntN(256))
			case 1:
				binary.LittleEndian.PutUint32(b[r.IntN(len(b)-4):], vals[r.IntN(len(vals))])
			case 2:
				i := r.IntN(len(b))
				j := i + r.IntN(len(b)-i)
				b = append(b[:i], b[j:]...)
			case 3:
				i := r.IntN(len(b))
				b = append(b[:i], append(make([]byte, r.IntN(64)), b[i:]...)...)
			}
		}
		objs, err := EmbeddedObjects(b)
		if err != nil {
			require.True(t, objs == nil, "non-nil result with error (%s)", name)
			var fe *format.FormatError
			require.ErrorAs(t, err, &fe)
		}
	}
}

// TestAgainstBCAnalyzer compares the module-level structure this package
// decodes (section names, global variables and their sections, the number
// of values before function bodies) with llvm-bcanalyzer -dump.
func TestAgainstBCAnalyzer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs LLVM tools")
	}
	tool := filepath.Join(llvmBin, "llvm-bcanalyzer")
	if _, err := os.Stat(tool); err != nil {
		t.Skip("llvm-bcanalyzer not found")
	}
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			out, err := exec.Command(tool, "-dump", filepath.Join("testdata", fx.file)).Output()
			require.NoError(t, err)
			var sections, globals, values int
			inConsts := false
			for _, line := range strings.Split(string(out), "\n") {
				switch {
				case strings.HasPrefix(line, "  <SECTIONNAME "):
					sections++
				case strings.HasPrefix(line, "  <GLOBALVAR "):
					globals++
					values++
				case strings.HasPrefix(line, "  <FUNCTION "), strings.HasPrefix(line, "  <ALIAS "),
					strings.HasPrefix(line, "  <UnknownCode18 "): // bcanalyzer has no name for IFUNC
					values++
				case strings.HasPrefix(line, "  <CONSTANTS_BLOCK"):
					inConsts = true
				case strings.HasPrefix(line, "  </CONSTANTS_BLOCK"):
					inConsts = false
				case inConsts && strings.HasPrefix(line, "    <") && !strings.HasPrefix(line, "    <SETTYPE"):
					values++
				}
			}
			data, base, err := unwrap(readTestdata(t, fx.file))
			require.NoError(t, err)
			m, _, err := (&stream{data: data, base: base}).parseTop()
			require.NoError(t, err)
			assert.Equal(t, sections, len(m.sections), "sections")
			assert.Equal(t, globals, len(m.globals), "globals")
			assert.Equal(t, uint64(values), m.numValues, "values")
		})
	}
}

// TestSectionFallback forces the fallback on several.bc: every global in
// .llvm.offloading with ConstantDataSequential data, metadata or not.
func TestSectionFallback(t *testing.T) {
	data, base, err := unwrap(readTestdata(t, "several.bc"))
	require.NoError(t, err)
	s := &stream{data: data, base: base}
	m, strtab, err := s.parseTop()
	require.NoError(t, err)
	m.mdUnusable = true
	objs, err := m.resolve(s, strtab, len(data))
	require.NoError(t, err)
	var names []string
	for _, o := range objs {
		names = append(names, o.Global)
	}
	assert.Equal(t, []string{"llvm.embedded.object", "llvm.embedded.object.1", "llvm.embedded.object.2",
		"llvm.embedded.object.3", "llvm.embedded.object.4", "not.listed", "other.section"}, names)
}
