package bitcode_test

import (
	"fmt"
	"log"
	"os"

	"github.com/offload-kit/offload-kit/format/bitcode"
)

func ExampleEmbeddedObjects() {
	// host.c compiled with clang -c -flto -Xclang -fembed-offload-object=pkg-openmp.out
	buf, err := os.ReadFile("testdata/host-one-flto.bc")
	if err != nil {
		log.Fatal(err)
	}
	objs, err := bitcode.EmbeddedObjects(buf)
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range objs {
		fmt.Printf("@%s section %s: %d bytes, magic % x\n", o.Global, o.Section, len(o.Data), o.Data[:4])
	}
	// Output:
	// @llvm.embedded.object section .llvm.offloading: 1112 bytes, magic 10 ff 10 ad
}

func ExampleSymbols() {
	buf, err := os.ReadFile("testdata/host-one-flto.bc")
	if err != nil {
		log.Fatal(err)
	}
	syms, err := bitcode.Symbols(buf)
	if err != nil {
		log.Fatal(err) // errors.Is(err, format.ErrUnsupported): no irsymtab
	}
	for _, s := range syms {
		fmt.Printf("%-24s %v\n", s.Name, s.Flags)
	}
	names, err := bitcode.ArchiveSymbols(buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("archive index:", names)
	// Output:
	// main                     global|executable
	// .Lllvm.embedded.object   uncommon|used|format_specific
	// llvm.compiler.used       uncommon|global|format_specific
	// archive index: [main]
}

func ExampleModuleTriple() {
	buf, err := os.ReadFile("testdata/host-one-darwin.bc") // behind a wrapper header
	if err != nil {
		log.Fatal(err)
	}
	triple, err := bitcode.ModuleTriple(buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(triple)
	// Output:
	// x86_64-apple-macosx10.4.0
}
