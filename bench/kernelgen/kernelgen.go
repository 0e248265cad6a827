// Package kernelgen writes the synthetic SYCL device module the split
// benchmarks use (bench and bench/split): n kernels, each calling its own
// helper which calls one shared function, spread over 50 source modules.
package kernelgen

import (
	"bytes"
	"fmt"
)

// Module returns the module's textual IR.
func Module(n int) []byte { return ModuleBody(n, 0) }

// ModuleBody is Module with body extra instructions in each helper, for a
// module whose text is dominated by function bodies (about 22 bytes of
// text per instruction), as real kernels are.
func ModuleBody(n, body int) []byte {
	var b bytes.Buffer
	b.WriteString("target datalayout = \"e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1\"\n")
	b.WriteString("target triple = \"spir64-unknown-unknown\"\n\n")
	b.WriteString("define spir_func i32 @shared(i32 %x) {\n  %y = mul i32 %x, 7\n  ret i32 %y\n}\n\n")
	for i := 0; i < n; i++ {
		if body == 0 {
			fmt.Fprintf(&b, "define spir_func i32 @helper_%d(i32 %%x) {\n  %%y = add i32 %%x, %d\n  %%z = call spir_func i32 @shared(i32 %%y)\n  ret i32 %%z\n}\n\n", i, i)
		} else {
			fmt.Fprintf(&b, "define spir_func i32 @helper_%d(i32 %%x) {\n  %%y0 = add i32 %%x, %d\n", i, i)
			for j := 1; j <= body; j++ {
				fmt.Fprintf(&b, "  %%y%d = mul i32 %%y%d, %d\n", j, j-1, (j*i)%97+3)
			}
			fmt.Fprintf(&b, "  %%z = call spir_func i32 @shared(i32 %%y%d)\n  ret i32 %%z\n}\n\n", body)
		}
		fmt.Fprintf(&b, "define spir_kernel void @kernel_%d(ptr addrspace(1) %%out) #%d {\nentry:\n  %%v = load i32, ptr addrspace(1) %%out, align 4\n  %%r = call spir_func i32 @helper_%d(i32 %%v)\n  store i32 %%r, ptr addrspace(1) %%out, align 4\n  ret void\n}\n\n", i, i%50, i)
	}
	for t := 0; t < 50; t++ {
		fmt.Fprintf(&b, "attributes #%d = { \"module-id\"=\"TU%d.cpp\" \"sycl-module-id\"=\"TU%d.cpp\" }\n", t, t, t)
	}
	return b.Bytes()
}
