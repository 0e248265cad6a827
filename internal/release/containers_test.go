package release

import "testing"

// TestContainerFacts has one row per release: the container facts that
// differ (docs/bundle.md, "Releases"). 16, 19 and 22 were checked against
// their tools; the differential tests in format/offload,
// internal/driver/packager and internal/driver/bundler run them.
func TestContainerFacts(t *testing.T) {
	type row struct {
		major                  int
		hip, sycl              uint16
		name3, name4           string
		hash                   StringHash
		strMap, triple, deprec bool
		ids                    BundleIDRule
		hipv4, compress, level bool
		ccob                   uint16
		ccobEnv, read2, read3  bool
	}
	for _, c := range []row{
		{16, 3, 0, "hip", "none", HashDJB, true, true, false, BundleIDVerbatim, false, false, false, 0, false, false, false},
		{17, 3, 0, "hip", "none", HashXXH3, false, true, false, BundleIDVerbatim, false, false, false, 0, false, false, false},
		{18, 3, 0, "hip", "none", HashXXH3, false, true, false, BundleIDStandardized, true, true, false, 1, false, false, false},
		{19, 3, 0, "hip", "none", HashXXH3, false, true, false, BundleIDStandardized, true, true, true, 2, false, true, false},
		{20, 4, 8, "none", "hip", HashXXH3, false, true, false, BundleIDStrict, true, true, true, 2, true, true, true},
		{21, 4, 8, "none", "hip", HashXXH3, false, true, false, BundleIDStrict, true, true, true, 2, true, true, true},
		{22, 4, 8, "none", "hip", HashXXH3, false, false, true, BundleIDStrict, true, true, true, 3, true, true, true},
	} {
		p := Of(c.major, "test")
		got := row{c.major, p.OffloadKindNumber("hip"), p.OffloadKindNumber("sycl"), p.OffloadKindName(3), p.OffloadKindName(4),
			p.StringMapHash(), p.OffloadBinaryStringMap(), p.PackagerRequiresTriple(), p.PackagerDeprecationWarning(),
			p.BundleIDs(), p.BundleHIPv4IsHIP(), p.BundlerCompression(), p.BundlerCompressionLevel(),
			p.CCOBVersion(), p.CCOBVersionEnv(), p.CCOBReadable(2), p.CCOBReadable(3)}
		if got != c {
			t.Errorf("LLVM %d:\n got %+v\nwant %+v", c.major, got, c)
		}
		if p.BundlerCheckInputArchive() != (c.major >= 17) || p.BundlerVerbose() != (c.major >= 18) ||
			(p.PackagerOptionCategory() == "llvm-offload-binary options") != (c.major == 22) {
			t.Errorf("LLVM %d: check-input-archive=%v verbose=%v category=%q", c.major, p.BundlerCheckInputArchive(), p.BundlerVerbose(), p.PackagerOptionCategory())
		}
		if p.ObjcopyAddrsigLink() != (c.major >= 17) || p.BundlerHostStripped() != (c.major >= 17) {
			t.Errorf("LLVM %d: addrsig link %v", c.major, p.ObjcopyAddrsigLink())
		}
		if p.PackagerArchive() != (c.major >= 17) || p.PackagerIndexInFile() != (c.major == 16) {
			t.Errorf("LLVM %d: archive=%v index-in-file=%v", c.major, p.PackagerArchive(), p.PackagerIndexInFile())
		}
		if p.OffloadKindNumber("openmp") != 1 || p.OffloadKindNumber("cuda") != 2 || p.OffloadKindNumber("HIP") != 0 ||
			p.OffloadKindName(1) != "openmp" || p.OffloadKindName(2) != "cuda" || p.OffloadKindName(0) != "none" {
			t.Errorf("LLVM %d: openmp/cuda/none numbering differs", c.major)
		}
	}
}
