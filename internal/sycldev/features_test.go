package sycldev

import (
	"bytes"
	"context"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/split"
)

// fixture assembles split/testdata/features/<name>.ll (plus extra IR) into
// dir/<name>.bc.
func fixture(t *testing.T, dir, name, extra string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "split", "testdata", "features", name+".ll"))
	require.NoError(t, err)
	ll, bc := filepath.Join(dir, name+".ll"), filepath.Join(dir, name+".bc")
	require.NoError(t, os.WriteFile(ll, append(src, extra...), 0o644))
	var errb bytes.Buffer
	require.NoError(t, run.Exec{}.Run(context.Background(), &run.Cmd{
		Args: []string{filepath.Join(llvmBin, "llvm-as"), ll, "-o", bc}, Stderr: &errb,
	}), errb.String())
	return bc
}

func runLinker(t *testing.T, args ...string) (string, error) {
	t.Helper()
	o, err := ParseArgs(args)
	require.NoError(t, err)
	var out, errb bytes.Buffer
	env := &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin)}}
	err = Run(context.Background(), env, *o)
	return errb.String(), err
}

func verifyIR(t *testing.T, path string) {
	t.Helper()
	var errb bytes.Buffer
	assert.NoError(t, run.Exec{}.Run(context.Background(), &run.Cmd{
		Args: []string{filepath.Join(llvmBin, "opt"), "-passes=verify", "-disable-output", path}, Stderr: &errb,
	}), "%s: %s", path, errb.String())
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// TestIROutputESIMD: with --ir-output-only the ESIMD half of a split is
// written as <stem>_esimd_<ID> before the SYCL half <stem>_<ID> (same ID),
// with isEsimdImage in its .prop; --no-split-esimd keeps them together.
func TestIROutputESIMD(t *testing.T) {
	needTools(t, "llvm-as", "llvm-dis", "opt")
	dir := t.TempDir()
	bc := fixture(t, dir, "esimd", "")
	table := filepath.Join(dir, "out.table")
	stderr, err := runLinker(t, "--triple=spirv64", "--module-split-mode=source", "--ir-output-only", "-S", "-o", table, bc)
	require.NoError(t, err, stderr)
	row := func(n string) string {
		b := filepath.Join(dir, n)
		return b + ".ll|" + b + ".prop|" + b + ".sym\n"
	}
	assert.Equal(t, "[Code|Properties|Symbols]\n"+row("out_0")+row("out_esimd_1")+row("out_1"), readFile(t, table))
	for _, n := range []string{"out_0", "out_esimd_1", "out_1"} {
		verifyIR(t, filepath.Join(dir, n+".ll"))
	}
	assert.Equal(t, "other_k\n", readFile(t, filepath.Join(dir, "out_0.sym")))
	assert.Equal(t, "esimd_k\nwrapper_k\n", readFile(t, filepath.Join(dir, "out_esimd_1.sym")))
	assert.Equal(t, "sycl_k\n", readFile(t, filepath.Join(dir, "out_1.sym")))
	const base = "[SYCL/devicelib req mask]\nDeviceLibReqMask=1|0\n[SYCL/device requirements]\naspects=2|AAAAAAAAAAA\n"
	assert.Equal(t, base+"[SYCL/misc properties]\nisEsimdImage=1|1\noptLevel=1|2\n", readFile(t, filepath.Join(dir, "out_esimd_1.prop")))
	assert.Equal(t, base+"[SYCL/misc properties]\noptLevel=1|2\n", readFile(t, filepath.Join(dir, "out_1.prop")))
	assert.NotContains(t, readFile(t, filepath.Join(dir, "out_1.ll")), "sycl_explicit_simd")

	// JSON property files carry the flag too
	jdir := filepath.Join(dir, "json")
	require.NoError(t, os.Mkdir(jdir, 0o755))
	stderr, err = runLinker(t, "--triple=spirv64", "--module-split-mode=source", "--ir-output-only", "--properties-format=json", "-o", filepath.Join(jdir, "j.table"), bc)
	require.NoError(t, err, stderr)
	assert.Equal(t, `{"SYCL/device requirements":{"aspects":""},"SYCL/devicelib req mask":{"DeviceLibReqMask":0},`+
		`"SYCL/misc properties":{"isEsimdImage":1,"optLevel":2}}`, readFile(t, filepath.Join(jdir, "j_esimd_1.prop")))

	// together: two images, no isEsimdImage, no optLevel for the mixed one
	mdir := filepath.Join(dir, "mixed")
	require.NoError(t, os.Mkdir(mdir, 0o755))
	stderr, err = runLinker(t, "--triple=spirv64", "--module-split-mode=source", "--no-split-esimd", "--ir-output-only", "-S", "-o", filepath.Join(mdir, "m.table"), bc)
	require.NoError(t, err, stderr)
	assert.Equal(t, "esimd_k\nwrapper_k\nsycl_k\n", readFile(t, filepath.Join(mdir, "m_1.sym")))
	assert.Equal(t, base, readFile(t, filepath.Join(mdir, "m_1.prop")))
	assert.NoFileExists(t, filepath.Join(mdir, "m_esimd_1.ll"))
}

// TestLinkESIMD: the in-memory pipeline gives one SPIR-V image per half,
// and an invoke_simd-shaped use of ESIMD code from SYCL code is an error
// that names the way out.
func TestLinkESIMD(t *testing.T) {
	needTools(t, "llvm-as", "llvm-dis", "llc")
	dir := t.TempDir()
	o, err := ParseArgs([]string{"--triple=spirv64", "-o", filepath.Join(dir, "dev.out"), fixture(t, dir, "esimd", "")})
	require.NoError(t, err)
	var out, errb bytes.Buffer
	env := &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin)}}
	imgs, err := Link(context.Background(), env, *o)
	require.NoError(t, err, errb.String())
	require.Len(t, imgs, 2)
	assert.Equal(t, []string{"esimd_k", "wrapper_k"}, imgs[0].Kernels)
	assert.Equal(t, []string{"sycl_k", "other_k"}, imgs[1].Kernels)
	for i, im := range imgs {
		assert.Equal(t, []byte{0x03, 0x02, 0x23, 0x07}, im.Data[:4], "SPIR-V magic")
		text, err := im.PropertiesText()
		require.NoError(t, err)
		assert.Equal(t, i == 0, strings.Contains(text, "isEsimdImage=1|1\n"), "image %d:\n%s", i, text)
	}

	_, err = runLinker(t, "--triple=spirv64", "--ir-output-only", "-o", filepath.Join(dir, "inv.table"), fixture(t, dir, "esimd-invoke", ""))
	var ee *split.ESIMDError
	require.ErrorAs(t, err, &ee)
	assert.ErrorContains(t, err, "SYCL entry point sycl_k uses ESIMD function simd_target")
	assert.ErrorContains(t, err, "(--no-split-esimd keeps them in one image)")
	assert.NoFileExists(t, filepath.Join(dir, "inv.table"))
	_, err = runLinker(t, "--triple=spirv64", "--no-split-esimd", "--ir-output-only", "-o", filepath.Join(dir, "inv.table"), fixture(t, dir, "esimd-invoke", ""))
	assert.NoError(t, err)
}

// TestIROutputGlobals: the new property sets reach the .prop files, and a
// device_image_scope device global used by two images stops the link.
func TestIROutputGlobals(t *testing.T) {
	needTools(t, "llvm-as", "llvm-dis", "opt")
	dir := t.TempDir()
	stderr, err := runLinker(t, "--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only", "-S", "-o", filepath.Join(dir, "g.table"), fixture(t, dir, "globals", ""))
	require.NoError(t, err, stderr)
	assert.Contains(t, readFile(t, filepath.Join(dir, "g_1.prop")),
		"[SYCL/device globals]\nuid_ext=2|ABAAAAAAAAACAAAAAAAAAA\nuid_scoped=2|ABAAAAAAAAACAAAABAAAAA\n")
	assert.Contains(t, readFile(t, filepath.Join(dir, "g_0.prop")), "[SYCL/host pipes]\npipe_uid=2|gAAAAAAAAAABAAAA\n")

	stderr, err = runLinker(t, "--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only", "-S", "-o", filepath.Join(dir, "v.table"), fixture(t, dir, "virtual", ""))
	require.NoError(t, err, stderr)
	for i := 0; i < 4; i++ {
		verifyIR(t, filepath.Join(dir, "v_"+string(rune('0'+i))+".ll"))
	}
	assert.Contains(t, readFile(t, filepath.Join(dir, "v_1.prop")), "[SYCL/virtual functions]\nuses-virtual-functions-set=2|4BAAAAAAAAwclRXLiFmcsMXZ01iZv9G\n")

	k3 := "\ndefine spir_kernel void @k3(ptr addrspace(1) %out) {\nentry:\n  %b = load i64, ptr addrspace(1) @dg_scoped, align 8\n  store i64 %b, ptr addrspace(1) %out, align 8\n  ret void\n}\n"
	sdir := filepath.Join(dir, "scoped")
	require.NoError(t, os.Mkdir(sdir, 0o755))
	_, err = runLinker(t, "--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only", "-o", filepath.Join(sdir, "s.table"), fixture(t, sdir, "globals", k3))
	assert.EqualError(t, err, `device_global variable 'dg_scoped' with property "device_image_scope" is used in more than one device image.`)
	entries, _ := os.ReadDir(sdir)
	for _, e := range entries {
		assert.Contains(t, []string{"globals.ll", "globals.bc"}, e.Name(), "nothing written but the input")
	}
}

func TestHelpESIMD(t *testing.T) {
	var b bytes.Buffer
	WriteHelp(&b, "sycl-linker", false)
	assert.Contains(t, b.String(), "  --split-esimd")
	assert.Contains(t, b.String(), "  --no-split-esimd")
	o, err := ParseArgs([]string{"--no-split-esimd", "-split-esimd", "x.bc"})
	require.NoError(t, err)
	assert.False(t, o.NoSplitESIMD, "the last of the pair wins")
	o, err = ParseArgs([]string{"-split-esimd", "--no-split-esimd", "x.bc"})
	require.NoError(t, err)
	assert.True(t, o.NoSplitESIMD)
}

// TestImportedSymbolsOptions: --emit-imported-symbols adds the set (only
// the bfloat16 library functions without --allow-device-image-dependencies,
// every importable declaration with it).
func TestImportedSymbolsOptions(t *testing.T) {
	needTools(t, "llvm-as", "llvm-dis", "opt")
	dir := t.TempDir()
	bc := fixture(t, dir, "imports", "")
	props := func(sub string, extra ...string) string {
		d := filepath.Join(dir, sub)
		require.NoError(t, os.Mkdir(d, 0o755))
		args := append([]string{"--triple=spir64", "--module-split-mode=none", "--ir-output-only", "-o", filepath.Join(d, "p.table")}, extra...)
		stderr, err := runLinker(t, append(args, bc)...)
		require.NoError(t, err, stderr)
		return readFile(t, filepath.Join(d, "p_0.prop"))
	}
	assert.NotContains(t, props("none"), "[SYCL/imported symbols]")
	assert.Contains(t, props("bf16", "--emit-imported-symbols"), "[SYCL/imported symbols]\n__devicelib_ConvertFToBF16INTEL=1|1\n")
	all := props("all", "--emit-imported-symbols", "--allow-device-image-dependencies")
	assert.Contains(t, all, "_Z7ext_fooi=1|1\n")
	assert.Contains(t, all, "ext_c=1|1\n")
	assert.NotContains(t, all, "__internal")
}
