package split

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readLTO(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/partition/lto.ll")
	require.NoError(t, err)
	return b
}

// TestPartitionRules checks the rules on the module LLVM 22's LTO gives
// for a HIP program (testdata/partition/make.sh): every external
// definition is a root of exactly one part, its home; the parts are
// deterministic; each part is valid IR (llvm-as verifies it); an
// address-taken function is defined by one part only; called local
// functions are copied; and LDS variables are defined in every part that
// uses them.
func TestPartitionRules(t *testing.T) {
	src := readLTO(t)
	m, err := Parse("lto.ll", src)
	require.NoError(t, err)
	var external []string
	for i := range m.Globals {
		g := &m.Globals[i]
		if !g.Decl && g.Linkage != "internal" && g.Linkage != "private" && !strings.HasPrefix(g.Name(), "llvm.") {
			external = append(external, g.Name())
		}
	}
	sort.Strings(external)
	require.NotEmpty(t, external)
	// every kernel of this program calls through a function-pointer
	// table except the two tk<N> instances: those open kernels, and every
	// function, are part 0's; the closed ones are at their hash's home
	open := m.openCallKernels(m.addressTaken())
	home := func(name string, n int) int {
		g := &m.Globals[m.Lookup(name)]
		if g.Kind == Function && (!g.IsKernel() || open[m.Lookup(name)]) {
			return 0
		}
		return Home(name, n)
	}
	var closed []string
	for i := range m.Globals {
		if g := &m.Globals[i]; g.IsKernel() && !open[i] {
			closed = append(closed, g.Name())
		}
		if g := &m.Globals[i]; g.IsKernel() && strings.HasPrefix(g.Name(), "_Z8kern_") {
			assert.True(t, open[i], "%s calls through a function-pointer table", g.Name())
		}
	}
	assert.Equal(t, []string{"_Z2tkILi0EEvPi", "_Z2tkILi1EEvPi"}, closed)
	as := tool(t, "llvm-as")
	for _, n := range []int{1, 2, 3, 8} {
		parts, err := m.Partition(n)
		require.NoError(t, err)
		require.Len(t, parts, n)
		again, err := m.Partition(n)
		require.NoError(t, err)
		assert.Equal(t, parts, again, "deterministic")
		var roots []string
		for _, p := range parts {
			for _, r := range p.Roots {
				assert.Equal(t, p.Index, home(r, n), "%s is a root of part %d, not of its home", r, p.Index)
			}
			roots = append(roots, p.Roots...)
			dir := t.TempDir()
			ll := filepath.Join(dir, fmt.Sprintf("part%d.ll", p.Index))
			require.NoError(t, os.WriteFile(ll, p.IR, 0o644))
			runTool(t, nil, as, ll, "-o", filepath.Join(dir, "part.bc"))
			pm, err := Parse(ll, p.IR)
			require.NoError(t, err, "part %d of %d", p.Index, n)
			if p.Index == 0 {
				// part 0 compiles every function of the program: the
				// open kernels get the registers of all of them
				for i := range m.Globals {
					if g := &m.Globals[i]; g.Kind == Function && !g.Decl && !g.IsKernel() {
						k := pm.Lookup(g.Name())
						if assert.GreaterOrEqual(t, k, 0, "part 0 lacks %s", g.Name()) {
							assert.False(t, pm.Globals[k].Decl, "part 0 only declares %s", g.Name())
						}
					}
				}
			}
			for i := range pm.Globals {
				g := &pm.Globals[i]
				name := g.Name()
				switch {
				case strings.Contains(name, "op_add_") || strings.Contains(name, "op_mul_"):
					// address-taken (in a function-pointer table): defined
					// once, by part 0, with the open kernels
					if !g.Decl {
						assert.Equal(t, 0, p.Index, "part %d defines %s", p.Index, name)
					}
				case strings.Contains(name, "lds_sum") && !g.Decl:
					assert.Equal(t, "internal", g.Linkage, "a called local function is copied")
				case strings.HasPrefix(name, "_ZZ") && strings.Contains(name, "buf"):
					assert.False(t, g.Decl, "LDS variable %s is defined where it is used", name)
				}
			}
		}
		sort.Strings(roots)
		// every external definition once; plus the promoted locals
		var ext []string
		seen := map[string]int{}
		for _, r := range roots {
			seen[r]++
			if m.Globals[m.Lookup(r)].Linkage != "internal" && m.Globals[m.Lookup(r)].Linkage != "private" {
				ext = append(ext, r)
			}
		}
		for r, c := range seen {
			assert.Equal(t, 1, c, "%s is a root of %d parts", r, c)
		}
		assert.Equal(t, external, ext, "%d parts: the external definitions", n)
	}
}

// TestPartitionStable: changing one kernel's body changes only the part
// that holds it; the other parts' text is byte-identical, so their cached
// objects stay valid.
func TestPartitionStable(t *testing.T) {
	src := readLTO(t)
	m, err := Parse("lto.ll", src)
	require.NoError(t, err)
	const kernel = "_Z8kern_1_1PfPii"
	i := m.Lookup(kernel)
	require.GreaterOrEqual(t, i, 0)
	g := &m.Globals[i]
	body := string(src[g.Header.End:g.Span.End])
	edited := strings.Replace(body, "ret void", "store i32 7, ptr addrspace(1) null, align 4\n  ret void", 1)
	require.NotEqual(t, body, edited)
	src2 := append(append(append([]byte{}, src[:g.Header.End]...), edited...), src[g.Span.End:]...)
	m2, err := Parse("lto2.ll", src2)
	require.NoError(t, err)
	// the kernel calls through a function-pointer table: an open kernel,
	// part 0's (TestPartitionRules); a closed one (tk<1>) is at its hash
	tk := "_Z2tkILi1EEvPi"
	j := m.Lookup(tk)
	require.GreaterOrEqual(t, j, 0)
	tkBody := string(src2[m2.Globals[j].Header.End:m2.Globals[j].Span.End])
	tkEdited := strings.Replace(tkBody, "ret void", "store i32 9, ptr addrspace(1) null, align 4\n  ret void", 1)
	require.NotEqual(t, tkBody, tkEdited)
	g3 := &m2.Globals[j]
	src3 := append(append(append([]byte{}, src2[:g3.Header.End]...), tkEdited...), src2[g3.Span.End:]...)
	m3, err := Parse("lto3.ll", src3)
	require.NoError(t, err)
	for _, n := range []int{2, 3, 8, 32} {
		a, err := m.Partition(n)
		require.NoError(t, err)
		b, err := m2.Partition(n)
		require.NoError(t, err)
		c, err := m3.Partition(n)
		require.NoError(t, err)
		changed, changedTk := 0, 0
		for k := range a {
			if !bytes.Equal(a[k].IR, b[k].IR) {
				changed++
				assert.Equal(t, 0, k, "part %d changed", k)
			}
			if !bytes.Equal(b[k].IR, c[k].IR) {
				changedTk++
				assert.Equal(t, Home(tk, n), k, "part %d changed", k)
			}
		}
		assert.Equal(t, 1, changed, "%d parts", n)
		assert.Equal(t, 1, changedTk, "%d parts", n)
	}
}

// TestCanonicalNumbering: attribute groups and metadata are renumbered in
// order of first use; strings stay.
func TestCanonicalNumbering(t *testing.T) {
	in := "; comment\ndefine void @f() #7 { ; trailing\n  ret void, !dbg !42\n}\n@s = constant [4 x i8] c\"#9!3\\00\"\nattributes #7 = { nounwind }\n!42 = !{!5}\n!5 = !{}\n"
	want := "; comment\ndefine void @f() #0 { ; trailing\n  ret void, !dbg !0\n}\n@s = constant [4 x i8] c\"#9!3\\00\"\nattributes #0 = { nounwind }\n!0 = !{!1}\n!1 = !{}\n"
	assert.Equal(t, want, string(canonicalNumbering([]byte(in))))
}

// FuzzPartition: any module Parse accepts partitions without a panic, and
// every part parses again.
func FuzzPartition(f *testing.F) {
	f.Add(readLTO(f), uint8(3))
	f.Add([]byte("define amdgpu_kernel void @k() {\n  call void @g()\n  ret void\n}\ndefine internal void @g() {\n  ret void\n}\n"), uint8(2))
	f.Add([]byte("@t = global [1 x ptr] [ptr @f]\ndefine internal void @f() {\n  ret void\n}\n@llvm.used = appending global [1 x ptr] [ptr @t], section \"llvm.metadata\"\n"), uint8(4))
	f.Fuzz(func(t *testing.T, src []byte, n uint8) {
		m, err := Parse("fuzz.ll", src)
		if err != nil {
			return
		}
		parts, err := m.Partition(int(n%9) + 1)
		if err != nil {
			assert.Nil(t, parts)
			return
		}
		for _, p := range parts {
			if _, err := Parse("part.ll", p.IR); err != nil {
				t.Fatalf("part %d does not parse: %v\n%s", p.Index, err, p.IR)
			}
		}
	})
}
