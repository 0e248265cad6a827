package offload_test

import (
	"fmt"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
)

func Example() {
	// What `llvm-offload-binary -o out --image=file=k.o,triple=...,arch=...,kind=openmp`
	// writes: the string order is the packager's DenseMap order.
	args := offload.ParseImageArg("file=k.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp")
	img := &offload.Image{Image: []byte("\x7fELF...")}
	for _, kv := range offload.PackagerOrder(args) {
		switch kv.Key {
		case "file":
			img.ImageKind = offload.ImageKindFor(kv.Value, img.Image)
		case "kind":
			img.OffloadKind = format.ParseOffloadKind(kv.Value)
		default:
			img.Strings = append(img.Strings, kv)
		}
	}
	section := offload.AppendBinary(nil, img)
	section = offload.AppendBinary(section, img) // e.g. after ld -r

	bins, err := offload.ParseAll(section, offload.ReadOptions{})
	if err != nil {
		fmt.Println(offload.LLVMError(err))
		return
	}
	for _, b := range bins {
		fmt.Printf("@%d %s %s %s/%s %d bytes\n", b.Offset, b.ImageKind.DumpName(), b.OffloadKind, b.Triple(), b.Arch(), len(b.Image))
	}

	_, err = offload.ParseAll(append(section, 0, 0, 0, 0, 0, 0, 0, 0), offload.ReadOptions{})
	fmt.Println(offload.LLVMError(err))
	// Output:
	// @0 elf openmp x86_64-unknown-linux-gnu/generic 7 bytes
	// @160 elf openmp x86_64-unknown-linux-gnu/generic 7 bytes
	// Invalid data was encountered while parsing the file
}
