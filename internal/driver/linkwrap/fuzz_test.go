package linkwrap

import (
	"testing"

	"github.com/offload-kit/offload-kit/internal/cli/optable"
)

// FuzzParseArgs runs the real clang-linker-wrapper table over arbitrary
// command lines: no panics, an error means no options, and the host link
// rendering never loses a forwarded argument.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"--linker-path=/usr/bin/ld -o a a.o -lomp -L/x --wrapper-jobs=4",
		"-mllvm -x --offload-opt=-y --device-linker=amdgcn-amd-amdhsa=-v -r --should-extract=gfx90a,gfx942",
		"--output=x -rpath=/a /out:y -libpath:z /wholearchive:w --wrapper-jobs=jobserver",
		"-o", "--wrapper-jobs=0", "--device-archives=llvm22 @rsp -- -",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseArgs(optable.TokenizeGNU(s))
		if err != nil {
			if o != nil {
				t.Fatal("error with options")
			}
			return
		}
		d := &driver{opt: o}
		_ = d.hostLinkArgs([]string{"w.o"})
		_ = d.deviceArgs("clang", groupKey{"amdgcn-amd-amdhsa", "gfx90a"}, false, "i.img", []string{"in.o"})
	})
}
