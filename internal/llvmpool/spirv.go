package llvmpool

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/offload-kit/offload-kit/internal/llvm"
)

// SPIR-V code generation in a helper, and the workaround for LLVM 22.
//
// LLVM 22's SPIR-V backend keeps its module analysis in a static
// (SPIRVModuleAnalysis::MAI). Its BBNumToRegMap is keyed by (address of
// the MachineFunction, block number), and the per-module reset
// (setBaseInfo) never clears it. When a later module's MachineFunction is
// allocated at the address of a freed one, its blocks get the earlier
// module's label IDs: invalid SPIR-V ("Id N is defined more than once"),
// or valid SPIR-V that differs from llc's. Upstream made the analysis
// per-pass after 22 (llvm-project PR 160956, issue 160613); LLVM 22's
// options and C API offer no reset, and reusing a TargetMachine crashes.
//
// So that no address repeats, a helper generates each SPIR-V module on a
// fresh OS thread that then parks for good (its goroutine never unlocks
// or returns, so the thread, and glibc's arena bound to it, is never
// reused), with glibc's arena limit raised so that each such thread gets
// an arena of its own. A MachineFunction (about a kilobyte, far below
// glibc's mmap threshold) comes from the arena of the thread that
// generates the module, so two modules' MachineFunctions never share an
// address. The helper checks this at run time (freshArena, arenaStayed)
// and retires after spirvModulesPerHelper modules (every parked thread
// keeps its stack and its arena's address space) or when a check fails;
// malloc_trim every spirvTrimEvery modules gives the arenas' free pages
// back.
//
// Elsewhere (not glibc, a glibc whose heap layout is not the one checked,
// vm.overcommit_memory=2, the hugetlb tunable) a helper generates one
// SPIR-V module and retires, as llc runs one module per process. libLLVM
// 23 and later reuse helpers plainly.

// spirvModulesPerHelper is how many SPIR-V modules a helper generates on
// fresh threads before it retires.
const spirvModulesPerHelper = 64

// spirvTrimEvery: every this many SPIR-V modules, malloc_trim gives the
// free pages of the helper's arenas back. It walks every arena, so after
// each module it would cost time quadratic in the modules: for 2000
// kernels, trimming after each took 3.0 s of user time against 2.2 s
// every 8 (peak RSS 85 against 92 MB; 150 MB never).
const spirvTrimEvery = 8

// spirvArenaMax is glibc's arena limit in a helper (MALLOC_ARENA_MAX,
// mallopt M_ARENA_MAX): enough for every module a helper generates, and
// the runtime's threads, however many CPUs there are.
const spirvArenaMax = spirvModulesPerHelper*4 + 64

// How a helper generates SPIR-V.
type spirvMode int

const (
	spirvOnce    spirvMode = iota // one module, then retire
	spirvThreads                  // a fresh thread and arena per module (LLVM 22 on glibc)
	spirvReuse                    // plain reuse (LLVM 23 and later)
)

// The control field that follows a codegen response's object: what the
// pool does with the helper afterwards.
const (
	ctlKeep   byte = 0 // serve further requests
	ctlRetire byte = 1 // end it: it must not generate more SPIR-V
	ctlRetry  byte = 2 // no object: send the request to a fresh helper
)

// spirvPlainReuse, set by tests, turns the workaround off: SPIR-V
// modules are generated one after another on the helper's thread, as
// with LLVM 23. spirvNoArena, set by tests, makes the arena check of every
// module after a helper's first fail.
var spirvPlainReuse, spirvNoArena bool

// spirvState is a helper's SPIR-V bookkeeping.
type spirvState struct {
	mode   spirvMode
	libc   *glibc
	arenas map[unsafe.Pointer]bool // the arenas earlier modules were generated in
	done   int                     // SPIR-V modules generated
}

// newSpirvState decides how a helper of libLLVM release major generates
// SPIR-V.
func newSpirvState(major int) *spirvState {
	s := &spirvState{arenas: map[unsafe.Pointer]bool{}}
	if major >= 23 || spirvPlainReuse {
		s.mode = spirvReuse
		return s
	}
	libc, err := openGlibc()
	if err != nil {
		return s // spirvOnce; err says why
	}
	s.libc, s.mode = libc, spirvThreads
	// as helperEnv's MALLOC_ARENA_MAX, for a helper started otherwise
	libc.mallopt(mArenaMax, spirvArenaMax)
	return s
}

// generate runs gen, a SPIR-V codegen, as the mode says; ctl says what
// the pool does with this helper afterwards.
func (s *spirvState) generate(gen func() ([][]byte, error)) (res [][]byte, ctl byte, err error) {
	switch s.mode {
	case spirvReuse:
		res, err = gen()
		return res, ctlKeep, err
	case spirvOnce:
		res, err = gen()
		return res, ctlRetire, err
	}
	type result struct {
		res [][]byte
		ctl byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		first := s.done == 0
		arena, fresh := s.libc.freshArena()
		if fresh && (s.arenas[arena] || spirvNoArena && !first) {
			fresh = false
		}
		if !fresh && !first {
			// an earlier module's MachineFunctions may be in this arena
			ch <- result{ctl: ctlRetry}
			select {}
		}
		res, err := gen()
		s.done++
		ctl := ctlKeep
		if !fresh || !s.libc.arenaStayed(arena) || s.done >= spirvModulesPerHelper {
			ctl = ctlRetire
		}
		s.arenas[arena] = true
		if s.done%spirvTrimEvery == 0 {
			s.libc.mallocTrim(0)
		}
		ch <- result{res, ctl, err}
		select {} // park for good: the thread and its arena are never reused
	}()
	r := <-ch
	if r.ctl == ctlRetry {
		return [][]byte{nil}, ctlRetry, nil
	}
	return r.res, r.ctl, r.err
}

// glibc is the part of the C library the workaround uses.
type glibc struct {
	version    string
	heapMax    uintptr // the size and alignment of a thread arena's heap
	malloc     func(n uintptr) unsafe.Pointer
	free       func(p unsafe.Pointer)
	mallopt    func(param, value int32) int32
	mallocTrim func(pad uintptr) int32
}

const mArenaMax = -8 // mallopt's M_ARENA_MAX

// openGlibc binds the C library the helper runs with, when it is a glibc
// whose thread-arena heaps have the layout that freshArena reads (2.26
// and later on 64-bit Linux), and the system leaves that layout alone.
func openGlibc() (*glibc, error) {
	if runtime.GOOS != "linux" || unsafe.Sizeof(uintptr(0)) != 8 {
		return nil, fmt.Errorf("not 64-bit Linux")
	}
	c, err := llvm.OpenC("libc.so.6")
	if err != nil {
		return nil, err
	}
	if !c.Has("gnu_get_libc_version") {
		return nil, fmt.Errorf("the C library is not glibc")
	}
	var getVersion func() *byte
	if err := c.Bind(&getVersion, "gnu_get_libc_version"); err != nil {
		return nil, err
	}
	g := &glibc{version: llvm.GoString(getVersion()), heapMax: 64 << 20}
	major, minor, ok := strings.Cut(g.version, ".")
	mj, err1 := strconv.Atoi(major)
	mn, err2 := strconv.Atoi(strings.SplitN(minor, ".", 2)[0])
	if !ok || err1 != nil || err2 != nil || mj != 2 || mn < 26 {
		return nil, fmt.Errorf("glibc %s: the arena check needs 2.26 or later", g.version)
	}
	// glibc.malloc.hugetlb changes the heap size; overcommit_memory=2
	// makes glibc shrink heaps by remapping, which arenaStayed cannot see.
	// The tunables are this helper process's own, as glibc read them at
	// its start: its environment (helperEnv), not a driver's
	if v := tunable(os.Getenv("GLIBC_TUNABLES"), "glibc.malloc.hugetlb"); v != "" && v != "0" && v != "1" {
		return nil, fmt.Errorf("GLIBC_TUNABLES sets glibc.malloc.hugetlb=%s", v)
	}
	if b, err := os.ReadFile("/proc/sys/vm/overcommit_memory"); err == nil && strings.TrimSpace(string(b)) == "2" {
		return nil, fmt.Errorf("vm.overcommit_memory is 2")
	}
	for _, f := range []struct {
		fp   any
		name string
	}{{&g.malloc, "malloc"}, {&g.free, "free"}, {&g.mallopt, "mallopt"}, {&g.mallocTrim, "malloc_trim"}} {
		if err := c.Bind(f.fp, f.name); err != nil {
			return nil, fmt.Errorf("glibc %s: no %s", g.version, f.name)
		}
	}
	return g, nil
}

// tunable is the value of glibc tunable name in a $GLIBC_TUNABLES value
// (name=value pairs separated by colons; the last one counts), or "".
func tunable(env, name string) string {
	v := ""
	for _, kv := range strings.Split(env, ":") {
		if k, x, ok := strings.Cut(kv, "="); ok && k == name {
			v = x
		}
	}
	return v
}

// freshArena identifies the arena of the calling thread: the address of
// its first heap, where glibc keeps the arena's state. ok is false when
// the thread allocates from the main arena or from a later heap of its
// arena, or the heap does not look as glibc lays it out (then nothing
// says that the arena is new).
//
// A thread arena's heaps are heapMax-aligned mappings; each starts with a
// heap_info {ar_ptr, prev, size, mprotect_size, ...}, and the first heap
// of an arena has prev == NULL and holds the arena's malloc_state right
// after that header (ar_ptr points there). Arenas are never freed, so the
// first heap's address names the arena for the life of the process. The
// probe is a 4 KiB block: above the thread cache's sizes and below the
// mmap threshold, so it comes from the thread's own arena.
func (g *glibc) freshArena() (arena unsafe.Pointer, ok bool) {
	p := g.malloc(4096)
	if p == nil {
		return nil, false
	}
	defer g.free(p)
	const isMmapped, nonMainArena = 0x2, 0x4
	size := *(*uintptr)(unsafe.Add(p, -8)) // the chunk's size field and flags
	if size&isMmapped != 0 || size&nonMainArena == 0 {
		return nil, false
	}
	base := unsafe.Add(p, -int(uintptr(p)&(g.heapMax-1)))
	arPtr := *(*uintptr)(base)
	prev := *(*uintptr)(unsafe.Add(base, 8))
	if prev != 0 || arPtr <= uintptr(base) || arPtr > uintptr(base)+256 {
		return nil, false
	}
	return base, true
}

// arenaStayed reports whether the arena whose first heap is at arena has
// never had a second heap. A later heap can be unmapped once it is free
// and a later arena's heap mapped at its address, so a module whose arena
// grew past its first heap ends the helper. A heap gets a successor only
// when a request below the mmap threshold (at most heapMax/2) does not
// fit in it: its mprotect_size, the most it ever committed, then exceeds
// heapMax/2 less a page or so. Below that bound it never had one.
func (g *glibc) arenaStayed(arena unsafe.Pointer) bool {
	if arena == nil {
		return false
	}
	mprotectSize := *(*uintptr)(unsafe.Add(arena, 24))
	return mprotectSize < g.heapMax/2-1<<16
}
