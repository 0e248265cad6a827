package ar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteGNUWithDefault: nil Symbols and ObjectSymbols give WriteGNU.
func TestWriteGNUWithDefault(t *testing.T) {
	members := []WriteMember{{"odd.txt", readFile(t, "odd.txt")}, {"hello.o", readFile(t, "hello.o")}}
	var want, got1, got2 bytes.Buffer
	require.NoError(t, WriteGNU(&want, members))
	require.NoError(t, WriteGNUWith(&got1, members, Options{}))
	require.NoError(t, WriteGNUWith(&got2, members, Options{Symbols: ObjectSymbols}))
	assert.Equal(t, want.String(), got1.String())
	assert.Equal(t, want.String(), got2.String())
	assert.True(t, bytes.HasPrefix(want.Bytes(), []byte("!<arch>\n/ ")))
}

// fakeSymbols indexes members whose data starts with "SYM:" (one name per
// following space-separated word) and fails on "BAD".
func fakeSymbols(data []byte) ([]string, bool, error) {
	switch {
	case bytes.HasPrefix(data, []byte("BAD")):
		return nil, false, errFake
	case bytes.HasPrefix(data, []byte("SYM:")):
		var names []string
		for _, f := range bytes.Fields(data[4:]) {
			names = append(names, string(f))
		}
		return names, true, nil
	}
	return ObjectSymbols(data)
}

var errFake = errors.New("fake failure")

func TestWriteGNUWithHook(t *testing.T) {
	members := []WriteMember{
		{"text.txt", []byte("plain")},
		{"a.bc", []byte("SYM: foo bar")},
		{"a_long_member_name.bc", []byte("SYM: baz")},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteGNUWith(&buf, members, Options{Symbols: fakeSymbols}))
	b := buf.Bytes()
	assert.True(t, bytes.HasPrefix(b, []byte("!<arch>\n/               0           0     0     0       ")), "%q", b[:70])
	sym := b[8+60:]
	assert.Equal(t, uint32(3), binary.BigEndian.Uint32(sym))
	// Offsets point at each member's header (Offset is that of the data).
	a, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, 3, len(a.Members))
	offs := []int64{a.Members[1].Offset - 60, a.Members[1].Offset - 60, a.Members[2].Offset - 60}
	for i, o := range offs {
		assert.Equal(t, uint32(o), binary.BigEndian.Uint32(sym[4+4*i:]), "offset %d", i)
	}
	assert.Equal(t, "foo\x00bar\x00baz\x00", string(sym[16:16+12]))

	// An object with no names: the empty table LLVM writes ("\0\0\0").
	buf.Reset()
	require.NoError(t, WriteGNUWith(&buf, []WriteMember{{"x.bc", []byte("SYM:")}}, Options{Symbols: fakeSymbols}))
	assert.Equal(t, "!<arch>\n/               0           0     0     0       8         `\n\x00\x00\x00\x00\x00\x00\x00\x00x.bc/           0           0     0     644     4         `\nSYM:",
		buf.String())

	// No object at all: no symbol table.
	buf.Reset()
	require.NoError(t, WriteGNUWith(&buf, []WriteMember{{"x.txt", []byte("text")}}, Options{Symbols: fakeSymbols}))
	assert.True(t, bytes.HasPrefix(buf.Bytes(), []byte("!<arch>\nx.txt/")), "%q", buf.Bytes())

	// Errors name the member and keep the cause.
	err = WriteGNUWith(&buf, []WriteMember{{"ok.txt", []byte("x")}, {"bad.bc", []byte("BAD")}}, Options{Symbols: fakeSymbols})
	assert.True(t, errors.Is(err, errFake), "%v", err)
	assert.True(t, err != nil && bytes.Contains([]byte(err.Error()), []byte("bad.bc")), "%v", err)

	// The 64-bit table.
	buf.Reset()
	require.NoError(t, writeGNU(&buf, members, Options{Symbols: fakeSymbols}, 0))
	assert.True(t, bytes.HasPrefix(buf.Bytes(), []byte("!<arch>\n/SYM64/         ")), "%q", buf.Bytes()[:24])
	assert.Equal(t, uint64(3), binary.BigEndian.Uint64(buf.Bytes()[68:]))
}
