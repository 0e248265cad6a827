package syclprop

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
	assert.ErrorIs(t, err, ErrBase64)
	_, err = DecodeBase64(nil, "AA=A")
	assert.ErrorIs(t, err, ErrBase64)
}

func TestTextRoundTrip(t *testing.T) {
	var ps Sets
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

func TestTextErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a=1|2\n", "line 1: property category missing"},
		{"[c]\na=3|2\n", "line 2: bad property type"},
		{"[c]\na1|2\n", "line 2: expected name=type|value"},
		{"[c]\na=2|A\n", "line 2: syclprop: invalid encoded sequence"},
		{"[c\n", "line 1: category name not closed"},
	} {
		_, err := ParseText(strings.NewReader(tc.in))
		if assert.Error(t, err, tc.in) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

// TestStringNotText: a String property (runtime type 3) has no text form;
// what WriteText writes for it does not read back.
func TestStringNotText(t *testing.T) {
	var ps Sets
	ps.Set("SYCL/misc properties").Props = append(ps.Set("SYCL/misc properties").Props, Prop{Name: "sanUsed", Type: String, Bytes: []byte("asan")})
	assert.Equal(t, "[SYCL/misc properties]\nsanUsed=3|\n", ps.Text())
	_, err := ParseText(strings.NewReader(ps.Text()))
	assert.ErrorContains(t, err, "line 2: ")
}

// FuzzParseText: any text parses or fails without panicking, and what
// parses is written back as text that parses to the same sets.
func FuzzParseText(f *testing.F) {
	for _, s := range []string{
		"[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|gAAAAAAAAAgBAAAA\n",
		"[a]b]\nk=2|hJ2Y\n\n[a]b]\nj=1|99999999999999999999999\n", "[]\nx|y=1|1\r\n", "[S]\nx=2|A\n", "x=1|1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ps, err := ParseText(strings.NewReader(text))
		if err != nil {
			return
		}
		back, err := ParseText(strings.NewReader(ps.Text()))
		require.NoError(t, err, "text %q", ps.Text())
		require.Equal(t, ps, back)
	})
}
