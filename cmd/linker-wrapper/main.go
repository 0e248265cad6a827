// Command linker-wrapper is a drop-in replacement for clang-linker-wrapper.
package main

import (
	"os"

	"github.com/offload-kit/offload-kit/internal/llvmpool"
)

func main() {
	if llvmpool.IsHelper(os.Args) { // one of this tool's in-process LLVM helpers (SYCL links)
		os.Exit(llvmpool.Serve(os.Args, os.Stdin, os.Stdout))
	}
	os.Exit(execute(newRootCmd(nil), os.Args, os.Stdout, os.Stderr))
}
