package fatbin_test

import (
	"bytes"
	"fmt"
	"os"

	"github.com/offload-kit/offload-kit/format/fatbin"
)

func ExampleParse() {
	buf, err := os.ReadFile("testdata/elf_ptx_lz4.fatbin")
	if err != nil {
		panic(err)
	}
	files, err := fatbin.Parse(buf)
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		for _, e := range f.Entries {
			img, err := e.Image()
			if err != nil {
				panic(err)
			}
			fmt.Printf("%v sm_%d at 0x%x: %d bytes stored, %s, %d-byte image\n",
				e.Kind, e.SM, e.Offset, e.Size, e.Compression, len(img))
		}
	}
	// Output:
	// elf sm_90 at 0x50: 1528 bytes stored, lz4, 4200-byte image
	// ptx sm_90 at 0x698: 624 bytes stored, lz4, 1205-byte image
}

func ExampleWrite() {
	cubin, err := os.ReadFile("testdata/saxpy.linked.cubin")
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	if err := fatbin.Write(&out, []fatbin.WriteEntry{{Kind: fatbin.KindELF, SM: 90, Data: cubin}}); err != nil {
		panic(err)
	}
	fmt.Println(out.Len()) // 16-byte header + 64-byte entry header + cubin
	// Output: 4280
}
