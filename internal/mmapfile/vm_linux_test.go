package mmapfile

import (
	"bufio"
	"fmt"
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestMoveLeavesNoHole: Move hands a chunk's pages to another place of the
// mapping and leaves the source mapped and empty. A hole there could be
// taken by another mmap (the Go runtime's, say), which the final Unmap
// would then destroy: that crashed the runtime before MREMAP_DONTUNMAP.
func TestMoveLeavesNoHole(t *testing.T) {
	m, err := Anon(16 << 20)
	require.NoError(t, err)
	defer Unmap(m)
	addr := int(uintptr(unsafe.Pointer(unsafe.SliceData(m))))
	first := (HugePage - addr%HugePage) % HugePage
	src := m[first : first+HugePage]
	dst := m[first+4*HugePage : first+5*HugePage]
	for i := range src {
		src[i] = byte(i*7 + 1)
	}
	require.NoError(t, Move(src, dst))
	for i := range dst {
		if dst[i] != byte(i*7+1) {
			t.Fatalf("moved byte %d is %d", i, dst[i])
		}
	}
	for i := range src {
		if src[i] != 0 { // would fault on a hole
			t.Fatalf("source byte %d is %d after the move", i, src[i])
		}
	}
	// Every byte of the mapping is still covered by some mapping of ours:
	// /proc/self/maps has no gap inside it.
	lo, hi := uintptr(addr), uintptr(addr+len(m))
	f, err := os.Open("/proc/self/maps")
	require.NoError(t, err)
	defer f.Close()
	covered := lo
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var a, b uintptr
		if _, err := fmt.Sscanf(sc.Text(), "%x-%x", &a, &b); err != nil {
			continue
		}
		if b <= covered || a >= hi {
			continue
		}
		require.LessOrEqual(t, a, covered, "gap in the mapping at %#x", covered)
		covered = b
	}
	require.GreaterOrEqual(t, covered, hi)
}
