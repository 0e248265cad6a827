package packager

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/scan"
	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/offload-kit/offload-kit/internal/wrap"
)

// TestCreateBinaryVersionOptions: create's --offload-binary-version,
// --compress and --compression-level, and every value they refuse.
func TestCreateBinaryVersionOptions(t *testing.T) {
	base := []string{"-o", "p", "--image=file=a.o"}
	o, err := ParseCreate("offload-packager", base)
	require.NoError(t, err)
	assert.Equal(t, 0, o.BinaryVersion, "default: version 1 (LLVM 22)")
	o, err = ParseCreate("offload-packager", append(base, "--offload-binary-version=3", "--compress=zstd", "--compression-level=19"))
	require.NoError(t, err)
	assert.Equal(t, CreateOptions{Output: "p", Images: []string{"file=a.o"}, BinaryVersion: 3, Compress: "zstd", CompressLevel: 19}, o)
	o, err = ParseCreate("offload-packager", append(base, "-offload-binary-version=2"))
	require.NoError(t, err)
	assert.Equal(t, 2, o.BinaryVersion)
	o, err = ParseCreate("offload-packager", append(base, "--offload-binary-version=3", "--compress=none"))
	require.NoError(t, err)
	assert.Equal(t, "", o.Compress)
	for args, want := range map[string]string{
		"--offload-binary-version=4":                                       "invalid --offload-binary-version '4' (1, 2 or 3)",
		"--offload-binary-version=0":                                       "invalid --offload-binary-version '0' (1, 2 or 3)",
		"--offload-binary-version=v3":                                      "invalid --offload-binary-version 'v3' (1, 2 or 3)",
		"--offload-binary-version=3 --compress=lzma":                       "invalid --compress 'lzma' (zstd, zlib or none)",
		"--compress=zstd":                                                  "--compress needs --offload-binary-version=3 (only version 3 binaries are compressed)",
		"--offload-binary-version=2 --compress=zlib":                       "--compress needs --offload-binary-version=3 (only version 3 binaries are compressed)",
		"--offload-binary-version=3 --compression-level=3":                 "--compression-level needs --compress",
		"--offload-binary-version=3 --compress=zstd --compression-level=x": "invalid --compression-level 'x' (an integer)",
	} {
		_, err := ParseCreate("offload-packager", append(append([]string{}, base...), strings.Fields(args)...))
		require.Error(t, err, args)
		assert.Equal(t, "create: "+want, err.Error(), args)
	}
}

// v23Image is one image the v2/v3 tests package: a file name, its
// --image arguments, and the kinds and strings it must read back with.
type v23Image struct {
	file, args, data string
	imageKind        format.ImageKind
	offloadKind      format.OffloadKind
	triple, arch     string
}

var v23Images = []v23Image{
	{"dev.spv", "triple=spirv64-unknown-unknown,arch=,kind=sycl,symbols=k", "\x03\x02\x23\x07 spir-v", format.ImgSPIRV, format.OfkSYCL, "spirv64-unknown-unknown", ""},
	{"omp.o", "triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp", "\x7fELF host-ish object", format.ImgObject, format.OfkOpenMP, "x86_64-unknown-linux-gnu", "generic"},
	{"gfx.bc", "kind=hip,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+", "BC\xc0\xde bitcode", format.ImgBitcode, format.OfkHIP, "amdgcn-amd-amdhsa", "gfx90a:xnack+"},
}

// createV23 runs offload-packager create in dir with the images and the
// extra options and returns the output.
func createV23(t *testing.T, dir string, extra ...string) []byte {
	t.Helper()
	args := []string{"-o", "out.pkg"}
	for _, im := range v23Images {
		require.NoError(t, os.WriteFile(filepath.Join(dir, im.file), []byte(im.data), 0o644))
		args = append(args, "--image=file="+im.file+","+im.args)
	}
	o, err := ParseCreate("offload-packager", append(args, extra...))
	require.NoError(t, err)
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Tool: "offload-packager", Dir: dir}
	require.NoError(t, CreateWith(context.Background(), env, o))
	assert.Empty(t, errb.String())
	b, err := os.ReadFile(filepath.Join(dir, "out.pkg"))
	require.NoError(t, err)
	return b
}

// checkV23Images compares bins (in order) with v23Images.
func checkV23Images(t *testing.T, bins []*offload.Binary, version uint32) {
	t.Helper()
	require.Len(t, bins, len(v23Images))
	for i, b := range bins {
		w := v23Images[i]
		assert.Equal(t, version, b.Version, "image %d", i)
		kind := w.imageKind
		if version == 1 && kind == format.ImgSPIRV {
			kind = format.ImgNone // 22 maps no extension to SPIR-V; main maps .spv
		}
		assert.Equal(t, kind, b.ImageKind, "image %d", i)
		assert.Equal(t, w.offloadKind, b.OffloadKind, "image %d", i)
		assert.Equal(t, w.triple, b.Triple(), "image %d", i)
		assert.Equal(t, w.arch, b.Arch(), "image %d", i)
		assert.Equal(t, w.data, string(b.Image), "image %d", i)
	}
}

// TestCreateBinaryVersions: create writes one v2 or v3 binary holding every
// file as an entry (version 3 uncompressed as LLVM main's
// llvm-offload-binary does: OffloadBinary::write of all images), the
// strings in the packager's order, and the v3 forms compressed with zstd
// and zlib; each reads back to the images. Version 1 stays LLVM 22's
// byte-identical one-binary-per-file form.
func TestCreateBinaryVersions(t *testing.T) {
	v1 := createV23(t, t.TempDir())
	bins, err := offload.ParseAll(v1, offload.ReadOptions{})
	require.NoError(t, err)
	checkV23Images(t, bins, 1)
	same := createV23(t, t.TempDir(), "--offload-binary-version=1")
	assert.Equal(t, v1, same)

	for _, c := range []struct {
		extra   []string
		version uint32
		infl    bool
		zstd    bool
	}{
		{[]string{"--offload-binary-version=2"}, 2, false, false},
		{[]string{"--offload-binary-version=3"}, 3, false, false},
		{[]string{"--offload-binary-version=3", "--compress=zstd"}, 3, true, true},
		{[]string{"--offload-binary-version=3", "--compress=zlib", "--compression-level=9"}, 3, true, false},
	} {
		t.Run(strings.Join(c.extra, " "), func(t *testing.T) {
			b := createV23(t, t.TempDir(), c.extra...)
			require.GreaterOrEqual(t, len(b), 40)
			assert.Equal(t, format.OffloadBinaryMagic, b[:4])
			assert.Equal(t, c.version, binary.LittleEndian.Uint32(b[4:]))
			assert.Equal(t, uint64(len(v23Images)), binary.LittleEndian.Uint64(b[24:]), "EntriesCount")
			assert.Zero(t, len(b)%8, "padded to 8")
			if c.version == 3 {
				assert.Equal(t, uint64(40), binary.LittleEndian.Uint64(b[16:]), "EntriesOffset")
				assert.Equal(t, c.infl, binary.LittleEndian.Uint64(b[32:]) != 0, "InflatedSize")
			} else {
				assert.Equal(t, uint64(32), binary.LittleEndian.Uint64(b[16:]), "EntriesOffset")
			}
			if c.infl {
				assert.Equal(t, c.zstd, bytes.HasPrefix(b[40:], []byte{0x28, 0xb5, 0x2f, 0xfd}), "zstd frame after the header")
			}
			bins, n, err := offload.Parse(b)
			require.NoError(t, err)
			assert.Equal(t, binary.LittleEndian.Uint64(b[8:]), uint64(n))
			checkV23Images(t, bins, c.version)
			// Strings in the packager's (DenseMap) order, as with v1.
			for i, bin := range bins {
				v1bins, err := offload.ParseAll(v1, offload.ReadOptions{})
				require.NoError(t, err)
				assert.Equal(t, v1bins[i].Strings, bin.Strings, "image %d", i)
			}
			if !c.infl {
				// Uncompressed: what offload.AppendBinaryV2/V3 (tested byte
				// for byte from the layout in format/offload) writes.
				imgs := make([]*offload.Image, len(bins))
				for i, bin := range bins {
					imgs[i] = &offload.Image{ImageKind: bin.ImageKind, OffloadKind: bin.OffloadKind, Strings: bin.Strings, Image: bin.Image}
				}
				var want []byte
				if c.version == 2 {
					want, err = offload.AppendBinaryV2(nil, imgs)
				} else {
					want, err = offload.AppendBinaryV3(nil, imgs, "", 0)
				}
				require.NoError(t, err)
				assert.Equal(t, want, b)
			}
		})
	}
	// A missing file writes nothing.
	dir := t.TempDir()
	o, err := ParseCreate("offload-packager", []string{"-o", "out.pkg", "--image=file=missing.o", "--offload-binary-version=3"})
	require.NoError(t, err)
	var out, errb bytes.Buffer
	err = CreateWith(context.Background(), &Env{Stdout: &out, Stderr: &errb, Tool: "offload-packager", Dir: dir}, o)
	assert.ErrorContains(t, err, "missing.o")
	_, err = os.Stat(filepath.Join(dir, "out.pkg"))
	assert.True(t, os.IsNotExist(err))
}

// TestV23Readers: v2 and v3 binaries (compressed with zstd and zlib or not),
// back to back with v1 ones in one buffer, are read by dump, extract and
// the scanner linker-wrapper uses, from a raw package, from the
// .llvm.offloading section of a relocatable object, from an archive of
// such objects, and from a linked ELF
// executable (the allocated SHT_LLVM_OFFLOADING section of a SYCL blob
// registration object, LLVM main's form).
func TestV23Readers(t *testing.T) {
	dir := t.TempDir()
	imgs := make([]*offload.Image, len(v23Images))
	for i, w := range v23Images {
		imgs[i] = &offload.Image{ImageKind: w.imageKind, OffloadKind: w.offloadKind,
			Strings: []offload.KV{{Key: "triple", Value: w.triple}, {Key: "arch", Value: w.arch}}, Image: []byte(w.data)}
	}
	v1 := offload.AppendBinary(nil, imgs[0])
	v3z, err := offload.AppendBinaryV3(nil, imgs[1:2], "zstd", 0)
	require.NoError(t, err)
	v2, err := offload.AppendBinaryV2(nil, imgs[2:])
	require.NoError(t, err)
	v3l, err := offload.AppendBinaryV3(nil, imgs, "zlib", 0)
	require.NoError(t, err)
	v3, err := offload.AppendBinaryV3(nil, imgs, "", 0)
	require.NoError(t, err)
	raw := bytes.Join([][]byte{v1, v3z, v2, v3l}, nil)
	// Each image once from v1+v3z+v2, then all three again from v3l.
	rawWant := []int{0, 1, 2, 0, 1, 2}
	write := func(name string, b []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	write("raw.pkg", raw)
	write("v3.pkg", v3)

	clang := llvmtools.Tool(t, "clang")
	write("host.c", []byte("int host(void) { return 1; }\n"))
	clitest.Sh(t, dir, clang, "-c", "host.c", "-o", "host.o")
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Tool: "offload-packager", Dir: dir}
	require.NoError(t, Embed(context.Background(), env, EmbedOptions{Output: "fat.o", Host: "host.o", Packages: []string{"raw.pkg"}}))

	require.NoError(t, Embed(context.Background(), env, EmbedOptions{Output: "fat3.o", Host: "host.o", Packages: []string{"v3.pkg"}}))
	fat, err := os.ReadFile(filepath.Join(dir, "fat.o"))
	require.NoError(t, err)
	fat3, err := os.ReadFile(filepath.Join(dir, "fat3.o"))
	require.NoError(t, err)
	var lib bytes.Buffer
	require.NoError(t, ar.WriteGNU(&lib, []ar.WriteMember{{Name: "fat.o", Data: fat}, {Name: "fat3.o", Data: fat3}}))
	write("lib.a", lib.Bytes())

	// A linked program: LLVM main's SYCL registration embeds one v3 blob in
	// an allocated SHT_LLVM_OFFLOADING section that the executable keeps.
	obj, err := wrap.SYCLBlob(wrap.Options{Triple: "x86_64-unknown-linux-gnu"}, v3, wrap.SYCLBlobOptions{})
	require.NoError(t, err)
	write("reg.o", obj)
	write("main.c", []byte("#include <stdint.h>\nvoid __sycl_register_lib(const void *b, uint64_t n) {}\n"+
		"void __sycl_unregister_lib(const void *b, uint64_t n) {}\nint main(void) { return 0; }\n"))
	clitest.Sh(t, dir, clang, "main.c", "reg.o", "-o", "prog")

	for _, c := range []struct {
		file string
		want []int // indices into v23Images, in reading order
	}{
		{"raw.pkg", rawWant},
		{"fat.o", rawWant},
		{"lib.a", append(append([]int{}, rawWant...), 0, 1, 2)},
		{"prog", []int{0, 1, 2}},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, c.file))
			require.NoError(t, err)
			// linker-wrapper's (and extract's) scanner.
			units, err := scan.Input(c.file, data, scan.Options{})
			require.NoError(t, err)
			var triples, payloads []string
			for _, u := range units {
				for _, b := range u.Images {
					triples = append(triples, b.Triple())
					payloads = append(payloads, string(b.Image))
				}
			}
			var wantTriples, wantPayloads []string
			for _, i := range c.want {
				wantTriples = append(wantTriples, v23Images[i].triple)
				wantPayloads = append(wantPayloads, v23Images[i].data)
			}
			assert.Equal(t, wantTriples, triples, "scan")
			assert.Equal(t, wantPayloads, payloads, "scan")

			// dump: one "triple" line per image, in order.
			out, diags, err := runDump(dir, DumpOptions{Files: []string{c.file}})
			require.NoError(t, err, "%v", diags)
			var dumped []string
			for _, l := range strings.Split(out, "\n") {
				if v, ok := strings.CutPrefix(l, "triple"); ok {
					dumped = append(dumped, strings.TrimSpace(v))
				}
			}
			assert.Equal(t, wantTriples, dumped, "dump:\n%s", out)

			// extract: every image, with its payload.
			outDir := filepath.Join(t.TempDir(), "x")
			require.NoError(t, os.MkdirAll(outDir, 0o755))
			var so, se bytes.Buffer
			xenv := &Env{Stdout: &so, Stderr: &se, Tool: "offload-packager", Dir: dir}
			require.NoError(t, Extract(context.Background(), xenv, ExtractOptions{Input: c.file, OutDir: outDir}), se.String())
			ents, err := os.ReadDir(outDir)
			require.NoError(t, err)
			var got []string
			for _, e := range ents {
				b, err := os.ReadFile(filepath.Join(outDir, e.Name()))
				require.NoError(t, err)
				got = append(got, string(b))
			}
			sort.Strings(got)
			sort.Strings(wantPayloads)
			assert.Equal(t, wantPayloads, got, "extract: %s", so.String())
		})
	}
}

// TestDumpCompressedSYCL: dump lists the SYCL images of LLVM main's
// compressed v3 binaries like any other (the default listing stays
// llvm-objdump's) and --all marks them compressed with their inflated
// size; extract writes the inflated images.
func TestDumpCompressedSYCL(t *testing.T) {
	dir := t.TempDir()
	imgs := []*offload.Image{
		{ImageKind: format.ImgSPIRV, OffloadKind: format.OfkSYCL, Strings: []offload.KV{{Key: "triple", Value: "spirv64"}, {Key: "arch", Value: ""}},
			Image: bytes.Repeat([]byte("spirv words "), 100)},
		{ImageKind: format.ImgSPIRV, OffloadKind: format.OfkSYCL, Strings: []offload.KV{{Key: "triple", Value: "spirv64"}, {Key: "arch", Value: "k2"}},
			Image: bytes.Repeat([]byte("more words "), 50)},
	}
	plain, err := offload.AppendBinaryV3(nil, imgs, "", 0)
	require.NoError(t, err)
	for _, codec := range []string{"zstd", "zlib"} {
		z, err := offload.AppendBinaryV3(nil, imgs, codec, 0)
		require.NoError(t, err)
		name := codec + ".pkg"
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), z, 0o644))
		out, diags, err := runDump(dir, DumpOptions{Files: []string{name}})
		require.NoError(t, err, "%v", diags)
		assert.Equal(t, 2, strings.Count(out, "producer        sycl"), out)
		assert.NotContains(t, out, "compressed", "the default listing is llvm-objdump's")
		out, _, err = runDump(dir, DumpOptions{Files: []string{name}, All: true})
		require.NoError(t, err)
		want := "compressed      inflated size " + strconv.Itoa(len(plain))
		assert.Equal(t, 2, strings.Count(out, want), "%s:\n%s", codec, out)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain.pkg"), plain, 0o644))
	out, _, err := runDump(dir, DumpOptions{Files: []string{"plain.pkg"}, All: true})
	require.NoError(t, err)
	assert.NotContains(t, out, "compressed", "an uncompressed v3 is not marked")
	outDir := filepath.Join(dir, "x")
	require.NoError(t, os.MkdirAll(outDir, 0o755))
	var so, se bytes.Buffer
	require.NoError(t, Extract(context.Background(), &Env{Stdout: &so, Stderr: &se, Tool: "offload-packager", Dir: dir},
		ExtractOptions{Input: "zstd.pkg", OutDir: outDir}), se.String())
	ents, err := os.ReadDir(outDir)
	require.NoError(t, err)
	var sizes []int
	for _, e := range ents {
		fi, err := e.Info()
		require.NoError(t, err)
		sizes = append(sizes, int(fi.Size()))
	}
	sort.Ints(sizes)
	assert.Equal(t, []int{550, 1200}, sizes, so.String())
}
