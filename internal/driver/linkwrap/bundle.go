package linkwrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/release"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/workdir"
	"github.com/offload-kit/offload-kit/internal/wrap"
)

// bundled is the per-kind result of bundling.
type bundled struct {
	kind   format.OffloadKind
	images []linkedImage      // OpenMP: the linked images, in openmp's order
	openmp []wrap.OpenMPImage // OpenMP: one OffloadBinary per image
	fatbin []byte             // CUDA / HIP
	sycl   []wrap.SYCLImage   // SYCL
	blob   []byte             // SYCL with --sycl-registration=blob*: the images' OffloadBinaries, 8-aligned
	path   string             // CUDA / HIP bundle file
}

// bundle groups the linked images by kind (first-seen order) and bundles
// each kind (spec §5).
func (d *driver) bundle(ctx context.Context, images []linkedImage) ([]*bundled, error) {
	var kinds []format.OffloadKind
	byKind := map[format.OffloadKind][]linkedImage{}
	for _, im := range images {
		if _, ok := byKind[im.kind]; !ok {
			kinds = append(kinds, im.kind)
		}
		byKind[im.kind] = append(byKind[im.kind], im)
	}
	var out []*bundled
	for _, k := range kinds {
		imgs := byKind[k]
		sortImages(imgs)
		b := &bundled{kind: k}
		var err error
		switch k {
		case format.OfkOpenMP:
			b.images = imgs
			for _, im := range imgs {
				b.openmp = append(b.openmp, openmpBinary(im))
			}
		case format.OfkCuda:
			b.path, b.fatbin, err = d.cudaFatbin(ctx, imgs)
		case format.OfkHIP:
			b.path, b.fatbin, err = d.hipFatbin(imgs)
		case format.OfkSYCL:
			b.sycl, b.blob, err = d.syclBundle(imgs)
		default:
			return nil, fmt.Errorf("%s bundling is not supported", k)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// cudaFatbin runs NVIDIA's fatbinary as the reference does.
func (d *driver) cudaFatbin(ctx context.Context, imgs []linkedImage) (string, []byte, error) {
	tool, err := d.findCUDATool(ctx, "fatbinary")
	if err != nil {
		return "", nil, err
	}
	out, err := d.work.Name(filepath.Base(d.exe), "fatbin")
	if err != nil {
		return "", nil, err
	}
	bits := "-64"
	if !triple.Parse(d.host).Is64Bit() { // LLVM's fatbinary step asks Triple::isArch64Bit of the host
		bits = "-32"
	}
	args := []string{tool, bits, "--create", out}
	for _, im := range imgs {
		args = append(args, "--image3=kind=elf,sm="+strings.TrimPrefix(im.key.arch, "sm_")+",file="+im.path)
	}
	if err := d.runner.Run(ctx, &run.Cmd{Args: args, Stdout: d.env.Stderr, Stderr: d.env.Stderr}); err != nil {
		return "", nil, err
	}
	if d.opt.DryRun {
		return out, nil, nil
	}
	data, err := os.ReadFile(out)
	return out, data, err
}

// hipBundleIDs are the entry IDs of the HIP fat binary as the release's
// wrapper asks its clang-offload-bundler for them (-targets=), spelled as
// that bundler writes them (bundle.IDAs). 20 and later pass
// "host-x86_64-unknown-linux-gnu-" and "hip-<triple>--<arch>"; 18 and 19
// pass "host-x86_64-unknown-linux" and "hip-...", which their bundler
// standardises to "host-x86_64-unknown-linux--"; 16 passes "hipv4-..." and
// its bundler keeps the IDs verbatim. (Checked with the 16, 19 and 22
// wrappers' --dry-run; 17 is taken as 16 and 18 as 19, following when
// the bundler began to treat hip and hipv4 alike.)
func hipBundleIDs(rel release.Profile, imgs []linkedImage) []string {
	host, kind := "host-x86_64-unknown-linux-gnu-", "hip"
	if rel.LegacyEntries() {
		host = "host-x86_64-unknown-linux"
	}
	if !rel.BundleHIPv4IsHIP() {
		kind = "hipv4"
	}
	raw := []string{host}
	for _, im := range imgs {
		raw = append(raw, kind+"-"+im.key.triple+"--"+im.key.arch)
	}
	rule := rel.BundleIDs()
	ids := make([]string, len(raw))
	for i, r := range raw {
		ids[i] = r
		if t, ok := bundle.ParseTargetAs(r, rule); ok {
			ids[i] = bundle.IDAs(r, t, rule)
		}
	}
	return ids
}

// hipFatbin builds the HIP fat binary in-process, in the layout
// clang-offload-bundler -type=o -bundle-align=4096 writes: an empty host
// entry "host-x86_64-unknown-linux-gnu-" then "hip-<triple>--<arch>" entries.
func (d *driver) hipFatbin(imgs []linkedImage) (string, []byte, error) {
	out, err := d.work.Name(filepath.Base(d.exe), "hipfb")
	if err != nil {
		return "", nil, err
	}
	ids := hipBundleIDs(d.rel(), imgs)
	data := [][]byte{nil}
	for _, im := range imgs {
		data = append(data, im.data)
	}
	fb, err := bundle.AppendBinary(nil, ids, data, 4096)
	if err != nil {
		return "", nil, err
	}
	if d.opt.Compress {
		level := 0
		if d.opt.CompressionLevel != "" {
			if level, err = strconv.Atoi(d.opt.CompressionLevel); err != nil {
				return "", nil, fmt.Errorf("invalid --compression-level=%s", d.opt.CompressionLevel)
			}
		}
		if fb, _, err = bundle.Compress(nil, fb, bundle.CompressOptions{Level: level}); err != nil {
			return "", nil, err
		}
	}
	if d.opt.Verbose || d.opt.DryRun {
		fmt.Fprintf(d.env.Stderr, "%s: note: bundling %d HIP image(s) in-process into %s (clang-offload-bundler format, 4096-byte alignment)\n", d.env.Tool, len(imgs), out)
	}
	if err := workdir.WriteNew(out, fb); err != nil {
		return "", nil, err
	}
	return out, fb, nil
}

// emitFatbin writes the bundle to the output (--emit-fatbin-only).
func (d *driver) emitFatbin(bs []*bundled) error {
	if len(bs) == 0 {
		return errors.New("--emit-fatbin-only: no device code was found in the inputs")
	}
	var data []byte
	b := bs[0]
	switch b.kind {
	case format.OfkOpenMP:
		for _, bin := range b.openmp {
			data = append(data, bin.Data...)
		}
	case format.OfkCuda, format.OfkHIP:
		data = b.fatbin
	default:
		return fmt.Errorf("--emit-fatbin-only is not supported for %s", b.kind)
	}
	if d.opt.DryRun {
		return nil
	}
	return workdir.WriteFile(d.exe, data, 0o644)
}

// wrapAll writes one registration object per kind.
func (d *driver) wrapAll(bs []*bundled) ([]string, error) {
	opts := wrap.Options{Triple: d.host, Relocatable: d.opt.Relocatable, Release: d.rel()}
	var files []string
	for _, b := range bs {
		var obj []byte
		var err error
		switch b.kind {
		case format.OfkOpenMP:
			obj, err = wrap.OpenMPImages(opts, b.openmp)
		case format.OfkCuda:
			obj, err = wrap.CUDA(opts, b.fatbin)
		case format.OfkHIP:
			obj, err = wrap.HIP(opts, b.fatbin)
		case format.OfkSYCL:
			obj, err = d.wrapSYCL(opts, b)
		default:
			err = fmt.Errorf("%s wrapping is not supported", b.kind)
		}
		if err != nil {
			return nil, fmt.Errorf("wrapping %s images: %w", b.kind, err)
		}
		if d.opt.PrintWrappedModule {
			if err := printWrapped(d.env.Stderr, b, obj); err != nil {
				return nil, err
			}
		}
		name, err := d.work.Name(filepath.Base(d.exe)+"."+b.kind.String()+".image.wrapper", "o")
		if err != nil {
			return nil, err
		}
		if err := workdir.WriteNew(name, obj); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	return files, nil
}

// wrapSYCL registers the SYCL images as --sycl-registration asks: LLVM 22's
// descriptor, or LLVM main's single OffloadBinary blob.
func (d *driver) wrapSYCL(opts wrap.Options, b *bundled) ([]byte, error) {
	if d.opt.SYCLRegistration == SYCLDescriptor || d.opt.DryRun {
		return wrap.SYCL(opts, b.sycl)
	}
	blob, err := wrap.SYCLBlobFromBinaries(b.blob)
	if err != nil {
		return nil, err
	}
	return wrap.SYCLBlob(opts, blob, wrap.SYCLBlobOptions{AtExit: d.opt.SYCLRegistration == SYCLBlobAtExit})
}

// printWrapped is --print-wrapped-module. LLVM prints the registration
// module's IR; offload-kit never builds IR, so it prints a header naming
// the images it wrapped, then wrap.Describe's description of the object
// (docs/linker-wrapper.md, docs/wrapper-objects.md).
func printWrapped(w io.Writer, b *bundled, obj []byte) error {
	desc, err := wrap.Describe(obj)
	if err != nil {
		return fmt.Errorf("describing the %s wrapper object: %w", b.kind, err)
	}
	fmt.Fprintf(w, "; offload-kit registration object for %s (%d bytes; a description, not LLVM IR)\n", b.kind, len(obj))
	for i, im := range b.openmp {
		l := b.images[i]
		fmt.Fprintf(w, "; image %d: kind %s, %s, triple %q, arch %q, %d bytes (registered range [0x%x, 0x%x) of its %d-byte OffloadBinary)\n",
			i, b.kind, openmpImageKind(l), l.key.triple, l.key.arch, im.End-im.Start, im.Start, im.End, len(im.Data))
	}
	_, err = io.WriteString(w, desc)
	return err
}
