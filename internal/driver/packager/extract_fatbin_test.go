package packager

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/fatbin"
	"github.com/offload-kit/offload-kit/internal/zstdpipe"
)

const fatbinTestdata = "../../../format/fatbin/testdata/"

// fatbinExtract runs the umbrella extract of input (absolute) in a fresh
// directory and returns it and stdout.
func fatbinExtract(t *testing.T, input string, opt ExtractOptions) (string, string) {
	t.Helper()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	input, err := filepath.Abs(input)
	require.NoError(t, err)
	opt.Input = input
	require.NoError(t, Extract(context.Background(), &Env{Dir: dir, Stdout: &out, Stderr: &errb, Tool: "offload-packager"}, opt), errb.String())
	return dir, out.String()
}

func readFatbinFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fatbinTestdata, name))
	require.NoError(t, err)
	return b
}

// sameBytes compares binaries without printing them.
func sameBytes(t *testing.T, want, got []byte, what string) {
	t.Helper()
	assert.True(t, bytes.Equal(want, got), "%s: %d bytes, want %d bytes (%x...)", what, len(got), len(want), got[:min(len(got), 16)])
}

// TestExtractFatbinDecompressed: extract writes every fatbin entry as
// cuobjdump -xelf / -xptx does, whatever its compression. The fixtures
// were made by CUDA 13.0's fatbinary and nvcc (format/fatbin/testdata
// README); the expected files are cuobjdump's own output
// (saxpy.cuobjdump.ptx) or the cubins cuobjdump -xelf was checked equal
// to. --raw writes the compressed stream as stored, which zstd -d reads.
func TestExtractFatbinDecompressed(t *testing.T) {
	want := map[string]string{"cubin": "saxpy.linked.cubin", "ptx": "saxpy.cuobjdump.ptx"}
	cases := []struct {
		input string
		files map[string]string // output name -> expected fixture
	}{
		{"elf_ptx_zstd.fatbin", map[string]string{"elf_ptx_zstd.fatbin.fatbin0.0.sm_90.cubin": want["cubin"], "elf_ptx_zstd.fatbin.fatbin0.1.sm_90.ptx": want["ptx"]}},
		{"elf_ptx_lz4.fatbin", map[string]string{"elf_ptx_lz4.fatbin.fatbin0.0.sm_90.cubin": want["cubin"], "elf_ptx_lz4.fatbin.fatbin0.1.sm_90.ptx": want["ptx"]}},
		{"elf_ptx.fatbin", map[string]string{"elf_ptx.fatbin.fatbin0.0.sm_90.cubin": want["cubin"], "elf_ptx.fatbin.fatbin0.1.sm_90.ptx": want["ptx"]}},
		{"elf_ptx_mode_none.fatbin", map[string]string{"elf_ptx_mode_none.fatbin.fatbin0.0.sm_90.cubin": want["cubin"], "elf_ptx_mode_none.fatbin.fatbin0.1.sm_90.ptx": want["ptx"]}},
		{"lz4_multi.fatbin", map[string]string{
			"lz4_multi.fatbin.fatbin0.0.sm_90.cubin": "saxpy.cubin", "lz4_multi.fatbin.fatbin0.1.sm_90.cubin": want["cubin"],
			"lz4_multi.fatbin.fatbin0.2.sm_90.ptx": want["ptx"], "lz4_multi.fatbin.fatbin0.3.sm_80.ptx": want["ptx"]}},
		{"debug_devc.fatbin", map[string]string{"debug_devc.fatbin.fatbin0.0.sm_90.cubin": "saxpy.cubin"}},
	}
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			dir, out := fatbinExtract(t, filepath.Join(fatbinTestdata, c.input), ExtractOptions{})
			ents, _ := os.ReadDir(dir)
			assert.Len(t, ents, len(c.files), out)
			for name, fx := range c.files {
				got, err := os.ReadFile(filepath.Join(dir, name))
				require.NoError(t, err, out)
				sameBytes(t, readFatbinFixture(t, fx), got, name)
				assert.Contains(t, out, "Extracted: "+name+"\n")
			}
		})
	}

	// nvcc -rdc objects: both entries zstd (CUDA's default); the cubin is
	// a relocatable CUDA ELF of the recorded size, the PTX plain text.
	data := readFatbinFixture(t, "kern_nvcc_rdc.o")
	dir, _ := fatbinExtract(t, filepath.Join(fatbinTestdata, "kern_nvcc_rdc.o"), ExtractOptions{})
	f, err := elf.Open(filepath.Join(dir, "kern_nvcc_rdc.o.fatbin0.0.sm_90.cubin"))
	require.NoError(t, err)
	assert.Equal(t, elf.Machine(190), f.Machine) // EM_CUDA
	assert.Equal(t, elf.ET_REL, f.Type)
	f.Close()
	ptx, err := os.ReadFile(filepath.Join(dir, "kern_nvcc_rdc.o.fatbin0.1.sm_90.ptx"))
	require.NoError(t, err)
	assert.Contains(t, string(ptx), ".version ")
	assert.NotContains(t, string(ptx), "\x00")
	assert.NotContains(t, string(data), string(ptx[:64]), "the PTX is stored compressed in the fixture")

	// --raw: the compressed streams as stored; zstd(1) decodes them.
	dir, _ = fatbinExtract(t, filepath.Join(fatbinTestdata, "elf_ptx_zstd.fatbin"), ExtractOptions{Raw: true})
	for name, fx := range map[string]string{"elf_ptx_zstd.fatbin.fatbin0.0.sm_90.cubin": want["cubin"], "elf_ptx_zstd.fatbin.fatbin0.1.sm_90.ptx": want["ptx"]} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, []byte{0x28, 0xb5, 0x2f, 0xfd}, raw[:4], "%s starts with the zstd magic", name)
		cmd := exec.Command("zstd", "-dc", filepath.Join(dir, name))
		dec, err := cmd.Output()
		require.NoError(t, err, "zstd -d %s", name)
		if strings.HasSuffix(name, ".ptx") {
			dec = bytes.TrimRight(dec, "\x00") // stored with its terminating NUL
		}
		sameBytes(t, readFatbinFixture(t, fx), dec, name)
	}
	dir, _ = fatbinExtract(t, filepath.Join(fatbinTestdata, "elf_ptx_lz4.fatbin"), ExtractOptions{Raw: true})
	files, err := fatbin.Parse(readFatbinFixture(t, "elf_ptx_lz4.fatbin"))
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(dir, "elf_ptx_lz4.fatbin.fatbin0.0.sm_90.cubin"))
	require.NoError(t, err)
	sameBytes(t, files[0].Entries[0].Stream(), raw, "lz4 --raw")
}

// compressFatbin rewrites every entry of an uncompressed fat binary as
// a zstd frame (flag 0x8000, compressed and uncompressed sizes in the
// header, payload padded to 8), the layout CUDA 12.8+ writes by default.
// The frames are zstdpipe's own (RLE/raw blocks): any conforming frame
// will do, since the reader must accept what libzstd writes.
func compressFatbin(t *testing.T, plain []byte) []byte {
	t.Helper()
	files, err := fatbin.Parse(plain)
	require.NoError(t, err)
	require.Len(t, files, 1)
	out := append([]byte(nil), plain[:fatbin.HeaderSize]...)
	for _, e := range files[0].Entries {
		img := e.Data
		if e.Kind == fatbin.KindPTX {
			img = img[:bytes.IndexByte(img, 0)+1]
		}
		frame := zstdFrame(img)
		h := append([]byte(nil), plain[e.HeaderOffset:e.HeaderOffset+int64(e.HeaderSize)]...)
		padded := (len(frame) + 7) &^ 7
		binary.LittleEndian.PutUint64(h[8:], uint64(padded))
		binary.LittleEndian.PutUint32(h[0x10:], uint32(len(frame)))
		binary.LittleEndian.PutUint64(h[0x28:], binary.LittleEndian.Uint64(h[0x28:])|fatbin.FlagCompressedZstd)
		binary.LittleEndian.PutUint64(h[0x38:], uint64(len(img)))
		out = append(out, h...)
		out = append(out, frame...)
		out = append(out, make([]byte, padded-len(frame))...)
	}
	binary.LittleEndian.PutUint64(out[8:], uint64(len(out)-fatbin.HeaderSize))
	return out
}

// zstdFrame is a single-segment zstd frame of raw blocks holding b.
func zstdFrame(b []byte) []byte {
	f := zstdpipe.AppendFrameHeader(nil, uint64(len(b)))
	for len(b) > 0 || len(f) == 0 {
		n := min(len(b), zstdpipe.MaxBlock)
		last := uint32(0)
		if n == len(b) {
			last = 1
		}
		hdr := last | uint32(n)<<3 // block type 0: raw
		f = append(f, byte(hdr), byte(hdr>>8), byte(hdr>>16))
		f = append(f, b[:n]...)
		b = b[n:]
	}
	return f
}

// TestExtractFatbinMadeAtTestTime: a fat binary written by
// fatbin.AppendFatbin and then zstd-compressed entry by entry extracts
// to the images it was made from (the PTX without its NUL).
func TestExtractFatbinMadeAtTestTime(t *testing.T) {
	cubin := readFatbinFixture(t, "saxpy.linked.cubin")
	ptx := readFatbinFixture(t, "saxpy.ptx")
	plain, err := fatbin.AppendFatbin(nil, []fatbin.WriteEntry{{Kind: fatbin.KindELF, SM: 90, Data: cubin}, {Kind: fatbin.KindPTX, SM: 90, Data: ptx}})
	require.NoError(t, err)
	comp := compressFatbin(t, plain)
	files, err := fatbin.Parse(comp)
	require.NoError(t, err)
	for _, e := range files[0].Entries {
		require.Equal(t, fatbin.CompressZstd, e.Compression)
	}
	in := filepath.Join(t.TempDir(), "made.fatbin")
	require.NoError(t, os.WriteFile(in, comp, 0o644))
	dir, _ := fatbinExtract(t, in, ExtractOptions{})
	got, err := os.ReadFile(filepath.Join(dir, "made.fatbin.fatbin0.0.sm_90.cubin"))
	require.NoError(t, err)
	sameBytes(t, cubin, got, "cubin")
	got, err = os.ReadFile(filepath.Join(dir, "made.fatbin.fatbin0.1.sm_90.ptx"))
	require.NoError(t, err)
	assert.Equal(t, strings.TrimRight(string(ptx), "\x00"), string(got))
}
