// Command sycl-linker is offload-kit's clang-sycl-linker: it links SYCL
// device bitcode, splits it (per kernel, per source, by optional features),
// writes property sets, symbol tables and tables, and generates SPIR-V.
package main

import (
	"os"

	"github.com/offload-kit/offload-kit/internal/llvmpool"
)

func main() {
	if llvmpool.IsHelper(os.Args) { // one of this tool's in-process LLVM helpers
		os.Exit(llvmpool.Serve(os.Args, os.Stdin, os.Stdout))
	}
	// the helper's start and libLLVM load overlap this process's own
	llvmpool.Prespawn(os.Getenv("OFFLOAD_KIT_LLVM"))
	os.Exit(runMain(os.Args[1:], os.Getenv("PATH"), os.Stdout, os.Stderr))
}
