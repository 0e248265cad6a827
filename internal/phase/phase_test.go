package phase

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func fakeClock() func() time.Time {
	var mu sync.Mutex
	t := time.Unix(0, 0)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(1500 * time.Microsecond)
		return t
	}
}

func TestTimerOrderAndTable(t *testing.T) {
	tm := New(fakeClock())
	endA := tm.Begin("scan", "")
	endB := tm.Begin("device link", "amdgcn gfx90a")
	endB("cache hit")
	endA()
	var b bytes.Buffer
	tm.Print(&b, "tool")
	assert.Equal(t, "tool: phase summary (wall time)\n"+
		"  scan                                                       4.5 ms\n"+
		"  device link amdgcn gfx90a                                  1.5 ms  cache hit\n", b.String())
	rows := tm.Rows()
	assert.Equal(t, "scan", rows[0].Name)
}

func TestNilClockRecordsNothing(t *testing.T) {
	tm := New(nil)
	tm.Begin("x", "")()
	assert.Empty(t, tm.Rows())
	var b bytes.Buffer
	tm.Print(&b, "tool")
	assert.Empty(t, b.String())
	var nilTimer *Timer
	assert.False(t, nilTimer.Enabled())
}

func TestConcurrent(t *testing.T) {
	tm := New(fakeClock())
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); tm.Begin("p", "")() }()
	}
	wg.Wait()
	assert.Len(t, tm.Rows(), 50)
}
