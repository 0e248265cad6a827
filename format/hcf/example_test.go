package hcf_test

import (
	"fmt"
	"os"

	"github.com/offload-kit/offload-kit/format/hcf"
)

func ExampleParse() {
	buf, err := os.ReadFile("testdata/sscp.hcf")
	if err != nil {
		panic(err)
	}
	f, err := hcf.Parse(buf)
	if err != nil {
		panic(err)
	}
	id, _ := f.Root.Get("object-id")
	img := f.Root.Lookup("images", "llvm-ir.global")
	bc, err := f.Attachment(img)
	if err != nil {
		panic(err)
	}
	fmt.Printf("object %s: %d-byte image, magic % x\n", id, len(bc), bc[:4])
	for _, k := range f.Root.Child("kernels").Children {
		fmt.Println("kernel", k.Name, "providers", k.Child("image-providers").List())
	}
	// Output:
	// object 9876543210: 64-byte image, magic 42 43 c0 de
	// kernel _Z13kernel_singlev providers [llvm-ir.global]
}

func ExampleFile_AppendTo() {
	f := hcf.New()
	f.Root.Set("object-id", "1")
	sm := f.Root.Subnode("sm_90")
	if err := f.Attach(sm, []byte("PTX")); err != nil {
		panic(err)
	}
	out, err := f.AppendTo(nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s\n", out)
	// Output:
	// object-id=1
	// {.sm_90
	// {.__binary
	// start=0
	// size=3
	// }.__binary
	// }.sm_90
	// __acpp_hcf_binary_appendixPTX
}

func ExampleFind() {
	obj, err := os.ReadFile("testdata/minimal.hcf")
	if err != nil {
		panic(err)
	}
	rodata := append([]byte("\x00\x00other data\x00"), obj...)
	for _, l := range hcf.Find(rodata) {
		fmt.Println(l.Offset, l.Size)
	}
	// Output: 13 61
}
