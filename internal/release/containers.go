package release

// The facts about the offload containers (OffloadBinary, offload bundles,
// CCOB) and their tools (clang-offload-packager, clang-offload-bundler,
// llvm-objdump --offloading) that differ between releases. Where a fact was
// checked against Debian's clang 16.0.6, 19.1.7 and 22.1.8 tools it says
// so; the others come from the LLVM history named (docs/bundle.md,
// "Releases").

// OffloadKindNumber is the OffloadBinary kind number the release's
// packager writes for a kind name (its getOffloadKind): "openmp" 1, "cuda"
// 2 everywhere; "hip" 3 up to LLVM 19 and 4 since LLVM 20 made the kinds a
// bit mask, when "sycl" (8) was added. Unknown names are 0 (OFK_None).
// Checked with the 16, 19 and 22 packagers.
func (p Profile) OffloadKindNumber(name string) uint16 {
	switch name {
	case "openmp":
		return 1
	case "cuda":
		return 2
	case "hip":
		return p.HIPOffloadKind()
	case "sycl":
		if p.Major >= 20 {
			return 8
		}
	}
	return 0
}

// OffloadKindName is the producer name the release's getOffloadKindName
// gives a kind number (what its llvm-objdump --offloading prints after
// "producer"): "none" for numbers the release does not know, so 3 is
// "hip" up to LLVM 19 and "none" after, 4 the other way round. Checked
// with llvm-objdump 16, 19 and 22.
func (p Profile) OffloadKindName(kind uint16) string {
	switch {
	case kind == 1:
		return "openmp"
	case kind == 2:
		return "cuda"
	case kind == p.HIPOffloadKind():
		return "hip"
	case kind == 8 && p.Major >= 20:
		return "sycl"
	}
	return "none"
}

// StringHash names the hash function of the release's llvm::StringMap,
// whose bucket order decides the order of clang-offload-bundler's -list
// output and entry matching, and of LLVM 16's OffloadBinary strings.
type StringHash int

const (
	// HashXXH3 is xxh3_64bits (LLVM 17 and later: the StringMap hash moved
	// from djbHash to xxHash64 and then to xxh3_64bits in the LLVM 17
	// cycle).
	HashXXH3 StringHash = iota
	// HashDJB is djbHash with seed 0 (LLVM 16 and earlier).
	HashDJB
)

// StringMapHash is the release's llvm::StringMap hash. Checked: 16 lists
// bundle entries in djbHash order, 19 and 22 in xxh3 order.
func (p Profile) StringMapHash() StringHash {
	if p.Major <= 16 {
		return HashDJB
	}
	return HashXXH3
}

// OffloadBinaryStringMap: the release's OffloadBinary::OffloadingImage
// keeps its strings in a StringMap (LLVM 16), so the packager writes them
// in StringMap bucket order (StringMapHash), not in the order of the
// packager's DenseMap of --image arguments (a MapVector filled from it,
// LLVM 17 and later). Checked: 16's and 19's packagers write the same
// twelve keys in different orders, 19's as 22's.
func (p Profile) OffloadBinaryStringMap() bool { return p.Major <= 16 }

// PackagerRequiresTriple: the release's packager refuses an --image without
// triple= ("'file' and 'triple' are required image arguments"); LLVM 22's
// llvm-offload-binary requires only file= ("'file' is a required image
// arguments"). Checked with 16, 19 and 22; 20 and 21 are taken to be as 19
// (the message changed with the llvm-offload-binary rework in 22).
func (p Profile) PackagerRequiresTriple() bool { return p.Major <= 21 }

// PackagerArchive: the release's packager has --archive (extracted images
// into a static archive; LLVM 17 and later). Checked: 16.0.6 rejects it.
func (p Profile) PackagerArchive() bool { return p.Major >= 17 }

// PackagerIndexInFile: the release's packager numbers the files it
// extracts without file= by the image's position in the input
// ("<stem>-<triple>-<arch>.<position>.<ext>", LLVM 16), not by a counter of
// the images the --image matched (LLVM 17 and later). Checked with 16
// and 19.
func (p Profile) PackagerIndexInFile() bool { return p.Major <= 16 }

// PackagerOptionCategory is the heading of the packager's own options in
// its --help: the tool was clang-offload-packager up to LLVM 21 and is
// llvm-offload-binary in 22. Checked with 16, 19 and 22.
func (p Profile) PackagerOptionCategory() string {
	if p.Major >= 22 {
		return "llvm-offload-binary options"
	}
	return "clang-offload-packager options"
}

// PackagerDeprecationWarning: the release's clang-offload-packager, being
// an alias of llvm-offload-binary, warns "'clang-offload-packager' is
// deprecated. Use 'llvm-offload-binary' instead." on every run (LLVM 22;
// before that it was the tool itself and printed nothing). Checked with 16,
// 19 and 22.
func (p Profile) PackagerDeprecationWarning() bool { return p.Major >= 22 }

// BundleIDRule is how a release's clang-offload-bundler reads the entry IDs
// of -targets and of bundles, and what it writes into a bundle.
type BundleIDRule int

const (
	// BundleIDStrict (LLVM 20 and later): an ID must have 5 or 6
	// '-'-separated components ("<kind>-<arch>-<vendor>-<os>-<env>[-<target
	// id>]"); anything else is refused; IDs are written normalised
	// (amdhsa triples in 3-part form plus '-').
	BundleIDStrict BundleIDRule = iota
	// BundleIDStandardized (LLVM 18 and 19): the last component before ':'
	// is the target ID when it is an offload arch, the rest after the kind
	// is the triple, which is written with its four components
	// ("host-x86_64-unknown-linux--", "hip-amdgcn-amd-amdhsa--gfx90a").
	BundleIDStandardized
	// BundleIDVerbatim (LLVM 16 and 17): read as BundleIDStandardized, but
	// written exactly as given on -targets.
	BundleIDVerbatim
)

// BundleIDs is the release's entry ID rule. Checked: 16 writes IDs as
// given, 19 standardises them, 22 refuses 4-component triples. 17 and 18
// follow the history: the standardising constructor of OffloadTargetInfo
// ("enforce optional env field") arrived for 18, the strict 5/6-component
// parse (llvm-project PR 122629, January 2025) for 20.
func (p Profile) BundleIDs() BundleIDRule {
	switch {
	case p.Major <= 17:
		return BundleIDVerbatim
	case p.Major <= 19:
		return BundleIDStandardized
	}
	return BundleIDStrict
}

// BundleHIPv4IsHIP: entries of kind "hip" and "hipv4" match each other when
// unbundling (LLVM 18 and later). Checked: 16 does not extract a hipv4
// entry for a hip target, 19 and 22 do.
func (p Profile) BundleHIPv4IsHIP() bool { return p.Major >= 18 }

// BundlerCompression: the release's clang-offload-bundler has -compress
// and OFFLOAD_BUNDLER_COMPRESS (LLVM 18 and later, llvm-project PR 67162).
// Checked: 16 rejects -compress, 19 has it.
func (p Profile) BundlerCompression() bool { return p.Major >= 18 }

// BundlerCheckInputArchive: the release's clang-offload-bundler has
// -check-input-archive (LLVM 17 and later). Checked: 16.0.6 does not
// list it, 19 does.
func (p Profile) BundlerCheckInputArchive() bool { return p.Major >= 17 }

// BundlerVerbose: the release's clang-offload-bundler has -verbose (the
// compression statistics, LLVM 18 and later with compression). Checked:
// 16.0.6 does not list it, 19 does.
func (p Profile) BundlerVerbose() bool { return p.Major >= 18 }

// ObjcopyAddrsigLink: the llvm-objcopy the release's bundler runs for
// object bundles keeps .llvm_addrsig's sh_link (the symbol table); LLVM
// 16's writes 0 there. Checked: 16 writes 0, 19 and 22 keep it; 17 and
// 18 are taken to be as 19.
func (p Profile) ObjcopyAddrsigLink() bool { return p.Major >= 17 }

// BundlerHostStripped: unbundling the host entry of an object bundle
// writes the host object without the __CLANG_OFFLOAD_BUNDLE__ sections
// (llvm-objcopy --remove-section); LLVM 16 writes the bundled object
// whole. Checked: 16 copies it, 19 and 22 strip it; 17 and 18 are taken
// to be as 19.
func (p Profile) BundlerHostStripped() bool { return p.Major >= 17 }

// BundlerCompressionLevel: the release's clang-offload-bundler has
// -compression-level and OFFLOAD_BUNDLER_COMPRESSION_LEVEL (LLVM 19 and
// later). Checked: 19 has it.
func (p Profile) BundlerCompressionLevel() bool { return p.Major >= 19 }

// CCOBVersion is the compressed bundle format version the release's
// bundler writes: 0 (no compression) up to LLVM 17, 1 in LLVM 18, 2 from
// LLVM 19 (PR 88827 added the total file size), 3 from LLVM 22 (PR 152600
// made the 64-bit v3 of PR 122307 the default). Checked: 19 writes v2 and
// cannot read v3, 22 writes v3.
func (p Profile) CCOBVersion() uint16 {
	switch {
	case p.Major <= 17:
		return 0
	case p.Major == 18:
		return 1
	case p.Major <= 21:
		return 2
	}
	return 3
}

// CCOBVersionEnv: the release's bundler reads COMPRESSED_BUNDLE_FORMAT_VERSION
// (2 or 3; LLVM 20 and later, PR 122307). Checked: 19 ignores it.
func (p Profile) CCOBVersionEnv() bool { return p.Major >= 20 }

// CCOBReadable reports whether the release's bundler can decompress a CCOB
// of version v: the versions it knows, up to the one it writes (v3 from
// LLVM 20). Checked: 19 fails on v3 ("Unknown frame descriptor").
func (p Profile) CCOBReadable(v uint16) bool {
	switch {
	case p.Major <= 17:
		return false
	case p.Major == 18:
		return v == 1
	case p.Major == 19:
		return v == 1 || v == 2
	}
	return v >= 1 && v <= 3
}
