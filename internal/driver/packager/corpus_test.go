package packager

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

func dumpDoc(t *testing.T, dir string, files ...string) []DumpFile {
	t.Helper()
	out, diags, err := runDump(dir, DumpOptions{Files: files, JSON: true})
	require.NoError(t, err, diags)
	var doc struct {
		Schema int
		Files  []DumpFile
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Equal(t, DumpSchema, doc.Schema)
	return doc.Files
}

// entryFiles lists the files llvm-objdump would write for the bundle
// entries of a dump: base.<bundle>.<entry ID>.
func entryFiles(base string, obj DumpObject) []string {
	var out []string
	for _, b := range obj.Bundles {
		for _, e := range b.Entries {
			out = append(out, base+"."+strconv.Itoa(b.Index)+"."+e.ID)
		}
	}
	sort.Strings(out)
	return out
}

// splitObjdump separates llvm-objdump --offloading's listing lines from
// the names in its "Extracting offload bundle:" lines.
func splitObjdump(out string) (listing string, extracted []string) {
	var kept []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if name, ok := strings.CutPrefix(l, "Extracting offload bundle: "); ok {
			extracted = append(extracted, strings.TrimSuffix(name, "\n"))
			continue
		}
		kept = append(kept, l)
	}
	sort.Strings(extracted)
	return strings.Join(kept, ""), extracted
}

func extractIn(dir string, opt ExtractOptions) (string, error) {
	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &out, Tool: "offload-packager", Dir: dir}
	err := Extract(context.Background(), env, opt)
	return out.String(), err
}

// TestRocrandCorpus: on Debian's librocrand.so.1.1, dump lists what
// llvm-objdump --offloading writes (its listing lines kept, nothing
// written); --extract-bundles writes the same files with the same bytes
// and prints the same lines; extract by arch, triple and kind writes the
// matching entries byte-identical to llvm-objdump's files; a filter that
// matches nothing is an error; and the entry IDs are those
// clang-offload-bundler -list prints for the .hip_fatbin section (whose
// four-part host ID clang-offload-bundler 22 refuses to unbundle).
func TestRocrandCorpus(t *testing.T) {
	const name = "librocrand.so.1.1"
	ref := clitest.LinkedInto(t, clitest.Rocrand, name)
	refOut, refDiag, ok := clitest.Objdump(t, ref, name)
	require.True(t, ok, refDiag)
	listing, extracted := splitObjdump(refOut)
	require.Len(t, extracted, 8)

	t.Run("dump", func(t *testing.T) {
		d := clitest.LinkedInto(t, clitest.Rocrand, name)
		out, diags, err := runDump(d, DumpOptions{Files: []string{name}})
		require.NoError(t, err, diags)
		assert.Empty(t, diags)
		assert.True(t, strings.HasPrefix(out, listing), "llvm-objdump's listing lines come first, unchanged")
		assert.Equal(t, 8, strings.Count(out, "\nOFFLOAD BUNDLE [0] ENTRY ["))
		assert.Contains(t, out, "\nOFFLOAD BUNDLE [0] ENTRY [6]:\nkind            elf\narch            gfx90a:xnack+\ntriple          amdgcn-amd-amdhsa\nproducer        hip\nid              hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+\n")
		assert.Contains(t, out, "\nOFFLOAD BUNDLE [0] ENTRY [0]:\nkind            <none>\narch            \ntriple          x86_64-unknown-linux\nproducer        host\nid              host-x86_64-unknown-linux\n")
		assert.Equal(t, []string{name}, dirNames(t, d), "listing writes nothing")
		files := dumpDoc(t, d, name)
		obj := files[0].Objects[0]
		assert.Equal(t, extracted, entryFiles(name, obj))
		for _, e := range obj.Bundles[0].Entries {
			if e.Kind == "hip" {
				assert.Equal(t, "object", e.ImageKind, e.ID)
				assert.Equal(t, "amdgcn-amd-amdhsa", e.Triple)
				assert.Equal(t, strings.TrimPrefix(e.ID, "hipv4-amdgcn-amd-amdhsa--"), e.Arch)
			}
		}
	})

	t.Run("extract-bundles", func(t *testing.T) {
		d := clitest.LinkedInto(t, clitest.Rocrand, name)
		out, diags, err := runDump(d, DumpOptions{Files: []string{name}, ExtractBundles: true})
		require.NoError(t, err, diags)
		assert.Equal(t, refOut, out)
		assert.Equal(t, snapshot(t, ref), snapshot(t, d), "same files, same bytes")
	})

	t.Run("extract", func(t *testing.T) {
		for _, c := range []struct {
			filter string
			want   []string // entry IDs written
		}{
			{"arch=gfx90a:xnack-", []string{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"}},
			{"triple=amdgcn-amd-amdhsa,arch=gfx906:xnack-", []string{"hipv4-amdgcn-amd-amdhsa--gfx906:xnack-"}},
			{"kind=host", []string{"host-x86_64-unknown-linux"}},
			{"kind=hip,arch=gfx1030", []string{"hipv4-amdgcn-amd-amdhsa--gfx1030"}},
			{"id=hipv4-amdgcn-amd-amdhsa--gfx803", []string{"hipv4-amdgcn-amd-amdhsa--gfx803"}},
			{"triple=x86_64-unknown-linux", []string{"host-x86_64-unknown-linux"}},
		} {
			t.Run(c.filter, func(t *testing.T) {
				d := clitest.LinkedInto(t, clitest.Rocrand, name)
				out, err := extractIn(d, ExtractOptions{Input: name, Images: []string{c.filter}})
				require.NoError(t, err, out)
				var want []string
				for _, id := range c.want {
					f := name + ".0." + id
					want = append(want, f)
					assert.Contains(t, out, "Extracted: "+f+"\n")
					got, err := os.ReadFile(filepath.Join(d, f))
					require.NoError(t, err)
					exp, err := os.ReadFile(filepath.Join(ref, f))
					require.NoError(t, err)
					assert.True(t, bytes.Equal(exp, got), "%s: byte-identical to llvm-objdump's", f)
				}
				assert.Equal(t, append([]string{name}, want...), dirNames(t, d))
			})
		}
		for _, c := range []struct{ filter, msg string }{
			{"arch=gfx90a", "'librocrand.so.1.1': no image matches --arch=gfx90a (images: arch \"\", gfx1030, gfx803, gfx900:xnack-, gfx906:xnack-, gfx908:xnack-, gfx90a:xnack+, gfx90a:xnack-; a target ID without features matches only images built without them, e.g. --arch=gfx90a:xnack+)"},
			{"kind=bogus", "'librocrand.so.1.1': no image matches --kind=bogus (images: kind hip, host)"},
			{"triple=nvptx64-nvidia-cuda,arch=sm_90", "no image matches --triple=nvptx64-nvidia-cuda --arch=sm_90"},
			{"file=x.o,arch=gfx942", "no image matches --image=file=x.o,arch=gfx942"},
		} {
			d := clitest.LinkedInto(t, clitest.Rocrand, name)
			_, err := extractIn(d, ExtractOptions{Input: name, Images: []string{c.filter}})
			require.Error(t, err, c.filter)
			assert.Contains(t, err.Error(), c.msg)
			assert.Equal(t, []string{name}, dirNames(t, d), "nothing written")
		}
		// Extracting everything writes llvm-objdump's eight files too.
		d := clitest.LinkedInto(t, clitest.Rocrand, name)
		_, err := extractIn(d, ExtractOptions{Input: name})
		require.NoError(t, err)
		assert.Equal(t, snapshot(t, ref), snapshot(t, d))
	})

	t.Run("list", func(t *testing.T) {
		d := t.TempDir()
		clitest.Sh(t, d, llvmtools.Tool(t, "llvm-objcopy"), "--dump-section=.hip_fatbin=fatbin.hipfb", clitest.Rocrand, "/dev/null")
		list := strings.Fields(string(clitest.Sh(t, d, llvmtools.Tool(t, "clang-offload-bundler"), "-list", "-type=o", "-input=fatbin.hipfb")))
		sort.Strings(list)
		var ids []string
		for _, f := range []string{"fatbin.hipfb"} {
			for _, e := range dumpDoc(t, d, f)[0].Objects[0].Bundles[0].Entries {
				ids = append(ids, e.ID)
			}
		}
		sort.Strings(ids)
		assert.Equal(t, list, ids)
		// clang-offload-bundler 22 cannot unbundle it (the ROCm 5 host ID);
		// extract can, with the same bytes as llvm-objdump's.
		cmd := exec.Command(llvmtools.Tool(t, "clang-offload-bundler"), "-unbundle", "-type=o", "-input=fatbin.hipfb",
			"-targets=hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "-output=ref.co")
		cmd.Dir = d
		msg, err := cmd.CombinedOutput()
		require.Error(t, err)
		assert.Contains(t, string(msg), "invalid bundle id read from the bundle")
		_, err = extractIn(d, ExtractOptions{Input: "fatbin.hipfb", Images: []string{"arch=gfx90a:xnack-"}})
		require.NoError(t, err)
		got, _ := os.ReadFile(filepath.Join(d, "fatbin.hipfb.0.hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"))
		exp, _ := os.ReadFile(filepath.Join(ref, name+".0.hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"))
		require.NotEmpty(t, exp)
		assert.True(t, bytes.Equal(exp, got))
	})
}

func dirNames(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	sort.Strings(n)
	return n
}

// oldDriverObjects compiles k.hip with clang 22's default (old) HIP
// driver, which keeps device code in __CLANG_OFFLOAD_BUNDLE__<ID>
// sections (-fgpu-rdc: bitcode), and archives the object.
func oldDriverObjects(t *testing.T) string {
	d := t.TempDir()
	src, _ := filepath.Abs("testdata")
	for _, f := range []string{"k.hip", "../../linkwrap/testdata/hip/mini_hip.h"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(d, filepath.Base(f)), b, 0o644))
	}
	clitest.Sh(t, d, llvmtools.Tool(t, "clang"), "-x", "hip", "--offload-arch=gfx90a", "--offload-arch=gfx1100", "-fgpu-rdc", "--no-offload-new-driver",
		"-nogpuinc", "-nogpulib", "-c", "k.hip", "-o", "old.o")
	clitest.Sh(t, d, llvmtools.Tool(t, "llvm-ar"), "rc", "old.a", "old.o")
	return d
}

// TestOldDriverHIP: objects from clang 22's old HIP driver are listed
// (llvm-objdump sees nothing in them; clang-offload-bundler -list sees
// the same entries), extracted and filtered, the bytes identical to
// clang-offload-bundler -unbundle's, also from an archive.
func TestOldDriverHIP(t *testing.T) {
	d := oldDriverObjects(t)
	refOut, refDiag, ok := clitest.Objdump(t, d, "old.o")
	require.True(t, ok, refDiag)
	listing, extracted := splitObjdump(refOut)
	assert.Empty(t, extracted, "llvm-objdump does not see old-driver bundles")
	out, diags, err := runDump(d, DumpOptions{Files: []string{"old.o"}})
	require.NoError(t, err, diags)
	assert.True(t, strings.HasPrefix(out, listing))
	assert.Contains(t, out, "\nOFFLOAD BUNDLE [0] ENTRY [0]:\nkind            llvm ir\narch            gfx1100\ntriple          amdgcn-amd-amdhsa\nproducer        hip\nid              hip-amdgcn-amd-amdhsa--gfx1100\n")

	list := strings.Fields(string(clitest.Sh(t, d, llvmtools.Tool(t, "clang-offload-bundler"), "-list", "-type=o", "-input=old.o")))
	sort.Strings(list)
	obj := dumpDoc(t, d, "old.o")[0].Objects[0]
	require.Len(t, obj.Bundles, 1)
	assert.Equal(t, "object", obj.Bundles[0].Format)
	var ids []string
	for _, e := range obj.Bundles[0].Entries {
		ids = append(ids, e.ID)
		assert.Equal(t, "__CLANG_OFFLOAD_BUNDLE__"+e.ID, e.Section)
	}
	sort.Strings(ids)
	assert.Equal(t, list, ids)

	for _, arch := range []string{"gfx90a", "gfx1100"} {
		id := "hip-amdgcn-amd-amdhsa--" + arch
		clitest.Sh(t, d, llvmtools.Tool(t, "clang-offload-bundler"), "-unbundle", "-type=o", "-input=old.o", "-targets="+id, "-output=ref-"+arch+".bc")
		want, err := os.ReadFile(filepath.Join(d, "ref-"+arch+".bc"))
		require.NoError(t, err)
		require.Equal(t, "BC", string(want[:2]))
		for _, in := range []string{"old.o", "old.a"} {
			x := t.TempDir()
			out, err := extractIn(d, ExtractOptions{Input: in, Images: []string{"kind=hip,arch=" + arch}, OutDir: x})
			require.NoError(t, err, out)
			f := "old.o.0." + id
			assert.Equal(t, "Extracted: "+f+"\n", out)
			got, err := os.ReadFile(filepath.Join(x, f))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, got), "%s from %s", arch, in)
		}
	}
	// dump --extract-bundles writes them too, named as llvm-objdump names
	// bundle entries.
	x := t.TempDir()
	clitest.CopyInto(t, d, x, "old.o")
	out, _, err = runDump(x, DumpOptions{Files: []string{"old.o"}, ExtractBundles: true})
	require.NoError(t, err)
	assert.Contains(t, out, "Extracting offload bundle: old.o.0.hip-amdgcn-amd-amdhsa--gfx90a\n")
	got, _ := os.ReadFile(filepath.Join(x, "old.o.0.hip-amdgcn-amd-amdhsa--gfx90a"))
	want, _ := os.ReadFile(filepath.Join(d, "ref-gfx90a.bc"))
	assert.True(t, bytes.Equal(want, got))
	// With --json too, the document stays JSON.
	y := t.TempDir()
	clitest.CopyInto(t, d, y, "old.o")
	out, _, err = runDump(y, DumpOptions{Files: []string{"old.o"}, ExtractBundles: true, JSON: true})
	require.NoError(t, err)
	assert.True(t, json.Valid([]byte(out)), out)
	assert.FileExists(t, filepath.Join(y, "old.o.0.hip-amdgcn-amd-amdhsa--gfx90a"))
}

// TestBackToBackBundles: of two bundles back to back in one .hip_fatbin
// (as a linked library holds them), dump lists both, numbered as
// llvm-objdump numbers its files, and extract picks an entry of the
// second with the bytes llvm-objdump and clang-offload-bundler -unbundle
// write.
func TestBackToBackBundles(t *testing.T) {
	fx := bundleFixtures(t)
	ref := copyDir(t, fx)
	refOut, refDiag, ok := clitest.Objdump(t, ref, "cat.o")
	require.True(t, ok, refDiag)
	listing, extracted := splitObjdump(refOut)
	out, diags, err := runDump(fx, DumpOptions{Files: []string{"cat.o"}})
	require.NoError(t, err, diags)
	assert.True(t, strings.HasPrefix(out, listing))
	assert.Contains(t, out, "\nOFFLOAD BUNDLE [1] ENTRY [0]:\nkind            unknown\narch            gfx942\ntriple          amdgcn-amd-amdhsa\nproducer        hip\nid              hip-amdgcn-amd-amdhsa--gfx942\n")
	assert.Equal(t, extracted, entryFiles("cat.o", dumpDoc(t, fx, "cat.o")[0].Objects[0]))

	clitest.Sh(t, fx, llvmtools.Tool(t, "clang-offload-bundler"), "-unbundle", "-type=o", "-input=s2.hipfb", "-targets=hip-amdgcn-amd-amdhsa--gfx942", "-output=ref942.o")
	want, err := os.ReadFile(filepath.Join(fx, "ref942.o"))
	require.NoError(t, err)
	x := t.TempDir()
	out, err = extractIn(fx, ExtractOptions{Input: "cat.o", Images: []string{"arch=gfx942"}, OutDir: x})
	require.NoError(t, err, out)
	got, err := os.ReadFile(filepath.Join(x, "cat.o.1.hip-amdgcn-amd-amdhsa--gfx942"))
	require.NoError(t, err)
	assert.Equal(t, want, got)
	objdumps, err := os.ReadFile(filepath.Join(ref, "cat.o.1.hip-amdgcn-amd-amdhsa--gfx942"))
	require.NoError(t, err)
	assert.Equal(t, objdumps, got)
	// Also from an archive member: named after the member.
	x = t.TempDir()
	_, err = extractIn(fx, ExtractOptions{Input: "lib.a", Images: []string{"arch=gfx942"}, OutDir: x})
	require.NoError(t, err)
	assert.Equal(t, []string{"cat.o.1.hip-amdgcn-amd-amdhsa--gfx942", "two.o.1.hip-amdgcn-amd-amdhsa--gfx942"}, dirNames(t, x))
}

// TestDumpListsThroughDamage: llvm-objdump prints the "file format" line
// before it reports a damaged package inside an object, and so do we; a
// host object whose .rodata starts with the bundle magic as a string is
// listed, where llvm-objdump fails.
func TestDumpListsThroughDamage(t *testing.T) {
	fx := fixtures(t)
	d := t.TempDir()
	clitest.CopyInto(t, fx, d, "nf.c", "trunc.pkg", "trunc2.pkg")
	require.NoError(t, os.WriteFile(filepath.Join(d, "r.c"), []byte("const char msg[] = \"__CLANG_OFFLOAD_BUNDLE__ is a string\";\nconst char *get(void) { return msg; }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(d, "c.c"), []byte("const char msg[] = \"CCOB\\3\\0\\1\\0 is a string too\";\nconst char *get(void) { return msg; }\n"), 0o644))
	clang := llvmtools.Tool(t, "clang")
	clitest.Sh(t, d, clang, "-c", "nf.c", "-Xclang", "-fembed-offload-object=trunc.pkg", "-o", "badpkg.o")
	clitest.Sh(t, d, clang, "-c", "nf.c", "-Xclang", "-fembed-offload-object=trunc2.pkg", "-o", "badpkg2.o")
	clitest.Sh(t, d, clang, "-c", "r.c", "-o", "r.o")
	clitest.Sh(t, d, clang, "-c", "c.c", "-o", "c.o")
	for _, f := range []string{"badpkg.o", "badpkg2.o"} {
		wantOut, wantDiag, wantOK := clitest.Objdump(t, d, f)
		require.False(t, wantOK)
		require.Contains(t, wantOut, "file format")
		gotOut, gotDiag, err := runDump(d, DumpOptions{Files: []string{f}})
		require.Error(t, err)
		assert.Equal(t, wantOut, gotOut, f)
		assert.Equal(t, wantDiag, gotDiag, f)
	}
	for _, f := range []string{"r.o", "c.o"} {
		wantOut, _, wantOK := clitest.Objdump(t, d, f)
		gotOut, gotDiag, err := runDump(d, DumpOptions{Files: []string{f}})
		require.NoError(t, err, gotDiag)
		assert.Equal(t, wantOut, gotOut, f)
		if f == "r.o" {
			assert.False(t, wantOK, "llvm-objdump fails on r.o")
		}
	}
}

// TestCompressedTextBundles: CCOBs of text bundles (-type=s, -type=ll),
// and the plain text bundles, list the IDs clang-offload-bundler -list
// prints, and extract writes what -unbundle writes.
func TestCompressedTextBundles(t *testing.T) {
	d := t.TempDir()
	w := func(n, s string) { require.NoError(t, os.WriteFile(filepath.Join(d, n), []byte(s), 0o644)) }
	w("h.ll", "; host\n")
	w("a.ll", "; device\ndefine void @f() { ret void }\n")
	w("h.s", "# host\n")
	w("a.s", "\t.text\n# device\nf:\n\ts_endpgm\n")
	bundler := llvmtools.Tool(t, "clang-offload-bundler")
	for _, typ := range []string{"ll", "s"} {
		for _, z := range []bool{false, true} {
			out := "t" + map[bool]string{false: "", true: "z"}[z] + "." + typ
			args := []string{"-type=" + typ, "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a", "-input=h." + typ, "-input=a." + typ, "-output=" + out}
			if z {
				args = append(args, "-compress")
			}
			clitest.Sh(t, d, append([]string{bundler}, args...)...)
			t.Run(out, func(t *testing.T) {
				list := strings.Fields(string(clitest.Sh(t, d, bundler, "-list", "-type="+typ, "-input="+out)))
				obj := dumpDoc(t, d, out)[0].Objects[0]
				require.Len(t, obj.Bundles, 1)
				assert.Equal(t, "text", obj.Bundles[0].Format)
				assert.Equal(t, z, obj.Bundles[0].Compression != nil)
				var ids []string
				for _, e := range obj.Bundles[0].Entries {
					ids = append(ids, e.ID)
				}
				assert.Equal(t, list, ids)
				clitest.Sh(t, d, bundler, "-unbundle", "-type="+typ, "-input="+out, "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-output=ref-"+out)
				want, err := os.ReadFile(filepath.Join(d, "ref-"+out))
				require.NoError(t, err)
				x := t.TempDir()
				_, err = extractIn(d, ExtractOptions{Input: out, Images: []string{"arch=gfx90a"}, OutDir: x})
				require.NoError(t, err)
				got, err := os.ReadFile(filepath.Join(x, out+".0.hip-amdgcn-amd-amdhsa--gfx90a"))
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got))
			})
		}
	}
}

// TestArchMatching pins the target-ID rule of extract's --arch.
func TestArchMatching(t *testing.T) {
	for _, c := range []struct {
		want, have string
		ok         bool
	}{
		{"gfx90a:xnack-", "gfx90a:xnack-", true},
		{"gfx90a:xnack-", "gfx90a", true},
		{"gfx90a", "gfx90a:xnack-", false},
		{"gfx90a:xnack+", "gfx90a:xnack-", false},
		{"gfx90a:sramecc+:xnack-", "gfx90a:xnack-", true},
		{"gfx90a:xnack-", "gfx90a:sramecc+:xnack-", false},
		{"gfx90a", "gfx1030", false},
		{"sm_90", "sm_90", true},
		{"sm_90", "sm_90a", false},
		{"generic", "generic", true},
	} {
		assert.Equal(t, c.ok, archMatches(c.want, c.have), "--arch=%s vs %s", c.want, c.have)
	}
	assert.True(t, tripleMatches("amdgcn-amd-amdhsa", "amdgcn-amd-amdhsa-unknown"))
	assert.False(t, tripleMatches("x86_64-unknown-linux-gnu", "x86_64-unknown-linux"))
	for id, want := range map[string][3]string{
		"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-": {"hip", "amdgcn-amd-amdhsa", "gfx90a:xnack-"},
		"host-x86_64-unknown-linux-gnu-":         {"host", "x86_64-unknown-linux-gnu", ""},
		"host-x86_64-unknown-linux":              {"host", "x86_64-unknown-linux", ""},
		"hip-amdgcn-amd-amdhsa-gfx906":           {"hip", "amdgcn-amd-amdhsa", "gfx906"},
		"openmp-x86_64-unknown-linux-gnu":        {"openmp", "x86_64-unknown-linux-gnu", ""},
	} {
		k, tr, a := EntryTarget(id)
		assert.Equal(t, want, [3]string{k, tr, a}, id)
	}
}
