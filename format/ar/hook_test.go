package ar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// TestWriteGNUWithDefault: nil Symbols and ObjectSymbols give WriteGNU.
func TestWriteGNUWithDefault(t *testing.T) {
	members := []WriteMember{{"odd.txt", readFile(t, "odd.txt")}, {"hello.o", readFile(t, "hello.o")}}
	var want, got1, got2 bytes.Buffer
	noErr(t, WriteGNU(&want, members))
	noErr(t, WriteGNUWith(&got1, members, Options{}))
	noErr(t, WriteGNUWith(&got2, members, Options{Symbols: ObjectSymbols}))
	eq(t, want.String(), got1.String())
	eq(t, want.String(), got2.String())
	isTrue(t, bytes.HasPrefix(want.Bytes(), []byte("!<arch>\n/ ")))
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
	noErr(t, WriteGNUWith(&buf, members, Options{Symbols: fakeSymbols}))
	b := buf.Bytes()
	isTrue(t, bytes.HasPrefix(b, []byte("!<arch>\n/               0           0     0     0       ")), "%q", b[:70])
	sym := b[8+60:]
	eq(t, uint32(3), binary.BigEndian.Uint32(sym))
	// Offsets point at each member's header (Offset is that of the data).
	a, err := Parse(b)
	noErr(t, err)
	eq(t, 3, len(a.Members))
	offs := []int64{a.Members[1].Offset - 60, a.Members[1].Offset - 60, a.Members[2].Offset - 60}
	for i, o := range offs {
		eq(t, uint32(o), binary.BigEndian.Uint32(sym[4+4*i:]), "offset %d", i)
	}
	eq(t, "foo\x00bar\x00baz\x00", string(sym[16:16+12]))

	// An object with no names: the empty table LLVM writes ("\0\0\0").
	buf.Reset()
	noErr(t, WriteGNUWith(&buf, []WriteMember{{"x.bc", []byte("SYM:")}}, Options{Symbols: fakeSymbols}))
	eq(t, "!<arch>\n/               0           0     0     0       8         `\n\x00\x00\x00\x00\x00\x00\x00\x00x.bc/           0           0     0     644     4         `\nSYM:",
		buf.String())

	// No object at all: no symbol table.
	buf.Reset()
	noErr(t, WriteGNUWith(&buf, []WriteMember{{"x.txt", []byte("text")}}, Options{Symbols: fakeSymbols}))
	isTrue(t, bytes.HasPrefix(buf.Bytes(), []byte("!<arch>\nx.txt/")), "%q", buf.Bytes())

	// Errors name the member and keep the cause.
	err = WriteGNUWith(&buf, []WriteMember{{"ok.txt", []byte("x")}, {"bad.bc", []byte("BAD")}}, Options{Symbols: fakeSymbols})
	isTrue(t, errors.Is(err, errFake), "%v", err)
	isTrue(t, err != nil && bytes.Contains([]byte(err.Error()), []byte("bad.bc")), "%v", err)

	// The 64-bit table.
	buf.Reset()
	noErr(t, writeGNU(&buf, members, Options{Symbols: fakeSymbols}, 0))
	isTrue(t, bytes.HasPrefix(buf.Bytes(), []byte("!<arch>\n/SYM64/         ")), "%q", buf.Bytes()[:24])
	eq(t, uint64(3), binary.BigEndian.Uint64(buf.Bytes()[68:]))
}
