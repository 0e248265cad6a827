package elfembed

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sectionTable returns llvm-readelf -S rows as "name type flags link info
// align size", dropping addresses and offsets.
var readelfRow = regexp.MustCompile(`(?m)^ *\[ *\d+\] +(\S+) +(\S+) +\S+ +\S+ +(\S+) +(\S+) +(\S*?) *(\d+) +(\d+) +(\d+)$`)

func sectionTable(t *testing.T, path string) string {
	t.Helper()
	return sectionRows(t, runTool(t, "", tool(t, "llvm-readelf"), "-S", "-W", path))
}

// elfDump is one llvm-readelf run giving the masked section table plus
// symbols, relocations and groups with offsets masked.
func elfDump(t *testing.T, path string) string {
	t.Helper()
	out := runTool(t, "", tool(t, "llvm-readelf"), "-S", "-W", "-s", "-r", "-g", path)
	rest := readelfRow.ReplaceAllString(out, "")
	if i := strings.Index(rest, "Key to Flags:"); i >= 0 {
		if j := strings.Index(rest[i:], "\n\n"); j >= 0 {
			rest = rest[:i] + rest[i+j:]
		}
	}
	if i := strings.Index(rest, "Section Headers:"); i >= 0 {
		rest = rest[i:] // drop the "There are N section headers, starting at ..." line and file name
	}
	return sectionRows(t, out) + "\n" + noOffsets(rest)
}

func sectionRows(t *testing.T, out string) string {
	t.Helper()
	var rows []string
	for _, m := range readelfRow.FindAllStringSubmatch(out, -1) {
		switch m[1] {
		case ".strtab", ".shstrtab":
			m[3] = "-" // we append to string tables; llvm-objcopy rebuilds them
		}
		if m[2] == "LLVM_ADDRSIG" {
			m[3], m[6] = "-", "-" // llvm-objcopy unlinks it (and leaves stale indices) when symbols go; we renumber it
		}
		rows = append(rows, strings.Join(m[1:], " "))
	}
	if len(rows) == 0 {
		t.Fatalf("no sections parsed from\n%s", out)
	}
	return strings.Join(rows, "\n")
}

// TestBundleSectionMatchesObjcopy adds a bundle entry section the way
// clang-offload-bundler does (llvm-objcopy --add-section
// --set-section-flags=readonly,exclude) and compares the result with
// llvm-objcopy's.
func TestBundleSectionMatchesObjcopy(t *testing.T) {
	t.Parallel()
	objcopy := tool(t, "llvm-objcopy")
	dir := t.TempDir()
	const name = "__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu"
	writeTemp(t, dir, "host.bin", []byte{0})
	for _, tgt := range []string{"x86_64-linux-gnu", "powerpc64-linux-gnu", "i386-linux-gnu", "mips-linux-gnu"} {
		t.Run(tgt, func(t *testing.T) {
			in := filepath.Join("testdata", "hello-"+tgt+".o")
			want := filepath.Join(dir, "want-"+tgt+".o")
			runTool(t, "", objcopy, "--add-section="+name+"="+filepath.Join(dir, "host.bin"),
				"--set-section-flags="+name+"=readonly,exclude", "--", in, want)
			out := rewriteBytes(t, readFile(t, "hello-"+tgt+".o"), Edit{Add: []NewSection{
				{Name: name, Type: format.SHT_PROGBITS, Flags: shfExclude, Align: 1, Data: bytes.NewReader([]byte{0}), Size: 1},
			}})
			got := writeTemp(t, dir, "got-"+tgt+".o", out)
			assert.Equal(t, elfDump(t, want), elfDump(t, got))

			// Unbundling the host removes the section again, like
			// llvm-objcopy --remove-section.
			runTool(t, "", objcopy, "--remove-section="+name, want, want+".rm")
			back := rewriteBytes(t, out, Edit{Remove: []string{name}})
			gotRm := writeTemp(t, dir, "rm-"+tgt+".o", back)
			assert.Equal(t, elfDump(t, want+".rm"), elfDump(t, gotRm))
		})
	}
}

// TestRemoveMatchesObjcopy compares removing .llvm.offloading with
// llvm-objcopy --remove-section.
func TestRemoveMatchesObjcopy(t *testing.T) {
	t.Parallel()
	objcopy := tool(t, "llvm-objcopy")
	dir := t.TempDir()
	for _, tgt := range []string{"x86_64-linux-gnu", "aarch64-linux-gnu"} {
		in := filepath.Join("testdata", "emb2-"+tgt+".o")
		want := filepath.Join(dir, "want-"+tgt+".o")
		runTool(t, "", objcopy, "--remove-section=.llvm.offloading", in, want)
		got := writeTemp(t, dir, "got-"+tgt+".o", rewriteBytes(t, readFile(t, "emb2-"+tgt+".o"), Edit{Remove: []string{".llvm.offloading"}}))
		assert.Equal(t, elfDump(t, want), elfDump(t, got))
	}
}

func TestConcatRules(t *testing.T) {
	host := readFile(t, "emb-x86_64-linux-gnu.o")
	odd := []byte("odd-sized")
	// Same name, different type: a second section is added.
	out := rewriteBytes(t, host, Edit{Concat: true, Add: []NewSection{{Name: ".llvm.offloading", Type: format.SHT_PROGBITS, Align: 4, Data: bytes.NewReader(odd), Size: int64(len(odd))}}})
	o, err := Parse(out)
	require.NoError(t, err)
	n := 0
	for _, s := range o.Sections {
		if s.Name == ".llvm.offloading" {
			n++
		}
	}
	assert.Equal(t, 2, n)
	assert.Equal(t, 1, len(o.OffloadSections()))

	// Without Concat a second SHT_LLVM_OFFLOADING section is added.
	out = rewriteBytes(t, host, Edit{Add: []NewSection{{Name: ".llvm.offloading", Type: format.SHT_LLVM_OFFLOADING, Align: 8, Data: bytes.NewReader(odd), Size: int64(len(odd))}}})
	o, err = Parse(out)
	require.NoError(t, err)
	assert.Equal(t, 2, len(o.OffloadSections()))

	// With Concat, padding to the piece's alignment and the larger alignment win.
	pkg := readFile(t, "pkg.out")
	out = rewriteBytes(t, host, Edit{Concat: true, Add: []NewSection{
		{Name: ".llvm.offloading", Type: format.SHT_LLVM_OFFLOADING, Align: 1, Data: bytes.NewReader(odd), Size: int64(len(odd))},
		{Name: ".llvm.offloading", Type: format.SHT_LLVM_OFFLOADING, Align: 16, Data: bytes.NewReader(odd), Size: int64(len(odd))},
	}})
	o, err = Parse(out)
	require.NoError(t, err)
	s := o.OffloadSections()[0]
	want := append(append([]byte{}, pkg...), odd...)
	want = append(want, make([]byte, 16-len(want)%16)...)
	want = append(want, odd...)
	assert.Equal(t, want, s.Data)
	assert.Equal(t, uint64(16), s.Align)
	assert.True(t, s.Offset%16 == 0)
}

func TestRewriteErrors(t *testing.T) {
	elfObj := readFile(t, "hello-x86_64-linux-gnu.o")
	cases := []struct {
		name string
		in   []byte
		e    Edit
		err  error
	}{
		{"not an object", []byte("hello"), Edit{}, format.ErrMagic},
		{"executable", func() []byte { b := append([]byte{}, elfObj...); b[16] = 2; return b }(), Edit{}, format.ErrUnsupported},
		{"truncated", elfObj[:100], Edit{}, format.ErrTruncated},
		{"remove with relocation users", readFile(t, "emb-x86_64-linux-gnu.o"), Edit{Remove: []string{".text"}}, format.ErrUnsupported},
		{"remove symtab", elfObj, Edit{Remove: []string{".symtab"}}, format.ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Rewrite(io.Discard, c.in, c.e)
			if err == nil {
				t.Fatal("no error")
			}
			assert.True(t, errors.Is(err, c.err), "%v", err)
			var fe *format.FormatError
			require.ErrorAs(t, err, &fe)
		})
	}
	for _, a := range []NewSection{{Name: ""}, {Name: "x", Size: -1}, {Name: "x", Size: 1}, {Name: "x", Align: 3}} {
		assert.True(t, Rewrite(io.Discard, elfObj, Edit{Add: []NewSection{a}}) != nil, "%+v", a)
	}
	// A payload shorter than its declared size.
	err := Rewrite(io.Discard, elfObj, Edit{Add: []NewSection{{Name: "x", Type: format.SHT_PROGBITS, Data: strings.NewReader("abc"), Size: 10}}})
	assert.True(t, errors.Is(err, io.ErrUnexpectedEOF), "%v", err)
	err = Embed(io.Discard, elfObj, []io.ReaderAt{strings.NewReader("")}, nil)
	assert.True(t, err != nil)
}

// patternReader is an io.ReaderAt of n generated bytes.
type patternReader struct{ n int64 }

func (p patternReader) ReadAt(b []byte, off int64) (int, error) {
	if off >= p.n {
		return 0, io.EOF
	}
	k := int(min(int64(len(b)), p.n-off))
	for i := 0; i < k; i++ {
		b[i] = byte(off + int64(i))
	}
	if k < len(b) {
		return k, io.EOF
	}
	return k, nil
}

// TestEmbedStreams embeds a large generated payload and checks that the
// memory allocated stays far below its size.
func TestEmbedStreams(t *testing.T) {
	const size = 64 << 20
	for _, host := range []string{"hello-x86_64-linux-gnu.o", "hello-x86_64-pc-windows-msvc.o"} {
		in := readFile(t, host)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		cw := &countWriter{}
		require.NoError(t, Embed(cw, in, []io.ReaderAt{patternReader{size}}, []int64{size}))
		runtime.ReadMemStats(&after)
		assert.True(t, cw.n > size, "wrote %d bytes", cw.n)
		alloc := after.TotalAlloc - before.TotalAlloc
		assert.True(t, alloc < 4<<20, "%s: allocated %d bytes for a %d-byte payload", host, alloc, size)
	}
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestRemoveGroupsMatchesObjcopy removes C++ sections, emptying a COMDAT
// group, and compares with llvm-objcopy; the address-significance table
// must still name the right symbols (llvm-objcopy leaves it dangling).
func TestRemoveGroupsMatchesObjcopy(t *testing.T) {
	t.Parallel()
	objcopy := tool(t, "llvm-objcopy")
	re := tool(t, "llvm-readelf")
	dir := t.TempDir()
	in := filepath.Join("testdata", "cxx-x86_64-linux-gnu.o")
	for i, rm := range [][]string{
		{".text._Z3usei", ".eh_frame"},
		{".text._Z3usei", ".eh_frame", ".text._Z5twicei"},
	} {
		want := filepath.Join(dir, "want.o")
		args := []string{}
		for _, r := range rm {
			args = append(args, "--remove-section="+r)
		}
		runTool(t, "", objcopy, append(args, in, want)...)
		got := writeTemp(t, dir, "got.o", rewriteBytes(t, readFile(t, "cxx-x86_64-linux-gnu.o"), Edit{Remove: rm}))
		assert.Equal(t, elfDump(t, want), elfDump(t, got), i)
		sig := runTool(t, "", re, "--addrsig", got)
		wantSig := []string{"_Z5twicei", "_Z2sqIiET_S0_", "_Z2sqIlET_S0_"}
		if i == 1 {
			wantSig = wantSig[1:]
		}
		assert.True(t, !strings.Contains(sig, "<?>") && strings.Count(sig, ": _Z") == len(wantSig), "%s", sig)
		for _, s := range wantSig {
			assert.True(t, strings.Contains(sig, ": "+s+"\n") || strings.HasSuffix(sig, ": "+s), "missing %s in %s", s, sig)
		}
	}
	// Removing a section another section's relocations refer to fails, as
	// with llvm-objcopy.
	err := Rewrite(io.Discard, readFile(t, "cxx-x86_64-linux-gnu.o"), Edit{Remove: []string{".text._Z5twicei"}})
	assert.True(t, errors.Is(err, format.ErrUnsupported), "%v", err)
}

// TestEmbedCXX embeds into C++ objects with COMDAT groups (ELF) and
// associative COMDAT sections (COFF) and checks that groups, symbols and
// relocations are unchanged.
func TestEmbedCXX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pkg := readFile(t, "pkg.out")
	out := embedBytes(t, readFile(t, "cxx-x86_64-linux-gnu.o"), pkg)
	p := writeTemp(t, dir, "elf.o", out)
	re := tool(t, "llvm-readelf")
	assert.Equal(t, noOffsets(runTool(t, "", re, "-s", "-r", "-g", "--addrsig", "testdata/cxx-x86_64-linux-gnu.o")),
		noOffsets(runTool(t, "", re, "-s", "-r", "-g", "--addrsig", p)))

	out = embedBytes(t, readFile(t, "cxx-x86_64-pc-windows-msvc.o"), pkg)
	p = writeTemp(t, dir, "coff.o", out)
	ro := tool(t, "llvm-readobj")
	assert.Equal(t, stripCOFFSyms(runTool(t, "", ro, "--symbols", "-r", "--addrsig", "testdata/cxx-x86_64-pc-windows-msvc.o")),
		stripCOFFSyms(runTool(t, "", ro, "--symbols", "-r", "--addrsig", p)))
	dump := runTool(t, "", tool(t, "llvm-objdump"), "--offloading", p)
	assert.Equal(t, 1, strings.Count(dump, "OFFLOADING IMAGE"), dump)
}

// TestLinkerWrapperRelocatableEdit performs the edit clang-linker-wrapper
// makes to a relocatable link's output (remove .llvm.offloading, rename the
// entries section with its relocation section, rename the __start_/__stop_
// symbols) and compares with the llvm-objcopy command it runs.
func TestLinkerWrapperRelocatableEdit(t *testing.T) {
	t.Parallel()
	objcopy := tool(t, "llvm-objcopy")
	dir := t.TempDir()
	const sec, sfx = "llvm_offload_entries", "_0123456789abcdef"
	in := filepath.Join("testdata", "entries-x86_64-linux-gnu.o")
	want := filepath.Join(dir, "want.o")
	runTool(t, "", objcopy, in, want, "--remove-section", ".llvm.offloading",
		"--rename-section", sec+"="+sec+sfx,
		"--redefine-sym", "__start_"+sec+"=__start_"+sec+sfx,
		"--redefine-sym", "__stop_"+sec+"=__stop_"+sec+sfx)
	got := writeTemp(t, dir, "got.o", rewriteBytes(t, readFile(t, "entries-x86_64-linux-gnu.o"), Edit{
		Remove:        []string{".llvm.offloading"},
		RenameSection: map[string]string{sec: sec + sfx},
		RenameSymbol:  map[string]string{"__start_" + sec: "__start_" + sec + sfx, "__stop_" + sec: "__stop_" + sec + sfx},
	}))
	d := elfDump(t, got)
	assert.Equal(t, elfDump(t, want), d)
	assert.True(t, strings.Contains(d, ".relallvm_offload_entries"+sfx))
}

// TestBundlerReadsOurBundles builds an object bundle the way
// clang-offload-bundler does and lets the bundler list and unbundle it.
func TestBundlerReadsOurBundles(t *testing.T) {
	t.Parallel()
	bundler := tool(t, "clang-offload-bundler")
	dir := t.TempDir()
	dev := []byte("device code object\x00\x01\x02")
	const (
		hostID = "host-x86_64-unknown-linux-gnu"
		devID  = "hip-amdgcn-amd-amdhsa--gfx90a"
	)
	out := rewriteBytes(t, readFile(t, "hello-x86_64-linux-gnu.o"), Edit{Add: []NewSection{
		{Name: "__CLANG_OFFLOAD_BUNDLE__" + hostID, Type: format.SHT_PROGBITS, Flags: shfExclude, Align: 1, Data: bytes.NewReader([]byte{0}), Size: 1},
		{Name: "__CLANG_OFFLOAD_BUNDLE__" + devID, Type: format.SHT_PROGBITS, Flags: shfExclude, Align: 1, Data: bytes.NewReader(dev), Size: int64(len(dev))},
	}})
	p := writeTemp(t, dir, "bundle.o", out)
	list := runTool(t, dir, bundler, "--list", "--type=o", "--input="+p)
	assert.Equal(t, hostID+"\n"+devID+"\n", list)
	runTool(t, dir, bundler, "--unbundle", "--type=o", "--targets="+devID, "--input="+p, "--output=dev.out")
	assert.Equal(t, dev, readFileAbs(t, filepath.Join(dir, "dev.out")))
}

// TestCOFFBundleMatchesObjcopy compares a COFF bundle section with
// llvm-objcopy --add-section --set-section-flags=readonly,exclude.
func TestCOFFBundleMatchesObjcopy(t *testing.T) {
	t.Parallel()
	objcopy, ro := tool(t, "llvm-objcopy"), tool(t, "llvm-readobj")
	dir := t.TempDir()
	const name = "__CLANG_OFFLOAD_BUNDLE__host-x86_64-pc-windows-msvc"
	writeTemp(t, dir, "host.bin", []byte{0})
	want := filepath.Join(dir, "want.o")
	runTool(t, "", objcopy, "--add-section="+name+"="+filepath.Join(dir, "host.bin"),
		"--set-section-flags="+name+"=readonly,exclude", "--", "testdata/hello-x86_64-pc-windows-msvc.o", want)
	got := writeTemp(t, dir, "got.o", rewriteBytes(t, readFile(t, "hello-x86_64-pc-windows-msvc.o"), Edit{Add: []NewSection{
		{Name: name, Flags: coffBundleFlags, Data: bytes.NewReader([]byte{0}), Size: 1},
	}}))
	desc := func(p string) string {
		s := runTool(t, "", ro, "--sections", p)
		i := strings.Index(s, "Name: "+name)
		s = s[i:]
		s = s[:strings.Index(s, "\n  }")]
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "Name:") || strings.HasPrefix(l, "RawDataSize") || strings.HasPrefix(l, "Characteristics") || strings.HasPrefix(l, "IMAGE_") {
				if j := strings.Index(l, " ("); strings.HasPrefix(l, "Name:") && j > 0 {
					l = l[:j]
				}
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	assert.Equal(t, desc(want), desc(got))
}

func readFileAbs(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}
