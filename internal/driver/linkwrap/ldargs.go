package linkwrap

// The host link line as internal/hostlink reads it. The wrapper's option
// table has already read inputs, -l, -L and --(no-)whole-archive; every
// argument it does not know is read by hostlink as GNU ld and ld.lld
// would, taking a separate value from the next argument where the option
// has one. Lazy archive extraction (inputs.go) follows the result.

import (
	"strings"

	"github.com/offload-kit/offload-kit/internal/cli/optable"
	"github.com/offload-kit/offload-kit/internal/hostlink"
)

// parseLdArgs gives the host-linker meaning of the wrapper's parsed
// arguments, in order. The wrapper's own options are left out.
func parseLdArgs(args []optable.Arg) []hostlink.Arg {
	var out []hostlink.Arg
	for i := 0; i < len(args); i++ {
		a := &args[i]
		text := strings.Join(a.Raw, " ")
		add := func(k hostlink.Kind, v string) { out = append(out, hostlink.Arg{Kind: k, Value: v, Text: text}) }
		if a.Opt != nil {
			switch {
			case a.Opt.Flags&(WrapperOnly|DeviceOnly) != 0:
			case a.Is(optLibrary):
				add(hostlink.Lib, a.Value())
			case a.Is(optLibraryPath) || a.Is(optLibpath):
				add(hostlink.LibPath, a.Value())
			case a.Is(optWholeArchive):
				add(hostlink.WholeArchive, "")
			case a.Is(optNoWholeArchive):
				add(hostlink.NoWholeArchive, "")
			}
			continue
		}
		if a.IsInput() {
			add(hostlink.File, a.Value())
			continue
		}
		// The next argument, when the option takes a separate value.
		next := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			n := &args[i]
			if len(n.Raw) != 1 {
				return "", false
			}
			return n.Raw[0], true
		}
		out = append(out, hostlink.Classify(a.Value(), next, text)...)
	}
	return out
}
