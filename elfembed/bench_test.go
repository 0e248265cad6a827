package elfembed

import (
	"io"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	in := readFile(b, "cxx-x86_64-linux-gnu.o")
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Parse(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmbed streams a 16 MiB payload into an ELF and a COFF host.
func BenchmarkEmbed(b *testing.B) {
	const size = 16 << 20
	for _, host := range []string{"hello-x86_64-linux-gnu.o", "hello-x86_64-pc-windows-msvc.o"} {
		in := readFile(b, host)
		b.Run(host, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if err := Embed(io.Discard, in, []io.ReaderAt{patternReader{size}}, []int64{size}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
