package bundle_test

import (
	"fmt"

	"github.com/offload-kit/offload-kit/format/bundle"
)

func Example() {
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a"}
	raw, _ := bundle.AppendBinary(nil, ids, [][]byte{nil, []byte("device code")}, 4096)
	ccob, hdr, _ := bundle.Compress(nil, raw, bundle.CompressOptions{})
	fmt.Println("version", hdr.Version, hdr.Method, "uncompressed", hdr.UncompressedSize)

	items, err := bundle.Scan(ccob, bundle.Limits{})
	if err != nil {
		panic(err)
	}
	for _, e := range items[0].Bundle.Entries {
		fmt.Printf("%s at %#x: %q\n", e.ID, e.Offset, e.Data)
	}
	// Output:
	// version 3 zstd uncompressed 4107
	// host-x86_64-unknown-linux-gnu- at 0x1000: ""
	// hip-amdgcn-amd-amdhsa--gfx90a at 0x1000: "device code"
}

func ExampleCompatible() {
	code, _ := bundle.ParseTarget("hip-amdgcn-amd-amdhsa--gfx90a:xnack+")
	for _, want := range []string{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc-", "hip-amdgcn-amd-amdhsa--gfx90a:xnack-", "hip-amdgcn-amd-amdhsa--gfx90a"} {
		t, _ := bundle.ParseTarget(want)
		fmt.Println(want, bundle.Compatible(code, t, false))
	}
	// Output:
	// hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc- true
	// hip-amdgcn-amd-amdhsa--gfx90a:xnack- false
	// hip-amdgcn-amd-amdhsa--gfx90a false
}
