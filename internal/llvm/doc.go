// Package llvm is a small typed binding over the C API of a shared
// libLLVM (Debian's libLLVM.so.22.1), loaded at run time with
// github.com/ebitengine/purego so that CGO_ENABLED=0 builds keep working.
// It covers what the SYCL device-link pipeline needs: parsing bitcode and
// textual IR, linking modules, printing a module, writing bitcode,
// verifying, running a pass pipeline and emitting object code through a
// target machine (SPIR-V, AMDGPU, NVPTX).
//
// Every handle (Context, Module, TargetMachine) is owned by the caller and
// released with Dispose. A Context and everything made in it belong to one
// goroutine at a time; use one Context per worker for parallel work.
// Errors carry LLVM's own message.
//
// LLVM's readers are not hardened against hostile input, and a crash
// inside the library (SIGSEGV, abort) takes the whole process down: a Go
// recover cannot catch it. Tools therefore call this package only from
// helper processes (internal/llvmpool), never in the process that owns the
// outputs.
//
// Reference: llvm/include/llvm-c/{Core,BitReader,BitWriter,IRReader,
// Linker,Analysis,TargetMachine,Transforms/PassBuilder,Error}.h of LLVM
// 22.1.8.
package llvm
