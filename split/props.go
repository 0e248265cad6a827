package split

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Property value types of the .prop format (spec §7.1).
const (
	PropUint32    = 1
	PropByteArray = 2
)

// Prop is one property. For byte arrays, Bytes holds the raw value
// including its 8-byte little-endian bit-count prefix.
type Prop struct {
	Name  string
	Type  int
	U32   uint32
	Bytes []byte
}

// PropSet is a named category of properties in insertion order.
type PropSet struct {
	Name  string
	Props []Prop
}

// PropSets is an ordered registry of property sets.
type PropSets []PropSet

// Set returns the set named name, adding it at the end when missing.
func (ps *PropSets) Set(name string) *PropSet {
	for i := range *ps {
		if (*ps)[i].Name == name {
			return &(*ps)[i]
		}
	}
	*ps = append(*ps, PropSet{Name: name})
	return &(*ps)[len(*ps)-1]
}

// AddU32 appends a UINT32 property.
func (s *PropSet) AddU32(name string, v uint32) {
	s.Props = append(s.Props, Prop{Name: name, Type: PropUint32, U32: v})
}

// AddBytes appends a byte-array property of data with bits significant
// bits (the prefix is added here).
func (s *PropSet) AddBytes(name string, data []byte, bits uint64) {
	raw := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(data)), bits)
	s.Props = append(s.Props, Prop{Name: name, Type: PropByteArray, Bytes: append(raw, data...)})
}

// AddU32s appends a byte array of little-endian uint32 values.
func (s *PropSet) AddU32s(name string, v []uint32) {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	s.AddBytes(name, b, uint64(len(b))*8)
}

// AddU64s appends a byte array of little-endian uint64 values.
func (s *PropSet) AddU64s(name string, v []uint64) {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	s.AddBytes(name, b, uint64(len(b))*8)
}

// Data returns a byte array's payload without the bit-count prefix.
func (p *Prop) Data() []byte {
	if len(p.Bytes) < 8 {
		return nil
	}
	return p.Bytes[8:]
}

const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// EncodeBase64 is intel's non-standard Base64 (spec §7.2): the standard
// alphabet, 6-bit fields taken least-significant bit first, no padding.
func EncodeBase64(dst, src []byte) []byte {
	T := b64Alphabet
	for len(src) >= 3 {
		b0, b1, b2 := src[0], src[1], src[2]
		dst = append(dst, T[b0&63], T[(b1<<2|b0>>6)&63], T[(b2<<4|b1>>4)&63], T[(b2>>2)&63])
		src = src[3:]
	}
	switch len(src) {
	case 1:
		dst = append(dst, T[src[0]&63], T[src[0]>>6])
	case 2:
		b0, b1 := src[0], src[1]
		dst = append(dst, T[b0&63], T[(b1<<2|b0>>6)&63], T[b1>>4])
	}
	return dst
}

// ErrBase64 reports an invalid intel Base64 sequence.
var ErrBase64 = errors.New("split: invalid encoded sequence")

func b64val(c byte) (byte, bool) {
	switch {
	case c >= 'A' && c <= 'Z':
		return c - 'A', true
	case c >= 'a' && c <= 'z':
		return c - 'a' + 26, true
	case c >= '0' && c <= '9':
		return c - '0' + 52, true
	case c == '+':
		return 62, true
	case c == '/':
		return 63, true
	}
	return 0, false
}

// DecodeBase64 inverts EncodeBase64. A final group of one character is
// an error ("invalid encoded sequence length").
func DecodeBase64(dst []byte, src string) ([]byte, error) {
	if len(src)%4 == 1 {
		return nil, fmt.Errorf("%w length %d", ErrBase64, len(src))
	}
	var v [4]byte
	for i := 0; i < len(src); i += 4 {
		n := min(4, len(src)-i)
		for k := 0; k < n; k++ {
			x, ok := b64val(src[i+k])
			if !ok {
				return nil, fmt.Errorf("%w: bad character %q at %d", ErrBase64, src[i+k], i+k)
			}
			v[k] = x
		}
		dst = append(dst, v[0]|v[1]<<6)
		if n > 2 {
			dst = append(dst, v[1]>>2|v[2]<<4)
		}
		if n > 3 {
			dst = append(dst, v[2]>>4|v[3]<<2)
		}
	}
	return dst, nil
}

// WriteText writes the sets in intel's .prop text format.
func (ps PropSets) WriteText(w io.Writer) error {
	var b []byte
	for _, s := range ps {
		b = append(b, '[')
		b = append(b, s.Name...)
		b = append(b, "]\n"...)
		for _, p := range s.Props {
			b = append(b, p.Name...)
			b = append(b, '=')
			b = strconv.AppendInt(b, int64(p.Type), 10)
			b = append(b, '|')
			switch p.Type {
			case PropUint32:
				b = strconv.AppendUint(b, uint64(p.U32), 10)
			case PropByteArray:
				b = EncodeBase64(b, p.Bytes)
			}
			b = append(b, '\n')
		}
	}
	_, err := w.Write(b)
	return err
}

// Text returns the .prop text.
func (ps PropSets) Text() string {
	var b bytes.Buffer
	_ = ps.WriteText(&b)
	return b.String()
}

// ParseText reads intel's .prop text format (spec §7.1). Errors name the
// line.
func ParseText(r io.Reader) (PropSets, error) {
	var ps PropSets
	var cur *PropSet
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<30)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if l == "" {
			continue
		}
		if l[0] == '[' {
			e := strings.LastIndexByte(l, ']')
			if e < 1 {
				return nil, fmt.Errorf("line %d: category name not closed by ']'", line)
			}
			cur = ps.Set(l[1:e])
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("line %d: property category missing", line)
		}
		name, rest, ok := strings.Cut(l, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("line %d: expected name=type|value", line)
		}
		typ, val, ok := strings.Cut(rest, "|")
		if !ok || typ == "" || val == "" {
			return nil, fmt.Errorf("line %d: expected name=type|value", line)
		}
		t, err := strconv.Atoi(typ)
		if err != nil || t < 0 || t > 2 {
			return nil, fmt.Errorf("line %d: bad property type %q", line, typ)
		}
		switch t {
		case PropUint32:
			n, ok := new(big.Int).SetString(val, 10)
			if !ok {
				return nil, fmt.Errorf("line %d: bad uint32 value %q", line, val)
			}
			cur.AddU32(name, uint32(n.Uint64()))
		case PropByteArray:
			raw, err := DecodeBase64(nil, val)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			cur.Props = append(cur.Props, Prop{Name: name, Type: PropByteArray, Bytes: raw})
		default:
			return nil, fmt.Errorf("line %d: unsupported property type 0", line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return ps, nil
}

// MarshalJSONSets writes LLVM's JSON property-set format (spec §7.7):
// sets and keys sorted, uint32 values as numbers, byte arrays as standard
// Base64 of the payload without the bit-count prefix.
func (ps PropSets) MarshalJSONSets() ([]byte, error) {
	type entry struct {
		k string
		v any
	}
	names := make([]string, 0, len(ps))
	byName := map[string]*PropSet{}
	for i := range ps {
		if _, dup := byName[ps[i].Name]; !dup {
			names = append(names, ps[i].Name)
		}
		byName[ps[i].Name] = &ps[i]
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		b.Write(k)
		b.WriteString(":{")
		props := append([]Prop(nil), byName[n].Props...)
		sort.SliceStable(props, func(a, c int) bool { return props[a].Name < props[c].Name })
		for j, p := range props {
			if j > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(p.Name)
			b.Write(k)
			b.WriteByte(':')
			if p.Type == PropUint32 {
				b.WriteString(strconv.FormatUint(uint64(p.U32), 10))
			} else {
				v, _ := json.Marshal(base64.StdEncoding.EncodeToString(p.Data()))
				b.Write(v)
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

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
func (m *Module) Properties(p *Part, cl *Closure, opts PropOptions) PropSets {
	var ps PropSets
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
