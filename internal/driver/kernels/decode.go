package kernels

import (
	"errors"
	"fmt"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bitcode"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/codeobj"
	"github.com/offload-kit/offload-kit/format/fatbin"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
)

// maxDecoded caps the decoded size of one compressed image that the
// kernels view decodes to list its functions (packager.MaxDecoded).
const maxDecoded = packager.MaxDecoded

// maxBundleHeader caps the header of a compressed bundle's decoded
// contents (a few hundred bytes per entry in practice).
const maxBundleHeader = 16 << 20

// fatbinSource is a fat binary in the input, parsed again (headers only)
// when one of its entries is compressed: the listing keeps an entry's
// stored bytes, not where its compressed stream ends.
type fatbinSource struct {
	data   []byte // the container, or nil if not in the file
	parsed *fatbin.File
	err    error
	done   bool
}

// parse reads the container's headers, once.
func (f *fatbinSource) parse() {
	if !f.done {
		f.done = true
		f.parsed, f.err = fatbin.ParseFile(f.data)
	}
}

// decoder returns the function that decodes entry i's image.
func (f *fatbinSource) decoder(i int) func() ([]byte, error) {
	if f == nil || f.data == nil {
		return func() ([]byte, error) { return nil, errors.New("compressed payload not stored plainly") }
	}
	f.parse()
	if f.err != nil {
		err := f.err
		return func() ([]byte, error) { return nil, err }
	}
	if i < 0 || i >= len(f.parsed.Entries) {
		return func() ([]byte, error) { return nil, fmt.Errorf("fatbin entry %d not found", i) }
	}
	e := &f.parsed.Entries[i]
	return func() ([]byte, error) {
		if e.UncompressedSize > maxDecoded {
			return nil, format.Errorf(e.HeaderOffset, format.ErrLimit, "%s entry decodes to %d bytes, over the %d-byte limit for listing functions", e.Compression, e.UncompressedSize, int64(maxDecoded))
		}
		return e.ImageWith(packager.DecodeZstd)
	}
}

// ccobJob is a compressed bundle whose entries the listing did not keep
// (it decodes large ones only up to their header): want maps an entry's
// index to the image that reports it.
type ccobJob struct {
	blob []byte
	want map[int]*Image
}

// run decodes the bundle once, streaming, and hands each wanted entry to
// parse as soon as its last byte is decoded: only the entries being
// filled are in memory (each at most maxDecoded), never the whole
// bundle. Errors are recorded on the images not yet parsed.
func (cj *ccobJob) run(mapped bool, parse func(img *Image, data []byte)) {
	h, err := bundle.ParseHeader(cj.blob)
	if err != nil {
		cj.fail(err)
		return
	}
	total := int64(h.UncompressedSize)
	type pending struct {
		img       *Image
		off, size int64
		buf       []byte
		got       int64
	}
	var head []byte
	var pend []*pending
	parsedHead := false
	feed := func(off int64, p []byte) {
		end := off + int64(len(p))
		kept := pend[:0]
		for _, a := range pend {
			lo, hi := max(off, a.off), min(end, a.off+a.size)
			if lo < hi {
				if a.buf == nil {
					a.buf = make([]byte, a.size)
				}
				copy(a.buf[lo-a.off:], p[lo-off:hi-off])
				a.got += hi - lo
			}
			if a.got == a.size {
				parse(a.img, a.buf)
				delete(cj.want, cj.index(a.img))
				continue
			}
			kept = append(kept, a)
		}
		pend = kept
	}
	sink := func(off int64, p []byte) error {
		if !parsedHead {
			head = append(head, p...)
			if _, ok := bundle.HeaderLen(head, total); !ok {
				if len(head) > maxBundleHeader {
					return fmt.Errorf("bundle header of the decompressed data is over %d bytes", maxBundleHeader)
				}
				return nil
			}
			parsedHead = true
			b, err := bundle.ParseHead(head, total, false)
			if err != nil {
				return fmt.Errorf("decompressed data: %v", err)
			}
			for i, img := range cj.want {
				if i >= len(b.Entries) {
					continue
				}
				e := b.Entries[i]
				if e.Size > maxDecoded {
					img.Error = fmt.Sprintf("entry of %d bytes is over the %d-byte limit for listing functions", e.Size, int64(maxDecoded))
					delete(cj.want, i)
					continue
				}
				pend = append(pend, &pending{img: img, off: e.Offset, size: e.Size})
			}
			p, off, head = head, 0, nil
		}
		feed(off, p)
		if len(pend) == 0 {
			return bundle.ErrStop
		}
		return nil
	}
	_, err = bundle.DecodeTo(cj.blob, bundle.DecodeOptions{Limits: bundle.Limits{Hash: bundle.HashSkip}, InputMapped: mapped}, sink)
	if mapped {
		mmapfile.Release(cj.blob)
	}
	if err != nil && !errors.Is(err, bundle.ErrStop) {
		cj.fail(err)
		return
	}
	if len(cj.want) > 0 {
		cj.fail(errors.New("entry runs past the decompressed data"))
	}
}

func (cj *ccobJob) index(img *Image) int {
	for i, w := range cj.want {
		if w == img {
			return i
		}
	}
	return -1
}

func (cj *ccobJob) fail(err error) {
	for _, img := range cj.want {
		if img.Error == "" {
			img.Error = "decompressing: " + err.Error()
		}
	}
}

// carriesImages reports whether bitcode embeds offload images (host
// bitcode of an -fopenmp-targets or -foffload-lto compile).
func carriesImages(data []byte) bool {
	objs, err := bitcode.EmbeddedObjects(data)
	return err != nil || len(objs) > 0
}

// bareCodeObject reports an input that is itself a device code object
// (an AMDGPU code object, a cubin, SPIR-V or PTX) as one image; ok is
// false for any other input, which dump's walker then reads. Host ELF
// objects are not code objects here: they are read for the offload
// sections they carry.
func bareCodeObject(name string, data []byte, dups bool, names *nameCache) (Image, bool) {
	if format.Identify(data) == format.KindBitcode && !carriesImages(data) {
		// Device bitcode (clang -emit-llvm --offload-device-only): its
		// functions. Host bitcode carrying offload images is dump's.
		img := Image{Object: name, Container: "bitcode module", ImageKind: "bitcode", Size: int64(len(data)), Functions: []Function{}}
		if t, err := bitcode.ModuleTriple(data); err == nil {
			img.Triple = t
		}
		parseImage(&img, data, dups, names)
		return img, true
	}
	ck, ok := codeobj.Identify(data)
	if !ok {
		return Image{}, false
	}
	img := Image{Object: name, Container: "code object", Size: int64(len(data)), Functions: []Function{}}
	switch fk := format.Identify(data); {
	case fk == format.KindELF && ck == codeobj.KindAMDGPU:
		img.ImageKind, img.Triple = "object", "amdgcn-amd-amdhsa"
	case fk == format.KindELF && ck == codeobj.KindCubin:
		img.ImageKind, img.Triple = "cubin", "nvptx64-nvidia-cuda"
	case fk == format.KindSPIRV && ck == codeobj.KindSPIRV:
		img.ImageKind = "spirv"
	case fk == format.KindUnknown && ck == codeobj.KindPTX && !packager.IsContainer(data[:min(len(data), 256)]):
		img.ImageKind, img.Triple = "ptx", "nvptx64-nvidia-cuda"
	default:
		return Image{}, false
	}
	parseImage(&img, data, dups, names)
	switch ck {
	case codeobj.KindAMDGPU:
		if _, id, ok := strings.Cut(img.Target, "--"); ok {
			img.Arch = id
		}
	case codeobj.KindCubin, codeobj.KindPTX:
		img.Arch = img.Target
	}
	return img, true
}
