// Command linker-wrapper is a drop-in replacement for clang-linker-wrapper.
package main

import "os"

func main() { os.Exit(execute(newRootCmd(nil), os.Args, os.Stdout, os.Stderr)) }
