package scan

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

func pkg(triple, arch string, kind format.OffloadKind) []byte {
	return offload.AppendBinary(nil, &offload.Image{ImageKind: format.ImgObject, OffloadKind: kind,
		Strings: []offload.KV{{Key: "triple", Value: triple}, {Key: "arch", Value: arch}}, Image: []byte("payload")})
}

func archive(t *testing.T, members ...ar.WriteMember) []byte {
	var b bytes.Buffer
	require.NoError(t, ar.WriteGNU(&b, members))
	return b.Bytes()
}

func TestRawAndArchive(t *testing.T) {
	raw := append(pkg("x86_64-unknown-linux-gnu", "generic", format.OfkOpenMP), pkg("amdgcn-amd-amdhsa", "gfx90a", format.OfkHIP)...)
	units, err := Input("p.out", raw, Options{})
	require.NoError(t, err)
	require.Len(t, units, 1)
	require.Len(t, units[0].Images, 2)
	assert.Equal(t, "gfx90a", units[0].Images[1].Get("arch"))

	inner := archive(t, ar.WriteMember{Name: "m.pkg", Data: raw})
	outer := archive(t, ar.WriteMember{Name: "inner.a", Data: inner}, ar.WriteMember{Name: "text.txt", Data: []byte("hi")})
	units, err = Input("lib.a", outer, Options{})
	require.NoError(t, err)
	require.Len(t, units, 2)
	assert.Equal(t, "lib.a(inner.a)(m.pkg)", units[0].Origin)
	assert.Equal(t, "m.pkg", units[0].Member)
	assert.Len(t, units[0].Images, 2)
	assert.Empty(t, units[1].Images, "non-offload members hold nothing")
}

func TestErrorsNameTheMember(t *testing.T) {
	bad := pkg("t", "a", format.OfkOpenMP)[:50]
	lib := archive(t, ar.WriteMember{Name: "bad.pkg", Data: bad})
	_, err := Input("lib.a", lib, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lib.a(bad.pkg): ")
	var fe *format.FormatError
	assert.True(t, errors.As(err, &fe))
}

func TestNestingLimit(t *testing.T) {
	data := pkg("t", "a", format.OfkOpenMP)
	for i := 0; i < MaxDepth+2; i++ {
		data = archive(t, ar.WriteMember{Name: "n.a", Data: data})
	}
	_, err := Input("deep.a", data, Options{})
	require.Error(t, err)
	assert.ErrorIs(t, err, format.ErrLimit)
}

func TestThinNeedsReader(t *testing.T) {
	thin := []byte("!<thin>\n")
	hdr := []byte("x.o/            0           0     0     644     10        `\n")
	_, err := Input("t.a", append(thin, hdr...), Options{})
	require.Error(t, err)
	units, err := Input("t.a", append(thin, hdr...), Options{ReadFile: func(p string) ([]byte, error) {
		assert.Equal(t, "x.o", p)
		return pkg("t", "a", format.OfkOpenMP), nil
	}})
	require.NoError(t, err)
	assert.Len(t, units[0].Images, 1)
}

// FuzzInput: any bytes either scan or fail with an error; never a panic,
// and an error means no units.
func FuzzInput(f *testing.F) {
	raw := pkg("x86_64-unknown-linux-gnu", "generic", format.OfkOpenMP)
	f.Add(raw)
	var b bytes.Buffer
	ar.WriteGNU(&b, []ar.WriteMember{{Name: "a.pkg", Data: raw}, {Name: "b", Data: []byte("x")}})
	f.Add(b.Bytes())
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Add([]byte("BC\xc0\xde"))
	// Windows import library members: short import members and a bigobj
	// header, alone and in an archive.
	var imps []ar.WriteMember
	for _, m := range testfiles.Read(f, "../../format/testdata/coffimport/[a-z]*") {
		f.Add(m)
		imps = append(imps, ar.WriteMember{Name: "kernel32.dll", Data: m})
	}
	b.Reset()
	ar.WriteGNU(&b, imps)
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		units, err := Input("f", data, Options{})
		if err != nil {
			assert.Nil(t, units)
		}
	})
}
