package packager

import (
	"errors"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/cli/clopt"
	"github.com/offload-kit/offload-kit/internal/release"
)

// The llvm-offload-binary / clang-offload-packager personality behaves as
// the packager of the release that invoked it (driverenv.Env.Release:
// $OFFLOAD_KIT_LLVM_RELEASE, else the parent clang); docs/bundle.md,
// "Releases".

// ErrMissingFileOrTriple is the message of the packagers up to LLVM 21,
// which require triple= as well as file=.
var ErrMissingFileOrTriple = errors.New("'file' and 'triple' are required image arguments")

// checkImagesAs refuses an --image without triple= where the release's
// packager does (release.Profile.PackagerRequiresTriple), or without file=.
func checkImagesAs(prof release.Profile, images []string) error {
	if !prof.PackagerRequiresTriple() {
		return nil
	}
	for _, arg := range images {
		var file, trip bool
		for _, kv := range offload.ParseImageArg(arg) {
			file = file || kv.Key == "file"
			trip = trip || kv.Key == "triple"
		}
		if !file || !trip {
			return ErrMissingFileOrTriple
		}
	}
	return nil
}

// asRelease gives the images the offload kind number the release writes
// (HIP is 3 up to LLVM 19) and, for LLVM 16, whose OffloadBinary kept its
// strings in a StringMap, that map's order.
func asRelease(prof release.Profile, loads []payload) {
	for _, p := range loads {
		m := p.meta
		m.OffloadKind = offloadKindAs(prof, m.OffloadKind.String())
		if prof.OffloadBinaryStringMap() {
			m.Strings = offload.StringMapOrder(m.Strings, prof.StringMapHash())
		}
	}
}

// offloadKindAs is the release's getOffloadKind for a kind name.
func offloadKindAs(prof release.Profile, name string) format.OffloadKind {
	return format.OffloadKind(prof.OffloadKindNumber(name))
}

// producerText is the "producer" of an image in dump's text output: the
// name the release's llvm-objdump gives its kind number, else (an image
// built by hand, or the default) its offload model's name.
func (im *DumpImage) producerText() string {
	if im.producer != "" {
		return im.producer
	}
	return im.OffloadKind
}

// offloadBinaryOptsAs is the release's option table: --archive only from
// LLVM 17 (release.Profile.PackagerArchive), so that 16 rejects it as an
// unknown argument and leaves it out of --help, and the options' --help
// heading named after the tool of the release.
func offloadBinaryOptsAs(prog, path string, prof release.Profile) *clopt.Set {
	set := offloadBinaryOpts(prog, path)
	set.Category = prof.PackagerOptionCategory()
	if !prof.PackagerArchive() {
		opts := set.Opts[:0]
		for _, o := range set.Opts {
			if o.Name != obArchive {
				opts = append(opts, o)
			}
		}
		set.Opts = opts
	}
	return set
}

// indexOf is b's position in bins.
func indexOf(bins []*offload.Binary, b *offload.Binary) int {
	for i, x := range bins {
		if x == b {
			return i
		}
	}
	return -1
}
