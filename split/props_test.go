package split

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func u32s(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

func withBits(data []byte) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, uint64(len(data))*8), data...)
}

// Test vectors of sycl.md §7.2 (from intel/llvm LIT tests).
var b64Vectors = []struct {
	enc string
	raw []byte
}{
	{"AAAAAAAAAAA", withBits(nil)},
	{"gAAAAAAAAAQBAAAA", withBits(u32s(5))},
	{"gBAAAAAAAAQBAAAAGAAAAkAAAAA", withBits(u32s(5, 6, 9))},
	{"ACAAAAAAAAQAAAAAGAAAAkAAAAADAAAA", withBits(u32s(1, 6, 9, 12))},
	{"ABAAAAAAAAAQAAAAAAAAAA", withBits(binary.LittleEndian.AppendUint64(nil, 64))},
	{"gAAAAAAAAAgBAAAA", withBits(u32s(6))},
	{"gBAAAAAAAAAAAAAAAAAAAQAAAAA", withBits(u32s(0, 0, 4))},
	{"gAAAAAAAAAgKAAAA", withBits(u32s(42))},
	{"hJ2Y", []byte("abc")},
}

func TestBase64Vectors(t *testing.T) {
	for _, v := range b64Vectors {
		assert.Equal(t, v.enc, string(EncodeBase64(nil, v.raw)), "encode %x", v.raw)
		got, err := DecodeBase64(nil, v.enc)
		require.NoError(t, err)
		assert.Equal(t, v.raw, got, "decode %s", v.enc)
	}
	_, err := DecodeBase64(nil, "AAAAA")
	assert.Error(t, err)
	_, err = DecodeBase64(nil, "AA=A")
	assert.Error(t, err)
}

func TestPropTextRoundTrip(t *testing.T) {
	var ps PropSets
	ps.Set("SYCL/devicelib req mask").AddU32("DeviceLibReqMask", 0)
	ps.Set("SYCL/device requirements").AddU32s("aspects", []uint32{6})
	ps.Set("SYCL/specialization constants").AddU32s("uid_abc", []uint32{0, 0, 4})
	ps.Set("SYCL/specialization constants default values").AddU32s("all", []uint32{42})
	want := "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|gAAAAAAAAAgBAAAA\n" +
		"[SYCL/specialization constants]\nuid_abc=2|gBAAAAAAAAAAAAAAAAAAAQAAAAA\n" +
		"[SYCL/specialization constants default values]\nall=2|gAAAAAAAAAgKAAAA\n"
	assert.Equal(t, want, ps.Text())
	back, err := ParseText(strings.NewReader(want))
	require.NoError(t, err)
	assert.Equal(t, ps, back)
	js, err := ps.MarshalJSONSets()
	require.NoError(t, err)
	assert.Equal(t, `{"SYCL/device requirements":{"aspects":"BgAAAA=="},"SYCL/devicelib req mask":{"DeviceLibReqMask":0},`+
		`"SYCL/specialization constants":{"uid_abc":"AAAAAAAAAAAEAAAA"},"SYCL/specialization constants default values":{"all":"KgAAAA=="}}`, string(js))
}

func TestPropTextErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a=1|2\n", "line 1: property category missing"},
		{"[c]\na=3|2\n", "line 2: bad property type"},
		{"[c]\na1|2\n", "line 2: expected name=type|value"},
		{"[c]\na=2|A\n", "line 2: split: invalid encoded sequence"},
		{"[c\n", "line 1: category name not closed"},
	} {
		_, err := ParseText(strings.NewReader(tc.in))
		if assert.Error(t, err, tc.in) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

func TestTable(t *testing.T) {
	tb := &Table{Columns: []string{"Code", "Properties", "Symbols"}, Rows: [][]string{{"a_0.bc", "a_0.prop", "a_0.sym"}}}
	var b strings.Builder
	_, err := tb.WriteTo(&b)
	require.NoError(t, err)
	assert.Equal(t, "[Code|Properties|Symbols]\na_0.bc|a_0.prop|a_0.sym\n", b.String())
	back, err := ParseTable(strings.NewReader(b.String()))
	require.NoError(t, err)
	assert.Equal(t, tb, back)
	_, err = ParseTable(strings.NewReader("[A|B]\nx\n"))
	assert.Error(t, err)
}

func TestPartProperties(t *testing.T) {
	m := parseFixture(t, "example.ll")
	x := m.NewExtractor(ClosureOptions{})
	props := func(n string) string {
		p := Part{Entries: []int32{int32(m.Lookup(n))}}
		return m.Properties(&p, x.Closure(p.Entries), PropOptions{ProgramMetadata: true}).Text()
	}
	assert.Equal(t, "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|gAAAAAAAAAgBAAAA\n", props("k_double"))
	assert.Equal(t, "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n", props("k_conv"))
	got := props("k_float")
	assert.Contains(t, got, "reqd_work_group_size_uint64_t=2|")
	assert.Contains(t, got, "[SYCL/program metadata]\nk_float@reqd_work_group_size=2|")
	ps, err := ParseText(strings.NewReader(got))
	require.NoError(t, err)
	wg := ps.Set("SYCL/device requirements").Props[1]
	assert.Equal(t, withBits(append(binary.LittleEndian.AppendUint64(nil, 8), append(binary.LittleEndian.AppendUint64(nil, 1), binary.LittleEndian.AppendUint64(nil, 1)...)...)), wg.Bytes)
}
