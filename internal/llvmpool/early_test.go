package llvmpool

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resetEarly forgets a finished Prespawn, so that each test starts one.
func resetEarly(t *testing.T) {
	t.Cleanup(func() {
		discardEarly()
		early.mu.Lock()
		done := early.done
		early.mu.Unlock()
		if done != nil {
			<-done
		}
		early.mu.Lock()
		early.on, early.taken, early.discarded, early.done, early.proc = false, false, false, nil, nil
		early.exe, early.major, early.libs, early.h = exeRef{}, 0, nil, nil
		early.mu.Unlock()
	})
}

// TestPrespawnAdopted: the helper Prespawn started serves the first pool
// (no second helper process starts for its first request), and Close ends
// it.
func TestPrespawnAdopted(t *testing.T) {
	resetEarly(t)
	_, a, b := files(t)
	Prespawn("", nil)
	p := New(Config{Helpers: 1})
	require.NoError(t, p.Start(context.Background()))
	<-early.done
	h := early.h
	require.NotNil(t, h, "the prespawned helper loaded libLLVM")
	g := p.group(nil)
	g.mu.Lock()
	assert.True(t, g.all[h], "the pool adopted it")
	assert.Len(t, g.all, 1)
	g.mu.Unlock()
	assert.Equal(t, h.lib, p.lib)

	out := t.TempDir() + "/out.ll" // a request runs on it
	require.NoError(t, p.Link(context.Background(), LinkRequest{Link: true, Inputs: []string{a, b}, LL: out}))
	text, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(text), "define spir_func i32 @helper")

	require.NoError(t, p.Close())
	select {
	case <-h.proc.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the adopted helper outlived Close")
	}
}

// TestPrespawnDiscarded: a pool that chooses another library (here: a
// Mode that names one) does not take the prespawned helper, which ends;
// and a Close without Start ends it too.
func TestPrespawnDiscarded(t *testing.T) {
	resetEarly(t)
	Prespawn("", nil)
	p := New(Config{Mode: "/nonexistent/libLLVM.so.22.1", Helpers: 1})
	require.NoError(t, p.Start(context.Background()), "the soname still serves")
	require.NotNil(t, early.h)
	select {
	case <-early.h.proc.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the prespawned helper was neither adopted nor ended")
	}
	g := p.group(nil)
	g.mu.Lock()
	assert.False(t, g.all[early.h])
	g.mu.Unlock()
	assert.Equal(t, guessCandidates("", 22)[0], p.lib, "the first candidate that opens")
	require.NoError(t, p.Close())
}

func TestPrespawnClosedUnused(t *testing.T) {
	resetEarly(t)
	Prespawn("", nil)
	p := New(Config{})
	start := time.Now()
	require.NoError(t, p.Close())
	<-early.done
	if early.proc != nil {
		select {
		case <-early.proc.Done():
		default:
			t.Fatal("Close left the prespawned helper running")
		}
	}
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestPrespawnProcessMode(t *testing.T) {
	resetEarly(t)
	Prespawn("process", nil) // $OFFLOAD_KIT_LLVM=process: nothing starts
	assert.False(t, early.on)
}

// TestSameChoice: the prespawned helper's library is the pool's choice
// when every candidate the pool would try first was tried (and failed)
// before it.
func TestSameChoice(t *testing.T) {
	for _, c := range []struct {
		guess, libs []string
		lib         string
		want        bool
	}{
		{[]string{"s"}, []string{"s"}, "s", true},
		{[]string{"d", "s"}, []string{"d", "s"}, "s", true}, // d failed in the helper
		{[]string{"s"}, []string{"x", "s"}, "s", false},     // x never tried
		{[]string{"m", "s"}, []string{"x", "m", "s"}, "m", false},
		{[]string{"x", "s"}, []string{"x", "s"}, "x", true},
		{[]string{"s"}, []string{"t"}, "s", false},
	} {
		assert.Equal(t, c.want, sameChoice(c.guess, c.libs, c.lib), "%q %q %q", c.guess, c.libs, c.lib)
	}
}
