package sycldev

import (
	"context"
	"fmt"

	"github.com/offload-kit/offload-kit/internal/phase"
	"github.com/offload-kit/offload-kit/internal/run"
)

// RunCommand is Run as the sycl-linker command runs it: with -v or
// --dry-run each program chosen (and each candidate skipped) is noted on
// Stderr, and with -v or $OFFLOAD_KIT_VERBOSE the phase summary is printed
// at exit (timed by env.Now).
func RunCommand(ctx context.Context, env *Env, o Options) error {
	if env.Tools != nil && (o.Verbose || o.DryRun) {
		env.Tools.Notify = func(c run.Choice) {
			for _, s := range c.Skipped {
				fmt.Fprintf(env.Stderr, "%s: note: %s: skipped %s\n", env.Tool, c.Name, s)
			}
			fmt.Fprintf(env.Stderr, "%s: note: %s: using %s (%s)\n", env.Tool, c.Name, c.Path, c.Why)
		}
	}
	if o.Verbose || env.VerboseSet() {
		env.Phases = phase.New(env.Now)
		defer env.Phases.Print(env.Stderr, env.Tool)
	}
	return Run(ctx, env, o)
}
