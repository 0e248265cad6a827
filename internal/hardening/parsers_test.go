package hardening

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/bitcode"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/fatbin"
	"github.com/offload-kit/offload-kit/format/hcf"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/scan"
	"github.com/stretchr/testify/require"
)

// parser is one in-process entry point that takes untrusted bytes. Add a
// row to cover a new parser; seeds are valid inputs of its format whose
// mutants (truncations, field sweeps, random flips) it must also survive.
type parser struct {
	name  string
	fn    func(data []byte) error
	seeds []func() []byte
}

func fileSeed(rel string) func() []byte {
	return func() []byte {
		b, err := os.ReadFile(filepath.Join(repoRoot, rel))
		if err != nil {
			return nil // the seed moved; the test logs it
		}
		return b
	}
}

func seedV2() []byte {
	b, _ := offload.AppendBinaryV2(nil, []*offload.Image{
		{ImageKind: 2, OffloadKind: 1, Strings: []offload.KV{{Key: "triple", Value: "t"}}, Image: []byte("one")},
		{ImageKind: 1, OffloadKind: 3, Strings: []offload.KV{{Key: "arch", Value: "a"}}, Image: []byte("two")},
	})
	return b
}

func seedV3() []byte     { return v3("zstd", 300, 0) }
func seedV3Zlib() []byte { return v3("zlib", 300, 0) }
func seedHCF() []byte    { return hcfAttach("0", "4") }
func seedCCOB() []byte   { return ccob(seedBundle(), bundle.CompressOptions{}, nil) }
func seedCCOBZlib() []byte {
	return ccob(seedBundle(), bundle.CompressOptions{Zlib: true, Version: 2}, nil)
}

var (
	offloadSeeds = []func() []byte{seedPkg, seedV2, seedV3, seedV3Zlib, fileSeed("elfembed/testdata/pkg2.out")}
	arSeeds      = []func() []byte{fileSeed("format/ar/testdata/offload-archive.a"), fileSeed("format/ar/testdata/gnu.a"),
		fileSeed("format/ar/testdata/bsd.a"), fileSeed("format/ar/testdata/thin.a"), fileSeed("format/ar/testdata/darwin.a")}
	objSeeds = []func() []byte{fileSeed(elfFixture), fileSeed(coffFixture), fileSeed("elfembed/testdata/emb-i386-linux-gnu.o"),
		fileSeed("elfembed/testdata/emb-powerpc64-linux-gnu.o"), fileSeed("elfembed/testdata/emb-i686-pc-windows-msvc.o")}
	bcSeeds     = []func() []byte{fileSeed("format/bitcode/testdata/host-one-flto.bc"), fileSeed("format/bitcode/testdata/several.bc"), fileSeed("format/bitcode/testdata/host-one-darwin.bc")}
	fatSeeds    = []func() []byte{seedFatbin}
	bundleSeeds = []func() []byte{seedBundle, seedCCOB, seedCCOBZlib}
	elfSeeds    = append([]func() []byte{fileSeed("format/codeobj/testdata/kern-gfx90a-clang22.co"),
		fileSeed("format/codeobj/testdata/saxpy-sm90-ptxas13.cubin"), fileSeed("format/codeobj/testdata/host-x86_64-clang22.o")}, objSeeds...)
)

var parsers = []parser{
	{"offload.ParseAll", func(b []byte) error { _, err := offload.ParseAll(b, offload.ReadOptions{}); return err }, offloadSeeds},
	{"offload.ParseAll/align8", func(b []byte) error {
		_, err := offload.ParseAll(b, offload.ReadOptions{Align8: true, MaxInflated: 64 << 20})
		return err
	}, offloadSeeds},
	{"offload.CheckHeader", offload.CheckHeader, offloadSeeds},
	{"ar.Parse", func(b []byte) error { _, err := ar.Parse(b); return err }, arSeeds},
	{"elfembed.Parse", func(b []byte) error {
		o, err := elfembed.Parse(b)
		if err == nil {
			o.OffloadSections()
		}
		return err
	}, objSeeds},
	{"elfembed.Embed", func(b []byte) error {
		p := seedPkg()
		return elfembed.Embed(io.Discard, b, []io.ReaderAt{bytes.NewReader(p)}, []int64{int64(len(p))})
	}, objSeeds},
	{"format.ParseELF", func(b []byte) error {
		f, err := format.ParseELF(b)
		if err != nil {
			return err
		}
		f.Section(".symtab")
		f.DynamicSymbols()
		for i := range f.Sections {
			if t := f.Sections[i].Type; t == format.SHT_SYMTAB || t == format.SHT_DYNSYM {
				if _, err := f.SymbolTable(i); err != nil {
					return err
				}
			}
		}
		return nil
	}, elfSeeds},
	{"bitcode.EmbeddedObjects", func(b []byte) error { _, err := bitcode.EmbeddedObjects(b); return err }, bcSeeds},
	{"fatbin.Parse", func(b []byte) error { _, err := fatbin.Parse(b); return err }, fatSeeds},
	{"fatbin.ParseWrapper", func(b []byte) error { _, err := fatbin.ParseWrapper(b); return err }, nil},
	{"hcf.Parse", func(b []byte) error {
		f, err := hcf.Parse(b)
		if err != nil {
			return err
		}
		var walk func(n *hcf.Node, d int)
		walk = func(n *hcf.Node, d int) {
			if d > 1000 {
				return
			}
			if hcf.HasAttachment(n) {
				f.Attachment(n)
			}
			for _, c := range n.Children {
				walk(c, d+1)
			}
		}
		walk(f.Root, 0)
		return nil
	}, []func() []byte{seedHCF}},
	{"hcf.Find", func(b []byte) error { hcf.Find(b); return nil }, []func() []byte{seedHCF}},
	{"bundle.Parse", func(b []byte) error { _, err := bundle.Parse(b); return err }, bundleSeeds},
	{"bundle.ParseLenient", func(b []byte) error { _, err := bundle.ParseLenient(b); return err }, bundleSeeds},
	{"bundle.ParseText", func(b []byte) error { _, err := bundle.ParseText(b, "//"); return err }, nil},
	{"bundle.Decompress", func(b []byte) error { _, err := bundle.Decompress(b, bundle.Limits{MaxSize: 256 << 20}); return err }, bundleSeeds},
	{"bundle.Scan", func(b []byte) error { _, err := bundle.Scan(b, bundle.Limits{MaxSize: 256 << 20}); return err }, bundleSeeds},
	{"scan.Input", func(b []byte) error {
		_, err := scan.Input("in", b, scan.Options{ReadFile: cappedRead})
		return err
	}, concatSeeds(offloadSeeds, arSeeds, objSeeds, bcSeeds)},
}

func concatSeeds(ss ...[]func() []byte) []func() []byte {
	var out []func() []byte
	for _, s := range ss {
		out = append(out, s...)
	}
	return out
}

// cappedRead is a thin-archive member reader that cannot hang or blow up.
func cappedRead(name string) ([]byte, error) {
	return nil, errors.New("thin members are not read in-process")
}

// input is one labelled parser input.
type input struct {
	label    string
	data     []byte
	allocMiB int64
}

// mutants returns deterministic variants of seed: every truncation near
// the start, extreme values written over every 2-byte-aligned field of the
// first 256 and last 640 bytes, and random byte edits.
func mutants(label string, seed []byte, nRandom int) []input {
	var out []input
	add := func(l string, b []byte) { out = append(out, input{label: label + "/" + l, data: b}) }
	n := len(seed)
	for i := 0; i < n; i++ {
		if i < 1024 || i%max(1, n/256) == 0 {
			add("trunc"+strconv.Itoa(i), seed[:i:i])
		}
	}
	vals := []uint64{0, max64, 1 << 63, max64 - 7, 0x7fffffff, 0x80000000, 0xffffffff}
	sweep := func(o int) {
		for _, w := range []int{2, 4, 8} {
			if o+w > n {
				continue
			}
			for vi, v := range vals {
				b := append([]byte(nil), seed...)
				switch w {
				case 2:
					le.PutUint16(b[o:], uint16(v))
				case 4:
					le.PutUint32(b[o:], uint32(v))
				case 8:
					le.PutUint64(b[o:], v)
				}
				add(fmt.Sprintf("set%d@%d=v%d", w, o, vi), b)
			}
		}
	}
	for o := 0; o < min(n, 256); o += 2 {
		sweep(o)
	}
	for o := max(256, n-640) &^ 1; o < n; o += 2 {
		sweep(o)
	}
	r := rand.New(rand.NewSource(int64(n)))
	for i := 0; i < nRandom && n > 0; i++ {
		b := append([]byte(nil), seed...)
		for k := 0; k <= r.Intn(4); k++ {
			b[r.Intn(n)] = byte(r.Intn(256))
		}
		add("rand"+strconv.Itoa(i), b)
	}
	return out
}

const childEnv = "HARDENING_PARSER_CHILD"

// parserChild runs one parser over the corpus and its mutants and reports
// each case on stdout, so that the parent can name the input that crashed
// or hung the process.
func parserChild(name string) int {
	var p *parser
	for i := range parsers {
		if parsers[i].name == name {
			p = &parsers[i]
		}
	}
	if p == nil {
		fmt.Println("FATAL unknown parser", name)
		return 3
	}
	debug.SetMemoryLimit(512 << 20)
	w := bufio.NewWriter(os.Stdout)
	var inputs []input
	for _, h := range append(corpus, crashers...) {
		b, err := os.ReadFile(corpusFile(h.name))
		if err != nil {
			fmt.Fprintf(w, "FATAL %v\n", err)
			w.Flush()
			return 3
		}
		inputs = append(inputs, input{label: "corpus/" + h.name, data: b, allocMiB: h.allocMiB})
	}
	if os.Getenv("HARDENING_CORPUS_ONLY") == "" {
		for i, s := range p.seeds {
			seed := s()
			if seed == nil {
				fmt.Fprintf(w, "NOTE seed %d missing\n", i)
				continue
			}
			inputs = append(inputs, mutants(fmt.Sprintf("seed%d", i), seed, quickEnv(300))...)
		}
	}
	var ms runtime.MemStats
	for _, in := range inputs {
		// Flush before running, so a crash leaves the case name behind.
		fmt.Fprintf(w, "CASE %s\n", in.label)
		w.Flush()
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		start := time.Now()
		status, msg := "ok", ""
		func() {
			defer func() {
				if r := recover(); r != nil {
					status, msg = "panic", fmt.Sprintf("%v: %s", r, firstLine(string(debug.Stack())))
				}
			}()
			if err := p.fn(in.data); err != nil {
				status, msg = "err", err.Error()
			}
		}()
		d := time.Since(start)
		runtime.ReadMemStats(&ms)
		fmt.Fprintf(w, "RESULT %s %d %d %d %s %q\n", in.label, d.Nanoseconds(), ms.TotalAlloc-before, in.allocMiB, status, msg)
	}
	fmt.Fprintln(w, "DONE")
	w.Flush()
	return 0
}

func quickEnv(n int) int {
	if os.Getenv("HARDENING_SHORT") != "" {
		return max(1, n/10)
	}
	return n
}

// Budgets for one parse of one input.
const (
	parseTime     = 2 * time.Second
	parseAllocMiB = 64
)

// TestParsers runs every parser over the corpus and over mutants of its
// seeds, each parser in its own subprocess (this test binary re-executed)
// with an address-space limit, and checks: no panic, no crash, each parse
// under parseTime, and bytes allocated per parse under
// parseAllocMiB MiB + 16x the input size (or the entry's allocMiB).
func TestParsers(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, p := range parsers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			env := []string{childEnv + "=" + p.name}
			if testing.Short() {
				env = append(env, "HARDENING_SHORT=1")
			}
			res := runGuarded(guard{Timeout: 120 * time.Second, AddressSpace: 3 << 30, Env: env}, exe)
			checkChild(t, p.name, res)
		})
	}
}

func checkChild(t *testing.T, name string, res proc) {
	t.Helper()
	last, done, cases := "", false, 0
	var failures []string
	for _, line := range strings.Split(string(res.Stdout), "\n") {
		f := strings.SplitN(line, " ", 7)
		switch f[0] {
		case "CASE":
			last = f[1]
			cases++
		case "NOTE":
			t.Log(line)
		case "FATAL":
			t.Fatal(line)
		case "DONE":
			done = true
		case "RESULT":
			if len(f) < 7 {
				continue
			}
			ns, _ := strconv.ParseInt(f[2], 10, 64)
			alloc, _ := strconv.ParseInt(f[3], 10, 64)
			budget, _ := strconv.ParseInt(f[4], 10, 64)
			if budget == 0 {
				budget = parseAllocMiB
			}
			label, status, msg := f[1], f[5], f[6]
			size := inputSize(label)
			switch {
			case status == "panic":
				failures = append(failures, fmt.Sprintf("%s: panic %s", label, msg))
			case time.Duration(ns) > parseTime:
				failures = append(failures, fmt.Sprintf("%s: took %v", label, time.Duration(ns)))
			case alloc > budget<<20+16*size:
				failures = append(failures, fmt.Sprintf("%s: allocated %d MiB for a %d-byte input (%s %s)", label, alloc>>20, size, status, msg))
			}
		}
	}
	if !done {
		t.Errorf("%s: child died (exit %d, signal %v, timed out %v, max RSS %d MiB) while parsing %s\n%s",
			name, res.Code, res.Signal, res.TimedOut, res.MaxRSS>>20, last, head(res.Stderr, 6))
	}
	for i, f := range failures {
		if i == 20 {
			t.Errorf("... and %d more", len(failures)-20)
			break
		}
		t.Error(f)
	}
	t.Logf("%d inputs, child max RSS %d MiB, %v", cases, res.MaxRSS>>20, res.Wall.Round(time.Millisecond))
}

// inputSize is the corpus file size for corpus labels (mutants are small).
func inputSize(label string) int64 {
	if n, ok := strings.CutPrefix(label, "corpus/"); ok {
		if fi, err := os.Stat(corpusFile(n)); err == nil {
			return fi.Size()
		}
	}
	return 0
}

func head(b []byte, lines int) string {
	l := strings.SplitN(string(b), "\n", lines+1)
	return strings.Join(l[:min(len(l), lines)], "\n")
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
