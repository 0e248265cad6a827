package hardening

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/format"
	"github.com/stretchr/testify/require"
)

// cliCase is one way of feeding an input to a tool. Add rows for new
// tools or subcommands (linker-wrapper and the bundler are still being
// written: their rows skip while the tool does not build or reports that
// the feature is not available).
type cliCase struct {
	name string
	tool string // file name in binDir (a command or an argv[0] personality)
	// prefix is the diagnostic prefix; "" means argv[0] as invoked (the
	// LLVM personalities print it, as the LLVM tools do).
	prefix string
	args   func(in, out string) []string
	// namesFile: the error line must contain the input's base name. The
	// LLVM personalities copy LLVM's messages, some of which do not.
	namesFile bool
	// mayPass: the tool may exit 0 on this input (it is valid, or LLVM
	// ignores inputs of its kind).
	mayPass func(h hostile, k format.Kind) bool
	// childOutput: the tool runs other programs (clang, llvm-link) whose
	// diagnostics may pass through; stderr must still hold exactly one
	// "<tool>: error:" line, but other lines are allowed.
	childOutput bool
	// checkOut validates stdout on success.
	checkOut func(stdout []byte) error
}

func validOnly(h hostile, _ format.Kind) bool { return h.valid }

// ignoredByExtract: llvm-offload-binary / extract treat files that are not
// objects, archives, bitcode or packages as holding nothing (exit 0).
func ignoredByExtract(h hostile, k format.Kind) bool {
	switch k {
	case format.KindOffloadBinary, format.KindELF, format.KindCOFF, format.KindBitcode, format.KindArchive, format.KindThinArchive:
		return h.valid
	}
	return true
}

// bundlerLenient: like clang-offload-bundler 22, the personality treats an
// input without a usable bundle header as holding no bundles (LLVM itself
// crashes on some of these, e.g. bundle-count-max.bundle). A compressed
// bundle that does not decompress is always an error.
func bundlerLenient(h hostile, k format.Kind) bool { return k != format.KindCCOB || h.valid }

func isJSON(b []byte) error {
	var v any
	return json.Unmarshal(b, &v)
}

var cliCases = []cliCase{
	{name: "dump", tool: "offload-packager", prefix: "offload-packager", namesFile: true, mayPass: validOnly,
		args: func(in, out string) []string { return []string{"dump", in} }},
	{name: "dump-all", tool: "offload-packager", prefix: "offload-packager", namesFile: true, mayPass: validOnly,
		args: func(in, out string) []string { return []string{"dump", "--all", in} }},
	{name: "dump-json", tool: "offload-packager", prefix: "offload-packager", namesFile: true, mayPass: validOnly, checkOut: isJSON,
		args: func(in, out string) []string { return []string{"dump", "--json", in} }},
	{name: "dump-uri-range", tool: "offload-packager", prefix: "offload-packager", namesFile: true, mayPass: func(hostile, format.Kind) bool { return false },
		args: func(in, out string) []string {
			return []string{"dump", "file://" + in + "#offset=0x7fffffffffffffff&size=16"}
		}},
	{name: "extract", tool: "offload-packager", prefix: "offload-packager", namesFile: true, mayPass: ignoredByExtract,
		args: func(in, out string) []string { return []string{"extract", in, "-d", out} }},
	{name: "extract-kind", tool: "offload-packager", prefix: "offload-packager", namesFile: true, mayPass: ignoredByExtract,
		args: func(in, out string) []string { return []string{"extract", in, "--kind=openmp", "-d", out} }},
	{name: "llvm-offload-binary", tool: "llvm-offload-binary", mayPass: ignoredByExtract,
		args: func(in, out string) []string { return []string{in, "--image=kind=openmp"} }},
	{name: "embed-as-package", tool: "offload-packager", prefix: "offload-packager", namesFile: true, mayPass: validOnly,
		args: func(in, out string) []string {
			return []string{"embed", "-o", filepath.Join(out, "fat.o"), filepath.Join(repoRoot, "elfembed/testdata/hello-x86_64-linux-gnu.o"), in}
		}},
	{name: "embed-as-host", tool: "offload-packager", prefix: "offload-packager", namesFile: true, mayPass: validOnly,
		args: func(in, out string) []string {
			return []string{"embed", "-o", filepath.Join(out, "fat.o"), in, filepath.Join(repoRoot, "elfembed/testdata/pkg.out")}
		}},
	{name: "bundler-list", tool: "clang-offload-bundler", mayPass: bundlerLenient,
		args: func(in, out string) []string { return []string{"-list", "-type=o", "-input=" + in} }},
	{name: "bundler-unbundle", tool: "clang-offload-bundler", mayPass: bundlerLenient,
		args: func(in, out string) []string {
			return []string{"-unbundle", "-type=o", "-input=" + in, "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a",
				"-output=" + filepath.Join(out, "host.o"), "-output=" + filepath.Join(out, "dev.o")}
		}},
	{name: "sycl-linker", tool: "sycl-linker", prefix: "sycl-linker", childOutput: true, mayPass: func(hostile, format.Kind) bool { return false },
		args: func(in, out string) []string {
			return []string{"--triple=spirv64-unknown-unknown", "-o", filepath.Join(out, "out.spv"), in}
		}},
	{name: "linker-wrapper", tool: "linker-wrapper", prefix: "linker-wrapper", namesFile: true, childOutput: true, mayPass: ignoredByExtract,
		args: func(in, out string) []string {
			return []string{"--host-triple=x86_64-unknown-linux-gnu", "--linker-path=/bin/true", "-o", filepath.Join(out, "a.out"), in}
		}},
}

// notYet marks tools whose feature has not landed (the case skips).
var notYet = []string{"not available in this build"}

const (
	cliTimeout = 15 * time.Second
	cliRSSMiB  = 256
)

// TestCLIs runs every CLI case over the corpus as subprocesses and checks
// the hardening contract: exit 1 (or 0 where allowed), exactly one stderr
// line "<tool>: error: ..." naming the file, no panic trace, completion
// within cliTimeout, max RSS under cliRSSMiB, no output or temporary file
// left behind on failure, nothing written outside the output directory and
// the input untouched.
func TestCLIs(t *testing.T) {
	for _, c := range cliCases {
		t.Run(c.name, func(t *testing.T) {
			bin := toolPath(t, c.tool)
			for _, h := range append(corpus, crashers...) {
				t.Run(h.name, func(t *testing.T) {
					t.Parallel()
					runCLICase(t, c, bin, h)
				})
			}
		})
	}
}

func runCLICase(t *testing.T, c cliCase, bin string, h hostile) {
	data, err := os.ReadFile(corpusFile(h.name))
	require.NoError(t, err)
	root := t.TempDir()
	inDir, outDir := filepath.Join(root, "in"), filepath.Join(root, "out")
	require.NoError(t, os.Mkdir(inDir, 0o755))
	require.NoError(t, os.Mkdir(outDir, 0o755))
	in := filepath.Join(inDir, h.name)
	require.NoError(t, os.WriteFile(in, data, 0o644))
	before := tree(t, root)
	escBefore, _ := filepath.Glob("/tmp/hardening-escape*")

	res := runGuarded(guard{Timeout: cliTimeout, Dir: outDir, AddressSpace: defaultAS + int64(len(data)) + h.allocMiB<<20}, append([]string{bin}, c.args(in, outDir)...)...)

	stderr := strings.TrimSuffix(string(res.Stderr), "\n")
	if len(notYet) > 0 {
		for _, s := range notYet {
			if res.Code == 1 && strings.Contains(stderr, s) {
				t.Skipf("%s: %s", c.tool, stderr)
			}
		}
	}
	shown := tail([]byte(stderr), 600)
	if crashed(res.Stderr) {
		shown = head(res.Stderr, 4)
	}
	ctx := fmt.Sprintf("%s %s: exit %d, stderr %q", c.name, h.name, res.Code, shown)
	budget := int64(cliRSSMiB)
	if h.allocMiB > 0 {
		budget = h.allocMiB + 128
	}
	switch {
	case res.TimedOut:
		t.Errorf("%s: still running after %v", ctx, cliTimeout)
	case crashed(res.Stderr):
		t.Errorf("%s: crashed", ctx)
	case res.Code == 0:
		if !c.mayPass(h, format.Identify(data)) && !okFor(h, c.name) {
			t.Errorf("%s: succeeded on hostile input", ctx)
		}
		if c.checkOut != nil {
			if err := c.checkOut(res.Stdout); err != nil {
				t.Errorf("%s: bad stdout: %v", ctx, err)
			}
		}
	case res.Code != 1:
		t.Errorf("%s: want exit status 1", ctx)
	default:
		prefix := c.prefix
		if prefix == "" {
			prefix = bin
		}
		// A failing child command may add "<tool>: note:" lines (and
		// indented continuations) after the error line.
		var lines []string
		for _, l := range strings.Split(stderr, "\n") {
			if len(lines) > 0 && (strings.HasPrefix(l, prefix+": note: ") || strings.HasPrefix(l, " ")) {
				continue
			}
			lines = append(lines, l)
		}
		errLines := 0
		for _, l := range lines {
			if strings.HasPrefix(l, prefix+": error: ") {
				errLines++
			}
		}
		switch {
		case c.childOutput && errLines != 1:
			t.Errorf("%s: want exactly one %q line, got %d", ctx, prefix+": error: ", errLines)
		case c.childOutput:
		case len(lines) != 1:
			t.Errorf("%s: want exactly one stderr line, got %d", ctx, len(lines))
		case !strings.HasPrefix(lines[0], prefix+": error: "):
			t.Errorf("%s: want the line to start with %q", ctx, prefix+": error: ")
		}
		if c.namesFile && !strings.Contains(stderr, h.name) {
			t.Errorf("%s: the error does not name the input file", ctx)
		}
	}
	if res.MaxRSS > budget<<20 {
		t.Errorf("%s: max RSS %d MiB > %d MiB", ctx, res.MaxRSS>>20, budget)
	}
	if got, _ := os.ReadFile(in); !bytes.Equal(got, data) {
		t.Errorf("%s: the input was modified", ctx)
	}
	after := tree(t, root)
	checkTree(t, ctx, before, after, res.Code == 0)
	escAfter, _ := filepath.Glob("/tmp/hardening-escape*")
	if len(escAfter) != len(escBefore) {
		t.Errorf("%s: wrote outside the output directory: %v", ctx, escAfter)
	}
}

// checkTree: on failure nothing new may exist; on success only regular,
// non-hidden files directly in out/.
func checkTree(t *testing.T, ctx string, before, after []string, ok bool) {
	t.Helper()
	old := map[string]bool{}
	for _, p := range before {
		old[p] = true
	}
	for _, p := range after {
		if old[p] {
			continue
		}
		rest, inOut := strings.CutPrefix(p, "out/")
		switch {
		case !ok:
			t.Errorf("%s: left %s behind after failing", ctx, p)
		case !inOut || strings.ContainsAny(rest, "/@") || strings.HasPrefix(rest, "."):
			t.Errorf("%s: unexpected output path %s", ctx, p)
		}
	}
	for _, p := range before {
		if !contains(after, p) {
			t.Errorf("%s: removed %s", ctx, p)
		}
	}
}

func okFor(h hostile, name string) bool {
	for _, p := range h.okFor {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}
