package hardening

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/stretchr/testify/require"
)

// sparse writes head at 0 and tail at off, and makes the file size bytes
// long without allocating the hole.
func sparse(t *testing.T, path string, head []byte, off int64, tail []byte, size int64) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteAt(head, 0)
	require.NoError(t, err)
	if tail != nil {
		_, err = f.WriteAt(tail, off)
		require.NoError(t, err)
	}
	require.NoError(t, f.Truncate(size))
}

// over4GiB is the size of the OFFLOAD_KIT_BIG tests' inputs: past 4 GiB,
// and not a multiple of a page.
const over4GiB = int64(4<<30 + 4097)

// over4GiBFile writes a sparse over4GiB-byte file name in dir that starts
// with head and ends with "TAIL", and returns its path.
func over4GiBFile(t *testing.T, dir, name string, head []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	sparse(t, path, head, over4GiB-4, []byte("TAIL"), over4GiB)
	return path
}

// mmap maps a file read-only for the in-process readers.
func mmap(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Munmap(b) })
	return b
}

// farImage is a v1 package whose 16-byte image lies at imgOff (> 4 GiB):
// header, entry and strings at the start, a hole, then the image.
func farImage(imgOff int64) (head, img []byte, size int64) {
	img = []byte("IMAGE@5GiB-12345")
	strs := []offload.KV{{Key: "triple", Value: "x86_64-unknown-linux-gnu"}, {Key: "arch", Value: "generic"}}
	const strEnt = 72
	strData := strEnt + 16*len(strs)
	var tab []byte
	var offs []uint64
	for _, kv := range strs {
		offs = append(offs, uint64(strData+len(tab)))
		tab = append(tab, kv.Key...)
		tab = append(tab, 0)
		offs = append(offs, uint64(strData+len(tab)))
		tab = append(tab, kv.Value...)
		tab = append(tab, 0)
	}
	size = imgOff + int64(len(img))
	head = make([]byte, strData)
	copy(head, format.OffloadBinaryMagic)
	le.PutUint32(head[4:], 1)
	le.PutUint64(head[8:], uint64(size))
	le.PutUint64(head[16:], 32)
	le.PutUint64(head[24:], 40)
	le.PutUint16(head[32:], uint16(format.ImageKind(1)))
	le.PutUint16(head[34:], uint16(format.OffloadKind(1)))
	le.PutUint64(head[40:], strEnt)
	le.PutUint64(head[48:], uint64(len(strs)))
	le.PutUint64(head[56:], uint64(imgOff))
	le.PutUint64(head[64:], uint64(len(img)))
	for i, o := range offs {
		le.PutUint64(head[strEnt+8*i:], o)
	}
	head = append(head, tab...)
	return head, img, size
}

// TestOver4GiBOffsets checks that offsets and sizes above 4 GiB survive
// the readers and the CLIs, with sparse inputs so that nothing big is
// written: a package whose image starts at 5 GiB (dump, extract of 16
// bytes, in-process ParseAll over an mmap), and one whose image is
// 4 GiB + 8 bytes long (dump and ParseAll; extracting it is in
// TestOver4GiBCreate).
func TestOver4GiBOffsets(t *testing.T) {
	bin := toolPath(t, "offload-packager")
	dir := t.TempDir()
	const imgOff = 5 << 30
	hd, img, size := farImage(imgOff)
	far := filepath.Join(dir, "far.bin")
	sparse(t, far, hd, imgOff, img, size)

	bigImg := int64(4<<30 + 8)
	hv := offload.HeaderV1(&offload.Image{ImageKind: 1, OffloadKind: 1,
		Strings: []offload.KV{{Key: "triple", Value: "x86_64-unknown-linux-gnu"}, {Key: "arch", Value: "generic"}}}, uint64(bigImg))
	long := filepath.Join(dir, "long.bin")
	sparse(t, long, hv, int64(len(hv))+bigImg-4, []byte("TAIL"), int64(len(hv))+bigImg)

	for _, c := range []struct {
		path           string
		imgOff, imgLen int64
		tail           []byte
	}{{far, imgOff, int64(len(img)), img}, {long, int64(len(hv)), bigImg, []byte("TAIL")}} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			b := mmap(t, c.path)
			bins, err := offload.ParseAll(b, offload.ReadOptions{})
			require.NoError(t, err)
			if len(bins) != 1 || bins[0].ImageOffset != uint64(c.imgOff) || int64(len(bins[0].Image)) != c.imgLen {
				t.Fatalf("ParseAll: got %d binaries, offset %#x, size %d", len(bins), bins[0].ImageOffset, len(bins[0].Image))
			}
			if !bytes.HasSuffix(bins[0].Image, c.tail) {
				t.Errorf("image does not end with %q", c.tail)
			}
			fi, _ := os.Stat(c.path)
			// dump reads headers only: a bounded time and RSS for any payload.
			g := guard{Timeout: 5 * time.Second, AddressSpace: defaultAS + fi.Size(), Dir: dir}
			var res proc
			for _, mode := range []string{"", "--all", "--json"} {
				args := []string{bin, "dump", c.path}
				if mode != "" {
					args = []string{bin, "dump", mode, c.path}
				}
				res = runGuarded(g, args...)
				if res.Code != 0 || res.Wall > 3*time.Second || res.MaxRSS > 128<<20 {
					t.Errorf("dump %s of a sparse %d-byte file: exit %d (timed out %v) after %v with %d MiB RSS; it must read headers only: %s",
						mode, fi.Size(), res.Code, res.TimedOut, res.Wall.Round(time.Millisecond), res.MaxRSS>>20, head(res.Stderr, 2))
				}
			}
			res = runGuarded(guard{Timeout: 60 * time.Second, AddressSpace: defaultAS + fi.Size(), Dir: dir}, bin, "dump", "--all", c.path)
			for _, want := range []string{fmt.Sprintf("image offset    %#x", c.imgOff), fmt.Sprintf("image size      %d", c.imgLen)} {
				if !strings.Contains(string(res.Stdout), want) {
					t.Errorf("dump --all lacks %q:\n%s", want, res.Stdout)
				}
			}
			res = runGuarded(g, bin, "dump", "--json", c.path)
			var js struct {
				Files []struct {
					Objects []struct {
						Images []struct {
							ImageOffset int64 `json:"image_offset"`
							ImageSize   int64 `json:"image_size"`
							Size        int64 `json:"size"`
						} `json:"images"`
					} `json:"objects"`
				} `json:"files"`
			}
			if err := json.Unmarshal(res.Stdout, &js); err != nil || len(js.Files) != 1 || len(js.Files[0].Objects) != 1 || len(js.Files[0].Objects[0].Images) != 1 {
				t.Fatalf("dump --json: %v: %s", err, res.Stdout)
			}
			im := js.Files[0].Objects[0].Images[0]
			if im.ImageOffset != c.imgOff || im.ImageSize != c.imgLen || im.Size != fi.Size() {
				t.Errorf("dump --json: %+v, want offset %d size %d total %d", im, c.imgOff, c.imgLen, fi.Size())
			}
			if c.imgLen > 1<<20 && !big() {
				return // extracting 4 GiB is TestOver4GiBCreate's job
			}
			out := filepath.Join(dir, "out-"+filepath.Base(c.path))
			require.NoError(t, os.Mkdir(out, 0o755))
			res = runGuarded(guard{Timeout: 120 * time.Second, AddressSpace: defaultAS + fi.Size(), Dir: out}, bin, "extract", c.path, "-d", out)
			if res.Code != 0 {
				t.Fatalf("extract: exit %d: %s", res.Code, res.Stderr)
			}
			files := tree(t, out)
			if len(files) != 1 {
				t.Fatalf("extract wrote %v", files)
			}
			got, err := os.Stat(filepath.Join(out, files[0]))
			require.NoError(t, err)
			if got.Size() != c.imgLen {
				t.Errorf("extracted %d bytes, want %d", got.Size(), c.imgLen)
			}
			checkTail(t, filepath.Join(out, files[0]), c.tail)
		})
	}
}

func checkTail(t *testing.T, path string, tail []byte) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	fi, _ := f.Stat()
	b := make([]byte, len(tail))
	_, err = f.ReadAt(b, fi.Size()-int64(len(tail)))
	require.NoError(t, err)
	if !bytes.Equal(b, tail) {
		t.Errorf("%s ends with %q, want %q", path, b, tail)
	}
}

// TestOver4GiBCreate (OFFLOAD_KIT_BIG=1) packs a sparse 4 GiB + 4097-byte
// image with create (which streams it with copy_file_range), dumps the
// package (instant), extracts it and checks sizes, offsets and the tail
// bytes, with the RSS of every step bounded. It writes about 8 GiB to the
// temp dir's file system (ext4 does not keep holes through
// copy_file_range) and removes it at the end.
func TestOver4GiBCreate(t *testing.T) {
	if !big() {
		t.Skip("set OFFLOAD_KIT_BIG=1 (writes ~8 GiB, ~30-60 s)")
	}
	bin := toolPath(t, "offload-packager")
	dir := t.TempDir()
	imgSize := over4GiB
	img := over4GiBFile(t, dir, "img.o", []byte("\x7fELF-head"))
	pkgPath := filepath.Join(dir, "big.pkg")
	g := guard{Timeout: 300 * time.Second, AddressSpace: defaultAS + 2*imgSize, Dir: dir}
	start := time.Now()
	res := runGuarded(g, bin, "create", "-o", pkgPath, "--image=file="+img+",triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp")
	t.Logf("create: %v, max RSS %d MiB", time.Since(start).Round(time.Millisecond), res.MaxRSS>>20)
	if res.Code != 0 {
		t.Fatalf("create: exit %d: %s", res.Code, res.Stderr)
	}
	if res.MaxRSS > 256<<20 {
		t.Errorf("create used %d MiB RSS for a %d-byte image; it must stream", res.MaxRSS>>20, imgSize)
	}
	require.NoError(t, os.Remove(img))
	hv := offload.HeaderV1(&offload.Image{ImageKind: 1, OffloadKind: 1,
		Strings: []offload.KV{{Key: "arch", Value: "generic"}, {Key: "triple", Value: "x86_64-unknown-linux-gnu"}}}, uint64(imgSize))
	fi, err := os.Stat(pkgPath)
	require.NoError(t, err)
	b := mmap(t, pkgPath)
	bins, err := offload.ParseAll(b, offload.ReadOptions{})
	require.NoError(t, err)
	if len(bins) != 1 || int64(len(bins[0].Image)) != imgSize || fi.Size() < int64(len(hv))+imgSize || int64(bins[0].Size) != fi.Size() {
		t.Fatalf("package: size %d, binaries %d, image %d at %#x", fi.Size(), len(bins), len(bins[0].Image), bins[0].ImageOffset)
	}
	if !bytes.HasSuffix(bins[0].Image, []byte("TAIL")) {
		t.Errorf("image tail lost")
	}
	start = time.Now()
	res = runGuarded(g, bin, "dump", pkgPath)
	if res.Code != 0 || time.Since(start) > 3*time.Second {
		t.Errorf("dump: exit %d in %v: %s", res.Code, time.Since(start), res.Stderr)
	}
	out := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(out, 0o755))
	start = time.Now()
	res = runGuarded(g, bin, "extract", pkgPath, "-d", out)
	t.Logf("extract: %v, max RSS %d MiB", time.Since(start).Round(time.Millisecond), res.MaxRSS>>20)
	if res.Code != 0 {
		t.Fatalf("extract: exit %d: %s", res.Code, res.Stderr)
	}
	if res.MaxRSS > 256<<20 {
		t.Errorf("extract used %d MiB RSS; it must stream", res.MaxRSS>>20)
	}
	files := tree(t, out)
	if len(files) != 1 {
		t.Fatalf("extract wrote %v", files)
	}
	got, err := os.Stat(filepath.Join(out, files[0]))
	require.NoError(t, err)
	if got.Size() != imgSize {
		t.Errorf("extracted %d bytes, want %d", got.Size(), imgSize)
	}
	checkTail(t, filepath.Join(out, files[0]), []byte("TAIL"))
}

// TestOver4GiBCCOB (OFFLOAD_KIT_BIG=1) bundles a sparse 4 GiB + 4097-byte
// device file with the clang-offload-bundler personality and -compress
// (CCOB v3, streamed through bundle.CompressTo), checks the header
// (UncompressedSize > 4 GiB, TotalFileSize = file size), lists it, and
// unbundles the device entry back (decompression is in memory: this step
// needs ~4.5 GiB RSS), checking size and tail bytes.
func TestOver4GiBCCOB(t *testing.T) {
	if !big() {
		t.Skip("set OFFLOAD_KIT_BIG=1 (compresses and hashes 4 GiB, ~5 GiB RSS to unbundle)")
	}
	bin := toolPath(t, "clang-offload-bundler")
	dir := t.TempDir()
	devSize := over4GiB
	dev := over4GiBFile(t, dir, "dev.bin", []byte("DEVHEAD"))
	host := filepath.Join(dir, "host.bin")
	require.NoError(t, os.WriteFile(host, []byte("HOSTDATA"), 0o644))
	out := filepath.Join(dir, "big.ccob")
	g := guard{Timeout: 300 * time.Second, AddressSpace: defaultAS + 3*devSize, Dir: dir}
	start := time.Now()
	res := runGuarded(g, bin, "-type=o", "-compress", "-compression-level=1",
		"-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a", "-input="+host, "-input="+dev, "-output="+out)
	t.Logf("bundle -compress: %v, max RSS %d MiB", time.Since(start).Round(time.Millisecond), res.MaxRSS>>20)
	if res.Code != 0 {
		t.Fatalf("bundle: exit %d: %s", res.Code, res.Stderr)
	}
	// RSS includes the mmapped input's file pages, so it is only logged.
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	if len(b) < 32 || string(b[:4]) != "CCOB" || le.Uint16(b[4:]) != 3 || le.Uint64(b[8:]) != uint64(len(b)) || le.Uint64(b[16:]) <= 4<<30 {
		t.Fatalf("header % x (file %d bytes)", b[:min(32, len(b))], len(b))
	}
	res = runGuarded(g, bin, "-type=o", "-list", "-input="+out)
	if res.Code != 0 || !strings.Contains(string(res.Stdout), "hip-amdgcn-amd-amdhsa--gfx90a") {
		t.Fatalf("list: exit %d: %s%s", res.Code, res.Stdout, res.Stderr)
	}
	got := filepath.Join(dir, "got.bin")
	start = time.Now()
	res = runGuarded(g, bin, "-type=o", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input="+out, "-output="+got)
	t.Logf("unbundle: %v, max RSS %d MiB", time.Since(start).Round(time.Millisecond), res.MaxRSS>>20)
	if res.Code != 0 {
		t.Fatalf("unbundle: exit %d: %s", res.Code, res.Stderr)
	}
	if res.MaxRSS > devSize+512<<20 {
		t.Errorf("unbundle peaked at %d MiB RSS for a %d-byte entry: more than one in-memory copy", res.MaxRSS>>20, devSize)
	}
	fi, err := os.Stat(got)
	require.NoError(t, err)
	if fi.Size() != devSize {
		t.Errorf("unbundled %d bytes, want %d", fi.Size(), devSize)
	}
	checkTail(t, got, []byte("TAIL"))
}
