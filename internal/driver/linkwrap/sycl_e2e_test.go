package linkwrap

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/wrap"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	syclLinkerOnce sync.Once
	syclLinkerErr  error
)

// buildSYCLTools returns buildWrapper's directory with cmd/sycl-linker built
// into it and a clang-sycl-linker symlink beside clang-linker-wrapper.
func buildSYCLTools(t *testing.T) string {
	t.Helper()
	dir := buildWrapper(t)
	syclLinkerOnce.Do(func() {
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		var errb bytes.Buffer
		err := run.Exec{}.Run(context.Background(), &run.Cmd{
			Args: []string{goTool, "build", "-o", filepath.Join(dir, "sycl-linker"), "./cmd/sycl-linker"},
			Dir:  "../../..", Stderr: &errb,
		})
		if err != nil {
			syclLinkerErr = fmt.Errorf("go build: %v\n%s", err, errb.String())
			return
		}
		syclLinkerErr = os.Symlink("sycl-linker", filepath.Join(dir, "clang-sycl-linker"))
	})
	if syclLinkerErr != nil {
		t.Fatal(syclLinkerErr)
	}
	return dir
}

// syclReg is one image as the stub runtime saw it registered.
type syclReg struct {
	version, kind, format int
	triple                string
	size                  int
	fnv                   string
	fp64cap               int
	entries               []string
	props                 []string // "propset X" / "prop Y ..." lines; nil for null properties
	nullProps             bool
}

type syclLog struct {
	version, count int
	images         []syclReg
	unregistered   int
}

var (
	regRe   = regexp.MustCompile(`^register version=(\d+) images=(\d+)$`)
	imageRe = regexp.MustCompile(`^image (\d+) version=(\d+) kind=(\d+) format=(\d+) triple=(\S+) size=(\d+) fnv=([0-9a-f]{16}) fp64cap=(-?\d) compile="" link=""$`)
	entryRe = regexp.MustCompile(`^  entry (\S+) version=1 kind=8 flags=0$`)
	unregRe = regexp.MustCompile(`^unregister images=(\d+)$`)
)

// parseSYCLLog reads the stub runtime's output; any line it does not
// understand fails the test.
func parseSYCLLog(t *testing.T, out string) *syclLog {
	t.Helper()
	l := &syclLog{unregistered: -1}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var cur *syclReg
		if len(l.images) > 0 {
			cur = &l.images[len(l.images)-1]
		}
		switch {
		case regRe.MatchString(line):
			m := regRe.FindStringSubmatch(line)
			l.version, l.count = atoi(m[1]), atoi(m[2])
		case imageRe.MatchString(line):
			m := imageRe.FindStringSubmatch(line)
			require.Equal(t, len(l.images), atoi(m[1]), "image index")
			l.images = append(l.images, syclReg{version: atoi(m[2]), kind: atoi(m[3]), format: atoi(m[4]), triple: m[5],
				size: atoi(m[6]), fnv: m[7], fp64cap: atoi(m[8])})
		case entryRe.MatchString(line) && cur != nil:
			cur.entries = append(cur.entries, entryRe.FindStringSubmatch(line)[1])
		case line == "  properties none" && cur != nil:
			cur.nullProps = true
		case (strings.HasPrefix(line, "  propset ") || strings.HasPrefix(line, "    prop ")) && cur != nil:
			cur.props = append(cur.props, strings.TrimLeft(line, " "))
		case unregRe.MatchString(line):
			l.unregistered = atoi(unregRe.FindStringSubmatch(line)[1])
		default:
			t.Fatalf("unexpected stub runtime output line %q in:\n%s", line, out)
		}
	}
	require.Equal(t, l.count, len(l.images), "images printed\n%s", out)
	assert.Equal(t, l.count, l.unregistered, "unregistered with the same descriptor")
	return l
}

func (l *syclLog) kernels() []string {
	var ks []string
	for _, im := range l.images {
		ks = append(ks, im.entries...)
	}
	sort.Strings(ks)
	return ks
}

func fnvHex(b []byte) string {
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf("%016x", h.Sum64())
}

// aspectsOf returns the "aspects" values of the SYCL/device requirements
// property set in an OffloadBinary "properties" string.
func aspectsOf(t *testing.T, props string) []int32 {
	t.Helper()
	ps, err := syclprop.ParseText(strings.NewReader(props))
	require.NoError(t, err, "properties:\n%s", props)
	for _, s := range ps {
		if s.Name != "SYCL/device requirements" {
			continue
		}
		for _, p := range s.Props {
			if p.Name == "aspects" {
				d := p.Data()
				var out []int32
				for i := 0; i+4 <= len(d); i += 4 {
					out = append(out, int32(binary.LittleEndian.Uint32(d[i:])))
				}
				return out
			}
		}
	}
	t.Fatalf("no SYCL/device requirements aspects in:\n%s", props)
	return nil
}

// registeredProps renders the property sets of an OffloadBinary
// "properties" string as the stub runtime prints what was registered
// (testdata/sycl/stub.c): "propset <set>", then "prop <name> type=1
// value=<n>" or "prop <name> type=2 size=<n> value=<hex of the raw bytes,
// bit-count prefix included>".
func registeredProps(t *testing.T, props string) []string {
	t.Helper()
	ps, err := syclprop.ParseText(strings.NewReader(props))
	require.NoError(t, err, "properties:\n%s", props)
	var out []string
	for _, s := range ps {
		out = append(out, "propset "+s.Name)
		for _, p := range s.Props {
			switch p.Type {
			case syclprop.Uint32:
				out = append(out, fmt.Sprintf("prop %s type=1 value=%d", p.Name, p.U32))
			default:
				out = append(out, fmt.Sprintf("prop %s type=%d size=%d value=%x", p.Name, p.Type, len(p.Bytes), p.Bytes))
			}
		}
	}
	return out
}

// registeredAspects decodes the "aspects" byte array of the registered
// SYCL/device requirements set from the stub runtime's lines.
func registeredAspects(t *testing.T, lines []string) []int32 {
	t.Helper()
	set := ""
	for _, l := range lines {
		if s, ok := strings.CutPrefix(l, "propset "); ok {
			set = s
			continue
		}
		if set != "SYCL/device requirements" || !strings.HasPrefix(l, "prop aspects type=2 ") {
			continue
		}
		_, h, _ := strings.Cut(l, " value=")
		raw, err := hex.DecodeString(h)
		require.NoError(t, err, "line %q", l)
		require.True(t, len(raw) >= 8 && len(raw)%4 == 0, "line %q: raw byte array with a bit-count prefix", l)
		require.Equal(t, uint64(len(raw)-8)*8, binary.LittleEndian.Uint64(raw), "line %q: bit count", l)
		var out []int32
		for i := 8; i+4 <= len(raw); i += 4 {
			out = append(out, int32(binary.LittleEndian.Uint32(raw[i:])))
		}
		return out
	}
	t.Fatalf("no registered SYCL/device requirements aspects in %q", lines)
	return nil
}

// Kernel names by struct name, as the Itanium typeinfo names clang gives
// them (_ZTS<len><name>), and which use double arithmetic.
var syclKernels = map[string]bool{
	"_ZTS4Dmul": true, "_ZTS4Ddiv": true,
	"_ZTS4Iadd": false, "_ZTS6Fscale": false, "_ZTS6Ishift": false, "_ZTS4Ixor": false,
}

// TestSYCLRegistrationEndToEnd compiles SYCL kernels in three translation
// units (two with double arithmetic) with clang++-22 -fsycl, then links
// them through clang++-22 -fsycl three ways: with LLVM's
// clang-linker-wrapper + clang-sycl-linker (the reference: one image with
// every kernel), and with ours through -B (clang-linker-wrapper and
// clang-sycl-linker symlinks to our tools) without split and with
// -Xoffload-linker --module-split-mode=kernel|source. A recording stub
// runtime linked into each program prints every image, kernel name and
// property set registered. The kernel sets must equal the reference's; with
// splitting, exactly the images holding double kernels declare the SPIR-V
// Float64 capability, and their device-link OffloadBinaries (kept by
// --save-temps) carry aspect fp64 (6) in their properties. The property
// sets the runtime walks through PropertiesBegin/End (every set, name, type
// and value) equal the ones sycl-linker wrote into each OffloadBinary, so
// the registered SYCL/device requirements aspects hold fp64 (6) exactly for
// the double images; LLVM's pair registers none.
func TestSYCLRegistrationEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("needs clang 22, gcc and the LLVM 22 tools")
	}
	clang := findTool(t, "clang++-22")
	findTool(t, "llvm-link")
	findTool(t, "llc")
	findTool(t, "gcc")
	refSYCL := findTool(t, "clang-sycl-linker")
	tools := buildSYCLTools(t)
	dir := t.TempDir()
	for _, f := range []string{"kernels.h", "fp64_mixed.cpp", "fp64_float.cpp", "int_only.cpp", "main.cpp", "stub.c"} {
		b, err := os.ReadFile(filepath.Join("testdata", "sycl", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	objs := []string{}
	for _, f := range []string{"fp64_mixed", "fp64_float", "int_only", "main"} {
		sh(t, dir, nil, clang, "-fsycl", "-O2", "-c", f+".cpp", "-o", f+".o")
		objs = append(objs, f+".o")
	}
	sh(t, dir, nil, "gcc", "-c", stubInclude(t), "stub.c", "-o", "stub.o")
	objs = append(objs, "stub.o")
	// clang runs clang-sycl-linker by name: the reference needs it on PATH.
	refEnv := append(os.Environ(), "PATH="+filepath.Dir(refSYCL)+string(os.PathListSeparator)+os.Getenv("PATH"))
	link := func(t *testing.T, env []string, out string, extra ...string) *syclLog {
		t.Helper()
		args := append(append([]string{clang, "-fsycl"}, extra...), objs...)
		sh(t, dir, env, append(args, "-o", out)...)
		return parseSYCLLog(t, sh(t, dir, nil, filepath.Join(dir, out)))
	}

	ref := link(t, refEnv, "ref")
	require.Equal(t, 1, len(ref.images), "the reference registers one image")
	assert.True(t, ref.images[0].nullProps, "LLVM 22 leaves PropertiesBegin/End null")
	var all []string
	for k := range syclKernels {
		all = append(all, k)
	}
	sort.Strings(all)
	require.Equal(t, all, ref.kernels(), "reference kernels")

	// bins reads the device-link output the wrapper registered, kept by
	// --save-temps, keyed by the FNV-1a hash of each image.
	bins := func(t *testing.T, out string) map[string]*offload.Binary {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, out+".spirv64..img"))
		require.NoError(t, err)
		bs, err := offload.ParseAll(data, offload.ReadOptions{})
		require.NoError(t, err)
		byHash := map[string]*offload.Binary{}
		for _, b := range bs {
			byHash[fnvHex(b.Image)] = b
		}
		require.Equal(t, len(bs), len(byHash), "distinct images")
		return byHash
	}

	t.Run("none", func(t *testing.T) {
		got := link(t, nil, "ours-none", "-B"+tools, "-Wl,--save-temps")
		assert.Equal(t, ref.version, got.version, "descriptor version")
		require.Equal(t, 1, len(got.images))
		im, r := got.images[0], ref.images[0]
		assert.Equal(t, ref.kernels(), got.kernels(), "registered kernels equal the reference's")
		assert.Equal(t, r.version, im.version)
		assert.Equal(t, r.kind, im.kind)
		assert.Equal(t, r.triple, im.triple)
		assert.Equal(t, 0, r.format, "the reference's Format is IMG_None")
		assert.Equal(t, int(format.ImgSPIRV), im.format, "ours says IMG_SPIRV")
		assert.Equal(t, 1, im.fp64cap)
		b := bins(t, "ours-none")[im.fnv]
		require.True(t, b != nil, "registered bytes match the device-link OffloadBinary")
		assert.False(t, im.nullProps, "property sets registered")
		assert.Equal(t, registeredProps(t, b.Get("properties")), im.props, "registered property sets equal sycl-linker's")
		assert.True(t, containsAspect(registeredAspects(t, im.props), 6), "registered aspects hold fp64: %q", im.props)
	})

	// --sycl-registration=blob: LLVM main's __sycl_register_lib(blob, size).
	// The recording stub (internal/wrap's) writes the blob it received; it
	// must parse back to the device link's images, every kernel named.
	for _, mode := range []string{"blob", "blob-atexit"} {
		t.Run(mode, func(t *testing.T) {
			stub, err := os.ReadFile(filepath.Join("..", "..", "wrap", "testdata", "sycl", "blob_stub.c"))
			require.NoError(t, err)
			sub := filepath.Join(dir, mode)
			require.NoError(t, os.MkdirAll(sub, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(sub, "blob_stub.c"), stub, 0o644))
			// main.cpp has the program's main: the stub's own is renamed away.
			sh(t, sub, nil, "gcc", "-c", stubInclude(t), "-Dmain=blob_stub_main", "blob_stub.c", "-o", "blob_stub.o")
			var in []string
			for _, o := range objs[:len(objs)-1] {
				in = append(in, filepath.Join(dir, o))
			}
			out := filepath.Join(sub, "prog")
			sh(t, sub, nil, append(append([]string{clang, "-fsycl", "-B" + tools, "-Xoffload-linker", "--module-split-mode=kernel",
				"-Wl,--save-temps", "-Wl,--sycl-registration=" + mode}, in...), "blob_stub.o", "-o", out)...)
			log := sh(t, sub, nil, out)
			assert.Regexp(t, `(?m)^register size=\d+ aligned8=1$`, log)
			assert.Contains(t, log, "unregister same=1 size=1")
			blob, err := os.ReadFile(filepath.Join(sub, "blob.bin"))
			require.NoError(t, err)
			imgs, err := wrap.SYCLImagesFromBinaries(blob)
			require.NoError(t, err)
			require.Equal(t, len(syclKernels), len(imgs), "one image per kernel")
			dev, err := os.ReadFile(out + ".spirv64..img")
			require.NoError(t, err)
			want, err := offload.ParseAll(dev, offload.ReadOptions{})
			require.NoError(t, err)
			var kernels []string
			for i, im := range imgs {
				assert.Equal(t, fnvHex(want[i].Image), fnvHex(im.Image), "image %d: the device link's bytes", i)
				assert.Equal(t, "spirv64-unknown-unknown", im.Triple, "image %d", i)
				kernels = append(kernels, im.Symbols...)
			}
			sort.Strings(kernels)
			assert.Equal(t, ref.kernels(), kernels, "the blob names every kernel")
		})
	}

	for _, mode := range []string{"kernel", "source"} {
		t.Run(mode, func(t *testing.T) {
			out := "ours-" + mode
			got := link(t, nil, out, "-B"+tools, "-Xoffload-linker", "--module-split-mode="+mode, "-Wl,--save-temps")
			assert.Equal(t, ref.kernels(), got.kernels(), "registered kernels equal the reference's")
			assert.Equal(t, ref.version, got.version)
			if mode == "kernel" {
				assert.Equal(t, len(syclKernels), len(got.images), "one image per kernel")
			} else {
				// per source and fp64: Dmul | Iadd, Fscale | Ddiv, Ishift+Ixor
				assert.Equal(t, 5, len(got.images))
			}
			byHash := bins(t, out)
			require.Equal(t, len(got.images), len(byHash))
			for i, im := range got.images {
				assert.Equal(t, 3, im.version, "image %d", i)
				assert.Equal(t, int(format.OfkSYCL), im.kind, "image %d", i)
				assert.Equal(t, int(format.ImgSPIRV), im.format, "image %d", i)
				assert.Equal(t, "spirv64-unknown-unknown", im.triple, "image %d", i)
				require.True(t, len(im.entries) > 0, "image %d: no entries", i)
				fp64 := syclKernels[im.entries[0]]
				for _, k := range im.entries {
					assert.Equal(t, fp64, syclKernels[k], "image %d mixes fp64 and other kernels: %v", i, im.entries)
				}
				assert.Equal(t, fp64, im.fp64cap == 1, "image %d %v: SPIR-V Float64 capability", i, im.entries)
				b := byHash[im.fnv]
				require.True(t, b != nil, "image %d: registered bytes match a device-link OffloadBinary", i)
				assert.Equal(t, im.size, len(b.Image))
				assert.Equal(t, strings.Join(im.entries, "\n"), b.Get("symbols"), "image %d", i)
				assert.Equal(t, fp64, containsAspect(aspectsOf(t, b.Get("properties")), 6), "image %d %v: aspect fp64 in %q", i, im.entries, b.Get("properties"))
				assert.False(t, im.nullProps, "image %d: property sets registered", i)
				assert.Equal(t, registeredProps(t, b.Get("properties")), im.props, "image %d %v: registered property sets equal sycl-linker's", i, im.entries)
				assert.Equal(t, fp64, containsAspect(registeredAspects(t, im.props), 6), "image %d %v: registered aspect fp64 in %q", i, im.entries, im.props)
			}
		})
	}
}

func containsAspect(as []int32, a int32) bool {
	for _, x := range as {
		if x == a {
			return true
		}
	}
	return false
}

// TestSYCLImagesConcatenated checks that every OffloadBinary of a split
// device link becomes its own registration image, with its own kernels.
func TestSYCLImagesConcatenated(t *testing.T) {
	bin := func(kind format.OffloadKind, syms string, img string) []byte {
		return offload.AppendBinary(nil, &offload.Image{ImageKind: format.ImgSPIRV, OffloadKind: kind,
			Strings: []offload.KV{{Key: "triple", Value: "spirv64"}, {Key: "arch", Value: ""}, {Key: "symbols", Value: syms}, {Key: "properties", Value: "[SYCL/device requirements]\n"}},
			Image:   []byte(img)})
	}
	data := append(bin(format.OfkSYCL, "k1\nk2", "AAAA"), bin(format.OfkSYCL, "k3", "BBBBBBBB")...)
	imgs, err := syclImages(data)
	require.NoError(t, err)
	require.Equal(t, 2, len(imgs))
	assert.Equal(t, []string{"k1", "k2"}, imgs[0].Symbols)
	assert.Equal(t, []string{"k3"}, imgs[1].Symbols)
	assert.Equal(t, "BBBBBBBB", string(imgs[1].Image))
	assert.Equal(t, uint8(format.ImgSPIRV), imgs[1].ImageKind)
	assert.Equal(t, "spirv64", imgs[0].Triple)

	_, err = syclImages(bin(format.OfkOpenMP, "k", "C"))
	assert.ErrorContains(t, err, "expected sycl")
	_, err = syclImages([]byte("junk"))
	assert.Error(t, err)
}

// TestSYCLImagesProperties: the "properties" string (intel's .prop text)
// becomes the image's property sets in text order; no string means none
// (clang-sycl-linker 22); a malformed one is an error naming the
// OffloadBinary, which the bundle step prefixes with the image file.
func TestSYCLImagesProperties(t *testing.T) {
	bin := func(props ...string) []byte {
		kv := []offload.KV{{Key: "triple", Value: "spirv64"}, {Key: "arch", Value: ""}, {Key: "symbols", Value: "k"}}
		if len(props) > 0 {
			kv = append(kv, offload.KV{Key: "properties", Value: props[0]})
		}
		return offload.AppendBinary(nil, &offload.Image{ImageKind: format.ImgSPIRV, OffloadKind: format.OfkSYCL, Strings: kv, Image: []byte("SPV")})
	}
	imgs, err := syclImages(bin("[SYCL/devicelib req mask]\nDeviceLibReqMask=1|4294967297\n[SYCL/device requirements]\naspects=2|gAAAAAAAAAgBAAAA\n[SYCL/kernel param opt]\n"))
	require.NoError(t, err)
	require.Equal(t, 1, len(imgs))
	aspects := append(binary.LittleEndian.AppendUint64(nil, 32), 6, 0, 0, 0)
	assert.Equal(t, syclprop.Sets{
		{Name: "SYCL/devicelib req mask", Props: []syclprop.Prop{{Name: "DeviceLibReqMask", Type: syclprop.Uint32, U32: 1}}},
		{Name: "SYCL/device requirements", Props: []syclprop.Prop{{Name: "aspects", Type: syclprop.ByteArray, Bytes: aspects}}},
		{Name: "SYCL/kernel param opt"},
	}, imgs[0].PropertySets)

	for _, props := range []string{"", "\n"} {
		imgs, err = syclImages(append(bin(), bin(props)...))
		require.NoError(t, err)
		require.Equal(t, 2, len(imgs))
		assert.Nil(t, imgs[0].PropertySets, "no properties string")
		assert.Empty(t, imgs[1].PropertySets, "properties %q", props)
	}

	// The messages after "line N: " are syclprop.ParseText's.
	for _, tc := range []struct{ props, line string }{
		{"aspects=2|gAAAAAAAAAgBAAAA\n", "line 1: "},                        // property category missing
		{"[S]\nx=9|1\n", "line 2: "},                                        // type out of range
		{"[S]\nx=0|1\n", "line 2: "},                                        // type 0
		{"[S]\nx=1|\n", "line 2: "},                                         // empty value
		{"[S]\nx=1|one\n", "line 2: "},                                      // bad uint32
		{"[S]\nx=2|A\n", "line 2: "},                                        // Base64 length
		{"[S]\nx=2|*AAA\n", "line 2: "},                                     // Base64 character
		{`{"SYCL/device requirements":{"aspects":"BgAAAA=="}}`, "line 1: "}, // LLVM's JSON
		{"[S\n", "line 1: "},
	} {
		_, err := syclImages(append(bin(""), bin(tc.props)...))
		if assert.Error(t, err, "properties %q", tc.props) {
			assert.True(t, strings.HasPrefix(err.Error(), "OffloadBinary 1: properties: "+tc.line), "properties %q: %v", tc.props, err)
			assert.NotContains(t, err.Error(), "\n")
		}
	}

	d := &driver{opt: &Options{}}
	_, err = d.bundle(context.Background(), []linkedImage{{key: groupKey{"spirv64", ""}, kind: format.OfkSYCL, path: "dev.img", data: bin("[S]\nx=2|A\n")}})
	assert.ErrorContains(t, err, "dev.img: OffloadBinary 0: properties: line 2: ")
}

// FuzzSYCLImagesProperties: any "properties" string gives images or an
// error, never a panic, and parsed sets always wrap (NUL in a name is the
// only error left).
func FuzzSYCLImagesProperties(f *testing.F) {
	for _, s := range []string{
		"[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|gAAAAAAAAAgBAAAA\n",
		"[SYCL/specialization constants]\n_ZTS2sc=2|gBAAAAAAAAAAAAAAAAAAAQAAAAA\n[SYCL/specialization constants default values]\nall=2|gAAAAAAAAAgKAAAA\n",
		"[]\n=1|1\n", "[S]\nx=2|\n", "x", "[S]\nx=1|99999999999999999999999\n", "[a]b]\nk=2|hJ2Y\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, props string) {
		data := offload.AppendBinary(nil, &offload.Image{ImageKind: format.ImgSPIRV, OffloadKind: format.OfkSYCL,
			Strings: []offload.KV{{Key: "triple", Value: "spirv64"}, {Key: "properties", Value: props}}, Image: []byte("SPV")})
		imgs, err := syclImages(data)
		if err != nil {
			if imgs != nil {
				t.Fatal("error with images")
			}
			return
		}
		if _, err := wrap.SYCL(wrap.Options{Triple: "x86_64-unknown-linux-gnu"}, imgs); err != nil && !strings.Contains(err.Error(), "NUL") {
			t.Fatal(err)
		}
	})
}
