package split_test

import (
	"fmt"
	"os"

	"github.com/offload-kit/offload-kit/split"
)

const exampleIR = `target triple = "spir64-unknown-unknown"

define spir_func i32 @helper(i32 %x) {
  %y = mul i32 %x, 2
  ret i32 %y
}

define spir_kernel void @k_int(ptr addrspace(1) %p) #0 {
  %v = call spir_func i32 @helper(i32 1)
  store i32 %v, ptr addrspace(1) %p
  ret void
}

define spir_kernel void @k_fp64(ptr addrspace(1) %p) #0 {
  %d = fmul double 1.5, 2.0
  store double %d, ptr addrspace(1) %p
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" }
`

// Per-source splitting keeps the fp64 kernel apart from the other kernel of
// the same translation unit; each part gets its .sym and .prop text.
func Example() {
	m, err := split.Parse("example.ll", []byte(exampleIR))
	if err != nil {
		fmt.Println(err)
		return
	}
	x := m.NewExtractor(split.ClosureOptions{})
	for i, p := range m.Split(split.Options{Mode: split.ModeSource}) {
		ir, cl := x.Emit(nil, &p)
		_ = ir // textual IR of the part: write it, or assemble it with llvm-as
		fmt.Printf("part %d: %s", i, m.SymbolTable(&p))
		m.Properties(&p, cl, split.PropOptions{}).WriteText(os.Stdout)
	}
	// Output:
	// part 0: k_fp64
	// [SYCL/devicelib req mask]
	// DeviceLibReqMask=1|0
	// [SYCL/device requirements]
	// aspects=2|gAAAAAAAAAgBAAAA
	// part 1: k_int
	// [SYCL/devicelib req mask]
	// DeviceLibReqMask=1|0
	// [SYCL/device requirements]
	// aspects=2|AAAAAAAAAAA
}
