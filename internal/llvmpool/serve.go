package llvmpool

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/internal/llvm"
)

// HelperArg is argv[1] of a helper process. A tool that uses a Pool calls
// IsHelper first thing in main and, when it reports true, exits with the
// status of Serve(os.Args, os.Stdin, os.Stdout) instead of running its own
// command line.
const HelperArg = "--offload-kit-internal-llvm-helper"

// IsHelper reports whether args (os.Args) start a helper process.
func IsHelper(args []string) bool { return len(args) > 1 && args[1] == HelperArg }

// helperArgs is the command line of a helper: the libraries to try in
// order, the LLVM release they must be, and LLVM command-line options.
func helperArgs(exe string, major int, libs, clopts []string) []string {
	a := []string{exe, HelperArg, "-major=" + strconv.Itoa(major), "-ppid=" + strconv.Itoa(os.Getpid())}
	for _, l := range libs {
		a = append(a, "-lib="+l)
	}
	return append(append(a, "--"), clopts...)
}

// Serve is the main of a helper process (args as built by the pool). It
// loads the first library that opens and is of the wanted release, says
// so (or why none would do), then serves requests until its input ends.
// It returns the exit status.
func Serve(args []string, in io.Reader, out io.Writer) int {
	// a crash prints LLVM's message and the signal, not every goroutine
	debug.SetTraceback("none")
	// LLVM runs on this goroutine's thread only
	runtime.LockOSThread()
	w := bufio.NewWriter(out)
	fail := func(msg string) int {
		w.Write(frame(statusErr, []byte(msg)))
		w.Flush()
		return 3
	}
	major := 0
	var libs, clopts []string
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			clopts = args[i+1:]
			i = len(args)
		case strings.HasPrefix(a, "-major="):
			major, _ = strconv.Atoi(strings.TrimPrefix(a, "-major="))
		case strings.HasPrefix(a, "-ppid="):
			ppid, _ := strconv.Atoi(strings.TrimPrefix(a, "-ppid="))
			watchParent(ppid)
		case strings.HasPrefix(a, "-lib="):
			libs = append(libs, strings.TrimPrefix(a, "-lib="))
		default:
			return fail("helper: unknown argument " + strconv.Quote(a))
		}
	}
	var lib *llvm.Lib
	var why []string
	for _, p := range libs {
		l, err := llvm.Open(p)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		if major != 0 && l.Major != major {
			why = append(why, fmt.Sprintf("%s is LLVM %s, not %d", p, l.Version(), major))
			continue
		}
		lib = l
		break
	}
	if lib == nil {
		if len(why) == 0 {
			why = append(why, "no library to try")
		}
		return fail("no usable libLLVM: " + strings.Join(why, "; "))
	}
	lib.InitTargets()
	if len(clopts) > 0 {
		if err := lib.ParseCommandLineOptions(clopts); err != nil {
			return fail(err.Error())
		}
	}
	w.Write(frame(statusOK, []byte(lib.Version()), []byte(lib.Path)))
	if w.Flush() != nil {
		return 3
	}
	s := &server{lib: lib, spirv: newSpirvState(lib.Major)}
	r := bufio.NewReaderSize(in, 1<<16)
	var buf []byte
	for {
		req, err := readFrame(r, buf)
		if err == io.EOF {
			return 0
		}
		if err != nil {
			return 3
		}
		buf = req
		res, ctl, diags, err := s.handle(req)
		if ctl != noCtl && err == nil {
			res = append(res, []byte{ctl})
		}
		switch {
		case err != nil:
			// the warnings LLVM gave before the failure come with it; a
			// codegen's control field says what the pool does next
			st, f := statusErr, [][]byte{[]byte(err.Error())}
			if diags != "" {
				st, f = statusErrDiag, append(f, []byte(diags))
			}
			if ctl != noCtl {
				f = append(f, []byte{ctl})
			}
			w.Write(frame(st, f...))
		case diags != "":
			w.Write(frame(statusOKDiag, append([][]byte{[]byte(diags)}, res...)...))
		default:
			w.Write(frame(statusOK, res...))
		}
		if w.Flush() != nil {
			return 3
		}
	}
}

// die ends this orphaned helper at once, as the parent-death signal would:
// it has nothing to flush, and only cmd/*/main.go may call os.Exit
// (docs/architecture.md), so it kills itself.
func die() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	select {}
}

// watchParent ends this helper as soon as its parent, ppid, is gone: at
// once when it already is (it died before the parent-death signal was
// armed), else when a poll every 200 ms finds this process reparented.
// The parent-death signal (run.Start) normally comes first; the poll
// covers systems without one.
func watchParent(ppid int) {
	if ppid <= 0 {
		return
	}
	gone := func() bool { return os.Getppid() != ppid }
	if gone() {
		die()
	}
	go func() {
		for range time.Tick(200 * time.Millisecond) {
			if gone() {
				die()
			}
		}
	}()
}

// requestHook, when set (by tests), runs before each request.
var requestHook func()

type server struct {
	lib   *llvm.Lib
	spirv *spirvState
}

// noCtl: a response without a control field (not a codegen).
const noCtl = 0xff

// handle serves one request; diags are the warnings and notes LLVM
// reported on the way, one "warning: <message>" line each, as LLVM's own
// handler prints them (llvm-link's, clang-sycl-linker's). A codegen's
// response ends with a control field, ctl (spirv.go); others have none
// (noCtl).
func (s *server) handle(req []byte) (res [][]byte, ctl byte, diags string, err error) {
	op, f, err := fields(req)
	if err != nil {
		return nil, noCtl, "", err
	}
	if requestHook != nil {
		requestHook()
	}
	if op != opCodegen || len(f) != 5 {
		res, diags, err = s.inContext(op, f)
		return res, noCtl, diags, err
	}
	if !spirvStatic(string(f[2])) {
		res, diags, err = s.inContext(op, f)
		return res, ctlKeep, diags, err
	}
	// the whole request (its context too) on the thread spirv chooses
	res, ctl, err = s.spirv.generate(func() ([][]byte, error) {
		var r [][]byte
		var e error
		r, diags, e = s.inContext(op, f)
		return r, e
	})
	return res, ctl, diags, err
}

// inContext serves one request in a fresh LLVMContext.
func (s *server) inContext(op byte, f [][]byte) (res [][]byte, diags string, err error) {
	c := s.lib.NewContext()
	defer c.Dispose()
	res, err = s.handleIn(c, op, f)
	var b strings.Builder
	for _, d := range c.Diagnostics() {
		if d.Severity != llvm.SevError {
			fmt.Fprintf(&b, "%s: %s\n", d.Severity, strings.TrimRight(d.Msg, "\n"))
		}
	}
	return res, b.String(), err
}

func (s *server) handleIn(c *llvm.Context, op byte, f [][]byte) ([][]byte, error) {
	switch {
	case op == opLink && len(f) >= 5:
		return nil, s.link(c, string(f[0]), string(f[1]), string(f[2]), string(f[3]), f[4:])
	case op == opAssemble && len(f) == 2:
		m, err := c.ParseIR(string(f[0]), f[1])
		if err != nil {
			return nil, err
		}
		defer m.Dispose()
		// llvm-as verifies before it writes
		if err := m.Verify(); err != nil {
			return nil, err
		}
		return [][]byte{m.AppendBitcode(nil)}, nil
	case op == opCodegen && len(f) == 5:
		return s.codegen(c, string(f[0]), f[1], string(f[2]), string(f[3]), string(f[4]), llvm.OptDefault)
	case op == opCodegenAt && len(f) == 6 && !spirvStatic(string(f[2])):
		lvl, err := parseLevel(string(f[5]))
		if err != nil {
			return nil, err
		}
		return s.codegen(c, string(f[0]), f[1], string(f[2]), string(f[3]), string(f[4]), lvl)
	case op == opLTO && len(f) >= 5:
		return s.lto(c, string(f[0]), string(f[1]), string(f[2]), string(f[3]), f[4:])
	}
	return nil, fmt.Errorf("helper: bad request (op %d, %d fields)", op, len(f))
}

// link is llvm-link (mode "link": every input linked, in order, into an
// empty module named "llvm-link", then verified) or llvm-dis (mode "dis":
// the single input read as it is). The result is printed to ll and/or
// written as bitcode to bc; ident, when set, is the ModuleID printed.
func (s *server) link(c *llvm.Context, mode, ident, ll, bc string, inputs [][]byte) error {
	var m *llvm.Module
	switch {
	case mode == "dis" && len(inputs) == 1:
		in := string(inputs[0])
		data, err := os.ReadFile(in)
		if err != nil {
			return err
		}
		if m, err = c.ParseIR(in, data); err != nil {
			return named(in, err)
		}
	case mode == "link":
		m = c.NewModule("llvm-link")
		for _, p := range inputs {
			in, err := loadInput(c, string(p))
			if err != nil {
				m.Dispose()
				return named(string(p), err)
			}
			if err := m.Link(in); err != nil {
				m.Dispose()
				return fmt.Errorf("%s: %w", p, err)
			}
		}
		if err := m.Verify(); err != nil {
			m.Dispose()
			return fmt.Errorf("linked module is broken: %w", err)
		}
	default:
		return errors.New("helper: bad link request")
	}
	defer m.Dispose()
	if ident != "" {
		m.SetIdentifier(ident)
	}
	if bc != "" {
		if err := os.WriteFile(bc, m.AppendBitcode(nil), 0o600); err != nil {
			return err
		}
	}
	if ll != "" {
		return m.PrintToFile(ll)
	}
	return nil
}

// named prefixes err with the input's name, unless LLVM's message (a
// parse error: "<name>:<line>:<col>: error: ...") already starts with it.
func named(name string, err error) error {
	var le *llvm.Error
	if errors.As(err, &le) && strings.HasPrefix(le.Msg, name+":") {
		return errors.New(le.Msg)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// loadInput reads one llvm-link input: bitcode or text, or an archive
// whose members (all bitcode) are linked, in order, into a module named
// "ArchiveModule" that takes its data layout and triple from the first
// member that has them, as llvm-link does.
func loadInput(c *llvm.Context, name string) (*llvm.Module, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	if !ar.IsArchive(data) {
		return c.ParseIR(name, data)
	}
	a, err := ar.Parse(data)
	if err != nil {
		return nil, err
	}
	m := c.NewModule("ArchiveModule")
	for _, mem := range a.Members {
		if mem.Data == nil {
			m.Dispose()
			return nil, fmt.Errorf("member '%s': thin archive members are not supported", mem.Name)
		}
		if !format.IsBitcode(mem.Data) {
			m.Dispose()
			return nil, fmt.Errorf("member of archive is not a bitcode file: '%s'", mem.Name)
		}
		x, err := c.ParseIR(mem.Name, mem.Data)
		if err != nil {
			m.Dispose()
			return nil, fmt.Errorf("member '%s': %w", mem.Name, err)
		}
		if m.DataLayout() == "" && x.DataLayout() != "" {
			m.SetDataLayout(x.DataLayout())
		}
		if m.Target() == "" && x.Target() != "" {
			m.SetTarget(x.Target())
		}
		if err := m.Link(x); err != nil {
			m.Dispose()
			return nil, fmt.Errorf("member '%s': %w", mem.Name, err)
		}
	}
	return m, nil
}

// codegen is "llc -mtriple=<triple> [-mcpu=<cpu>] -filetype=obj": parse,
// set the triple (normalised), verify, emit an object file.
func (s *server) codegen(c *llvm.Context, name string, text []byte, triple, cpu, features string, level llvm.CodeGenOptLevel) ([][]byte, error) {
	m, err := c.ParseIR(name, text)
	if err != nil {
		return nil, err
	}
	defer m.Dispose()
	if triple != "" {
		m.SetTarget(s.lib.NormalizeTriple(triple))
	}
	if err := m.Verify(); err != nil {
		return nil, err
	}
	// one target machine per module, as llc has: the SPIR-V backend keeps
	// module state (its global registry) in the subtargets a target
	// machine caches, so a reused one points into freed contexts
	tm, err := s.lib.NewTargetMachineReloc(m.Target(), cpu, features, level, relocFor(m.Target()))
	if err != nil {
		return nil, err
	}
	defer tm.Dispose()
	ft := llvm.ObjectFile
	if isNVPTX(m.Target()) {
		ft = llvm.AssemblyFile // NVPTX's object is its PTX text (ptxas assembles it)
	}
	obj, err := tm.Emit(nil, m, ft)
	if err != nil {
		return nil, err
	}
	return [][]byte{obj}, nil
}
