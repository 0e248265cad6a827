package run

import (
	"context"
	"sync"
)

// Fake records commands instead of running them. Handler, when set, decides
// each command's outcome (and may create output files).
type Fake struct {
	Handler func(c *Cmd) error

	mu   sync.Mutex
	cmds [][]string
}

// Run implements Runner.
func (f *Fake) Run(ctx context.Context, c *Cmd) error {
	f.mu.Lock()
	f.cmds = append(f.cmds, append([]string(nil), c.Args...))
	f.mu.Unlock()
	if f.Handler != nil {
		return f.Handler(c)
	}
	return nil
}

// Commands returns a copy of the recorded argv lists, in call order.
func (f *Fake) Commands() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([][]string, len(f.cmds))
	copy(out, f.cmds)
	return out
}
