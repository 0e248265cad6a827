// Command split benchmarks per-kernel device-code splitting: sycl-linker
// --module-split-mode=kernel --ir-output-only -S against LLVM 22's
// llvm-split --split-by-category=kernel -S on a synthetic module (N
// kernels, each calling its own helper and one shared function, spread
// over 50 translation units; the module of sycl.md §4.7). Every output
// module is written in both cases.
//
//	go run -C bench ./split -n 1000,4000 [-upstream] [-llvm /usr/lib/llvm-22/bin]
//
// Each measurement of ours runs in a child process (this program with
// -child), so its peak RSS is that of the split alone.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"github.com/offload-kit/offload-kit/bench/kernelgen"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/sycldev"
)

func main() {
	ns := flag.String("n", "1000,4000", "kernel counts")
	upstream := flag.Bool("upstream", false, "also time llvm-split (slow: about a minute at 4000 kernels)")
	llvm := flag.String("llvm", "/usr/lib/llvm-22/bin", "LLVM 22 tools directory")
	child := flag.String("child", "", "internal: run one split of this bitcode file and report")
	reps := flag.Int("reps", 3, "repetitions of our split (the fastest is reported; the machine may be shared)")
	jobs := flag.Int("j", 0, "parallel jobs for sycl-linker (0: its default)")
	modulesOnly := flag.Bool("modules-only", false, "write only the modules and the table (no .prop/.sym), as llvm-split does")
	flag.Parse()
	if *child != "" {
		if err := runChild(*child, *llvm, *jobs, *modulesOnly); err != nil {
			fmt.Fprintln(os.Stderr, "bench/split:", err)
			os.Exit(1)
		}
		return
	}
	if err := bench(strings.Split(*ns, ","), *upstream, *llvm, *jobs, *modulesOnly, *reps); err != nil {
		fmt.Fprintln(os.Stderr, "bench/split:", err)
		os.Exit(1)
	}
}

// Generate writes the synthetic module as text.
func Generate(n int) []byte { return kernelgen.Module(n) }

func bench(ns []string, upstream bool, llvm string, jobs int, modulesOnly bool, reps int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ctx := context.Background()
	ex := run.Exec{}
	type result struct {
		n        int
		text     int
		ours     time.Duration
		oursCPU  time.Duration
		rss      int64
		upstream time.Duration
		upCPU    time.Duration
	}
	var rs []result
	for _, s := range ns {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", "bench-split")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		txt := Generate(n)
		ll := filepath.Join(dir, "in.ll")
		bc := filepath.Join(dir, "in.bc")
		if err := os.WriteFile(ll, txt, 0o644); err != nil {
			return err
		}
		if err := ex.Run(ctx, &run.Cmd{Args: []string{filepath.Join(llvm, "llvm-as"), ll, "-o", bc}}); err != nil {
			return err
		}
		r := result{n: n, text: len(txt)}
		for rep := 0; rep < max(reps, 1); rep++ {
			os.RemoveAll(filepath.Join(dir, "ours"))
			var out bytes.Buffer
			args := []string{self, "-child", bc, "-llvm", llvm, "-j", strconv.Itoa(jobs), "-modules-only=" + strconv.FormatBool(modulesOnly)}
			start := time.Now()
			if err := ex.Run(ctx, &run.Cmd{Args: args, Stdout: &out}); err != nil {
				return fmt.Errorf("%+v", err)
			}
			wall := time.Since(start)
			f := strings.Fields(out.String())
			if rep == 0 || wall < r.ours {
				r.ours = wall
			}
			if len(f) >= 3 {
				rss, _ := strconv.ParseInt(f[1], 10, 64)
				us, _ := strconv.ParseInt(f[2], 10, 64)
				r.rss = max(r.rss, rss)
				if cpu := time.Duration(us) * time.Microsecond; rep == 0 || cpu < r.oursCPU {
					r.oursCPU = cpu
				}
			}
		}
		if upstream {
			up := filepath.Join(dir, "up")
			os.Mkdir(up, 0o755)
			start, cpu0 := time.Now(), childCPU()
			if err := ex.Run(ctx, &run.Cmd{Args: []string{filepath.Join(llvm, "llvm-split"), "--split-by-category=kernel", "-S", bc, "-o", filepath.Join(up, "out")}}); err != nil {
				return err
			}
			r.upstream, r.upCPU = time.Since(start), childCPU()-cpu0
		}
		rs = append(rs, r)
		fmt.Printf("n=%d text=%d B  sycl-linker: wall %v cpu %v, peak RSS %d KiB (%.1f× text)", n, r.text,
			r.ours.Round(time.Millisecond), r.oursCPU.Round(time.Millisecond), r.rss, float64(r.rss*1024)/float64(r.text))
		if upstream {
			fmt.Printf("  llvm-split: wall %v cpu %v  ratio wall 1/%.1f cpu 1/%.1f", r.upstream.Round(time.Millisecond), r.upCPU.Round(time.Millisecond),
				float64(r.upstream)/float64(r.ours), float64(r.upCPU)/float64(r.oursCPU))
		}
		fmt.Println()
	}
	if len(rs) >= 2 {
		a, b := rs[0], rs[len(rs)-1]
		fmt.Printf("scaling %d→%d kernels: ×%.2f wall, ×%.2f cpu\n", a.n, b.n, float64(b.ours)/float64(a.ours), float64(b.oursCPU)/float64(a.oursCPU))
	}
	return nil
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}

func childCPU() time.Duration {
	var rc syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &rc)
	return tv(rc.Utime) + tv(rc.Stime)
}

// runChild runs the split once in this process and prints
// "parts <maxrss KiB>".
func runChild(bc, llvm string, jobs int, modulesOnly bool) error {
	dir := filepath.Join(filepath.Dir(bc), "ours")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	o, err := sycldev.ParseArgs([]string{"--triple=spir64", "--module-split-mode=kernel", "--ir-output-only", "-S",
		"-o", filepath.Join(dir, "out.table"), bc})
	if err != nil {
		return err
	}
	o.Jobs = jobs
	o.NoPropFiles, o.NoSymFiles = modulesOnly, modulesOnly
	path := llvm + string(os.PathListSeparator) + os.Getenv("PATH") // LLVM's tools before PATH's
	env := &sycldev.Env{Env: driverenv.Env{Stdout: os.Stdout, Stderr: os.Stderr, Runner: run.Exec{},
		LookupEnv: func(k string) (string, bool) { return path, k == "PATH" }}}
	if err := sycldev.Run(context.Background(), env, *o); err != nil {
		return err
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return err
	}
	var rc syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &rc); err != nil {
		return err
	}
	cpu := tv(ru.Utime) + tv(ru.Stime) + tv(rc.Utime) + tv(rc.Stime)
	fmt.Printf("ok %d %d\n", ru.Maxrss, cpu.Microseconds())
	return nil
}
