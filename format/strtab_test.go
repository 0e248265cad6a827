package format

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStringTableLayout(t *testing.T) {
	// Sorted from the last byte, descending; ".eh_frame" ends
	// ".rela.eh_frame", which comes first, so it shares its bytes.
	table, offs := StringTable([]string{"", ".text", ".rela.eh_frame", ".eh_frame", ".data", "s", ".text"})
	require.Equal(t, "\x00.text\x00s\x00.rela.eh_frame\x00.data\x00", string(table))
	require.Equal(t, map[string]uint64{"": 0, ".text": 1, "s": 7, ".rela.eh_frame": 9, ".eh_frame": 14, ".data": 24}, offs)
	for n, o := range offs {
		end := strings.IndexByte(string(table[o:]), 0)
		require.Equal(t, n, string(table[o:int(o)+end]))
	}
}

func TestCompareReversed(t *testing.T) {
	require.Equal(t, 0, compareReversed("ab", "ab"))
	require.Equal(t, -1, compareReversed("ba", "ab")) // last bytes: a < b
	require.Equal(t, -1, compareReversed("b", "ab"))  // runs out first
	require.Equal(t, 1, compareReversed("\xff", "a")) // unsigned bytes
}
