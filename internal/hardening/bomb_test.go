package hardening

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/format/bundle"
)

// Decompression bombs that really expand: small files whose CCOB payload
// decodes to ~4 GiB. They are generated at test time (a few seconds; the
// MD5 of each expansion is a constant below, so no 4 GiB hash is needed)
// and not committed, unlike the corpus in testdata/hostile.

// run is a stretch of a decompressed stream: literal bytes, or n copies of
// fill.
type run struct {
	lit  []byte
	fill byte
	n    int64
}

func (r run) size() int64 {
	if r.lit != nil {
		return int64(len(r.lit))
	}
	return r.n
}

// zstdFrame encodes runs as one zstd frame by hand: literal bytes as raw
// blocks, fills as RLE blocks of 128 KiB (4 bytes each: a 32,768:1
// expansion, the best zstd allows, which klauspost's encoder does not
// reach for zeros). The frame has no content size or checksum; its window
// is 128 KiB.
func zstdFrame(runs ...run) []byte {
	const blockMax = 128 << 10
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3} // magic, descriptor, window 1<<(10+7)
	type blk struct {
		rle  bool
		data []byte
		n    int64
	}
	var all []blk
	for _, r := range runs {
		if r.lit != nil {
			for p := r.lit; len(p) > 0; {
				n := min(len(p), blockMax)
				all = append(all, blk{data: p[:n]})
				p = p[n:]
			}
			continue
		}
		for left := r.n; left > 0; {
			n := min(left, blockMax)
			all = append(all, blk{rle: true, data: []byte{r.fill}, n: n})
			left -= n
		}
	}
	for i, k := range all {
		var h uint32
		if i == len(all)-1 {
			h = 1
		}
		if k.rle {
			h |= 1<<1 | uint32(k.n)<<3
		} else {
			h |= uint32(len(k.data)) << 3
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16))
		b = append(b, k.data...)
	}
	return b
}

// ccobV3 wraps a zstd payload in a CCOB v3 header.
func ccobV3(payload []byte, usize, hash uint64) []byte {
	h := bundle.Header{Version: 3, Method: bundle.Zstd, UncompressedSize: usize, Hash: hash,
		TotalFileSize: uint64(bundle.HeaderSize(3) + len(payload))}
	return append(h.AppendHeader(nil), payload...)
}

// md5Of is the CCOB hash (truncated MD5) of the bytes runs describe.
func md5Of(runs ...run) uint64 {
	m := md5.New()
	fill := make([]byte, 4<<20)
	for _, r := range runs {
		if r.lit != nil {
			m.Write(r.lit)
			continue
		}
		for i := range fill {
			fill[i] = r.fill
		}
		for left := r.n; left > 0; {
			n := min(left, int64(len(fill)))
			m.Write(fill[:n])
			left -= n
		}
	}
	return binary.LittleEndian.Uint64(m.Sum(nil))
}

// bigEntry is the size of the large entry of the bundle bombs: 3.9 GiB.
const bigEntry = 3900 << 20

// binaryBundleRuns is a binary bundle (host entry "HOST", device entry of
// bigEntry bytes: "DEVHEAD", zeros, "TAIL") as runs.
func binaryBundleRuns() []run {
	ids := []string{"host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx90a"}
	hdr := len(bundle.Magic) + 8
	for _, id := range ids {
		hdr += 24 + len(id)
	}
	b := append([]byte(nil), bundle.Magic...)
	b = le.AppendUint64(b, 2)
	offs := []uint64{uint64(hdr), uint64(hdr + 4)}
	sizes := []uint64{4, bigEntry}
	for i, id := range ids {
		b = le.AppendUint64(b, offs[i])
		b = le.AppendUint64(b, sizes[i])
		b = le.AppendUint64(b, uint64(len(id)))
		b = append(b, id...)
	}
	b = append(b, "HOSTDEVHEAD"...)
	return []run{{lit: b}, {n: bigEntry - 11}, {lit: []byte("TAIL")}}
}

// textBundleRuns is a text bundle (-type=ll) with a host entry and a
// device entry of bigEntry spaces.
func textBundleRuns() []run {
	const start, end = "\n; __CLANG_OFFLOAD_BUNDLE____START__ ", "\n; __CLANG_OFFLOAD_BUNDLE____END__ "
	h, d := "host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx90a"
	return []run{{lit: []byte(start + h + "\nHOST" + end + h + "\n" + start + d + "\n")}, {fill: ' ', n: bigEntry}, {lit: []byte(end + d + "\n")}}
}

func size(runs []run) (n int64) {
	for _, r := range runs {
		n += r.size()
	}
	return n
}

// bomb is a small CCOB that really expands to ~4 GiB. hash is the
// truncated MD5 of its expansion, computed once (md5Of, 10-30 s; checked
// by TestBombHashes under OFFLOAD_KIT_BIG=1) so that the bombs are
// well-formed without hashing 4 GiB on every run.
type bomb struct {
	name string
	how  string
	runs func() []run
	hash uint64
}

var bombs = []bomb{
	{"bomb-rle-zeros.ccob", "CCOB v3, one zstd frame of 32,768 RLE blocks: 4 GiB of zeros from 128 KiB (no bundle inside)",
		func() []run { return []run{{n: 4 << 30}} }, 0x8cb4978d87a6a5c9},
	{"bomb-bundle-3.9g.ccob", "CCOB v3 of a valid binary bundle: host entry \"HOST\", device entry of 3.9 GiB (\"DEVHEAD\", zeros, \"TAIL\") in RLE blocks",
		binaryBundleRuns, 0x2cbbfeb5612a079b},
	{"bomb-text-3.9g.ccob", "CCOB v3 of a valid text bundle (-type=ll): host entry, device entry of 3.9 GiB of spaces in RLE blocks",
		textBundleRuns, 0x094716c89fbf6167},
}

func (b bomb) bytes() []byte {
	r := b.runs()
	return ccobV3(zstdFrame(r...), uint64(size(r)), b.hash)
}

// TestBombHashes (OFFLOAD_KIT_BIG=1) recomputes the hash constants.
func TestBombHashes(t *testing.T) {
	if !big() {
		t.Skip("set OFFLOAD_KIT_BIG=1 (hashes 12 GiB, ~30 s)")
	}
	for _, b := range bombs {
		if got := md5Of(b.runs()...); got != b.hash {
			t.Errorf("%s: hash %#x, the table says %#x", b.name, got, b.hash)
		}
	}
}

// bombCase is one command over a bomb, with its bounds.
type bombCase struct {
	name  string
	tool  string
	args  func(in, out string) []string
	bombs []string // which bombs (by name); none = all
	code  int
	// limit is the wall-clock bound: header-only work must be quick;
	// scanning or hashing the whole expansion may take longer.
	limit time.Duration
	// big marks cases that write the 3.9 GiB entry (OFFLOAD_KIT_BIG=1).
	big bool
	// check looks at the output directory after success.
	check func(t *testing.T, out string)
}

const bombRSS = 256 << 20

var (
	rleOnly  = []string{"bomb-rle-zeros.ccob"}
	binOnly  = []string{"bomb-bundle-3.9g.ccob"}
	textOnly = []string{"bomb-text-3.9g.ccob"}
)

var bombCases = []bombCase{
	{name: "list-o", tool: "clang-offload-bundler", limit: 5 * time.Second, bombs: append(append([]string{}, rleOnly...), binOnly...),
		args: func(in, out string) []string { return []string{"-list", "-type=o", "-input=" + in} }},
	{name: "list-bc", tool: "clang-offload-bundler", limit: 5 * time.Second, bombs: append(append([]string{}, rleOnly...), binOnly...),
		args: func(in, out string) []string { return []string{"-list", "-type=bc", "-input=" + in} }},
	{name: "list-ll", tool: "clang-offload-bundler", limit: 60 * time.Second,
		args: func(in, out string) []string { return []string{"-list", "-type=ll", "-input=" + in} }},
	{name: "list-verbose", tool: "clang-offload-bundler", limit: 120 * time.Second, bombs: binOnly,
		args: func(in, out string) []string { return []string{"-list", "-type=o", "-verbose", "-input=" + in} }},
	{name: "dump", tool: "offload-packager", limit: 5 * time.Second, bombs: binOnly,
		args: func(in, out string) []string { return []string{"dump", in} }},
	{name: "dump-all", tool: "offload-packager", limit: 5 * time.Second, bombs: binOnly,
		args: func(in, out string) []string { return []string{"dump", "--all", in} }},
	{name: "dump-json", tool: "offload-packager", limit: 5 * time.Second, bombs: binOnly,
		args: func(in, out string) []string { return []string{"dump", "--json", in} }},
	{name: "dump-no-bundle", tool: "offload-packager", limit: 5 * time.Second, bombs: rleOnly, code: 1,
		args: func(in, out string) []string { return []string{"dump", "--all", in} }},
	{name: "dump-text", tool: "offload-packager", limit: 60 * time.Second, bombs: textOnly,
		args: func(in, out string) []string { return []string{"dump", in} }},
	{name: "dump-text-all", tool: "offload-packager", limit: 60 * time.Second, bombs: textOnly,
		args: func(in, out string) []string { return []string{"dump", "--all", in} }},
	{name: "dump-text-json", tool: "offload-packager", limit: 60 * time.Second, bombs: textOnly,
		args: func(in, out string) []string { return []string{"dump", "--json", in} }},
	{name: "extract-no-bundle", tool: "offload-packager", limit: 30 * time.Second, bombs: rleOnly, code: 1,
		args: func(in, out string) []string { return []string{"extract", in, "-d", out} }},
	// The whole expansion is decoded (into a sparse temporary file) to
	// find the entries; only the host entry is written.
	{name: "extract-host", tool: "offload-packager", limit: 60 * time.Second, bombs: append(append([]string{}, binOnly...), textOnly...),
		args: func(in, out string) []string { return []string{"extract", in, "--kind=host", "-d", out} },
		check: func(t *testing.T, out string) {
			fs, _ := filepath.Glob(filepath.Join(out, "*host*"))
			if len(fs) != 1 {
				t.Fatalf("extract --kind=host wrote %v", fs)
			}
			b, _ := os.ReadFile(fs[0])
			if s := string(b); s != "HOST" && s != "HOST\n" {
				t.Errorf("host entry %q", s)
			}
		}},
	{name: "unbundle-host", tool: "clang-offload-bundler", limit: 60 * time.Second, bombs: binOnly,
		args: func(in, out string) []string {
			return []string{"-unbundle", "-type=o", "-input=" + in, "-targets=host-x86_64-unknown-linux-gnu", "-output=" + filepath.Join(out, "host")}
		}},
	{name: "extract", tool: "offload-packager", limit: 300 * time.Second, big: true, bombs: append(append([]string{}, binOnly...), textOnly...),
		args:  func(in, out string) []string { return []string{"extract", in, "-d", out} },
		check: checkBigEntry},
	{name: "unbundle", tool: "clang-offload-bundler", limit: 300 * time.Second, big: true, bombs: binOnly,
		args: func(in, out string) []string {
			return []string{"-unbundle", "-type=o", "-input=" + in, "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-output=" + filepath.Join(out, "dev.hip")}
		},
		check: checkBigEntry},
}

// checkBigEntry finds the 3.9 GiB entry among the outputs and checks its
// size and last bytes.
func checkBigEntry(t *testing.T, out string) {
	fs, _ := filepath.Glob(filepath.Join(out, "*hip*"))
	if len(fs) != 1 {
		t.Fatalf("outputs %v", fs)
	}
	st, err := os.Stat(fs[0])
	if err != nil || st.Size() != bigEntry {
		t.Fatalf("%s: %v, %d bytes, want %d", fs[0], err, st.Size(), int64(bigEntry))
	}
	if strings.Contains(fs[0], "bomb-bundle") {
		checkTail(t, fs[0], []byte("TAIL"))
	}
}

// TestRealBombs runs every bombCase over the bombs it names, as
// subprocesses: the exit status, the wall-clock bound, peak RSS (the
// child's getrusage Maxrss) at most 256 MiB, and nothing left in TMPDIR
// or, after a failure, in the output directory. The address-space limit
// is lifted: the decoder reserves (and does not touch) a mapping the size
// of the output.
func TestRealBombs(t *testing.T) {
	dir := t.TempDir()
	for _, b := range bombs {
		if err := os.WriteFile(filepath.Join(dir, b.name), b.bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range bombCases {
		t.Run(c.name, func(t *testing.T) {
			if c.big && !big() {
				t.Skip("set OFFLOAD_KIT_BIG=1 (writes 3.9 GiB per bomb)")
			}
			bin := toolPath(t, c.tool)
			for _, b := range bombs {
				if len(c.bombs) > 0 && !contains(c.bombs, b.name) {
					continue
				}
				t.Run(b.name, func(t *testing.T) {
					out, tmp := t.TempDir(), t.TempDir()
					in := filepath.Join(dir, b.name)
					res := runGuarded(guard{Timeout: c.limit + 30*time.Second, AddressSpace: 64 << 30, Dir: out, Env: []string{"TMPDIR=" + tmp}},
						append([]string{bin}, c.args(in, out)...)...)
					ctx := fmt.Sprintf("%s %s: exit %d after %v, max RSS %d MiB, stderr %q", c.name, b.name, res.Code, res.Wall.Round(time.Millisecond), res.MaxRSS>>20, head(res.Stderr, 3))
					t.Log(ctx)
					switch {
					case res.TimedOut || res.Wall > c.limit:
						t.Errorf("%s: slower than %v", ctx, c.limit)
					case crashed(res.Stderr):
						t.Errorf("%s: crashed", ctx)
					case res.Code != c.code:
						t.Errorf("%s: want exit status %d", ctx, c.code)
					}
					if res.MaxRSS > bombRSS {
						t.Errorf("%s: peak RSS over %d MiB", ctx, bombRSS>>20)
					}
					if left := tree(t, tmp); len(left) > 0 {
						t.Errorf("%s: left %v in TMPDIR", ctx, left)
					}
					if res.Code != 0 {
						if left := tree(t, out); len(left) > 0 {
							t.Errorf("%s: left %v after failing", ctx, left)
						}
					} else if c.check != nil {
						c.check(t, out)
					}
				})
			}
		})
	}
}
