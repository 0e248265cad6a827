// Command offload-packager creates, extracts, inspects and embeds offload
// packages. Invoked as llvm-offload-binary or clang-offload-packager it is a
// drop-in replacement for that LLVM tool; as clang-offload-bundler, for that.
package main

import "os"

func main() { os.Exit(realMain(os.Args[0], os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
