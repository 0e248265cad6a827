package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// compressCases are issue 24's compression rows: code-like data,
// semi-compressible data, near-duplicate pairs and real code objects,
// each against clang-offload-bundler -compress. (The code-like row and
// the near-duplicate pair are issue 3's and 12's, in cases.go, with
// issue 24's targets.) Each runs clang's command line on both sides and is
// validated by unbundling each side's output with LLVM's
// clang-offload-bundler and with ours.
func compressCases() []benchCase {
	wallAndSize := fixed(target{maxWallRatio: 0.5, text: "≤ 0.5× wall, size ≤ 1.05×"})
	return []benchCase{
		benchCase{
			name: "bundle + compress 128 MiB of semi-compressible data", issue: 24, refDesc: "clang-offload-bundler -compress",
			setup:  semiInputs,
			target: wallAndSize,
			method: "the command line of the code-like row (-compress: level 3) on 128 MiB made of segments of 4 KiB to 256 KiB (log-uniform) of five kinds: random bytes (35%: compressed or encrypted payloads), code-like bytes (25%: instruction-sized pieces of a 64-entry dictionary and noise, as in the code-like row), float32 tables (20%: a sine with noise, so the high bytes repeat and the low ones do not), NUL-separated identifiers and numbers (10%: string and symbol tables) and sparse 32-bit words, 7 in 8 zero (10%: relocations, padding). zstd -3 keeps 67% of it. Nothing repeats far apart, so ours writes independent frames; the long-match scan runs beside reading and compressing (docs/bundle.md).",
			validate: func(c *config, who string, s side) error {
				return validateBoth(c, c.p(who+".semi.ccob"), bundleTargetList, []string{os.DevNull, c.p("semi.bin")})
			},
			check: func(c *config, r *result) ([]string, bool) {
				return sizeCheck(c, "ours.semi.ccob", "ref.semi.ccob")
			},
		}.bundlerSides(false, func(tool, who string) []string { return semiArgs(tool, who+".semi.ccob") }),
		benchCase{
			name: "bundle + compress librocrand's 7 code objects", issue: 24, refDesc: "clang-offload-bundler -compress",
			setup:  rocrandInputs,
			target: wallAndSize,
			method: "clang's command line for a HIP library built for 7 target IDs (-bundle-align=4096, the host entry from /dev/null, -compress: level 3): the gfx1030, gfx803, gfx900:xnack-, gfx906:xnack-, gfx908:xnack- and gfx90a:xnack± code objects of Debian's librocrand.so.1.1 (12 MiB; llvm-objcopy dumps its .hip_fatbin bundle, whose entries the bench cuts out). The objects share rocRAND's precomputed tables, and the xnack± pair is nearly identical.",
			validate: func(c *config, who string, s side) error {
				return validateBoth(c, c.p(who+".rocrand.ccob"), rocrandTargets(), rocrandFiles(c))
			},
			check: func(c *config, r *result) ([]string, bool) {
				return sizeCheck(c, "ours.rocrand.ccob", "ref.rocrand.ccob")
			},
		}.bundlerSides(false, func(tool, who string) []string { return rocrandArgs(tool, who+".rocrand.ccob") }),
	}
}

// validateBoth checks that LLVM's clang-offload-bundler and ours both
// unbundle bundle into entries byte-identical to inputs.
func validateBoth(c *config, bundle string, targets, inputs []string) error {
	if err := validateBundle(c, bundle, targets, inputs); err != nil {
		return err
	}
	ours := *c
	ours.llvm = c.bin // validateBundle runs c.tool("clang-offload-bundler")
	if err := validateBundle(&ours, bundle, targets, inputs); err != nil {
		return fmt.Errorf("offload-kit's %v", err)
	}
	return nil
}

func pairTargetList() []string {
	return strings.Split(strings.TrimPrefix(pairTargets, "-targets="), ",")
}

// semiArgs is bundleArgs for the semi-compressible input.
func semiArgs(tool, out string) []string {
	a := bundleArgs(tool, out, true)
	for i, s := range a {
		if s == "-input=code.bin" {
			a[i] = "-input=semi.bin"
		}
	}
	return a
}

func semiInputs(c *config) error { return writeSemi(c.p("semi.bin"), 128<<20, 24) }

// writeSemi writes n deterministic bytes of semi-compressible data: a
// mix of segments that compress well, somewhat or not at all, as the
// payloads of real fat binaries and device images do (see the row's
// method).
func writeSemi(path string, n int64, seed uint64) error {
	if st, err := os.Stat(path); err == nil && st.Size() == n {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(seed, 0x243f6a8885a308d3))
	var dict [64][16]byte
	for i := range dict {
		for j := range dict[i] {
			dict[i][j] = byte(r.Uint32())
		}
	}
	words := make([]string, 512)
	for i := range words {
		b := make([]byte, 3+r.IntN(10))
		for j := range b {
			b[j] = "abcdefghijklmnopqrstuvwxyz_"[r.IntN(27)]
		}
		words[i] = string(b)
	}
	seg := make([]byte, 0, 256<<10+16)
	for done := int64(0); done < n; {
		size := int(4096 * math.Pow(64, r.Float64()))
		seg = seg[:0]
		switch k := r.IntN(100); {
		case k < 35: // random
			for len(seg) < size {
				seg = binary.LittleEndian.AppendUint64(seg, r.Uint64())
			}
		case k < 60: // code-like
			for len(seg) < size {
				if r.IntN(4) == 0 {
					seg = append(seg, byte(r.Uint32()))
					continue
				}
				seg = append(seg, dict[r.IntN(64)][:4+r.IntN(12)]...)
			}
		case k < 80: // float32 table
			a, fr, ph := r.Float64()*100, r.Float64()*0.01, r.Float64()*6
			for i := 0; len(seg) < size; i++ {
				v := a*math.Sin(fr*float64(i)+ph) + r.NormFloat64()*0.01*a
				seg = binary.LittleEndian.AppendUint32(seg, math.Float32bits(float32(v)))
			}
		case k < 90: // strings
			for len(seg) < size {
				seg = append(seg, words[r.IntN(len(words))]...)
				if r.IntN(3) == 0 {
					seg = strconv.AppendInt(seg, int64(r.IntN(1000)), 10)
				}
				seg = append(seg, 0)
			}
		default: // sparse words
			for len(seg) < size {
				if r.IntN(8) == 0 {
					seg = binary.LittleEndian.AppendUint32(seg, uint32(r.IntN(1<<16)))
				} else {
					seg = append(seg, 0, 0, 0, 0)
				}
			}
		}
		m := min(int64(size), n-done)
		if _, err := w.Write(seg[:m]); err != nil {
			return err
		}
		done += m
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// Debian's librocrand1 (scripts/install-deps.sh installs it) carries its
// device code as an uncompressed bundle in .hip_fatbin: a host entry and
// these 7 code objects.
const rocrandLib = "/usr/lib/x86_64-linux-gnu/librocrand.so.1.1"

var rocrandArchs = []string{"gfx1030", "gfx803", "gfx900:xnack-", "gfx906:xnack-", "gfx908:xnack-", "gfx90a:xnack+", "gfx90a:xnack-"}

// rocrandTargets are the bundle's targets as clang names them.
func rocrandTargets() []string {
	t := []string{"host-x86_64-unknown-linux-gnu"}
	for _, a := range rocrandArchs {
		t = append(t, "hipv4-amdgcn-amd-amdhsa--"+a)
	}
	return t
}

func rocrandFile(arch string) string { return "rocrand-" + strings.ReplaceAll(arch, ":", "_") + ".co" }

// rocrandFiles are the row's inputs, in target order.
func rocrandFiles(c *config) []string {
	f := []string{os.DevNull}
	for _, a := range rocrandArchs {
		f = append(f, c.p(rocrandFile(a)))
	}
	return f
}

func rocrandArgs(tool, out string) []string {
	a := []string{tool, "-type=o", "-bundle-align=4096", "-targets=" + strings.Join(rocrandTargets(), ","), "-input=/dev/null"}
	for _, arch := range rocrandArchs {
		a = append(a, "-input="+rocrandFile(arch))
	}
	return append(a, "-output="+out, "-compress")
}

// rocrandInputs cuts librocrand's code objects out of its .hip_fatbin
// section (dumped by llvm-objcopy). LLVM 22's clang-offload-bundler
// cannot unbundle it (its host entry's ID has 4 components, which 22
// refuses), so the bench reads the bundle's entry table itself.
func rocrandInputs(c *config) error {
	files := rocrandFiles(c)
	if exists(files[len(files)-1]) {
		return nil
	}
	fatbin := c.p("rocrand.fatbin")
	if err := c.sh(c.work, c.tool("llvm-objcopy"), "--dump-section", ".hip_fatbin="+fatbin, rocrandLib, os.DevNull); err != nil {
		return fmt.Errorf("%v (Debian's librocrand1: run `make deps`)", err)
	}
	defer os.Remove(fatbin)
	b, err := os.ReadFile(fatbin)
	if err != nil {
		return err
	}
	entries, err := bundleEntries(b)
	if err != nil {
		return fmt.Errorf("%s: .hip_fatbin: %v", rocrandLib, err)
	}
	for _, arch := range rocrandArchs {
		data, ok := entries["hipv4-amdgcn-amd-amdhsa--"+arch]
		if !ok {
			return fmt.Errorf("%s: .hip_fatbin has no %s entry", rocrandLib, arch)
		}
		if err := os.WriteFile(c.p(rocrandFile(arch)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// bundleEntries reads an uncompressed clang-offload-bundler binary
// bundle: the magic, the entry count, then per entry its offset, size,
// ID length and ID (little-endian 64-bit numbers).
func bundleEntries(b []byte) (map[string][]byte, error) {
	const magic = "__CLANG_OFFLOAD_BUNDLE__"
	if len(b) < len(magic)+8 || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("not an offload bundle")
	}
	le := binary.LittleEndian
	n := le.Uint64(b[len(magic):])
	p := uint64(len(magic) + 8)
	out := map[string][]byte{}
	for i := uint64(0); i < n; i++ {
		if p+24 > uint64(len(b)) {
			return nil, fmt.Errorf("entry %d: truncated", i)
		}
		off, size, idLen := le.Uint64(b[p:]), le.Uint64(b[p+8:]), le.Uint64(b[p+16:])
		p += 24
		if idLen > uint64(len(b))-p || off > uint64(len(b)) || size > uint64(len(b))-off {
			return nil, fmt.Errorf("entry %d: past the end", i)
		}
		out[string(b[p:p+idLen])] = b[off : off+size]
		p += idLen
	}
	return out, nil
}
