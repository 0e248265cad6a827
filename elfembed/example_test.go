package elfembed_test

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/offload-kit/offload-kit/elfembed"
)

// Embed a package into a host object, as clang -fembed-offload-object
// does, then find it again.
func Example() {
	host, err := os.ReadFile("testdata/hello-x86_64-linux-gnu.o")
	if err != nil {
		panic(err)
	}
	pkg, err := os.ReadFile("testdata/pkg.out")
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	if err := elfembed.Embed(&out, host, []io.ReaderAt{bytes.NewReader(pkg)}, []int64{int64(len(pkg))}); err != nil {
		panic(err)
	}
	obj, err := elfembed.Parse(out.Bytes())
	if err != nil {
		panic(err)
	}
	for _, s := range obj.OffloadSections() {
		fmt.Printf("%s type=%#x flags=%#x align=%d size=%d same=%v\n", s.Name, uint32(s.Type), s.Flags, s.Align, s.Size, bytes.Equal(s.Data, pkg))
	}
	// Output:
	// .llvm.offloading type=0x6fff4c0b flags=0x80000000 align=8 size=160 same=true
}

// Rename and remove sections, and rename symbols, in a COFF object.
func ExampleRewrite() {
	in, err := os.ReadFile("testdata/emb-x86_64-pc-windows-msvc.o")
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	err = elfembed.Rewrite(&out, in, elfembed.Edit{
		RenameSection: map[string]string{".llvm.offloading": ".llvm.offloading.relocatable"},
		RenameSymbol:  map[string]string{"main": "host_main"},
	})
	if err != nil {
		panic(err)
	}
	obj, _ := elfembed.Parse(out.Bytes())
	for _, s := range obj.OffloadSections() {
		fmt.Println(obj.Format, s.Name, s.Size)
	}
	// Output:
	// COFF .llvm.offloading.relocatable 160
}
