package llvm

import "unsafe"

// Module is an LLVM module, owned by the caller until Dispose or until it
// is linked into another module.
type Module struct {
	ctx *Context
	ref uintptr
}

// Dispose releases the module.
func (m *Module) Dispose() {
	if m.ref != 0 {
		m.ctx.lib.disposeModule(m.ref)
		m.ref = 0
	}
}

// Link links src into m (LLVMLinkModules2, i.e. Linker::linkModules with
// no flags). src is consumed, whatever the outcome.
func (m *Module) Link(src *Module) error {
	ref := src.ref
	src.ref = 0
	if m.ctx.lib.linkModules2(m.ref, ref) != 0 {
		return m.ctx.failure("link", "")
	}
	return nil
}

// String is the module's textual IR (as llvm-dis prints it).
func (m *Module) String() string {
	return m.ctx.lib.takeMessage(m.ctx.lib.printModuleToString(m.ref))
}

// PrintToFile writes the module's textual IR to the named file, without
// holding it in memory.
func (m *Module) PrintToFile(name string) error {
	var msg *byte
	if m.ctx.lib.printModuleToFile(m.ref, name, &msg) != 0 {
		return &Error{Op: "print module", Msg: m.ctx.lib.takeMessage(msg)}
	}
	m.ctx.lib.takeMessage(msg)
	return nil
}

// AppendBitcode appends the module's bitcode to dst.
func (m *Module) AppendBitcode(dst []byte) []byte {
	l := m.ctx.lib
	buf := l.writeBitcodeToMemoryBuffer(m.ref)
	defer l.disposeMemoryBuffer(buf)
	return appendBuffer(l, dst, buf)
}

func appendBuffer(l *Lib, dst []byte, buf uintptr) []byte {
	n := l.getBufferSize(buf)
	if n == 0 {
		return dst
	}
	return append(dst, unsafe.Slice(l.getBufferStart(buf), n)...)
}

// Verify runs the IR verifier; the error carries its report.
func (m *Module) Verify() error {
	var msg *byte
	const returnStatus = 2 // LLVMReturnStatusAction
	if m.ctx.lib.verifyModule(m.ref, returnStatus, &msg) != 0 {
		return &Error{Op: "verify", Msg: trimNL(m.ctx.lib.takeMessage(msg))}
	}
	m.ctx.lib.takeMessage(msg)
	return nil
}

func trimNL(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return s
}

// Target is the module's target triple.
func (m *Module) Target() string { return GoString(m.ctx.lib.getTarget(m.ref)) }

// SetTarget sets the module's target triple.
func (m *Module) SetTarget(triple string) { m.ctx.lib.setTarget(m.ref, triple) }

// DataLayout is the module's data layout string.
func (m *Module) DataLayout() string { return GoString(m.ctx.lib.getDataLayoutStr(m.ref)) }

// SetDataLayout sets the module's data layout string.
func (m *Module) SetDataLayout(dl string) { m.ctx.lib.setDataLayout(m.ref, dl) }

// SetIdentifier sets the module identifier (the ModuleID comment of its
// text).
func (m *Module) SetIdentifier(id string) {
	b := []byte(id)
	var p *byte
	if len(b) > 0 {
		p = &b[0]
	}
	m.ctx.lib.setModuleIdentifier(m.ref, p, uintptr(len(b)))
}

// RunPasses runs a new-pass-manager pipeline ("verify", "default<O2>",
// "globaldce", ...) over the module; tm may be nil.
func (m *Module) RunPasses(passes string, tm *TargetMachine) error {
	l := m.ctx.lib
	opts := l.createPassBuilderOptions()
	defer l.disposePassBuilderOptions(opts)
	var t uintptr
	if tm != nil {
		t = tm.ref
	}
	if e := l.runPasses(m.ref, passes, t, opts); e != 0 {
		p := l.getErrorMessage(e) // consumes the error
		msg := GoString(p)
		l.disposeErrorMessage(p)
		return m.ctx.failure("run passes "+passes, msg)
	}
	return nil
}

// CodeGenOptLevel is LLVMCodeGenOptLevel.
type CodeGenOptLevel int32

const (
	OptNone CodeGenOptLevel = iota
	OptLess
	OptDefault // llc's default (-O2)
	OptAggressive
)

// FileType is LLVMCodeGenFileType.
type FileType int32

const (
	AssemblyFile FileType = iota
	ObjectFile
)

// TargetMachine generates code for one triple, CPU and feature string.
// Use one per module, as llc does: the SPIR-V backend keeps per-module
// state in the subtargets a target machine caches, so emitting a second
// module (from another, disposed context) reads freed memory.
type TargetMachine struct {
	lib *Lib
	ref uintptr
}

// NewTargetMachine creates a target machine for triple (normalised), with
// the default relocation and code models, as llc does without options.
// InitTargets must have run.
func (l *Lib) NewTargetMachine(triple, cpu, features string, level CodeGenOptLevel) (*TargetMachine, error) {
	return l.NewTargetMachineReloc(triple, cpu, features, level, RelocDefault)
}

// RelocMode is LLVMRelocMode (the values this package uses).
type RelocMode int32

const (
	RelocDefault RelocMode = 0
	RelocPIC     RelocMode = 2 // position-independent code, for shared objects
)

// NewTargetMachineReloc is NewTargetMachine with a relocation model.
func (l *Lib) NewTargetMachineReloc(triple, cpu, features string, level CodeGenOptLevel, reloc RelocMode) (*TargetMachine, error) {
	var t uintptr
	var msg *byte
	if l.getTargetFromTriple(triple, &t, &msg) != 0 || t == 0 {
		return nil, &Error{Op: "target " + triple, Msg: l.takeMessage(msg)}
	}
	l.takeMessage(msg)
	tm := l.createTargetMachine(t, triple, cpu, features, int32(level), int32(reloc), 0)
	if tm == 0 {
		return nil, &Error{Op: "target machine " + triple, Msg: "not created"}
	}
	return &TargetMachine{lib: l, ref: tm}, nil
}

// Dispose releases the target machine.
func (tm *TargetMachine) Dispose() {
	if tm.ref != 0 {
		tm.lib.disposeTargetMachine(tm.ref)
		tm.ref = 0
	}
}

// Emit generates code for m and appends it to dst. It does not verify m:
// call Verify first (llc does).
func (tm *TargetMachine) Emit(dst []byte, m *Module, ft FileType) ([]byte, error) {
	var msg *byte
	var buf uintptr
	if tm.lib.emitToMemoryBuffer(tm.ref, m.ref, int32(ft), &msg, &buf) != 0 || buf == 0 {
		return dst, m.ctx.failure("emit", tm.lib.takeMessage(msg))
	}
	tm.lib.takeMessage(msg)
	defer tm.lib.disposeMemoryBuffer(buf)
	if d := m.ctx.Diagnostics(); len(d) > 0 {
		for _, x := range d {
			if x.Severity == SevError {
				return dst, &Error{Op: "emit", Msg: x.Msg}
			}
		}
	}
	return appendBuffer(tm.lib, dst, buf), nil
}
