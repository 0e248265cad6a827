package split

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// needTool returns the path of an LLVM 22 or SPIRV-Tools program. Unlike
// tool, a missing program fails the test: the SPIR-V cross-check is the
// point of these tests. -short still skips them.
func needTool(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("LLVM cross-checks skipped with -short")
	}
	p := filepath.Join(llvmBin, name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	q, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is needed (looked in %s and $PATH)", name, llvmBin)
	}
	return q
}

// spirvModule is the part of a spirv-dis --raw-id listing that spec
// constants need.
type spirvModule struct {
	defs   map[string][]string // result id → opcode and operands
	specID map[string]string   // id → SpecId decoration
	order  []string            // spec constants, in listing order
}

var spirvLineRe = regexp.MustCompile(`^\s*(?:(%\d+) = )?(Op\w+)(.*)$`)

func parseSPIRV(dis string) *spirvModule {
	s := &spirvModule{defs: map[string][]string{}, specID: map[string]string{}}
	for _, l := range strings.Split(dis, "\n") {
		m := spirvLineRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ops := strings.Fields(m[3])
		if m[2] == "OpDecorate" && len(ops) == 3 && ops[1] == "SpecId" {
			s.specID[ops[0]] = ops[2]
		}
		if m[1] == "" {
			continue
		}
		s.defs[m[1]] = append([]string{m[2]}, ops...)
		if strings.HasPrefix(m[2], "OpSpecConstant") {
			s.order = append(s.order, m[1])
		}
	}
	return s
}

// render spells a constant as a tree: #<SpecId>=<default> for a spec
// constant, undef, and S{…}, A{…} or V{…} for a composite of struct, array
// or vector type.
func (s *spirvModule) render(id string) string {
	d := s.defs[id]
	if len(d) == 0 {
		return "?" + id
	}
	sid, ok := s.specID[id]
	if !ok {
		sid = "<no SpecId>"
	}
	switch d[0] {
	case "OpSpecConstant":
		return "#" + sid + "=" + strings.Join(d[2:], " ")
	case "OpSpecConstantTrue":
		return "#" + sid + "=true"
	case "OpSpecConstantFalse":
		return "#" + sid + "=false"
	case "OpUndef":
		return "undef"
	case "OpSpecConstantComposite":
		kind := map[string]string{"OpTypeStruct": "S", "OpTypeArray": "A", "OpTypeVector": "V"}[s.defs[d[1]][0]]
		parts := make([]string, len(d)-2)
		for i, op := range d[2:] {
			parts[i] = s.render(op)
		}
		return kind + "{" + strings.Join(parts, ",") + "}"
	}
	return d[0] + " " + id
}

// roots renders the spec constants that are not a constituent of a
// composite, in listing order.
func (s *spirvModule) roots() []string {
	inner := map[string]bool{}
	for _, id := range s.order {
		if d := s.defs[id]; d[0] == "OpSpecConstantComposite" {
			for _, op := range d[2:] {
				inner[op] = true
			}
		}
	}
	var out []string
	for _, id := range s.order {
		if !inner[id] {
			out = append(out, s.render(id))
		}
	}
	return out
}

// The fixtures of testdata/specconst-native are described in its README.
func TestSpecConstCompositeNative(t *testing.T) {
	opt, llc := needTool(t, "opt"), needTool(t, "llc")
	spirvVal, spirvDis := needTool(t, "spirv-val"), needTool(t, "spirv-dis")
	needTool(t, "llvm-as")
	needTool(t, "llvm-dis")
	for _, tc := range []struct {
		file  string
		roots []string // the spec constants of the SPIR-V, as render spells them
		ir    []string // lines of the rewritten IR
		descs map[string][]SpecDesc
	}{{
		file: "specconst-native.ll",
		roots: []string{
			"S{#0=112,#1=4294967293,#2=113}",                            // Pad: interior and tail padding
			"S{S{#3=1,#4=0.5},#5=2.25,A{S{#6=3,#7=1.5},S{#8=4,#9=-2}}}", // nested struct and array
			"V{#10=1,#11=2,#12=3,#13=4}",
			"V{#14=5,#15=6}",
			"S{#16=1,#17=9}",                 // bool member (an i8)
			"S{#18=97,undef,#26=11,undef}",   // explicit padding: IDs 19-25 and 27-30 used up
			"#31=1",                          // bool scalar: i8 call, then trunc
			"S{#0=112,#1=4294967293,#2=113}", // second use of uid_pad: same IDs
		},
		ir: []string{
			"%sc1.v = call spir_func %struct.Pad @_Z29__spirv_SpecConstantCompositeaia_Rstruct.Pad(i8 %sc1.0, i32 %sc1.1, i8 %sc1.2)",
			"store %struct.Pad %sc1.v, ptr %p.i, align 4",
			"%sc2.c1 = call spir_func %struct.In @_Z29__spirv_SpecConstantCompositesf_Rstruct.In(i16 %sc2.0, float %sc2.1)",
			"%sc2.c2 = call spir_func [2 x %struct.In] @_Z29__spirv_SpecConstantCompositestruct.Instruct.In_RA2_struct.In(%struct.In %sc2.c3, %struct.In %sc2.c4)",
			"%sc2.v = call spir_func %struct.Out @_Z29__spirv_SpecConstantCompositestruct.IndA2_struct.In_Rstruct.Out(%struct.In %sc2.c1, double %sc2.2, [2 x %struct.In] %sc2.c2)",
			"store %struct.Out %sc2.v, ptr %o.i, align 8",
			"%call.i = call spir_func <4 x float> @_Z29__spirv_SpecConstantCompositeffff_RDv4_f(float %sc3.0, float %sc3.1, float %sc3.2, float %sc3.3)",
			"%sc6.v = call spir_func %struct.Al @_Z29__spirv_SpecConstantCompositeaA7_aiA4_a_Rstruct.Al(i8 %sc6.0, [7 x i8] undef, i32 %sc6.8, [4 x i8] undef)",
			"%sc7 = call spir_func i8 @_Z20__spirv_SpecConstantia(i32 31, i8 1)",
			"%call3.i = trunc i8 %sc7 to i1",
			"declare spir_func <2 x i16> @_Z29__spirv_SpecConstantCompositess_RDv2_s(i16, i16)",
		},
		descs: map[string][]SpecDesc{
			"uid_pad": {{0, 0, 1}, {1, 4, 4}, {2, 8, 1}, {0xFFFFFFFF, 9, 3}},
			"uid_al":  {{18, 0, 1}, {26, 8, 4}, {0xFFFFFFFF, 12, 4}},
		},
	}, {
		file: "direct.ll",
		roots: []string{
			"A{#0=1,#1=2,#2=3}",
			"S{#3=4294967295,#4=0.25}",
			"S{#5=7,#6=8}",
			"S{#7=5,V{#8=1,#9=2}}",
			"V{#10=true,#11=false}",
			"S{#12=3,undef,#15=4}",
			"S{#16=0,#17=false}",
			"A{#18=104,#19=105,#20=0}",
			"S{#21=0x1p+0,#22=2,#23=18446744073709551611}",
			"A{#0=1,#1=2,#2=3}",
		},
		ir: []string{
			"%arr = call spir_func [3 x i32] @_Z29__spirv_SpecConstantCompositeiii_RA3_i(i32 %sc1.0, i32 %sc1.1, i32 %sc1.2)",
			`%lit = call spir_func { i32, float } @"_Z29__spirv_SpecConstantCompositeif_R{i32,float}"(i32 %sc2.0, float %sc2.1)`,
			`%pk = call spir_func <{ i8, i32 }> @"_Z29__spirv_SpecConstantCompositeai_R<{i8,i32}>"(i8 %sc3.0, i32 %sc3.1)`,
			`%ns = call spir_func %"struct.n::S" @"_Z29__spirv_SpecConstantCompositeiDv2_f_Rstruct.n::S"(i32 %sc4.0, <2 x float> %sc4.c1)`,
			"%sc5.0 = call spir_func i1 @_Z20__spirv_SpecConstantib(i32 10, i1 true)",
			"%u = call spir_func %struct.U @_Z29__spirv_SpecConstantCompositesA2_ai_Rstruct.U(i16 %sc6.0, [2 x i8] undef, i32 %sc6.3)",
			"%h = call spir_func %struct.H @_Z29__spirv_SpecConstantCompositeDhdx_Rstruct.H(half %sc9.0, double %sc9.1, i64 %sc9.2)",
		},
		descs: map[string][]SpecDesc{
			"uid_u": {{12, 0, 2}, {15, 4, 4}},
			"uid_z": {{16, 0, 4}, {17, 4, 1}, {0xFFFFFFFF, 5, 3}},
		},
	}} {
		t.Run(tc.file, func(t *testing.T) {
			m := parseFixture(t, filepath.Join("specconst-native", tc.file))
			x := m.NewExtractor(ClosureOptions{})
			p := Part{Entries: m.EntryPoints(false)}
			ir, cl := x.Emit(nil, &p)
			out, info, err := m.LowerSpecConsts(ir, SpecNative)
			require.NoError(t, err)
			for _, w := range tc.ir {
				if !bytes.Contains(out, []byte(w)) {
					t.Errorf("rewritten IR lacks %s", w)
				}
			}
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, "insertvalue") || strings.Contains(l, "call ") && strings.Contains(l, "SpecConstantValue") {
					t.Errorf("rewritten IR has %s", strings.TrimSpace(l))
				}
			}

			// (a) the IR is valid
			runTool(t, out, opt, "-passes=verify", "-disable-output", "-")

			// (b) the SPIR-V is valid and has the composites. The lowering
			// drops the dead specialization_id globals itself: LLVM 22's
			// SPIR-V backend aborts ("unable to translate instruction: call
			// llvm.spv.const.composite") on a global whose initializer has
			// an undef aggregate member (a struct with alignas padding), so
			// llc runs on the lowered IR as the driver does.
			dce := out
			spv := filepath.Join(t.TempDir(), "part.spv")
			runTool(t, dce, llc, "-mtriple=spirv64-unknown-unknown", "-filetype=obj", "-", "-o", spv)
			runTool(t, nil, spirvVal, spv)
			dis := runTool(t, nil, spirvDis, "--raw-id", spv)
			assert.Contains(t, string(dis), "OpSpecConstantComposite")
			assert.Equal(t, tc.roots, parseSPIRV(string(dis)).roots())

			// (c) the metadata and property sets are those of the
			// insertvalue lowering this replaced (captured in the golden
			// file before the change)
			for _, c := range info.Consts {
				if want, ok := tc.descs[c.SymID]; ok {
					assert.Equal(t, want, c.Descs, c.SymID)
				}
			}
			var got bytes.Buffer
			k := bytes.Index(out, []byte("\n!sycl.specialization-constants = "))
			require.GreaterOrEqual(t, k, 0)
			for _, l := range strings.SplitAfter(string(out[k:]), "\n") {
				if regexp.MustCompile(`^!\d+ = !\{!"`).MatchString(l) {
					got.WriteString(l)
				}
			}
			got.WriteString(m.Properties(&p, cl, PropOptions{SpecConsts: info}).Text())
			want, err := os.ReadFile(filepath.Join("testdata", "specconst-native", strings.TrimSuffix(tc.file, ".ll")+".native.golden"))
			require.NoError(t, err)
			assert.Equal(t, string(want), got.String())
		})
	}
}

// TestSpecConstCompositeAllModes checks that every mode writes valid IR
// for the array, vector and literal-struct types of the fixtures (the
// squeezed type text "[3xi32]" is not IR) and for composites without
// scalars.
func TestSpecConstCompositeAllModes(t *testing.T) {
	opt := needTool(t, "opt")
	needTool(t, "llvm-as")
	needTool(t, "llvm-dis")
	for _, f := range []string{"specconst-native.ll", "direct.ll", "empty.ll"} {
		m := parseFixture(t, filepath.Join("specconst-native", f))
		x := m.NewExtractor(ClosureOptions{})
		p := Part{Entries: m.EntryPoints(false)}
		ir, _ := x.Emit(nil, &p)
		for _, mode := range []SpecMode{SpecNative, SpecEmulation, SpecDefault} {
			out, info, err := m.LowerSpecConsts(ir, mode)
			require.NoError(t, err, "%s mode %d", f, mode)
			require.True(t, info.Changed)
			runTool(t, out, opt, "-passes=verify", "-disable-output", "-")
		}
	}
}

func TestMangleSpecType(t *testing.T) {
	m, err := Parse("t.ll", []byte("%\"struct.n::S\" = type { i32, <2 x float> }\n%struct.P = type { i8, [2 x %\"struct.n::S\"] }\n"))
	require.NoError(t, err)
	for _, tc := range []struct{ typ, mangled, ir string }{
		{"i1", "b", "i1"},
		{"i8", "a", "i8"},
		{"i16", "s", "i16"},
		{"i32", "i", "i32"},
		{"i64", "x", "i64"},
		{"half", "Dh", "half"},
		{"float", "f", "float"},
		{"double", "d", "double"},
		{"[3xi32]", "A3_i", "[3 x i32]"},
		{"<4xhalf>", "Dv4_Dh", "<4 x half>"},
		{"[2x<2xi16>]", "A2_Dv2_s", "[2 x <2 x i16>]"},
		{`%"struct.n::S"`, "struct.n::S", `%"struct.n::S"`},
		{"%struct.P", "struct.P", "%struct.P"},
		{"{i32,float}", "{i32,float}", "{ i32, float }"},
		{"<{i8,[2xi8]}>", "<{i8,[2xi8]}>", "<{ i8, [2 x i8] }>"},
		{"{}", "{}", "{}"},
	} {
		ct, err := m.resolveType(tc.typ, 0)
		require.NoError(t, err, tc.typ)
		assert.Equal(t, tc.mangled, mangleType(ct), tc.typ)
		assert.Equal(t, tc.ir, ct.ir(), tc.typ)
	}
	assert.Equal(t, "@_Z20__spirv_SpecConstantii", globalName("_Z20__spirv_SpecConstantii"))
	assert.Equal(t, `@"_Rstruct.n::S"`, globalName("_Rstruct.n::S"))
	assert.Equal(t, `@"a\22b\5Cc"`, globalName(`a"b\c`))
}
