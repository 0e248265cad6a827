package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// compressRow is compressCases' row whose name contains part.
func compressRow(t *testing.T, part string) benchCase {
	t.Helper()
	for _, bc := range cases() {
		if strings.HasPrefix(bc.name, "bundle + compress") && strings.Contains(bc.name, part) {
			return bc
		}
	}
	t.Fatalf("no compression row %q", part)
	return benchCase{}
}

// compressConfig is a config whose "ours" is LLVM's clang-offload-bundler
// too (a link in bin/), so that the validators can be tested without
// building offload-kit: what they check is the output, whoever wrote it.
func compressConfig(t *testing.T) *config {
	c := runConfig(t)
	c.llvm = llvmtools.Dir
	c.bin = t.TempDir()
	if err := os.Symlink(llvmtools.Tool(t, "clang-offload-bundler"), filepath.Join(c.bin, "clang-offload-bundler")); err != nil {
		t.Fatal(err)
	}
	return c
}

// runSides runs a row's two sides once, as the harness would.
func runSides(t *testing.T, c *config, bc benchCase) {
	t.Helper()
	for _, s := range []side{bc.ours(c), bc.ref(c)} {
		if err := c.sh(s.dir, s.argv...); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCompressRowsValidate: each compression row's validator accepts the
// bundles its command lines write (both unbundlers give the inputs back)
// and rejects one whose entries differ from the inputs or that is not a
// compressed bundle at all.
func TestCompressRowsValidate(t *testing.T) {
	c := compressConfig(t)
	// Small stand-ins for the 128 MiB and 2 × 64 MiB inputs.
	if err := writeSemi(c.p("semi.bin"), 3<<20, 24); err != nil {
		t.Fatal(err)
	}
	if err := writeData(c.p("pair-a.bin"), 1<<20, 12); err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(c.p("pair-a.bin"))
	if err != nil {
		t.Fatal(err)
	}
	a[4096] ^= 0x5a
	if err := os.WriteFile(c.p("pair-b.bin"), a, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rocrandInputs(c); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ row, out, input string }{
		{"semi-compressible", "ours.semi.ccob", "semi.bin"},
		{"near-duplicate", "ours.pair.ccob", "pair-b.bin"},
		{"librocrand", "ours.rocrand.ccob", rocrandFile("gfx90a:xnack-")},
	} {
		bc := compressRow(t, r.row)
		runSides(t, c, bc)
		for _, who := range []string{"ours", "ref"} {
			if err := bc.validate(c, who, bc.ours(c)); err != nil {
				t.Errorf("%s: %s: %v", r.row, who, err)
			}
		}
		// One input changed after bundling: its entry no longer matches.
		in, err := os.ReadFile(c.p(r.input))
		if err != nil {
			t.Fatal(err)
		}
		changed := append([]byte(nil), in...)
		changed[len(changed)/2] ^= 1
		os.WriteFile(c.p(r.input), changed, 0o644)
		err = bc.validate(c, "ours", bc.ours(c))
		if err == nil || !strings.Contains(err.Error(), "entry") {
			t.Errorf("%s: a changed input: %v", r.row, err)
		}
		os.WriteFile(c.p(r.input), in, 0o644)
		// Not a bundle: the reference's unbundler refuses it.
		os.WriteFile(c.p(r.out), []byte("CCOB but not really"), 0o644)
		if err := bc.validate(c, "ours", bc.ours(c)); err == nil || !strings.Contains(err.Error(), "-unbundle") {
			t.Errorf("%s: not a bundle: %v", r.row, err)
		}
		// sizeCheck removes both outputs.
		if notes, _ := bc.check(c, &result{}); len(notes) != 1 || exists(c.p(r.out)) {
			t.Errorf("%s: check: %q", r.row, notes)
		}
	}
}

// TestWriteSemi: the semi-compressible input is deterministic and
// compresses, but not much (zstd -3 keeps about two thirds of it).
func TestWriteSemi(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := writeSemi(p, 8<<20, 24); err != nil {
			t.Fatal(err)
		}
	}
	if err := sameFile(a, b); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 8<<20 {
		t.Fatalf("%d bytes", len(data))
	}
	zeros := 0
	for _, x := range data {
		if x == 0 {
			zeros++
		}
	}
	// Random, code-like, float, string and sparse segments all occur:
	// zeros are neither rare nor most of it.
	if q := float64(zeros) / float64(len(data)); q < 0.03 || q > 0.3 {
		t.Errorf("zero bytes: %.3f", q)
	}
}

// TestBundleEntries reads a bundle made by clang-offload-bundler.
func TestBundleEntries(t *testing.T) {
	c := compressConfig(t)
	os.WriteFile(c.p("x.bin"), []byte("device code"), 0o644)
	if err := c.sh(c.work, c.tool("clang-offload-bundler"), "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a", "-input=/dev/null", "-input=x.bin", "-output=x.bundle"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(c.p("x.bundle"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := bundleEntries(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(e["hip-amdgcn-amd-amdhsa--gfx90a"]) != "device code" || len(e) != 2 {
		t.Errorf("entries %q", e)
	}
	if _, err := bundleEntries(b[:40]); err == nil {
		t.Error("a truncated bundle was read")
	}
}
