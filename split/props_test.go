package split

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format/syclprop"
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
	ps, err := syclprop.ParseText(strings.NewReader(got))
	require.NoError(t, err)
	wg := ps.Set("SYCL/device requirements").Props[1]
	assert.Equal(t, withBits(append(binary.LittleEndian.AppendUint64(nil, 8), append(binary.LittleEndian.AppendUint64(nil, 1), binary.LittleEndian.AppendUint64(nil, 1)...)...)), wg.Bytes)
}
