package split

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/format/syclprop"
)

// PropOptions select the optional property sets.
type PropOptions struct {
	ProgramMetadata bool // SYCL/program metadata
	ExportedSymbols bool // SYCL/exported symbols
	// ImportedSymbols adds SYCL/imported symbols (intel's
	// -emit-imported-symbols, which intel's driver always passes): the
	// declarations another image supplies (props_imports.go).
	ImportedSymbols bool
	// AllowDeviceImageDependencies is intel's
	// -allow-device-image-dependencies (-fsycl-allow-device-image-dependencies):
	// with ImportedSymbols, any declaration that looks like a
	// SYCL_EXTERNAL function is imported, not only the bfloat16 device
	// library's.
	AllowDeviceImageDependencies bool
	SpecConsts                   *SpecConstInfo
}

// Properties computes a part's property sets in intel's order (spec §7.5,
// ComputeModuleRuntimeInfo.cpp@46a4a43c): devicelib req mask, device
// requirements, spec constants, exported symbols, imported symbols,
// program metadata, misc properties (where its first entry is added),
// assert used, implicit local arg, device globals, host pipes, virtual
// functions, registered kernels. The misc entries are isEsimdImage,
// sycl-register-alloc-mode, sycl-grf-size and optLevel (before assert
// used), sanUsed (after implicit local arg) and
// specConstsReplacedWithDefault (after host pipes).
func (m *Module) Properties(p *Part, cl *Closure, opts PropOptions) syclprop.Sets {
	var ps syclprop.Sets
	f := m.PartFeatures(p, cl)
	ps.Set("SYCL/devicelib req mask").AddU32("DeviceLibReqMask", m.DeviceLibReqMask(cl))
	req := ps.Set("SYCL/device requirements")
	var asp []uint32
	for _, a := range f.Aspects {
		if a >= 0 {
			asp = append(asp, uint32(a))
		}
	}
	req.AddU32s("aspects", asp) // always present, possibly empty
	if len(f.JointMatrix) > 0 {
		s := f.JointMatrix[0]
		req.AddBytes("joint_matrix", []byte(s), uint64(len(s))*8)
	}
	if len(f.JointMatrixMad) > 0 {
		s := f.JointMatrixMad[0]
		req.AddBytes("joint_matrix_mad", []byte(s), uint64(len(s))*8)
	}
	if len(f.ReqdSubGroupSize) > 0 {
		req.AddU32("reqd_sub_group_size", uint32(f.ReqdSubGroupSize[0]))
	}
	if len(f.ReqdWorkGroup) > 0 {
		var v []uint64
		for _, x := range f.ReqdWorkGroup {
			v = append(v, uint64(x))
		}
		req.AddU64s("reqd_work_group_size_uint64_t", v)
	}
	if len(f.WorkGroupNumDim) > 0 {
		req.AddU32("work_group_num_dim", uint32(f.WorkGroupNumDim[0]))
	}
	if sc := opts.SpecConsts; sc != nil && sc.Changed {
		s := ps.Set("SYCL/specialization constants")
		for _, c := range sc.Consts {
			var b []byte
			for _, d := range c.Descs {
				b = binary.LittleEndian.AppendUint32(b, d.ID)
				b = binary.LittleEndian.AppendUint32(b, d.Offset)
				b = binary.LittleEndian.AppendUint32(b, d.Size)
			}
			s.AddBytes(c.SymID, b, uint64(len(b))*8)
		}
		ps.Set("SYCL/specialization constants default values").AddBytes("all", sc.Defaults, uint64(len(sc.Defaults))*8)
	}
	if opts.ExportedSymbols {
		var ex []string
		for _, e := range p.Entries {
			g := &m.Globals[e]
			if _, vf := m.Attr(g, "indirectly-callable"); g.CC == "spir_func" && !vf {
				ex = append(ex, g.Name()) // virtual functions are linked by set instead
			}
		}
		if len(ex) > 0 {
			s := ps.Set("SYCL/exported symbols")
			for _, n := range ex {
				s.AddU32(n, 1)
			}
		}
	}
	if opts.ImportedSymbols {
		if im := m.importedSymbols(cl, opts.AllowDeviceImageDependencies); len(im) > 0 {
			s := ps.Set("SYCL/imported symbols")
			for _, n := range im {
				s.AddU32(n, 1)
			}
		}
	}
	if opts.ProgramMetadata {
		pm := ps.Set("SYCL/program metadata")
		for _, e := range p.Entries {
			g := &m.Globals[e]
			if v := m.attachInts(g, "reqd_work_group_size"); len(v) > 0 {
				var u []uint32
				for _, x := range v {
					u = append(u, uint32(x))
				}
				pm.AddU32s(g.Name()+"@reqd_work_group_size", u)
			}
			if v := m.attachInts(g, "work_group_num_dim"); len(v) > 0 {
				pm.AddU32(g.Name()+"@work_group_num_dim", uint32(v[0]))
			}
		}
		m.addGlobalIDMapping(pm, cl)
		if len(pm.Props) == 0 {
			ps = ps[:len(ps)-1]
		}
	}
	// SYCL/misc properties: isEsimdImage, the first entry point's values
	// of the register-allocation, GRF-size and optimisation-level
	// attributes (no optLevel for an image mixing ESIMD and SYCL entry
	// points), and specConstsReplacedWithDefault further down
	var esimd, sycl bool
	for _, e := range p.Entries {
		if m.IsESIMD(e) {
			esimd = true
		} else {
			sycl = true
		}
	}
	addMisc := func(name string, v uint32) {
		ps.Set("SYCL/misc properties").AddU32(name, v)
	}
	if esimd && !sycl {
		addMisc("isEsimdImage", 1)
	}
	for _, a := range []struct{ attr, prop string }{
		{"sycl-register-alloc-mode", "sycl-register-alloc-mode"},
		{"sycl-grf-size", "sycl-grf-size"},
		{"sycl-optlevel", "optLevel"},
	} {
		if a.prop == "optLevel" && esimd && sycl {
			continue
		}
		for _, e := range p.Entries {
			if v, ok := m.Attr(&m.Globals[e], a.attr); ok {
				if n, err := strconv.ParseUint(v, 10, 32); err == nil {
					addMisc(a.prop, uint32(n))
				}
				break
			}
		}
	}
	if f.AssertUsed {
		au := ps.Set("SYCL/assert used")
		for _, e := range p.Entries {
			if m.Globals[e].IsKernel() && m.reachesAssert(e, cl) {
				au.AddU32(m.Globals[e].Name(), 1)
			}
		}
	}
	m.addImplicitLocalArgs(&ps, p)
	if san := m.sanitizerUsed(cl); san != "" {
		ps.Set("SYCL/misc properties").AddBytes("sanUsed", []byte(san), uint64(len(san))*8)
	}
	m.addDeviceGlobals(&ps, cl)
	m.addHostPipes(&ps, cl)
	if sc := opts.SpecConsts; sc != nil && sc.DefaultValues {
		addMisc("specConstsReplacedWithDefault", 1)
	}
	m.addVirtualFunctions(&ps, cl)
	m.addRegisteredKernels(&ps, cl)
	return ps
}

// Sanitizer instrumentation leaves a kernel-metadata variable in the
// module, which every part keeps (its appending linkage is not
// discardable). intel (isModuleUsingAsan/Msan/Tsan,
// ComputeModuleRuntimeInfo.cpp@46a4a43c) looks the names up exactly;
// newer versions, which give the variable a per-module suffix, match the
// prefix, as here.
var sanitizerMetadata = [...]struct{ prefix, name string }{
	{"__AsanKernelMetadata", "asan"},
	{"__MsanKernelMetadata", "msan"},
	{"__TsanKernelMetadata", "tsan"},
}

// sanitizerUsed returns the sanUsed value of a part ("asan", "msan" or
// "tsan", in that order of precedence), or "" when the part keeps no
// sanitizer kernel-metadata variable.
func (m *Module) sanitizerUsed(cl *Closure) string {
	for _, s := range sanitizerMetadata {
		for _, i := range cl.Globals {
			if g := &m.Globals[i]; g.Kind == Variable && strings.HasPrefix(g.Name(), s.prefix) {
				return s.name
			}
		}
	}
	return ""
}

// reachesAssert reports whether __devicelib_assert_fail is called from
// function e's closure (through direct references), leaving out the
// bodies the part does not keep (cl.Decls).
func (m *Module) reachesAssert(e int32, cl *Closure) bool {
	seen := map[int32]bool{e: true}
	stack := []int32{e}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cl.DropsBody(i) {
			continue
		}
		if m.Globals[i].assert {
			return true
		}
		for _, r := range m.Globals[i].Refs.Globals {
			if !seen[r] {
				seen[r] = true
				stack = append(stack, r)
			}
		}
	}
	return false
}

// Table is a .table file: a title row of column names and rows of cells
// (spec §8.1).
type Table struct {
	Columns []string
	Rows    [][]string
}

// WriteTo writes "[A|B]\n" and one "a|b\n" line per row.
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	b.WriteString("[" + strings.Join(t.Columns, "|") + "]\n")
	for _, r := range t.Rows {
		b.WriteString(strings.Join(r, "|"))
		b.WriteByte('\n')
	}
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

// ParseTable reads a .table file; every row needs one cell per column.
func ParseTable(r io.Reader) (*Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	if !sc.Scan() {
		return nil, errors.New("table: missing title line")
	}
	title := sc.Text()
	if len(title) < 2 || title[0] != '[' || title[len(title)-1] != ']' {
		return nil, fmt.Errorf("table: line 1: title must be [col|…]")
	}
	t := &Table{Columns: strings.Split(title[1:len(title)-1], "|")}
	line := 1
	for sc.Scan() {
		line++
		if sc.Text() == "" {
			continue
		}
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != len(t.Columns) {
			return nil, fmt.Errorf("table: line %d: %d cells, want %d", line, len(cells), len(t.Columns))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t, sc.Err()
}
