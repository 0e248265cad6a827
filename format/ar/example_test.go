package ar_test

import (
	"bytes"
	"fmt"

	"github.com/offload-kit/offload-kit/format/ar"
)

func Example() {
	var buf bytes.Buffer
	_ = ar.WriteGNU(&buf, []ar.WriteMember{
		{Name: "mm.out", Data: []byte("image one")},
		{Name: "a_long_member_name.bin", Data: []byte("image two")},
	})
	a, err := ar.Parse(buf.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range a.Members {
		fmt.Printf("%s %d %q\n", m.Name, m.Size, m.Data)
	}
	// Output:
	// mm.out 9 "image one"
	// a_long_member_name.bin 9 "image two"
}
