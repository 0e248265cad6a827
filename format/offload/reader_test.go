package offload

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dumpText renders bins as llvm-objdump --offloading prints a raw
// OffloadBinary file.
func dumpText(bins []*Binary) string {
	var s strings.Builder
	for i, b := range bins {
		fmt.Fprintf(&s, "\nOFFLOADING IMAGE [%d]:\n", i)
		fmt.Fprintf(&s, "%-16s%s\n", "kind", b.ImageKind.DumpName())
		fmt.Fprintf(&s, "%-16s%s\n", "arch", b.Arch())
		fmt.Fprintf(&s, "%-16s%s\n", "triple", b.Triple())
		fmt.Fprintf(&s, "%-16s%s\n", "producer", b.OffloadKind)
	}
	return s.String()
}

// objdump runs llvm-objdump --offloading on data and returns its stdout and
// the LLVM error message (without tool, file and "while extracting" prefix).
func objdump(t *testing.T, tool string, data []byte) (stdout, errMsg string) {
	stdout, errMsg, _ = objdumpPrefix(t, tool, data)
	return stdout, errMsg
}

// objdumpPrefix also reports whether the message had the "while extracting
// offloading files: " prefix.
func objdumpPrefix(t *testing.T, tool string, data []byte) (stdout, errMsg string, prefixed bool) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "in.bin")
	require.NoError(t, os.WriteFile(f, data, 0o644))
	var out, serr bytes.Buffer
	cmd := exec.Command(tool, "--offloading", f)
	cmd.Stdout, cmd.Stderr = &out, &serr
	err := cmd.Run()
	if err == nil {
		return out.String(), "", false
	}
	msg := serr.String()
	if _, ok := err.(*exec.ExitError); !ok || !strings.Contains(msg, "error: ") {
		t.Fatalf("llvm-objdump: %v: %s", err, msg)
	}
	msg = strings.TrimSpace(msg[strings.LastIndex(msg, "': ")+3:])
	const pfx = "while extracting offloading files: "
	return out.String(), strings.TrimPrefix(msg, pfx), strings.HasPrefix(msg, pfx)
}

func put64(b []byte, off int, v uint64) []byte {
	b = bytes.Clone(b)
	le.PutUint64(b[off:], v)
	return b
}

func put32(b []byte, off int, v uint32) []byte {
	b = bytes.Clone(b)
	le.PutUint32(b[off:], v)
	return b
}

type readCase struct {
	name     string
	data     []byte
	class    string // "" = accepted; else LLVMError's text
	sentinel error
	off      int64
	// oracle: "same" = llvm-objdump agrees exactly; "accepts" = LLVM 22
	// accepts what we reject (a documented stricter check); "" = do not run
	// it (LLVM reads out of bounds or crashes).
	oracle string
}

func readCases(t *testing.T) []readCase {
	base, err := os.ReadFile("testdata/annotated-llvm22.bin")
	require.NoError(t, err)
	two := append(bytes.Clone(base), base...)
	const sz = 0xa0

	// entry moved to the end: EntryOffset 0xa0, Size 0xc8.
	moved := append(bytes.Clone(base), base[32:72]...)
	moved = put64(put64(moved, 16, 0xa0), 8, 0xc8)
	// value pointing at a NUL-free run up to Size.
	unterminated := bytes.Clone(base)
	copy(unterminated[0x98:], "ABCDEFGH")
	unterminated = put64(unterminated, 0x50, 0x98)

	return []readCase{
		{name: "annotated", data: base, oracle: "same"},
		{name: "two", data: two, oracle: "same"},
		{name: "size-not-multiple-of-8", data: put64(base, 8, 0x9c)[:0x9c], oracle: "same"},
		{name: "entry-moved", data: moved, oracle: "same"},
		{name: "duplicate-key-last-wins", data: put64(base, 0x58, 0x82), oracle: "same"},
		{name: "no-strings-at-end", data: put64(put64(base, 48, 0), 40, sz), oracle: "same"},
		{name: "empty-image-at-end", data: put64(put64(base, 64, 0), 56, sz), oracle: "same"},
		{name: "short-71", data: base[:71], class: msgParseFailed, sentinel: format.ErrTruncated, off: 0, oracle: "same"},
		{name: "second-short", data: two[:sz+71], class: msgParseFailed, sentinel: format.ErrTruncated, off: sz, oracle: "same"},
		{name: "second-bad-magic", data: put32(two, sz, 0x12345678), class: msgParseFailed, sentinel: format.ErrMagic, off: sz, oracle: "same"},
		{name: "trailing-zeros-8", data: append(bytes.Clone(base), make([]byte, 8)...), class: msgParseFailed, sentinel: format.ErrTruncated, off: sz, oracle: "same"},
		{name: "trailing-zeros-72", data: append(bytes.Clone(base), make([]byte, 72)...), class: msgParseFailed, sentinel: format.ErrMagic, off: sz, oracle: "same"},
		{name: "version-0", data: put32(base, 4, 0), class: msgParseFailed, sentinel: format.ErrVersion, off: 4, oracle: "same"},
		{name: "version-4", data: put32(base, 4, 4), class: msgParseFailed, sentinel: format.ErrVersion, off: 4, oracle: "same"},
		{name: "version-2-v1-layout", data: put32(base, 4, 2), class: msgParseFailed, sentinel: format.ErrTruncated, off: 24, oracle: "same"},
		// v3 reads the first entry word as a non-zero InflatedSize.
		{name: "version-3-v1-layout", data: put32(base, 4, 3), class: msgParseFailed, sentinel: format.ErrCorrupt, off: 16, oracle: "same"},
		{name: "size-past-end", data: put64(base, 8, sz+8), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 8, oracle: "same"},
		{name: "size-39", data: put64(base, 8, 39), class: msgUnexpectedEOF, sentinel: format.ErrCorrupt, off: 8, oracle: "same"},
		{name: "size-0", data: put64(base, 8, 0), class: msgUnexpectedEOF, sentinel: format.ErrCorrupt, off: 8, oracle: "same"},
		{name: "size-40", data: put64(base, 8, 40), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 16, oracle: "same"},
		{name: "entry-offset", data: put64(base, 16, sz-40+1), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 16, oracle: "same"},
		{name: "entry-size", data: put64(base, 24, sz-32+1), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 24, oracle: "same"},
		{name: "image-offset", data: put64(base, 56, sz+1), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 56, oracle: "same"},
		{name: "string-offset", data: put64(base, 40, sz+1), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 40, oracle: "same"},
		{name: "image-offset-past-size", data: put64(two, 56, sz+0x98), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 56, oracle: "same"},
		{name: "second-image-offset", data: put64(two, sz+56, sz+1), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: sz + 56, oracle: "same"},
		// Stricter than LLVM 22.
		{name: "huge-image-size", data: put64(base, 64, 1<<40), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 64, oracle: "accepts"},
		{name: "image-size-overflow", data: put64(base, 64, ^uint64(0)), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 64},
		{name: "num-strings-past-end", data: put64(base, 48, 8), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 48},
		{name: "num-strings-overflow", data: put64(base, 48, 1<<60), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 48},
		{name: "key-offset-at-size", data: put64(base, 0x48, sz), class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 0x48},
		{name: "value-unterminated", data: unterminated, class: msgUnexpectedEOF, sentinel: format.ErrTruncated, off: 0x50},
	}
}

func TestParseRejections(t *testing.T) {
	for _, tc := range readCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			bins, err := ParseAll(tc.data, ReadOptions{})
			if tc.class == "" {
				require.NoError(t, err)
				require.True(t, len(bins) > 0)
				return
			}
			require.Error(t, err)
			assert.True(t, bins == nil, "error with non-nil result")
			assert.Equal(t, tc.class, LLVMError(err))
			assert.True(t, errors.Is(err, tc.sentinel), "%v does not wrap %v", err, tc.sentinel)
			var fe *format.FormatError
			require.True(t, errors.As(err, &fe), "%T is not *format.FormatError", err)
			assert.Equal(t, tc.off, fe.Off, "offset (%v)", err)
		})
	}
}

func TestParseRejectionsOracle(t *testing.T) {
	tool := oracle(t, "llvm-objdump")
	for _, tc := range readCases(t) {
		if tc.oracle == "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			stdout, msg, prefixed := objdumpPrefix(t, tool, tc.data)
			if msg != "" {
				// CheckHeader predicts whether LLVM prefixes the message.
				first := CheckHeader(tc.data)
				assert.Equal(t, first == nil, prefixed, "prefix (CheckHeader: %v)", first)
				if first != nil {
					assert.Equal(t, msg, LLVMError(first))
				}
			}
			switch tc.oracle {
			case "accepts":
				assert.Equal(t, "", msg, "LLVM 22 was expected to accept this")
			case "same":
				assert.Equal(t, tc.class, msg)
				if tc.class == "" {
					bins, err := ParseAll(tc.data, ReadOptions{})
					require.NoError(t, err)
					assert.Equal(t, stdout, dumpText(bins))
				}
			}
		})
	}
}

func TestLLVMErrorOther(t *testing.T) {
	assert.Equal(t, "", LLVMError(nil))
	assert.Equal(t, "boom", LLVMError(errors.New("boom")))
	_, _, err := Parse(nil)
	assert.Equal(t, msgParseFailed, LLVMError(err))
	got, err := ParseAll(nil, ReadOptions{})
	require.NoError(t, err)
	assert.Equal(t, 0, len(got))
}

func TestParseMultiRejections(t *testing.T) {
	imgs := []*Image{annotatedImage(), {Strings: []KV{{"k", "v"}}, Image: []byte("xyz")}}
	v2, err := AppendBinaryV2(nil, imgs)
	require.NoError(t, err)
	zs, err := AppendBinaryV3(nil, imgs, "zstd", 0)
	require.NoError(t, err)
	zl, err := AppendBinaryV3(nil, imgs, "zlib", 9)
	require.NoError(t, err)
	infl := le.Uint64(zs[32:])
	for _, ok := range [][]byte{v2, zs, zl} { // small bodies decode
		got, _, err := Parse(ok)
		require.NoError(t, err)
		assert.Equal(t, 2, len(got))
		assert.Equal(t, "v", got[1].Get("k"))
		assert.Equal(t, "xyz", string(got[1].Image))
	}
	garbage := bytes.Clone(zl)
	for i := 42; i < len(garbage)-8; i++ {
		garbage[i] ^= 0x5a
	}
	tests := []struct {
		name     string
		data     []byte
		max      int64
		sentinel error
		off      int64
	}{
		{"v2-count", put64(v2, 24, 1<<40), 0, format.ErrTruncated, 24},
		{"v2-entries-offset", put64(v2, 16, uint64(len(v2))), 0, format.ErrTruncated, 16},
		{"v2-size", put64(v2, 8, uint64(len(v2))+8), 0, format.ErrTruncated, 8},
		{"v2-value-size", put64(v2, 32+80+16, 1<<62), 0, format.ErrTruncated, 32 + 80 + 8},
		{"v3-inflated-too-big", put64(zs, 32, infl+1), 0, format.ErrCorrupt, 32},
		{"v3-inflated-too-small", put64(zs, 32, infl-1), 0, format.ErrCorrupt, 32},
		{"v3-limit", zs, int64(infl) - 1, format.ErrLimit, 32},
		{"v3-zlib-garbage", garbage, 0, format.ErrCorrupt, 40},
		{"v3-entries-offset", put64(zl, 16, 8), 0, format.ErrCorrupt, 16},
		{"v3-inflated-lt-entries", put64(zl, 32, 8), 0, format.ErrCorrupt, 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bins, err := ParseAll(tt.data, ReadOptions{Align8: true, MaxInflated: tt.max})
			require.Error(t, err)
			assert.True(t, bins == nil)
			assert.Equal(t, msgParseFailed, LLVMError(err))
			assert.True(t, errors.Is(err, tt.sentinel), "%v does not wrap %v", err, tt.sentinel)
			var fe *format.FormatError
			require.True(t, errors.As(err, &fe))
			assert.Equal(t, tt.off, fe.Off, "offset (%v)", err)
		})
	}
}

func TestStringBudget(t *testing.T) {
	// 4096 string entries all pointing at different offsets of one long
	// NUL-free run: LLVM would copy ~n² bytes; we stop at the budget.
	const n = 4096
	run := bytes.Repeat([]byte{'a'}, 64<<10)
	strOff := uint64(72)
	tab := strOff + 16*n
	size := tab + uint64(len(run)) + 8
	buf := appendHeader(nil, 1, size, 32, 40)
	buf = appendEntry(buf, &Image{}, strOff, n, size, 0)
	for i := range uint64(n) {
		buf = le.AppendUint64(buf, tab+i)
		buf = le.AppendUint64(buf, tab+i*7)
	}
	buf = append(buf, run...)
	buf = append(buf, make([]byte, 8)...)
	_, _, err := Parse(buf)
	require.Error(t, err)
	assert.True(t, errors.Is(err, format.ErrLimit), "%v", err)
}
