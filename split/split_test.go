package split

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

const llvmBin = llvmtools.Dir

// tool returns the path of an LLVM 22 tool. A missing tool fails the
// test: these checks must not pass by skipping. Only -short skips them.
func tool(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("LLVM cross-checks skipped with -short")
	}
	return llvmtools.Tool(t, name)
}

func runTool(t testing.TB, stdin []byte, argv ...string) []byte {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "%v: %s", argv, errb.String())
	return out.Bytes()
}

// canonical returns llvm-dis output for a .ll fixture (as the driver sees it).
func canonical(t testing.TB, path string) []byte {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	bc := runTool(t, src, tool(t, "llvm-as"), "-o", "-", "-")
	return runTool(t, bc, tool(t, "llvm-dis"), "-o", "-", "-")
}

func parseFixture(t testing.TB, name string) *Module {
	t.Helper()
	txt := canonical(t, filepath.Join("testdata", name))
	m, err := Parse(name, txt)
	require.NoError(t, err)
	return m
}

func verify(t testing.TB, ir []byte) {
	t.Helper()
	runTool(t, ir, tool(t, "opt"), "-passes=verify", "-disable-output", "-")
}

var defRe = regexp.MustCompile(`(?m)^define [^@]*@([\w.$"-]+)\(`)
var gvRe = regexp.MustCompile(`(?m)^@([\w.$"-]+) = `)

func defined(ir []byte) []string {
	var out []string
	for _, m := range defRe.FindAllSubmatch(ir, -1) {
		out = append(out, string(m[1]))
	}
	for _, m := range gvRe.FindAllSubmatch(ir, -1) {
		out = append(out, "@"+string(m[1]))
	}
	sort.Strings(out)
	return out
}

func names(m *Module, p Part) []string {
	var out []string
	for _, e := range p.Entries {
		out = append(out, m.Globals[e].Name())
	}
	return out
}

func TestSplitKernel(t *testing.T) {
	m := parseFixture(t, "example.ll")
	parts := m.Split(Options{Mode: ModeKernel})
	var got [][]string
	for _, p := range parts {
		got = append(got, names(m, p))
	}
	// descending name order; ext_fn is SYCL_EXTERNAL
	assert.Equal(t, [][]string{{"k_other_tu"}, {"k_noid"}, {"k_float"}, {"k_double"}, {"k_conv"}, {"ext_fn"}}, got)
	x := m.NewExtractor(ClosureOptions{})
	want := map[string][]string{
		"k_other_tu": {"@FPTAB", "@ext_global", "k_other_tu", "shared", "via_table"},
		"k_float":    {"@GV", "@alias_shared", "@ext_global", "comdat_fn", "k_float", "shared"},
		"k_double":   {"@ext_global", "dbl_helper", "k_double"},
		"k_conv":     {"@DGV", "@ext_global", "k_conv"},
		"k_noid":     {"@ext_global", "k_noid"},
		"ext_fn":     {"@ext_global", "ext_fn"},
	}
	for _, p := range parts {
		ir, _ := x.Emit(nil, &p)
		verify(t, ir)
		assert.Equal(t, want[names(m, p)[0]], defined(ir), "part %v", names(m, p))
	}
}

func TestInternalize(t *testing.T) {
	m := parseFixture(t, "example.ll")
	x := m.NewExtractor(ClosureOptions{})
	p := Part{Entries: []int32{int32(m.Lookup("k_float"))}}
	ir, _ := x.Emit(nil, &p)
	s := string(ir)
	assert.Contains(t, s, "define internal spir_func void @shared()")
	assert.Contains(t, s, "define internal spir_func void @comdat_fn() {")
	assert.NotContains(t, s, "$comdat_fn = comdat any")
	assert.Contains(t, s, "define spir_kernel void @k_float(")
	assert.Contains(t, s, "!spirv.ExecutionMode = !{!")
	assert.NotContains(t, s, "k_double")
	assert.NotContains(t, s, "llvm.used")
	verify(t, ir)
}

func TestSplitSource(t *testing.T) {
	m := parseFixture(t, "example.ll")
	parts := m.Split(Options{Mode: ModeSource})
	var got []string
	for _, p := range parts {
		got = append(got, strings.Join(names(m, p), ","))
	}
	// TU1: k_float alone (no double, reqd_work_group_size), k_double (fp64),
	// k_conv (conversion-only double), ext_fn; TU2: k_other_tu; missing id: k_noid.
	assert.ElementsMatch(t, []string{"k_float", "k_double", "k_conv", "ext_fn", "k_other_tu", "k_noid"}, got)
	for i := 1; i < len(parts); i++ {
		assert.Greater(t, parts[i-1].Key, parts[i].Key)
	}
	x := m.NewExtractor(ClosureOptions{})
	for _, p := range parts {
		ir, _ := x.Emit(nil, &p)
		verify(t, ir)
	}
}

func TestSplitNone(t *testing.T) {
	m := parseFixture(t, "example.ll")
	parts := m.Split(Options{Mode: ModeNone})
	require.Len(t, parts, 1)
	assert.Equal(t, []string{"k_float", "k_double", "k_conv", "k_other_tu", "k_noid", "ext_fn"}, names(m, parts[0]))
	ir, _ := m.NewExtractor(ClosureOptions{}).Emit(nil, &parts[0])
	verify(t, ir)
	assert.NotContains(t, string(ir), "@unused_internal")
	assert.NotContains(t, string(ir), "sig_match")
}

func TestIndirectAll(t *testing.T) {
	m := parseFixture(t, "example.ll")
	cl := m.NewExtractor(ClosureOptions{IndirectAll: true}).Closure([]int32{int32(m.Lookup("k_other_tu"))})
	var got []string
	for _, g := range cl.Globals {
		got = append(got, m.Globals[g].Name())
	}
	// upstream over-approximation pulls sig_match in
	assert.Contains(t, got, "sig_match")
}

func TestFeatures(t *testing.T) {
	m := parseFixture(t, "example.ll")
	x := m.NewExtractor(ClosureOptions{})
	feat := func(n string) Features {
		e := int32(m.Lookup(n))
		return m.PartFeatures(&Part{Entries: []int32{e}}, x.Closure([]int32{e}))
	}
	assert.Equal(t, []int{6}, feat("k_double").Aspects)
	assert.True(t, feat("k_double").FP64)
	assert.Equal(t, []int{AspectFP64Conv}, feat("k_conv").Aspects)
	assert.False(t, feat("k_conv").FP64)
	assert.Nil(t, feat("k_float").Aspects)
	assert.Equal(t, []int64{8, 1, 1}, feat("k_float").ReqdWorkGroup)
}

func TestKeepReachable(t *testing.T) {
	m := parseFixture(t, "example.ll")
	ir := m.KeepReachable(nil, nil, ClosureOptions{})
	verify(t, ir)
	d := defined(ir)
	assert.NotContains(t, d, "sig_match")
	assert.NotContains(t, d, "ext_fn")
	assert.Contains(t, d, "k_conv")
	assert.Contains(t, string(ir), "define spir_func void @shared()") // linkage kept
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"define void @f() {\nentry:\n  ret void\n", "x.ll:1: function body is not terminated"},
		{"target triple = \"spir64\"\nfoo bar\n", "x.ll:2: unexpected \"foo\" at top level"},
		{"define void @f() {\n  call void @g()\n  ret void\n}\n", "x.ll:1: reference to undefined @g"},
		{"@a = global i32 0\n@a = global i32 1\n", "x.ll:2: redefinition of global @a"},
		{"define void @f() #3 {\n  ret void\n}\n", "x.ll:1: reference to undefined #3"},
		{"!0 = !{!7}\n", "x.ll:1: reference to undefined !7"},
		{"define void @f() {\n  tail\n}\n", "x.ll:2: malformed tail call in @f"},
		{"define void @f() {\n  musttail ret void\n}\n", "x.ll:2: malformed musttail call in @f"},
	} {
		_, err := Parse("x.ll", []byte(tc.src))
		if assert.Error(t, err, tc.src) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

func FuzzParseModule(f *testing.F) {
	for _, n := range []string{"example.ll", "specconst.ll", "specconst-composite.ll"} {
		if b, err := os.ReadFile("testdata/" + n); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("define void @f() {\n  %x = call i32 %p(i32 1)\n  ret void\n}\n"))
	f.Add([]byte("@a = alias i32, ptr @b\n@b = global i32 0, comdat\n$b = comdat any\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse("fuzz.ll", src)
		if err != nil {
			assert.Nil(t, m)
			return
		}
		for _, mode := range []Mode{ModeNone, ModeKernel, ModeSource} {
			x := m.NewExtractor(ClosureOptions{})
			for _, p := range m.Split(Options{Mode: mode}) {
				ir, cl := x.Emit(nil, &p)
				_ = m.PartFeatures(&p, cl)
				for _, sm := range []SpecMode{SpecNative, SpecEmulation, SpecDefault} {
					out, info, err := m.LowerSpecConsts(ir, sm)
					if err != nil && (out != nil || info != nil) {
						t.Fatalf("error with a result: %v", err)
					}
				}
			}
		}
	})
}

// TestCrossCheckLLVMSplit compares kernel-mode closures with LLVM 22's
// llvm-split --split-by-category=kernel, using upstream's rules (kernels
// only, every same-type function is an indirect-call candidate), on the
// example without llvm.used (upstream seeds it into every part, pulling
// k_float everywhere; intel and we drop it). Upstream turns a used alias
// into a dangling declaration; we keep the alias, so aliases are compared
// apart.
func TestCrossCheckLLVMSplit(t *testing.T) {
	llvmSplit := tool(t, "llvm-split")
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/example.ll")
	require.NoError(t, err)
	src = regexp.MustCompile(`(?m)^@llvm\.used.*\n`).ReplaceAll(src, nil)
	bc := filepath.Join(dir, "in.bc")
	require.NoError(t, os.WriteFile(bc, runTool(t, src, tool(t, "llvm-as"), "-o", "-", "-"), 0o644))
	runTool(t, nil, llvmSplit, "--split-by-category=kernel", "-S", bc, "-o", filepath.Join(dir, "out"))
	m, err := Parse("example.ll", runTool(t, src, tool(t, "llvm-as"), "-o", "-", "-"))
	require.Error(t, err) // bitcode is not text
	m, err = Parse("example.ll", runTool(t, runTool(t, src, tool(t, "llvm-as"), "-o", "-", "-"), tool(t, "llvm-dis"), "-o", "-", "-"))
	require.NoError(t, err)
	x := m.NewExtractor(ClosureOptions{IndirectAll: true})
	var kernels []string
	for i := 0; ; i++ {
		up, err := os.ReadFile(filepath.Join(dir, "out_"+strconv.Itoa(i)+".ll"))
		if err != nil {
			break
		}
		k := regexp.MustCompile(`(?m)^define spir_kernel void @(\w+)`).FindSubmatch(up)
		require.True(t, k != nil, "part %d has a kernel", i)
		kernels = append(kernels, string(k[1]))
		ir, _ := x.Emit(nil, &Part{Entries: []int32{int32(m.Lookup(string(k[1])))}})
		verify(t, ir)
		assert.Equal(t, withoutAliases(defined(up)), withoutAliases(defined(ir)), "kernel %s", k[1])
		if string(k[1]) == "k_float" {
			assert.Contains(t, string(up), "declare void @alias_shared()") // upstream bug
			assert.Contains(t, string(ir), "@alias_shared = alias")
		}
	}
	// upstream order is reverse first-seen
	assert.Equal(t, []string{"k_noid", "k_other_tu", "k_conv", "k_double", "k_float"}, kernels)
}

func withoutAliases(d []string) []string {
	var out []string
	for _, s := range d {
		if s != "@alias_shared" {
			out = append(out, s)
		}
	}
	return out
}

// TestCrossCheckModuleID: without optional features, source mode groups
// exactly as llvm-split --split-by-category=module-id does.
func TestCrossCheckModuleID(t *testing.T) {
	llvmSplit := tool(t, "llvm-split")
	src := synthTU(24, 5)
	dir := t.TempDir()
	bc := filepath.Join(dir, "in.bc")
	require.NoError(t, os.WriteFile(bc, runTool(t, src, tool(t, "llvm-as"), "-o", "-", "-"), 0o644))
	runTool(t, nil, llvmSplit, "--split-by-category=module-id", "-S", bc, "-o", filepath.Join(dir, "out"))
	var upstream []string
	for i := 0; ; i++ {
		up, err := os.ReadFile(filepath.Join(dir, "out_"+strconv.Itoa(i)+".ll"))
		if err != nil {
			break
		}
		var ks []string
		for _, k := range regexp.MustCompile(`(?m)^define spir_kernel void @(\w+)`).FindAllSubmatch(up, -1) {
			ks = append(ks, string(k[1]))
		}
		upstream = append(upstream, strings.Join(ks, ","))
	}
	m, err := Parse("synth.ll", src)
	require.NoError(t, err)
	var ours []string
	for _, p := range m.Split(Options{Mode: ModeSource}) {
		ours = append(ours, strings.Join(names(m, p), ","))
	}
	assert.Len(t, upstream, 5)
	assert.ElementsMatch(t, upstream, ours)
}

func synthTU(n, tus int) []byte {
	var b strings.Builder
	b.WriteString("target triple = \"spir64-unknown-unknown\"\n\n")
	for i := 0; i < n; i++ {
		b.WriteString("define spir_kernel void @kernel_" + strconv.Itoa(i) + "() #" + strconv.Itoa(i%tus) + " {\n  ret void\n}\n\n")
	}
	for t := 0; t < tus; t++ {
		b.WriteString("attributes #" + strconv.Itoa(t) + " = { \"module-id\"=\"TU" + strconv.Itoa(t) + "\" }\n")
	}
	return []byte(b.String())
}

// TestAppendDecl: a definition header becomes a valid declaration: no
// linkage, comdat, section, personality, prefix/prologue data or metadata
// attachments; the rest (visibility, calling convention, attributes,
// unnamed_addr, address space, alignment) stays.
func TestAppendDecl(t *testing.T) {
	for _, tc := range []struct{ tok, h, want string }{
		{"f", `define linkonce_odr hidden spir_func noundef i32 @f(ptr noundef %p) unnamed_addr #3 comdat section ".text" align 4 personality ptr @pers !dbg !12 {`,
			"declare hidden spir_func noundef i32 @f(ptr noundef %p) unnamed_addr #3 align 4\n"},
		{`"q n"`, `define internal void @"q n"(i32 %x) addrspace(1) comdat($c) prefix i32 1 prologue i8 2 "k"="v" {`,
			`declare void @"q n"(i32 %x) addrspace(1) "k"="v"` + "\n"},
		{"g", "define void @g() {", "declare void @g()\n"},
	} {
		assert.Equal(t, tc.want, string(appendDecl(nil, &Global{Tok: tc.tok}, tc.h)), tc.h)
	}
	ir := "declare hidden spir_func noundef i32 @f(ptr noundef %p) unnamed_addr #3 align 4\nattributes #3 = { nounwind }\n"
	runTool(t, []byte(ir), tool(t, "llvm-as"), "-o", "/dev/null", "-")
}
