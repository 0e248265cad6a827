package split

import (
	"fmt"
	"strings"
	"testing"
)

func synth(n int) []byte {
	var b strings.Builder
	b.WriteString("target triple = \"spir64-unknown-unknown\"\n\ndefine spir_func i32 @shared(i32 %x) {\n  %y = mul i32 %x, 7\n  ret i32 %y\n}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "define spir_func i32 @helper_%d(i32 %%x) {\n  %%y = add i32 %%x, %d\n  %%z = call spir_func i32 @shared(i32 %%y)\n  ret i32 %%z\n}\n\n", i, i)
		fmt.Fprintf(&b, "define spir_kernel void @kernel_%d(ptr addrspace(1) %%out) #%d {\nentry:\n  %%v = load i32, ptr addrspace(1) %%out, align 4\n  %%r = call spir_func i32 @helper_%d(i32 %%v)\n  store i32 %%r, ptr addrspace(1) %%out, align 4\n  ret void\n}\n\n", i, i%50, i)
	}
	for t := 0; t < 50; t++ {
		fmt.Fprintf(&b, "attributes #%d = { \"module-id\"=\"TU%d.cpp\" \"sycl-module-id\"=\"TU%d.cpp\" }\n", t, t, t)
	}
	return []byte(b.String())
}

// BenchmarkSplitKernel4000 parses a 4000-kernel module and emits every
// per-kernel part with its properties (no file I/O).
func BenchmarkSplitKernel4000(b *testing.B) {
	src := synth(4000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		m, err := Parse("synth.ll", src)
		if err != nil {
			b.Fatal(err)
		}
		x := m.NewExtractor(ClosureOptions{})
		var buf []byte
		for _, p := range m.Split(Options{Mode: ModeKernel}) {
			var cl *Closure
			buf, cl = x.Emit(buf[:0], &p)
			_ = m.Properties(&p, cl, PropOptions{}).Text()
		}
	}
}
