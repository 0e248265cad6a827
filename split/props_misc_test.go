package split

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sanUsed: a byte array "asan", "msan" or "tsan" after the other misc
// entries; the misc set opens after SYCL/assert used (and SYCL/implicit
// local arg) when sanUsed is its first entry.
func TestSanitizerUsed(t *testing.T) {
	m := parseFixture(t, "features/sanitizer.ll")
	got := emitParts(t, m, m.Split(Options{Mode: ModeKernel}), PropOptions{})
	require.Len(t, got, 2)
	require.Equal(t, "k2", got[0].names)
	const head = "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n"
	assert.Equal(t, head+"[SYCL/misc properties]\nsycl-grf-size=1|256\nsanUsed=2|gAAAAAAAAAQYzFmb\n", got[0].props.Text())
	assert.Equal(t, withBits([]byte("asan")), propBytes(t, got[0].props.Text(), "SYCL/misc properties", "sanUsed"))
	require.Equal(t, "k1", got[1].names)
	assert.Equal(t, "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|1\n[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n"+
		"[SYCL/assert used]\nk1=1|1\n[SYCL/misc properties]\nsanUsed=2|gAAAAAAAAAQYzFmb\n"+
		"[SYCL/device globals]\ndg_uid=2|ABAAAAAAAAABAAAAAAAAAA\n", got[1].props.Text())
	assert.Contains(t, got[1].ir, "@__AsanKernelMetadata = appending addrspace(1) global [1 x i64] zeroinitializer")
	js, err := got[1].props.MarshalJSONSets()
	require.NoError(t, err)
	assert.Equal(t, `{"SYCL/assert used":{"k1":1},"SYCL/device globals":{"dg_uid":"BAAAAAAAAAA="},`+
		`"SYCL/device requirements":{"aspects":""},"SYCL/devicelib req mask":{"DeviceLibReqMask":1},`+
		`"SYCL/misc properties":{"sanUsed":"YXNhbg=="}}`, string(js))

	src := string(canonical(t, "testdata/features/sanitizer.ll"))
	for _, tc := range []struct{ vars, want string }{
		{"@__MsanKernelMetadata", "msan"},
		{"@__TsanKernelMetadata", "tsan"},
		{"@__AsanKernelMetadata_m1", "asan"}, // newer intel: a per-module suffix
		{"@__MsanKernelMetadata = appending addrspace(1) global [1 x i64] zeroinitializer\n@__AsanKernelMetadata", "asan"},
		{"@__TsanKernelMetadata = appending addrspace(1) global [1 x i64] zeroinitializer\n@__MsanKernelMetadata", "msan"},
		{"@AsanKernelMetadata", ""},
	} {
		v, err := Parse("sanitizer.ll", []byte(strings.Replace(src, "@__AsanKernelMetadata", tc.vars, 1)))
		require.NoError(t, err)
		k2 := Part{Entries: []int32{int32(v.Lookup("k2"))}}
		x := v.NewExtractor(ClosureOptions{})
		ps := v.Properties(&k2, x.Closure(k2.Entries), PropOptions{})
		text := ps.Text()
		if tc.want == "" {
			assert.NotContains(t, text, "sanUsed", tc.vars)
			continue
		}
		assert.Equal(t, withBits([]byte(tc.want)), propBytes(t, text, "SYCL/misc properties", "sanUsed"), tc.vars)
	}
}
