package optable

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResponseFileBound: @/dev/zero, a FIFO that never ends and a sparse
// regular file over MaxResponseFile are one clear error, read with a
// bounded buffer (the heap stays near the bound, not growing with the
// source); a file of exactly the bound is read.
func TestResponseFileBound(t *testing.T) {
	want := "response file larger than 67108864 bytes"
	heapBefore := heapInUse()

	_, err := ExpandResponseFiles([]string{"@/dev/zero"}, OSFS{})
	assert.EqualError(t, err, "@/dev/zero: "+want)

	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, nil, 0o644))
	require.NoError(t, os.Truncate(big, 1<<40)) // sparse: refused by its size
	start := time.Now()
	_, err = ExpandResponseFiles([]string{"@" + big}, OSFS{})
	assert.EqualError(t, err, "@"+big+": "+want)
	assert.Less(t, time.Since(start), time.Second, "a large regular file is refused before it is read")

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	stop := make(chan struct{})
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		buf := make([]byte, 1<<20)
		for i := range buf {
			buf[i] = 'a'
		}
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}()
	_, err = ExpandResponseFiles([]string{"@" + fifo}, OSFS{})
	close(stop)
	assert.EqualError(t, err, "@"+fifo+": "+want)
	assert.Less(t, heapInUse()-heapBefore, int64(200<<20), "heap stays bounded")

	exact := filepath.Join(dir, "exact")
	require.NoError(t, os.WriteFile(exact, nil, 0o644))
	require.NoError(t, os.Truncate(exact, MaxResponseFile))
	out, err := ExpandResponseFiles([]string{"@" + exact, "x"}, OSFS{})
	require.NoError(t, err, "a file of exactly the bound is read")
	assert.Equal(t, "x", out[len(out)-1])
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
