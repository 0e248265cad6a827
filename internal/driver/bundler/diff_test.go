package bundler

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

var tripleSets = [][]string{
	{"host-x86_64-unknown-linux-gnu", "hipv4-amdgcn-amd-amdhsa--gfx90a", "openmp-nvptx64-nvidia-cuda-sm_70"},
	{"host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx908:xnack+", "hip-amdgcn-amd-amdhsa--gfx906:sramecc-:xnack+", "hip-amdgcn-amd-amdhsa-gnu-gfx1030"},
	{"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx942", "hip-amdgcn-amd-amdhsa--gfx1100", "hip-amdgcn-amd-amdhsa--gfx1201", "hip-spirv64-amd-amdhsa--amdgcnspirv"},
	{"openmp-x86_64-pc-linux-gnu", "host-x86_64-unknown-linux-gnu", "openmp-amdgcn-amd-amdhsa--gfx90a", "openmp-nvptx64-nvidia-cuda--sm_80", "openmp-x86_64-linux-gnu-unknown", "openmp-aarch64-unknown-linux-gnu"},
}

func setupInputs(t *testing.T, dir string, n int) []string {
	var names []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("in%d.bin", i)
		write(t, dir, name, codeLike(100+i*37, uint32(i+1)))
		names = append(names, name)
	}
	return names
}

func bundleArgs(typ string, targets, inputs []string, out string, extra ...string) []string {
	a := []string{"-type=" + typ, "-targets=" + strings.Join(targets, ",")}
	for _, in := range inputs {
		a = append(a, "-input="+in)
	}
	a = append(a, "-output="+out)
	return append(a, extra...)
}

// TestBundleByteIdentical bundles the same inputs with both tools and
// requires identical bytes, stdout, stderr and exit codes.
func TestBundleByteIdentical(t *testing.T) {
	needOracle(t)
	for _, typ := range []string{"bc", "o", "ll", "s", "i"} {
		for si, ts := range tripleSets {
			aligns := []string{""}
			if typ == "bc" {
				aligns = append(aligns, "-bundle-align=4096", "-bundle-align=6")
			}
			for _, align := range aligns {
				t.Run(fmt.Sprintf("%s/%d/%s", typ, si, align), func(t *testing.T) {
					dir := t.TempDir()
					ins := setupInputs(t, dir, len(ts))
					var extra []string
					if align != "" {
						extra = append(extra, align)
					}
					rt := runTheirs(t, dir, nil, bundleArgs(typ, ts, ins, "theirs.out", extra...)...)
					ro := runOurs(t, dir, nil, bundleArgs(typ, ts, ins, "ours.out", extra...)...)
					if rt.code != ro.code || rt.stderr != ro.stderr {
						t.Fatalf("theirs %+v\nours   %+v", rt, ro)
					}
					if rt.code != 0 {
						return
					}
					if !bytes.Equal(read(t, dir, "theirs.out"), read(t, dir, "ours.out")) {
						t.Fatalf("outputs differ")
					}
					// -list must agree (order included).
					lt := runTheirs(t, dir, nil, "-list", "-type="+typ, "-input=theirs.out")
					lo := runOurs(t, dir, nil, "-list", "-type="+typ, "-input=theirs.out")
					if lt != lo {
						t.Fatalf("list: theirs %+v\nours %+v", lt, lo)
					}
				})
			}
		}
	}
}

// requests are unbundling target lists tried against bundles of tripleSets.
var requests = [][]string{
	{"host-x86_64-unknown-linux-gnu"},
	{"hip-amdgcn-amd-amdhsa--gfx90a"},
	{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"},
	{"hip-amdgcn-amd-amdhsa--gfx908:xnack+:sramecc-", "host-x86_64-unknown-linux-gnu"},
	{"hip-amdgcn-amd-amdhsa--gfx906:xnack+:sramecc-", "hip-amdgcn-amd-amdhsa--gfx906:sramecc-"},
	{"openmp-nvptx64-nvidia-cuda-sm_70", "openmp-amdgcn-amd-amdhsa--gfx90a"},
	{"hip-amdgcn-amd-amdhsa--gfx1030"},
	{"hip-amdgcn-amd-amdhsa-gnu-gfx1030"},
	{"openmp-x86_64-unknown-linux-gnu", "openmp-aarch64-unknown-linux-gnu"},
	{"hip-amdgcn-amd-amdhsa--gfx942", "hip-amdgcn-amd-amdhsa--gfx1100", "hip-spirv64-amd-amdhsa--amdgcnspirv"},
	{"hip-amdgcn-amd-amdhsa--gfx1201", "hip-amdgcn-amd-amdhsa--gfx1200", "hip-amdgcn-amd-amdhsa--gfx1101", "hip-amdgcn-amd-amdhsa--gfx1102"},
}

// TestUnbundleCross bundles with each tool and unbundles with each tool,
// compressed or not, requiring identical outputs and diagnostics.
func TestUnbundleCross(t *testing.T) {
	needOracle(t)
	full := os.Getenv("BUNDLER_FULL") != ""
	for _, typ := range []string{"bc", "ll", "i", "s", "o"} {
		for si, ts := range tripleSets {
			if typ != "bc" && si > 0 {
				continue
			}
			if !full && (typ == "i" || typ == "s" || typ == "bc" && si%2 == 1) {
				continue // BUNDLER_FULL=1 runs the whole matrix
			}
			for _, comp := range []bool{false, true} {
				if comp && (typ == "s" || typ == "o" || !full && typ != "bc") {
					continue
				}
				t.Run(fmt.Sprintf("%s/%d/compress=%v", typ, si, comp), func(t *testing.T) {
					dir := t.TempDir()
					ins := setupInputs(t, dir, len(ts))
					var extra []string
					if comp {
						extra = append(extra, "-compress")
					}
					if r := runTheirs(t, dir, nil, bundleArgs(typ, ts, ins, "theirs.out", extra...)...); r.code != 0 {
						t.Fatalf("oracle bundling: %+v", r)
					}
					if r := runOurs(t, dir, nil, bundleArgs(typ, ts, ins, "ours.out", extra...)...); r.code != 0 {
						t.Fatalf("our bundling: %+v", r)
					}
					for ri, req := range requests {
						if !full && (ri+si)%2 == 1 {
							continue // keep the matrix small; other sets cover it
						}
						for _, allow := range []bool{ri%3 == 1} {
							for _, src := range []string{"theirs.out", "ours.out"} {
								args := []string{"-unbundle", "-type=" + typ, "-targets=" + strings.Join(req, ","), "-input=" + src}
								if allow {
									args = append(args, "-allow-missing-bundles")
								}
								var to, oo []string
								for i := range req {
									to = append(to, fmt.Sprintf("-output=t%d", i))
									oo = append(oo, fmt.Sprintf("-output=o%d", i))
								}
								rt := runTheirs(t, dir, nil, append(args, to...)...)
								ro := runOurs(t, dir, nil, append(args, oo...)...)
								if rt != ro {
									t.Fatalf("req %d %s allow=%v:\ntheirs %+v\nours   %+v", ri, src, allow, rt, ro)
								}
								if rt.code != 0 {
									continue
								}
								for i := range req {
									a, b := read(t, dir, fmt.Sprintf("t%d", i)), read(t, dir, fmt.Sprintf("o%d", i))
									if !bytes.Equal(a, b) {
										t.Fatalf("req %d %s output %d differs: %q vs %q", ri, src, i, a, b)
									}
								}
							}
						}
					}
				})
			}
		}
	}
}
