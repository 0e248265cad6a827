// Command sycl-linker is offload-kit's clang-sycl-linker: it links SYCL
// device bitcode, splits it (per kernel, per source, by optional features),
// writes property sets, symbol tables and tables, and generates SPIR-V.
package main

import "os"

func main() { os.Exit(realMain(os.Args[0], os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
