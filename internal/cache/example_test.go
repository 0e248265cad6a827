package cache_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/offload-kit/offload-kit/internal/cache"
)

// Example shows how a driver wraps one device-link job: derive the key,
// try the cache, and on a miss run the tool and insert its outputs.
func Example() {
	ctx := context.Background()
	work, _ := os.MkdirTemp("", "lw-")
	defer os.RemoveAll(work)
	c, err := cache.Open(cache.Options{Dir: filepath.Join(work, "cache"), MaxSize: 1 << 30})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	in := filepath.Join(work, "a-gfx90a.o")
	out := filepath.Join(work, "a-gfx90a.img")
	os.WriteFile(in, []byte("device object"), 0o644)

	job := cache.Command{
		// Identity would come from c.ToolIdentity(path), Version from
		// running the tool with --version.
		Tool:     cache.Tool{Name: "clang", Identity: "sha256:…", Version: "clang version 22"},
		Args:     []string{"--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-o", out, in},
		Inputs:   []cache.File{{Name: "input0", Path: in}},
		Outputs:  []cache.File{{Name: "image", Path: out}},
		TempDirs: []string{work},
		Env:      cache.FilterEnv([]string{"PATH=/bin", "ROCM_PATH=/opt/rocm"}, "ROCM_PATH"),
	}
	key, err := job.Key()
	if err != nil {
		panic(err)
	}
	for range 2 {
		hit, err := c.Get(ctx, key, map[string]string{"image": out})
		if err == nil && hit.OK {
			fmt.Print("hit: ", string(hit.Stderr))
			continue
		}
		// Miss: run the tool (here: pretend), then record its result.
		os.WriteFile(out, []byte("linked image"), 0o644)
		stderr := []byte("warning: something\n")
		if err := c.Put(ctx, key, cache.Entry{Files: map[string]string{"image": out}, Stderr: stderr}); err != nil {
			fmt.Println("warning:", err)
		}
		fmt.Println("miss: linked")
	}
	s := c.Stats()
	fmt.Println(s.Lookups, s.LocalHits, s.Misses, s.Puts)
	// Output:
	// miss: linked
	// hit: warning: something
	// 2 1 1 1
}
