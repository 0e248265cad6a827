package llvm

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Lib is a loaded libLLVM. It is safe for concurrent use; the handles it
// makes are not (see the package documentation).
type Lib struct {
	Path                string
	Major, Minor, Patch int

	handle  uintptr
	diagCB  uintptr
	mu      sync.Mutex
	nextID  uintptr
	sinks   map[uintptr]*Context
	targets sync.Once
	initErr error
	clOnce  sync.Once

	getVersion                  func(major, minor, patch *uint32)
	contextCreate               func() uintptr
	contextDispose              func(uintptr)
	contextSetDiagnosticHandler func(ctx, handler, diagCtx uintptr)
	getDiagInfoDescription      func(di uintptr) *byte
	getDiagInfoSeverity         func(di uintptr) int32
	disposeMessage              func(*byte)
	createMemoryBufferCopy      func(data *byte, n uintptr, name string) uintptr
	disposeMemoryBuffer         func(uintptr)
	getBufferStart              func(uintptr) *byte
	getBufferSize               func(uintptr) uintptr
	parseBitcodeInContext2      func(ctx, buf uintptr, out *uintptr) int32
	parseIRInContext2           func(ctx, buf uintptr, out *uintptr, msg **byte) int32
	moduleCreateWithName        func(name string, ctx uintptr) uintptr
	disposeModule               func(uintptr)
	linkModules2                func(dst, src uintptr) int32
	printModuleToString         func(m uintptr) *byte
	printModuleToFile           func(m uintptr, file string, msg **byte) int32
	writeBitcodeToMemoryBuffer  func(m uintptr) uintptr
	verifyModule                func(m uintptr, action int32, msg **byte) int32
	setTarget                   func(m uintptr, triple string)
	getTarget                   func(m uintptr) *byte
	getDataLayoutStr            func(m uintptr) *byte
	setDataLayout               func(m uintptr, dl string)
	setModuleIdentifier         func(m uintptr, id *byte, n uintptr)
	normalizeTargetTriple       func(triple string) *byte
	getTargetFromTriple         func(triple string, t *uintptr, msg **byte) int32
	createTargetMachine         func(t uintptr, triple, cpu, features string, level, reloc, model int32) uintptr
	disposeTargetMachine        func(uintptr)
	emitToMemoryBuffer          func(tm, m uintptr, ft int32, msg **byte, out *uintptr) int32
	runPasses                   func(m uintptr, passes string, tm, opts uintptr) uintptr
	createPassBuilderOptions    func() uintptr
	disposePassBuilderOptions   func(uintptr)
	getErrorMessage             func(err uintptr) *byte
	disposeErrorMessage         func(*byte)
	parseCommandLineOptions     func(argc int32, argv **byte, overview string)
	getFirstFunction            func(m uintptr) uintptr
	getNextFunction             func(v uintptr) uintptr
	getFirstGlobal              func(m uintptr) uintptr
	getNextGlobal               func(v uintptr) uintptr
	isDeclaration               func(v uintptr) int32
	getLinkage                  func(v uintptr) int32
	setLinkage                  func(v uintptr, l int32)
	getVisibility               func(v uintptr) int32
	setVisibility               func(v uintptr, vis int32)
	getValueName2               func(v uintptr, n *uintptr) *byte
}

// rtldDeepbind is glibc's RTLD_DEEPBIND: the library's own symbols (and
// its dependencies') come before the global scope's when its relocations
// are resolved. Without it, each of libLLVM's tens of
// thousands of symbol lookups searches the executable first, and a Go
// executable has only a SysV hash table (no GNU one), the slow kind: the
// load took 40% more instructions (43.8 against 26.1 million for a
// helper's whole life, callgrind). The executable defines no symbol that
// libLLVM uses, so the binding is the same.
const rtldDeepbind = 0x8

// ErrNotFound wraps the failure to load a library or one of its symbols.
var ErrNotFound = errors.New("llvm: library or symbol not found")

// Error is a failure reported by LLVM, with its message.
type Error struct {
	Op  string // "parse bitcode", "link", "verify", "emit", ...
	Msg string
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return e.Op + " failed"
	}
	return e.Op + ": " + e.Msg
}

// Open loads the shared library at path (a file name or a soname that the
// dynamic loader searches for) and binds the functions of the C API that
// this package uses. A missing symbol is an error wrapping ErrNotFound.
func Open(path string) (*Lib, error) {
	flags := purego.RTLD_NOW | purego.RTLD_LOCAL | rtldDeepbind
	if os.Getenv("LD_PRELOAD") != "" {
		// a preloaded allocator (or sanitizer) must stay in front of
		// libLLVM's lookups, or memory would cross allocators. This
		// process's own LD_PRELOAD, which the loader read, not a driver's
		// environment: it tells what the loader preloaded
		flags &^= rtldDeepbind
	}
	h, err := purego.Dlopen(path, flags)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotFound, path, err)
	}
	l := &Lib{Path: path, handle: h, sinks: map[uintptr]*Context{}}
	// the release first, so that an error can name it
	if sym, err := purego.Dlsym(h, "LLVMGetVersion"); err == nil && sym != 0 {
		purego.RegisterFunc(&l.getVersion, sym)
		var major, minor, patch uint32
		l.getVersion(&major, &minor, &patch)
		l.Major, l.Minor, l.Patch = int(major), int(minor), int(patch)
	}
	for _, f := range []struct {
		fp   any
		name string
	}{
		{&l.getVersion, "LLVMGetVersion"},
		{&l.contextCreate, "LLVMContextCreate"},
		{&l.contextDispose, "LLVMContextDispose"},
		{&l.contextSetDiagnosticHandler, "LLVMContextSetDiagnosticHandler"},
		{&l.getDiagInfoDescription, "LLVMGetDiagInfoDescription"},
		{&l.getDiagInfoSeverity, "LLVMGetDiagInfoSeverity"},
		{&l.disposeMessage, "LLVMDisposeMessage"},
		{&l.createMemoryBufferCopy, "LLVMCreateMemoryBufferWithMemoryRangeCopy"},
		{&l.disposeMemoryBuffer, "LLVMDisposeMemoryBuffer"},
		{&l.getBufferStart, "LLVMGetBufferStart"},
		{&l.getBufferSize, "LLVMGetBufferSize"},
		{&l.parseBitcodeInContext2, "LLVMParseBitcodeInContext2"},
		{&l.parseIRInContext2, "LLVMParseIRInContext2"},
		{&l.moduleCreateWithName, "LLVMModuleCreateWithNameInContext"},
		{&l.disposeModule, "LLVMDisposeModule"},
		{&l.linkModules2, "LLVMLinkModules2"},
		{&l.printModuleToString, "LLVMPrintModuleToString"},
		{&l.printModuleToFile, "LLVMPrintModuleToFile"},
		{&l.writeBitcodeToMemoryBuffer, "LLVMWriteBitcodeToMemoryBuffer"},
		{&l.verifyModule, "LLVMVerifyModule"},
		{&l.setTarget, "LLVMSetTarget"},
		{&l.getTarget, "LLVMGetTarget"},
		{&l.getDataLayoutStr, "LLVMGetDataLayoutStr"},
		{&l.setDataLayout, "LLVMSetDataLayout"},
		{&l.setModuleIdentifier, "LLVMSetModuleIdentifier"},
		{&l.normalizeTargetTriple, "LLVMNormalizeTargetTriple"},
		{&l.getTargetFromTriple, "LLVMGetTargetFromTriple"},
		{&l.createTargetMachine, "LLVMCreateTargetMachine"},
		{&l.disposeTargetMachine, "LLVMDisposeTargetMachine"},
		{&l.emitToMemoryBuffer, "LLVMTargetMachineEmitToMemoryBuffer"},
		{&l.runPasses, "LLVMRunPasses"},
		{&l.createPassBuilderOptions, "LLVMCreatePassBuilderOptions"},
		{&l.disposePassBuilderOptions, "LLVMDisposePassBuilderOptions"},
		{&l.getErrorMessage, "LLVMGetErrorMessage"},
		{&l.disposeErrorMessage, "LLVMDisposeErrorMessage"},
		{&l.parseCommandLineOptions, "LLVMParseCommandLineOptions"},
		{&l.getFirstFunction, "LLVMGetFirstFunction"},
		{&l.getNextFunction, "LLVMGetNextFunction"},
		{&l.getFirstGlobal, "LLVMGetFirstGlobal"},
		{&l.getNextGlobal, "LLVMGetNextGlobal"},
		{&l.isDeclaration, "LLVMIsDeclaration"},
		{&l.getLinkage, "LLVMGetLinkage"},
		{&l.setLinkage, "LLVMSetLinkage"},
		{&l.getVisibility, "LLVMGetVisibility"},
		{&l.setVisibility, "LLVMSetVisibility"},
		{&l.getValueName2, "LLVMGetValueName2"},
	} {
		sym, err := purego.Dlsym(h, f.name)
		if err != nil || sym == 0 {
			purego.Dlclose(h)
			if l.Major > 0 {
				return nil, fmt.Errorf("%w: %s (LLVM %s): no symbol %s", ErrNotFound, path, l.Version(), f.name)
			}
			return nil, fmt.Errorf("%w: %s: no symbol %s", ErrNotFound, path, f.name)
		}
		purego.RegisterFunc(f.fp, sym)
	}
	l.diagCB = purego.NewCallback(l.onDiagnostic)
	return l, nil
}

// Version is the library's release, "22.1.8".
func (l *Lib) Version() string { return fmt.Sprintf("%d.%d.%d", l.Major, l.Minor, l.Patch) }

// Targets whose code generators InitTargets registers, when the library
// has them.
var Targets = []string{"SPIRV", "AMDGPU", "NVPTX", "X86", "AArch64"}

// InitTargets registers the targets of Targets (info, target, MC layer,
// asm printer and, where there is one, asm parser) once: SPIR-V, AMDGPU
// and NVPTX for device code, X86 and AArch64 for OpenMP's CPU targets. A target the library lacks is left
// out; GetTarget then fails for its triples.
func (l *Lib) InitTargets() {
	l.targets.Do(func() {
		for _, t := range Targets {
			// AsmParser last: the CPU targets' inline assembly needs it
			// (SPIR-V and NVPTX have none, which ends the loop there)
			for _, part := range []string{"TargetInfo", "Target", "TargetMC", "AsmPrinter", "AsmParser"} {
				sym, err := purego.Dlsym(l.handle, "LLVMInitialize"+t+part)
				if err != nil || sym == 0 {
					break
				}
				purego.SyscallN(sym)
			}
		}
	})
}

// ParseCommandLineOptions sets LLVM's global command-line options (as
// llc's --spirv-ext=...). LLVM lets them be set once per process: a second
// call is refused.
func (l *Lib) ParseCommandLineOptions(args []string) error {
	done := false
	l.clOnce.Do(func() {
		done = true
		argv := make([]*byte, 0, len(args)+2)
		keep := make([][]byte, 0, len(args)+1)
		for _, a := range append([]string{"offload-kit"}, args...) {
			b := append([]byte(a), 0)
			keep = append(keep, b)
			argv = append(argv, &b[0])
		}
		argv = append(argv, nil)
		l.parseCommandLineOptions(int32(len(args)+1), &argv[0], "")
		runtime.KeepAlive(keep) // argv points into keep's strings: they must outlive the call
	})
	if !done {
		return errors.New("llvm: command-line options are already set in this process")
	}
	return nil
}

// NormalizeTriple is LLVM's Triple::normalize.
func (l *Lib) NormalizeTriple(triple string) string {
	p := l.normalizeTargetTriple(triple)
	defer l.disposeMessage(p)
	return GoString(p)
}

// Severity of a diagnostic.
type Severity int32

const (
	SevError Severity = iota
	SevWarning
	SevRemark
	SevNote
)

func (s Severity) String() string {
	switch s {
	case SevError:
		return "error"
	case SevWarning:
		return "warning"
	case SevRemark:
		return "remark"
	}
	return "note"
}

// Diagnostic is one message LLVM reported through the context's handler.
type Diagnostic struct {
	Severity Severity
	Msg      string
}

func (l *Lib) onDiagnostic(di, id uintptr) {
	l.mu.Lock()
	c := l.sinks[id]
	l.mu.Unlock()
	if c == nil {
		return
	}
	p := l.getDiagInfoDescription(di)
	msg := GoString(p)
	l.disposeMessage(p)
	c.diags = append(c.diags, Diagnostic{Severity: Severity(l.getDiagInfoSeverity(di)), Msg: msg})
}

// Context is an LLVMContext: it owns the types, constants and metadata of
// the modules made in it. Use it from one goroutine at a time.
type Context struct {
	lib   *Lib
	ref   uintptr
	id    uintptr
	diags []Diagnostic
}

// NewContext creates a context whose diagnostics are collected (and
// returned in errors) instead of printed, so an error diagnostic never
// ends the process.
func (l *Lib) NewContext() *Context {
	l.mu.Lock()
	l.nextID++
	c := &Context{lib: l, ref: l.contextCreate(), id: l.nextID}
	l.sinks[c.id] = c
	l.mu.Unlock()
	l.contextSetDiagnosticHandler(c.ref, l.diagCB, c.id)
	return c
}

// Dispose releases the context and every module still in it.
func (c *Context) Dispose() {
	if c.ref == 0 {
		return
	}
	c.lib.contextDispose(c.ref)
	c.lib.mu.Lock()
	delete(c.lib.sinks, c.id)
	c.lib.mu.Unlock()
	c.ref = 0
}

// Diagnostics returns and clears the diagnostics reported so far.
func (c *Context) Diagnostics() []Diagnostic {
	d := c.diags
	c.diags = nil
	return d
}

// failure builds an Error from msg, else from the collected error
// diagnostics, which it takes; the warnings and notes stay for
// Diagnostics (a failed link's warnings reach the user before its error,
// as llvm-link prints them).
func (c *Context) failure(op, msg string) error {
	var parts []string
	if msg != "" {
		parts = append(parts, msg)
	}
	kept := c.diags[:0]
	for _, d := range c.diags {
		if d.Severity == SevError {
			parts = append(parts, d.Msg)
		} else {
			kept = append(kept, d)
		}
	}
	c.diags = kept
	return &Error{Op: op, Msg: strings.Join(parts, "; ")}
}

// memBuffer copies data into an LLVM memory buffer named name.
func (c *Context) memBuffer(name string, data []byte) uintptr {
	var p *byte
	if len(data) > 0 {
		p = &data[0]
	}
	return c.lib.createMemoryBufferCopy(p, uintptr(len(data)), name)
}

// ParseBitcode parses a bitcode module; its identifier is name (what
// llvm-dis prints as the ModuleID).
func (c *Context) ParseBitcode(name string, data []byte) (*Module, error) {
	buf := c.memBuffer(name, data)
	defer c.lib.disposeMemoryBuffer(buf)
	var m uintptr
	if c.lib.parseBitcodeInContext2(c.ref, buf, &m) != 0 || m == 0 {
		return nil, c.failure("parse bitcode", "")
	}
	return &Module{ctx: c, ref: m}, nil
}

// ParseIR parses textual IR or bitcode (as LLVM's IR file reader does);
// its identifier is name.
func (c *Context) ParseIR(name string, data []byte) (*Module, error) {
	buf := c.memBuffer(name, data)
	defer c.lib.disposeMemoryBuffer(buf)
	var m uintptr
	var msg *byte
	if c.lib.parseIRInContext2(c.ref, buf, &m, &msg) != 0 || m == 0 {
		return nil, c.failure("parse IR", c.lib.takeMessage(msg))
	}
	c.lib.takeMessage(msg)
	return &Module{ctx: c, ref: m}, nil
}

// NewModule creates an empty module whose identifier and source file name
// are name.
func (c *Context) NewModule(name string) *Module {
	return &Module{ctx: c, ref: c.lib.moduleCreateWithName(name, c.ref)}
}

// takeMessage converts and disposes a message LLVM allocated.
func (l *Lib) takeMessage(p *byte) string {
	if p == nil {
		return ""
	}
	s := GoString(p)
	l.disposeMessage(p)
	return s
}

// GoString copies a NUL-terminated C string (nil: "").
func GoString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
