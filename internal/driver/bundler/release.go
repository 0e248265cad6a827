package bundler

import (
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/internal/cli/clopt"
	"github.com/offload-kit/offload-kit/internal/release"
)

// The bundler behaves as the clang-offload-bundler of the release that
// invoked it (driverenv.Env.Release: $OFFLOAD_KIT_LLVM_RELEASE, else the
// parent clang): its options, entry ID rules, StringMap order and CCOB
// version (docs/bundle.md, "Releases").

// bundlerOptsAs is bundlerOpts without the options the release's bundler
// does not have (-check-input-archive before LLVM 17, -compress and
// -verbose before 18, -compression-level before 19),
// so that they are unknown arguments and absent from --help, as there.
func bundlerOptsAs(prog, path string, prof release.Profile) *clopt.Set {
	set := bundlerOpts(prog, path)
	opts := set.Opts[:0]
	for _, o := range set.Opts {
		switch {
		case o.Name == optCompress && !prof.BundlerCompression(),
			o.Name == optCompressionLevel && !prof.BundlerCompressionLevel(),
			o.Name == optCheckInputArchive && !prof.BundlerCheckInputArchive(),
			o.Name == optVerbose && !prof.BundlerVerbose():
			continue
		}
		opts = append(opts, o)
	}
	set.Opts = opts
	return set
}

// checkID: only the strict rule (LLVM 20 and later) refuses IDs without 5
// or 6 components.
func (c *config) checkID(s string) bool {
	return c.prof.BundleIDs() != release.BundleIDStrict || bundle.CheckID(s)
}

// parseID parses an ID as the release's OffloadTargetInfo does.
func (c *config) parseID(s string) (bundle.Target, bool) {
	return bundle.ParseTargetAs(s, c.prof.BundleIDs())
}

// compatible is the release's isCodeObjectCompatible for the file's entry
// codeID and the requested target (as c.targets keeps it).
func (c *config) compatible(codeID, target string) bool {
	code, _ := c.parseID(codeID)
	tt, _ := c.parseID(target)
	return bundle.CompatibleAs(codeID, target, code, tt, c.prof.BundleIDs(), c.HipOpenMPCompatible, c.prof.BundleHIPv4IsHIP())
}

// idsOf lists b's IDs in the release's StringMap order.
func (c *config) idsOf(b *bundle.Bundle) []string {
	ids := make([]string, len(b.Entries))
	for i, e := range b.Entries {
		ids[i] = e.ID
	}
	return bundle.LLVMOrderHash(ids, c.prof.StringMapHash())
}
