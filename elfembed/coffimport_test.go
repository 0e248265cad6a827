package elfembed

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

// TestCOFFImportMemberNotBigobj: a short import member (Sig1=0,
// Sig2=0xFFFF, Version 0) is not read as a bigobj header; before, every
// llvm-dlltool member failed with "NumberOfSections (truncated) at offset
// 0x2c". Parse says it has no sections; a bigobj (class ID) still parses.
func TestCOFFImportMemberNotBigobj(t *testing.T) {
	for _, m := range testfiles.Read(t, "../format/testdata/coffimport/*-code", "../format/testdata/coffimport/x86_64-*") {
		_, err := Parse(m)
		require.ErrorIs(t, err, format.ErrUnsupported)
		assert.Contains(t, err.Error(), "short import member has no sections")
		_, err = parseCOFF(m) // the reader itself, past Identify
		require.ErrorIs(t, err, format.ErrUnsupported)
		assert.NotContains(t, err.Error(), "NumberOfSections")
		// Padded past a bigobj header's size it is still no bigobj.
		long := append(append([]byte{}, m...), make([]byte, 64)...)
		_, err = parseCOFF(long)
		require.ErrorIs(t, err, format.ErrUnsupported)
	}
	big := toBigobj(t, testfiles.Read(t, "testdata/emb-x86_64-pc-windows-msvc.o")[0])
	o, err := Parse(big)
	require.NoError(t, err)
	assert.NotEmpty(t, o.OffloadSections())
}
