package bundle

import (
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/release"
)

// TestIDAs: the IDs each release's bundler writes for a -targets value
// (rows checked with clang-offload-bundler 16.0.6, 19.1.7 and 22.1.8;
// internal/driver/bundler's TestReleaseBundleParity runs them).
func TestIDAs(t *testing.T) {
	for _, c := range []struct {
		raw                   string
		verbatim, std, strict string // "" = refused
	}{
		{"host-x86_64-unknown-linux", "host-x86_64-unknown-linux", "host-x86_64-unknown-linux--", ""},
		{"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu-"},
		{"hip-amdgcn-amd-amdhsa-gfx90a", "hip-amdgcn-amd-amdhsa-gfx90a", "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--"},
		{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"},
		{"openmp-amdgcn-amd-amdhsa--gfx940", "openmp-amdgcn-amd-amdhsa--gfx940", "openmp-amdgcn-amd-amdhsa--gfx940", "openmp-amdgcn-amd-amdhsa--"},
		{"openmp-x86_64-unknown-linux-gnu-", "openmp-x86_64-unknown-linux-gnu-", "openmp-x86_64-unknown-linux-gnu-openmp-x86_64-unknown-linux-gnu-", "openmp-x86_64-unknown-linux-gnu-"},
	} {
		for rule, want := range map[release.BundleIDRule]string{release.BundleIDVerbatim: c.verbatim, release.BundleIDStandardized: c.std, release.BundleIDStrict: c.strict} {
			tg, ok := ParseTargetAs(c.raw, rule)
			if !ok {
				if want != "" {
					t.Errorf("rule %d: %q refused", rule, c.raw)
				}
				continue
			}
			if got := IDAs(c.raw, tg, rule); got != want {
				t.Errorf("rule %d: IDAs(%q) = %q, want %q", rule, c.raw, got, want)
			}
		}
	}
}

// TestCompatibleAs: which bundle entry each release's bundler extracts for
// a requested target (checked with 16.0.6 and 19.1.7).
func TestCompatibleAs(t *testing.T) {
	for _, c := range []struct {
		code, target string
		v16, v19     bool
	}{
		{"hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa-gfx90a", true, true},
		{"hipv4-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa-gfx90a", false, true},
		{"hip-amdgcn-amd-amdhsa-gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a", false, true},
		{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx90a", false, false},
		{"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu", true, false},
		{"host-x86_64-unknown-linux", "host-x86_64-unknown-linux", true, false},
		{"host-x86_64-unknown-linux--", "host-x86_64-unknown-linux", false, true},
		{"host-x86_64-unknown-linux-gnu-", "host-x86_64-unknown-linux-gnu", false, true},
		{"openmp-x86_64-unknown-linux-gnu", "openmp-x86_64--linux-gnu", true, false},
	} {
		for _, r := range []struct {
			rule  release.BundleIDRule
			hipv4 bool
			want  bool
		}{{release.BundleIDVerbatim, false, c.v16}, {release.BundleIDStandardized, true, c.v19}} {
			code, _ := ParseTargetAs(c.code, r.rule)
			tg, _ := ParseTargetAs(c.target, r.rule)
			kept := IDAs(c.target, tg, r.rule) // the bundler keeps and re-parses this
			tg, _ = ParseTargetAs(kept, r.rule)
			if got := CompatibleAs(c.code, kept, code, tg, r.rule, false, r.hipv4); got != r.want {
				t.Errorf("rule %d: %q for %q = %v, want %v", r.rule, c.code, c.target, got, r.want)
			}
		}
	}
}

// TestLLVMOrderHash: LLVM 16's StringMap (djbHash) lists these IDs in a
// different order from 19's and 22's (xxh3); both rows are the bundlers'
// -list output.
func TestLLVMOrderHash(t *testing.T) {
	ids := []string{"host-x86_64-unknown-linux", "hip-amdgcn-amd-amdhsa-gfx90a"}
	if got := LLVMOrderHash(ids, release.HashDJB); got[0] != ids[0] {
		t.Errorf("djb order %v", got)
	}
	ids = []string{"host-x86_64-unknown-linux-gnu", "hipv4-amdgcn-amd-amdhsa--gfx90a"}
	if got := LLVMOrderHash(ids, release.HashDJB); got[0] != ids[1] {
		t.Errorf("djb order %v", got)
	}
	if got := LLVMOrderHash([]string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx90a"}, release.HashXXH3); got[0] != "hip-amdgcn-amd-amdhsa--gfx90a" {
		t.Errorf("xxh3 order %v", got)
	}
}

// TestCompressV1: LLVM 18's bundler writes CCOB version 1 (no total size);
// ours writes it for the 18 profile, and reads it back.
func TestCompressV1(t *testing.T) {
	src := []byte(strings.Repeat("s_load_dword v0, s[4:5]\n", 400))
	blob, h, err := Compress(nil, src, CompressOptions{Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != 1 || int(h.TotalFileSize) != len(blob) {
		t.Fatalf("header %+v, blob %d bytes", h, len(blob))
	}
	p, err := ParseHeader(blob)
	if err != nil || p.Version != 1 || p.UncompressedSize != uint64(len(src)) {
		t.Fatalf("ParseHeader = %+v, %v", p, err)
	}
	d, err := Decompress(blob, Limits{})
	if err != nil || string(d.Data) != string(src) {
		t.Fatalf("Decompress: %v", err)
	}
}

// FuzzParseTargetAs: every rule reads any text without panicking, and
// what a release writes reads back as the same ID under its rule.
func FuzzParseTargetAs(f *testing.F) {
	for _, s := range []string{"host-x86_64-unknown-linux", "hip-amdgcn-amd-amdhsa-gfx90a:xnack+", "openmp-x86_64-unknown-linux-gnu-", "-", "", ":", "a-b-c-d-e-f-g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, rule := range []release.BundleIDRule{release.BundleIDStrict, release.BundleIDStandardized, release.BundleIDVerbatim} {
			tg, ok := ParseTargetAs(s, rule)
			if !ok {
				continue
			}
			id := IDAs(s, tg, rule)
			if rule == release.BundleIDVerbatim && id != s {
				t.Fatalf("verbatim wrote %q for %q", id, s)
			}
			_ = CompatibleAs(id, id, tg, tg, rule, true, rule != release.BundleIDVerbatim)
		}
	})
}
