package llvmpool

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/llvm"
)

// LTORequest is the optimisation half of a full-LTO device link, as
// ld.lld's LTO runs it for a shared object: the inputs (bitcode files)
// linked in order into one module, every definition with hidden
// visibility internalised (the symbols a shared object does not export),
// and the "lto<On>" pipeline run with the target's TargetMachine.
type LTORequest struct {
	Inputs                []string
	Triple, CPU, Features string
	Level                 int // 0 to 3, as -plugin-opt=O<n> (ld.lld's default is 2)
	// Warn receives LLVM's warnings, one line each (nil: dropped).
	Warn func(string)
}

// LTO runs r in a helper and returns the optimised module as textual IR,
// ready for code generation (CodegenAt), whole or in parts.
func (p *Pool) LTO(ctx context.Context, r LTORequest) ([]byte, error) {
	if r.Level < 1 || r.Level > 3 {
		return nil, fmt.Errorf("LTO: optimisation level %d", r.Level)
	}
	f := [][]byte{[]byte(r.Triple), []byte(r.CPU), []byte(r.Features), []byte(strconv.Itoa(r.Level))}
	for _, in := range r.Inputs {
		if err := rereadable(in); err != nil {
			return nil, err
		}
		f = append(f, []byte(in))
	}
	res, err := p.do(ctx, nil, frame(opLTO, f...), r.Warn)
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// CodegenAt is Codegen (an object file from textual IR) at optimisation
// level (0 to 3: llc's -O<n>; ld.lld's LTO uses the LTO level). SPIR-V
// goes through Codegen.
func (p *Pool) CodegenAt(ctx context.Context, r CodegenRequest, level int) ([]byte, error) {
	if spirvStatic(r.Triple) {
		return nil, fmt.Errorf("CodegenAt: %s: use Codegen", r.Triple)
	}
	req := frame(opCodegenAt, []byte(r.Name), r.Text, []byte(r.Triple), []byte(r.CPU), []byte(r.Features), []byte(strconv.Itoa(level)))
	f, err := p.do(ctx, r.Options, req, r.Warn)
	if err != nil {
		return nil, err
	}
	return f[0], nil
}

// Library is the libLLVM the helpers load and its release ("22.1.8"),
// once Start succeeded: what a cache key of in-process results names.
func (p *Pool) Library() (path, version string) { return p.lib, p.version }

// relocFor is the relocation model of code for triple: position
// independent for CPU targets, whose device code is a shared object (as
// ld.lld's and the gold plugin's LTO make it for -shared); the targets'
// default for GPUs and SPIR-V.
func relocFor(s string) llvm.RelocMode {
	if t := triple.Parse(s); t.IsGPU() || t.Arch == "spir" || t.Arch == "spir64" {
		return llvm.RelocDefault
	}
	return llvm.RelocPIC
}

// isNVPTX: code generation for triple emits PTX text, not an object.
func isNVPTX(s string) bool { return triple.Parse(s).IsNVPTX() }

func parseLevel(s string) (llvm.CodeGenOptLevel, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 3 {
		return 0, fmt.Errorf("helper: bad optimisation level %q", s)
	}
	return llvm.CodeGenOptLevel(n), nil
}

// lto serves LTORequest: link, internalise, optimise, print.
func (s *server) lto(c *llvm.Context, triple, cpu, features, level string, inputs [][]byte) ([][]byte, error) {
	lvl, err := parseLevel(level)
	if err != nil {
		return nil, err
	}
	// ld.lld's LTO names the merged module ld-temp.o
	m := c.NewModule("ld-temp.o")
	defer m.Dispose()
	for _, p := range inputs {
		in, err := loadInput(c, string(p))
		if err != nil {
			return nil, named(string(p), err)
		}
		if err := m.Link(in); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	if err := m.Verify(); err != nil {
		return nil, fmt.Errorf("linked module is broken: %w", err)
	}
	if triple == "" {
		triple = m.Target()
	}
	// What a shared object's symbol resolution leaves visible to regular
	// objects: definitions with default or protected visibility. Hidden
	// ones are internalised, as LTO's internalize step does (linkage
	// internal, visibility default).
	for _, g := range m.Globals() {
		if g.IsDeclaration() || strings.HasPrefix(g.Name(), "llvm.") {
			continue
		}
		switch g.Linkage() {
		case llvm.InternalLinkage, llvm.PrivateLinkage, llvm.AppendingLinkage:
			continue
		}
		if g.Visibility() == llvm.HiddenVisibility {
			g.SetLinkage(llvm.InternalLinkage)
			g.SetVisibility(llvm.DefaultVisibility)
		}
	}
	tm, err := s.lib.NewTargetMachineReloc(s.lib.NormalizeTriple(triple), cpu, features, lvl, relocFor(triple))
	if err != nil {
		return nil, err
	}
	defer tm.Dispose()
	if err := m.RunPasses(fmt.Sprintf("lto<O%d>", lvl), tm); err != nil {
		return nil, err
	}
	return [][]byte{[]byte(m.String())}, nil
}
