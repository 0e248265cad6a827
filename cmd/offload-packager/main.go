// Command offload-packager creates, extracts, inspects and embeds offload
// packages. Invoked as llvm-offload-binary or clang-offload-packager it is a
// drop-in replacement for that LLVM tool; as clang-offload-bundler, for that.
package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	// The drivers stop at the next chunk boundary on SIGINT/SIGTERM and
	// remove their temporary outputs; one blocked in a write (a pipe nobody
	// reads) cannot, so give up after a grace period.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sig
		time.Sleep(time.Second)
		os.Exit(130)
	}()
	os.Exit(run(os.Args[0], os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
