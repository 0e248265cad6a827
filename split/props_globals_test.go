package split

import (
	"errors"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// propBytes decodes the .prop text and returns the raw value (bit-count
// prefix included) of property name in set.
func propBytes(t *testing.T, text, set, name string) []byte {
	t.Helper()
	ps, err := syclprop.ParseText(strings.NewReader(text))
	require.NoError(t, err)
	for _, s := range ps {
		if s.Name != set {
			continue
		}
		for _, p := range s.Props {
			if p.Name == name {
				require.Equal(t, syclprop.ByteArray, p.Type)
				return p.Bytes
			}
		}
	}
	t.Fatalf("no %s in [%s] of\n%s", name, set, text)
	return nil
}

func TestDeviceGlobalsAndHostPipes(t *testing.T) {
	m := parseFixture(t, "features/globals.ll")
	dgs, err := m.DeviceGlobals()
	require.NoError(t, err)
	var ids []string
	for _, dg := range dgs {
		ids = append(ids, dg.UniqueID)
	}
	assert.Equal(t, []string{"uid_ext", "uid_scoped", "uid_off"}, ids)
	assert.Equal(t, DeviceGlobal{Var: int32(m.Lookup("dg_scoped")), UniqueID: "uid_scoped", Size: 8, ImageScope: true}, dgs[1])
	assert.False(t, dgs[2].ImageScope, `"sycl-device-image-scope"="false"`)

	parts := m.Split(Options{Mode: ModeKernel})
	require.NoError(t, m.VerifyGlobals(parts, ClosureOptions{}))
	got := emitParts(t, m, parts, PropOptions{ProgramMetadata: true})
	require.Len(t, got, 2)
	require.Equal(t, "k2", got[0].names)
	// @dg_ext is externally visible, so every part keeps it (and lists it);
	// @dg_off and @pipe only where used; @plain is no device global
	assert.Equal(t, "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n"+
		"[SYCL/program metadata]\nuid_ext@global_id_mapping=2|wAAAAAAAAAAZn9VZ4RH\nuid_off@global_id_mapping=2|wAAAAAAAAAAZn91bmZG\n"+
		"[SYCL/device globals]\nuid_ext=2|ABAAAAAAAAACAAAAAAAAAA\nuid_off=2|ABAAAAAAAAABAAAAAAAAAA\n"+
		"[SYCL/host pipes]\npipe_uid=2|gAAAAAAAAAABAAAA\n", got[0].props.Text())
	require.Equal(t, "k1", got[1].names)
	assert.Equal(t, "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n"+
		"[SYCL/program metadata]\nuid_ext@global_id_mapping=2|wAAAAAAAAAAZn9VZ4RH\nuid_scoped@global_id_mapping=2|IBAAAAAAAAAZn91cj9GclRG\n"+
		"[SYCL/device globals]\nuid_ext=2|ABAAAAAAAAACAAAAAAAAAA\nuid_scoped=2|ABAAAAAAAAACAAAABAAAAA\n", got[1].props.Text())

	// the bytes: {u32 size, u32 device_image_scope}, {u32 size}, the name
	k2, k1 := got[0].props.Text(), got[1].props.Text()
	assert.Equal(t, withBits(u32s(8, 0)), propBytes(t, k2, "SYCL/device globals", "uid_ext"))
	assert.Equal(t, withBits(u32s(4, 0)), propBytes(t, k2, "SYCL/device globals", "uid_off"))
	assert.Equal(t, withBits(u32s(8, 1)), propBytes(t, k1, "SYCL/device globals", "uid_scoped"))
	assert.Equal(t, withBits(u32s(4)), propBytes(t, k2, "SYCL/host pipes", "pipe_uid"))
	assert.Equal(t, withBits([]byte("dg_scoped")), propBytes(t, k1, "SYCL/program metadata", "uid_scoped@global_id_mapping"))

	js, err := got[0].props.MarshalJSONSets()
	require.NoError(t, err)
	assert.Equal(t, `{"SYCL/device globals":{"uid_ext":"CAAAAAAAAAA=","uid_off":"BAAAAAAAAAA="},`+
		`"SYCL/device requirements":{"aspects":""},"SYCL/devicelib req mask":{"DeviceLibReqMask":0},`+
		`"SYCL/host pipes":{"pipe_uid":"BAAAAA=="},`+
		`"SYCL/program metadata":{"uid_ext@global_id_mapping":"ZGdfZXh0","uid_off@global_id_mapping":"ZGdfb2Zm"}}`, string(js))
}

// A device_image_scope device global used by kernels of two images is
// intel's hard error; in one image it is fine. Being copied into an image
// as a non-discardable variable is not a use.
func TestDeviceImageScopeAcrossImages(t *testing.T) {
	src := string(canonical(t, "testdata/features/globals.ll")) + `
define spir_kernel void @k3(ptr addrspace(1) %out) {
entry:
  %b = load i64, ptr addrspace(1) @dg_scoped, align 8
  store i64 %b, ptr addrspace(1) %out, align 8
  ret void
}
`
	m, err := Parse("globals+k3.ll", []byte(src))
	require.NoError(t, err)
	err = m.VerifyGlobals(m.Split(Options{Mode: ModeKernel}), ClosureOptions{})
	var se *ImageScopeError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.EqualError(t, err, `device_global variable 'dg_scoped' with property "device_image_scope" is used in more than one device image.`)
	assert.NoError(t, m.VerifyGlobals(m.Split(Options{Mode: ModeNone}), ClosureOptions{}))
	assert.NoError(t, m.VerifyGlobals(m.Split(Options{Mode: ModeSource}), ClosureOptions{}), "one source: one image")
}

func TestDeviceGlobalAttributeErrors(t *testing.T) {
	for _, tc := range []struct{ attrs, want string }{
		{`"sycl-device-global-size"="4"`, `device global @v has no "sycl-unique-id" attribute`},
		{`"sycl-device-global-size"="x" "sycl-unique-id"="u"`, `device global @v: bad "sycl-device-global-size" "x"`},
		{`"sycl-host-pipe-size"="4"`, `host pipe @v has no "sycl-unique-id" attribute`},
	} {
		m, err := Parse("bad.ll", []byte("@v = addrspace(1) global i32 0, align 4 #0\n\nattributes #0 = { "+tc.attrs+" }\n"))
		require.NoError(t, err)
		assert.EqualError(t, m.VerifyGlobals(m.Split(Options{}), ClosureOptions{}), tc.want)
	}
}
