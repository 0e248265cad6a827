package bundler

import (
	"bytes"
	"encoding/binary"
	"io"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
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

// rewriteObject is elfembed.Rewrite as the release's llvm-objcopy writes
// the object: LLVM 16's sets the sh_link of .llvm_addrsig sections to 0
// (release.Profile.ObjcopyAddrsigLink), so for it the object is built in
// memory and patched.
func (c *config) rewriteObject(w io.Writer, host []byte, edit elfembed.Edit) error {
	if c.prof.ObjcopyAddrsigLink() || format.Identify(host) != format.KindELF {
		return elfembed.Rewrite(w, host, edit)
	}
	var buf bytes.Buffer
	if err := elfembed.Rewrite(&buf, host, edit); err != nil {
		return err
	}
	b := buf.Bytes()
	clearAddrsigLinks(b)
	_, err := w.Write(b)
	return err
}

// clearAddrsigLinks zeroes sh_link of every SHT_LLVM_ADDRSIG section of
// the ELF object b (32 or 64 bits, either byte order), which elfembed has
// just written and so is well formed.
func clearAddrsigLinks(b []byte) {
	if len(b) < 0x40 {
		return
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if b[5] == 2 { // EI_DATA: ELFDATA2MSB
		bo = binary.BigEndian
	}
	var shoff, entsize, num, typeAt, linkAt int
	if b[4] == 2 { // EI_CLASS: ELFCLASS64
		shoff, entsize, num = int(bo.Uint64(b[0x28:])), int(bo.Uint16(b[0x3a:])), int(bo.Uint16(b[0x3c:]))
		typeAt, linkAt = 4, 40
	} else {
		shoff, entsize, num = int(bo.Uint32(b[0x20:])), int(bo.Uint16(b[0x2e:])), int(bo.Uint16(b[0x30:]))
		typeAt, linkAt = 4, 24
	}
	for i := 0; i < num; i++ {
		sh := shoff + i*entsize
		if sh < 0 || sh+linkAt+4 > len(b) {
			return
		}
		if bo.Uint32(b[sh+typeAt:]) == uint32(format.SHT_LLVM_ADDRSIG) {
			bo.PutUint32(b[sh+linkAt:], 0)
		}
	}
}
