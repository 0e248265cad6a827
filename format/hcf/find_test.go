package hcf

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

func TestFindSynthetic(t *testing.T) {
	var buf []byte
	type want struct {
		off  int
		name string
	}
	var wants []want
	junk := []byte("\x7fELF\x02\x01\x00\x00some text\x00\x00\x00\x00\x13\x37")
	for i, name := range fixtures(t) {
		buf = append(buf, junk...)
		if i == 1 {
			buf = append(buf, "plain string\n"...) // text glued in front: skipped line by line
			buf = append(buf, 0)
		}
		wants = append(wants, want{len(buf), name})
		buf = append(buf, read(t, filepath.Base(name))...)
		buf = append(buf, 0) // SSCP content is NUL-terminated
	}
	buf = append(buf, junk...)
	buf = append(buf, Marker...) // a lone marker is not an object
	locs := Find(buf)
	require.Len(t, locs, len(wants))
	for i, w := range wants {
		in := read(t, filepath.Base(w.name))
		assert.Equal(t, int64(w.off), locs[i].Offset, w.name)
		assert.Equal(t, int64(len(in)), locs[i].Size, w.name)
		want, err := Parse(in)
		require.NoError(t, err)
		assert.Equal(t, want.Tree(), locs[i].File.Tree(), w.name)
		out, err := locs[i].File.Bytes()
		require.NoError(t, err)
		if !strings.HasSuffix(w.name, "edge.hcf") {
			assert.Equal(t, in, out)
		}
	}
}

func TestFindEdgeCases(t *testing.T) {
	min := read(t, "minimal.hcf")
	// Junk glued to the first line without a separator.
	buf := append([]byte("\x01ABC"), min...)
	locs := Find(buf)
	require.Len(t, locs, 1)
	assert.Equal(t, int64(4), locs[0].Offset)

	// An attachment reaching past the buffer: not reported.
	sscp := read(t, "sscp.hcf")
	assert.Len(t, Find(sscp[:len(sscp)-1]), 0)

	// A header that does not parse: not reported.
	assert.Len(t, Find([]byte("\x00a=1\nbad line\n"+Marker)), 0)
	// Unparseable leading lines are dropped.
	locs = Find([]byte("\x00{.a\nx=1\n" + Marker))
	require.Len(t, locs, 1)
	assert.Equal(t, int64(5), locs[0].Offset)
	assert.Len(t, Find(nil), 0)
	assert.Len(t, Find([]byte(Marker)), 0)

	// Legacy spelling.
	locs = Find([]byte("\x00object-id=5\n" + LegacyMarker + "\x00"))
	require.Len(t, locs, 1)
	assert.Equal(t, LegacyMarker, locs[0].File.Marker)
	assert.Equal(t, int64(1), locs[0].Offset)
}

// cString renders b as a C string literal with octal escapes.
func cString(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "\\%03o", c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// Embeds fixtures the way AdaptiveCpp does (a multipass unsigned char
// array; an SSCP NUL-terminated string), compiles with clang, and checks
// that Find recovers them from .rodata at their symbols' offsets.
func TestFindInClangObject(t *testing.T) {
	if testing.Short() {
		t.Skip("needs clang")
	}
	clang, err := exec.LookPath("clang-22")
	if err != nil {
		if clang, err = exec.LookPath(llvmtools.Path("clang")); err != nil {
			t.Skip("clang-22 not found")
		}
	}
	mp, sscp := read(t, "multipass.hcf"), read(t, "sscp.hcf")
	var src bytes.Buffer
	src.WriteString("const char greeting[] = \"hello object-id=1\";\n")
	src.WriteString("const unsigned char __acpp_hcf_object_42[] = {")
	for i, c := range mp {
		if i > 0 {
			src.WriteByte(',')
		}
		fmt.Fprintf(&src, "%d", c)
	}
	src.WriteString("};\n")
	src.WriteString("const unsigned long long __acpp_local_sscp_hcf_object_size = " + fmt.Sprint(len(sscp)) + ";\n")
	src.WriteString("const char __acpp_local_sscp_hcf_content[] = " + cString(sscp) + ";\n")
	dir := t.TempDir()
	c, o := filepath.Join(dir, "embed.c"), filepath.Join(dir, "embed.o")
	require.NoError(t, os.WriteFile(c, src.Bytes(), 0o644))
	if out, err := exec.Command(clang, "--target=x86_64-linux-gnu", "-c", "-O2", c, "-o", o).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	f, err := elf.Open(o)
	require.NoError(t, err)
	defer f.Close()
	syms, err := f.Symbols()
	require.NoError(t, err)
	want := map[int64]int64{}
	for _, s := range syms {
		switch s.Name {
		case "__acpp_hcf_object_42":
			want[int64(s.Value)] = int64(len(mp))
		case "__acpp_local_sscp_hcf_content":
			want[int64(s.Value)] = int64(len(sscp))
		}
		if strings.HasPrefix(s.Name, "__acpp") && s.Name != "__acpp_local_sscp_hcf_object_size" {
			require.Equal(t, ".rodata", f.Sections[s.Section].Name, s.Name)
		}
	}
	require.Len(t, want, 2)
	rodata, err := f.Section(".rodata").Data()
	require.NoError(t, err)
	got := map[int64]int64{}
	for _, l := range Find(rodata) {
		got[l.Offset] = l.Size
	}
	assert.Equal(t, want, got)
}
