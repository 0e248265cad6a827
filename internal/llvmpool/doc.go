// Package llvmpool runs LLVM (internal/llvm) in helper processes, so that
// a crash inside LLVM on a hostile or malformed module ends a helper and
// becomes an error naming the input, never the tool.
//
// The tool re-executes itself (argv[1] = HelperArg) as a few long-lived
// helpers, about one per core, started lazily; each loads libLLVM once
// and serves requests (link or read modules, assemble textual IR to
// bitcode, generate code) over its standard input and output in
// length-prefixed frames (proto.go), each request in a fresh LLVMContext
// so that memory does not grow with the number of requests. Assembled
// bitcode and generated code come back over the pipe and the tool writes
// them; a link request (llvm-link, llvm-dis: LinkRequest) is the
// exception: the helper itself writes the textual IR and bitcode files it
// names, which the drivers point at temporaries of their work directory
// (or, under --save-temps, the kept intermediate), never at a final
// output, so a helper that dies leaves at most a partial temporary behind
// a failed run. With libLLVM 22 a
// helper generates each SPIR-V module on a fresh thread with a glibc
// arena of its own, and retires after 64 (spirv.go says why). Helpers
// run with GOMAXPROCS=1, load libLLVM with RTLD_DEEPBIND, and exit by
// themselves when the pool closes their input (Close waits for them).
//
// The library is looked for in the link's LLVM installation (llvm-config
// --libdir of the chosen LLVM), the LLVM-22 directory, then by soname
// (find.go); its release must be LLVM 22. When none will do, Start says
// why and the tools run LLVM's programs as child processes instead.
//
// See docs/sycl-linker.md ("In-process LLVM").
package llvmpool
