// Command linker-wrapper is a drop-in replacement for clang-linker-wrapper.
package main

import "os"

func main() { os.Exit(realMain(os.Args[0], os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
