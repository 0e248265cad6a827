package codeobj

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

type fnWant struct {
	name   string
	kernel bool
	size   int64
}

func TestFixtures(t *testing.T) {
	tests := []struct {
		file   string
		kind   Kind
		target string
		fns    []fnWant
		check  func(t *testing.T, o *Object)
	}{
		{"kern-gfx90a-clang22.co", KindAMDGPU, "amdgcn-amd-amdhsa--gfx90a", []fnWant{
			{"_Z5scaleIdEvPT_S0_", true, 0x64}, {"_Z5scaleIfEvPT_S0_", true, 0x64}, {"_Z5spillPf", true, 0xe58},
			{"_Z5twiceIdET_S0_", false, 0x10}, {"_Z5twiceIfET_S0_", false, 0xc},
		}, func(t *testing.T, o *Object) {
			sp := find(o, "_Z5spillPf").Resources
			require.NotNil(t, sp)
			assert.Equal(t, int64(0x110), sp.Scratch) // the .private_seg_size symbol llvm-nm shows
			assert.Equal(t, int64(128), sp.VGPRs)
			sc := find(o, "_Z5scaleIfEvPT_S0_").Resources
			assert.Equal(t, int64(1024), sc.LDS)   // __shared__ float tile[256]
			assert.Equal(t, int64(12), sc.Kernarg) // float *, float
			assert.Nil(t, find(o, "_Z5twiceIfET_S0_").Resources)
		}},
		{"saxpy-sm90-ptxas13.cubin", KindCubin, "sm_90", []fnWant{{"_Z5saxpyifPKfPf", true, 512}, {"_Z5scaleff", false, 256}},
			func(t *testing.T, o *Object) {
				// The kernel's EIATTR_REGCOUNT record in .nv.info
				// (llvm-readelf -x .nv.info); the device function's
				// record (24) is not what cuobjdump shows: its text
				// section's sh_info bits 24-31 are (0).
				assert.Equal(t, int64(10), find(o, "_Z5saxpyifPKfPf").Resources.Registers)
				assert.Equal(t, int64(0), find(o, "_Z5scaleff").Resources.Registers)
				assert.True(t, find(o, "_Z5scaleff").Resources.Has(ResRegisters))
				assert.False(t, find(o, "_Z5scaleff").Resources.Has(ResConstant), "no .nv.constant0._Z5scaleff")
				assert.Equal(t, int64(0x228), find(o, "_Z5saxpyifPKfPf").Resources.Constant)
			}},
		{"saxpy-sm90-clang22.ptx", KindPTX, "sm_90", []fnWant{{"_Z5scaleff", false, -1}, {"_Z5saxpyifPKfPf", true, -1}}, func(t *testing.T, o *Object) {
			data := read(t, "saxpy-sm90-clang22.ptx")
			for _, fn := range o.Functions {
				code := string(fn.Code(data))
				assert.Contains(t, code, fn.Name)
				assert.True(t, strings.HasSuffix(code, "}"), code)
			}
		}},
		{"kern-spirv64-clang22.spv", KindSPIRV, "spirv1.4", nil, nil},
		{"host-x86_64-clang22.o", KindHost, "x86_64", []fnWant{{"helper", false, -1}, {"__omp_offloading_10_abc_main_l5", true, -1}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := read(t, tt.file)
			o, err := Parse(data)
			require.NoError(t, err)
			assert.Equal(t, tt.kind, o.Kind)
			if tt.target != "" {
				assert.Equal(t, tt.target, o.Target)
			}
			for _, w := range tt.fns {
				fn := find(o, w.name)
				require.NotNil(t, fn, w.name)
				assert.Equal(t, w.kernel, fn.Kernel, w.name)
				if w.size >= 0 {
					assert.Equal(t, w.size, fn.Size, w.name)
				}
				assert.NotNil(t, fn.Code(data), w.name)
			}
			if tt.check != nil {
				tt.check(t, o)
			}
		})
	}
}

func find(o *Object, name string) *Function {
	for i := range o.Functions {
		if o.Functions[i].Name == name {
			return &o.Functions[i]
		}
	}
	return nil
}

func tool(t *testing.T, name string, args ...string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		path = filepath.Join(llvmtools.Dir, name)
	}
	out, err := exec.Command(path, args...).Output()
	require.NoError(t, err, "%s %v", name, args)
	return string(out)
}

// CheckAMDGPU compares a parsed AMDGPU code object with llvm-nm -S (every
// function symbol and its size; kernels are those with a .kd symbol) and
// llvm-readelf --notes (each kernel's .sgpr_count, .vgpr_count,
// .group_segment_fixed_size and .private_segment_fixed_size).
func CheckAMDGPU(t *testing.T, path string, o *Object) {
	t.Helper()
	type sym struct {
		size   int64
		kernel bool
	}
	want := map[string]*sym{}
	kds := map[string]bool{}
	for _, l := range strings.Split(tool(t, "llvm-nm", "-S", "--defined-only", path), "\n") {
		f := strings.Fields(l)
		if len(f) != 4 {
			continue
		}
		size, _ := strconv.ParseInt(f[1], 16, 64)
		switch {
		case f[2] == "T" || f[2] == "t":
			want[f[3]] = &sym{size: size}
		case f[2] == "R" && strings.HasSuffix(f[3], ".kd"):
			kds[strings.TrimSuffix(f[3], ".kd")] = true
		}
	}
	for k := range kds {
		if s := want[k]; s != nil {
			s.kernel = true
		}
	}
	got := map[string]*sym{}
	for _, fn := range o.Functions {
		got[fn.Name] = &sym{fn.Size, fn.Kernel}
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, got, path)
	// The metadata note, as llvm-readelf prints it (YAML).
	notes := tool(t, "llvm-readelf", "--notes", path)
	type res struct{ sgpr, vgpr, lds, scratch int64 }
	meta := map[string]*res{}
	var cur *res
	sc := bufio.NewScanner(strings.NewReader(notes))
	sc.Buffer(nil, 1<<24)
	kv := regexp.MustCompile(`^\s*(?:- )?(\.[a-z_]+):\s+(\S+)`)
	for sc.Scan() {
		m := kv.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if strings.HasPrefix(sc.Text(), "  - .") && cur == nil || strings.HasPrefix(sc.Text(), "  - .") {
			cur = &res{}
		}
		if cur == nil {
			continue
		}
		v, _ := strconv.ParseInt(m[2], 10, 64)
		switch m[1] {
		case ".symbol":
			meta[strings.TrimSuffix(m[2], ".kd")] = cur
		case ".sgpr_count":
			cur.sgpr = v
		case ".vgpr_count":
			cur.vgpr = v
		case ".group_segment_fixed_size":
			cur.lds = v
		case ".private_segment_fixed_size":
			cur.scratch = v
		}
	}
	require.NotEmpty(t, meta, path)
	for name, m := range meta {
		var fn *Function
		for i := range o.Functions {
			if o.Functions[i].Name == name {
				fn = &o.Functions[i]
			}
		}
		require.NotNil(t, fn, name)
		require.NotNil(t, fn.Resources, name)
		assert.Equal(t, *m, res{fn.Resources.SGPRs, fn.Resources.VGPRs, fn.Resources.LDS, fn.Resources.Scratch}, name)
	}
}

func TestAMDGPUAgainstLLVM(t *testing.T) {
	path := filepath.Join("testdata", "kern-gfx90a-clang22.co")
	o, err := Parse(read(t, "kern-gfx90a-clang22.co"))
	require.NoError(t, err)
	CheckAMDGPU(t, path, o)
	CheckNotes(t, path, o)
}

// TestCubinAgainstReadelf: every FUNC symbol of the cubin with its size
// and the file offset of its .text.<name> section, as llvm-readelf shows.
func TestCubinAgainstReadelf(t *testing.T) {
	path := filepath.Join("testdata", "saxpy-sm90-ptxas13.cubin")
	o, err := Parse(read(t, "saxpy-sm90-ptxas13.cubin"))
	require.NoError(t, err)
	secs := map[string]int64{}
	for _, m := range regexp.MustCompile(`\] \.text\.(\S+)\s+PROGBITS\s+[0-9a-f]+ ([0-9a-f]+)`).FindAllStringSubmatch(tool(t, "llvm-readelf", "-S", path), -1) {
		secs[m[1]], _ = strconv.ParseInt(m[2], 16, 64)
	}
	want := map[string][2]int64{}
	for _, m := range regexp.MustCompile(`(?m)^\s*\d+: [0-9a-f]+\s+(\d+) FUNC .*\s(\S+)$`).FindAllStringSubmatch(tool(t, "llvm-readelf", "--symbols", path), -1) {
		size, _ := strconv.ParseInt(m[1], 10, 64)
		want[m[2]] = [2]int64{secs[m[2]], size}
	}
	got := map[string][2]int64{}
	for _, fn := range o.Functions {
		got[fn.Name] = [2]int64{fn.Offset, fn.Size}
	}
	require.Len(t, want, 2)
	assert.Equal(t, want, got)
}

// TestSPIRVAgainstSpirvDis: function names, entry points and byte ranges
// (OpFunction to the end of OpFunctionEnd) as spirv-dis --offsets shows.
func TestSPIRVAgainstSpirvDis(t *testing.T) {
	path := filepath.Join("testdata", "kern-spirv64-clang22.spv")
	o, err := Parse(read(t, "kern-spirv64-clang22.spv"))
	require.NoError(t, err)
	dis := tool(t, "spirv-dis", "--offsets", path)
	entries := map[string]bool{}
	for _, m := range regexp.MustCompile(`OpEntryPoint \w+ %\S+ "([^"]+)"`).FindAllStringSubmatch(dis, -1) {
		entries[m[1]] = true
	}
	type fr struct {
		off, size int64
		kernel    bool
	}
	want := map[string]fr{}
	var name string
	var start int64
	label := false
	for _, l := range strings.Split(dis, "\n") {
		off := int64(-1)
		if i := strings.LastIndex(l, "; 0x"); i >= 0 {
			off, _ = strconv.ParseInt(l[i+4:], 16, 64)
		}
		switch {
		case strings.Contains(l, "= OpFunction "):
			name = strings.TrimPrefix(strings.Fields(l)[0], "%")
			start, label = off, false
		case strings.Contains(l, "= OpLabel"):
			label = true
		case strings.Contains(l, "OpFunctionEnd"):
			if label {
				want[name] = fr{start, off + 4 - start, entries[name]}
			}
		}
	}
	got := map[string]fr{}
	for _, fn := range o.Functions {
		got[fn.Name] = fr{fn.Offset, fn.Size, fn.Kernel}
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, got)
	assert.True(t, got["scale"].kernel && got["fill"].kernel && !got["helper"].kernel)
}

// TestBadInput: damaged objects and notes give one FormatError, no panic.
func TestBadInput(t *testing.T) {
	co := read(t, "kern-gfx90a-clang22.co")
	f, err := parseELF(co)
	require.NoError(t, err)
	nt := f.section(".note")
	require.NotNil(t, nt)
	cases := map[string][]byte{
		"truncated":     co[:len(co)/2],
		"empty":         {},
		"elf header":    co[:64],
		"note size":     patch(co, int(nt.off)+4, 0xff, 0xff, 0xff, 0x7f),
		"msgpack count": patchMsgpack(t, co, f),
		"ptx brace":     []byte(".version 8.0\n.target sm_90\n.entry k(\n){\n"),
		"spirv":         {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x36, 0},
		"cubin eiattr":  patchCubin(t),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			o, err := Parse(data)
			require.Error(t, err)
			assert.Nil(t, o)
			var fe *format.FormatError
			assert.True(t, errors.As(err, &fe), "%T %v", err, err)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func patch(b []byte, off int, v ...byte) []byte {
	c := bytes.Clone(b)
	copy(c[off:], v)
	return c
}

// patchMsgpack makes the first array count in the metadata note huge.
func patchMsgpack(t *testing.T, co []byte, f *elfFile) []byte {
	var at int
	require.NoError(t, f.notes(func(n note) error {
		i := bytes.IndexByte(n.desc, 0xdd) // array32
		if i < 0 {
			i = bytes.IndexByte(n.desc, 0xdc)
		}
		at = int(n.off) + 12 + 8 + i
		return nil
	}))
	return patch(co, at, 0xdd, 0x7f, 0xff, 0xff, 0xff)
}

func patchCubin(t *testing.T) []byte {
	b := read(t, "saxpy-sm90-ptxas13.cubin")
	f, err := parseELF(b)
	require.NoError(t, err)
	s := f.section(".nv.info")
	return patch(b, int(s.off)+2, 0xff, 0x7f)
}

func TestMsgpackSkip(t *testing.T) {
	// {"a": [1, -2, 3.5, "xyz", nil, true, {"k": bin8(2)}]}
	b := []byte{0x81, 0xa1, 'a', 0x97, 0x01, 0xfe, 0xcb, 0x40, 0x0c, 0, 0, 0, 0, 0, 0, 0xa3, 'x', 'y', 'z', 0xc0, 0xc3, 0x81, 0xa1, 'k', 0xc4, 2, 9, 9}
	r := &mpReader{b: b}
	r.skip()
	require.NoError(t, r.err)
	assert.Equal(t, len(b), r.p)
	r = &mpReader{b: b[:len(b)-1]}
	r.skip()
	assert.ErrorIs(t, r.err, format.ErrTruncated)
	deep := bytes.Repeat([]byte{0x91}, 100)
	r = &mpReader{b: append(deep, 0)}
	r.skip()
	assert.ErrorIs(t, r.err, format.ErrLimit)
}

func FuzzMsgpack(f *testing.F) {
	co, err := os.ReadFile("testdata/kern-gfx90a-clang22.co")
	require.NoError(f, err)
	ef, err := parseELF(co)
	require.NoError(f, err)
	ef.notes(func(n note) error { f.Add(n.desc); return nil })
	f.Add([]byte{0x81, 0xa1, 'a', 0x92, 0x01, 0xc0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := &mpReader{b: b}
		r.skip()
		if r.p > len(b) {
			t.Fatalf("read past the end: %d > %d", r.p, len(b))
		}
		o := &Object{}
		_ = readMetadata(note{desc: b}, o, map[string]int{}, map[string]*Resources{})
	})
}

func FuzzParse(f *testing.F) {
	ents, err := os.ReadDir("testdata")
	require.NoError(f, err)
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join("testdata", e.Name())); err == nil && !e.IsDir() && !strings.HasSuffix(e.Name(), ".md") {
			f.Add(b)
		}
	}
	kinds := []Kind{KindAMDGPU, KindCubin, KindPTX, KindSPIRV, KindHost}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, k := range kinds {
			o, err := ParseKind(b, k)
			if err != nil {
				if o != nil {
					t.Fatal("error with a result")
				}
				var fe *format.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("%s: %v", k, err)
				}
				continue
			}
			for _, fn := range o.Functions {
				if fn.Offset >= 0 && fn.Code(b) == nil && fn.Size > 0 {
					t.Fatalf("%s: %s outside the input", k, fn.Name)
				}
			}
		}
	})
}

func ExampleParse() {
	data, _ := os.ReadFile("testdata/saxpy-sm90-ptxas13.cubin")
	o, err := Parse(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(o.Kind, o.Target)
	for _, fn := range o.Functions {
		fmt.Println(fn.Name, fn.Kernel, fn.Size, fn.Resources.Registers)
	}
	// Output:
	// cubin sm_90
	// _Z5saxpyifPKfPf true 512 10
	// _Z5scaleff false 256 0
}

// TestCubinAgainstCuobjdump compares the cubin nvcc 13 made on the H100
// with what cuobjdump -res-usage printed there (testdata/cuda13/README.md):
// REG, STACK, SHARED and CONSTANT[0] of every function it lists.
func TestCubinAgainstCuobjdump(t *testing.T) {
	o, err := Parse(read(t, "cuda13/kernels-sm90-nvcc13.cubin"))
	require.NoError(t, err)
	want := cuobjdumpResUsage(t, string(read(t, "cuda13/cuobjdump-res-usage.txt")))
	require.Len(t, want, 3)
	got := map[string][4]int64{}
	for _, fn := range o.Functions {
		if fn.Kernel {
			r := fn.Resources
			got[fn.Name] = [4]int64{r.Registers, r.Stack, r.LDS, r.Constant}
		}
	}
	assert.Equal(t, want, got)
	assert.Equal(t, "sm_90", o.Target)
	lf := find(o, "_Z11local_framePKiPf")
	assert.Equal(t, int64(128), lf.Resources.MaxThreads) // __launch_bounds__(128)
	assert.Equal(t, int64(256), lf.Resources.Scratch)    // EIATTR_FRAME_SIZE
	assert.Equal(t, int64(0xb80), lf.Size)               // the callee inside it is not listed apart
	assert.Len(t, o.Functions, 3)
}

// cuobjdumpResUsage reads "Function NAME:" / "REG:n STACK:n SHARED:n
// LOCAL:n CONSTANT[0]:n ..." pairs.
func cuobjdumpResUsage(t *testing.T, text string) map[string][4]int64 {
	out := map[string][4]int64{}
	re := regexp.MustCompile(`Function (\S+):\n\s+REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:\d+ CONSTANT\[0\]:(\d+)`)
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		var v [4]int64
		for i := range v {
			v[i], _ = strconv.ParseInt(m[i+2], 10, 64)
		}
		out[m[1]] = v
	}
	return out
}

// TestCodeInNullSection: a function in a section retyped SHT_NULL, whose
// offset then lies past the end of the file, has no code (Offset -1)
// rather than a range outside the input. CI's FuzzParse found it.
func TestCodeInNullSection(t *testing.T) {
	co := read(t, "kern-gfx90a-clang22.co")
	f, err := parseELF(co)
	require.NoError(t, err)
	var text int
	for i := range f.sections {
		if f.sections[i].name == ".text" {
			text = i
		}
	}
	require.NotZero(t, text)
	hdr := int(binary.LittleEndian.Uint64(co[40:])) + text*64 // e_shoff, Elf64_Shdr
	bad := patch(co, hdr+4, 0, 0, 0, 0)                       // sh_type = SHT_NULL
	binary.LittleEndian.PutUint64(bad[hdr+24:], uint64(len(co))*4)
	o, err := ParseKind(bad, KindAMDGPU)
	require.NoError(t, err)
	require.NotEmpty(t, o.Functions)
	for _, fn := range o.Functions {
		assert.Equal(t, int64(-1), fn.Offset, fn.Name)
		assert.Nil(t, fn.Code(bad), fn.Name)
	}
}
