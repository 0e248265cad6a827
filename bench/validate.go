package main

// Validators (issue 24): each row checks what its sides' last timed run
// wrote or printed, so that no figure is a measurement of a wrong output.
// The checks use the LLVM 22 tools or facts fixed before the run (the
// input's bytes, the kernel count), never the tool under test.

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// printed is what the last timed run printed: its stdout, then its stderr.
func (c *config) printed() (string, error) {
	b, err := os.ReadFile(c.stdoutFile)
	if err != nil {
		return "", fmt.Errorf("its output: %v", err)
	}
	return string(b) + c.lastStderr, nil
}

// scratch is an empty directory for a validator's own files; the caller
// removes it.
func (c *config) scratch() (string, error) { return os.MkdirTemp(c.tmp, "validate-") }

// sameFile compares two files byte for byte, in chunks.
func sameFile(got, want string) error {
	g, err := os.Open(got)
	if err != nil {
		return err
	}
	defer g.Close()
	w, err := os.Open(want)
	if err != nil {
		return err
	}
	defer w.Close()
	gb, wb := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); ; {
		n, gerr := io.ReadFull(g, gb)
		m, werr := io.ReadFull(w, wb)
		if i := firstDiff(gb[:n], wb[:m]); i >= 0 {
			return fmt.Errorf("%s differs from %s at byte %d", filepath.Base(got), filepath.Base(want), off+int64(i))
		}
		off += int64(n)
		gEnd := gerr == io.EOF || gerr == io.ErrUnexpectedEOF
		wEnd := werr == io.EOF || werr == io.ErrUnexpectedEOF
		switch {
		case gerr != nil && !gEnd:
			return gerr
		case werr != nil && !wEnd:
			return werr
		case gEnd || wEnd:
			return nil // equal chunks, both ended
		}
	}
}

// firstDiff is the first index where a and b differ (a length difference
// counts), or -1.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// offloadEntries parses llvm-objdump --offloading's listing (which offload-packager
// dump prints too): one map of field to value per block whose header
// starts with header ("OFFLOADING IMAGE [" or "OFFLOAD BUNDLE [").
func offloadEntries(text, header string) []map[string]string {
	var es []map[string]string
	var cur map[string]string
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, header):
			cur = map[string]string{}
			es = append(es, cur)
		case strings.TrimSpace(l) == "":
			cur = nil
		case cur != nil:
			k, v, _ := strings.Cut(l, " ")
			cur[k] = strings.TrimSpace(v)
		}
	}
	return es
}

// validatePayload checks an issue 2 side (pack, extract or dump of payload's
// n-byte image): the package that pack wrote holds the image (LLVM's
// llvm-offload-binary extracts it byte for byte), extract wrote the image,
// dump listed the fat object's one image.
func validatePayload(c *config, op string, n int64, who string) error {
	bin, _, _ := payloadFiles(c, n)
	switch op {
	case "pack":
		dir, err := c.scratch()
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		img := filepath.Join(dir, "image")
		if err := c.sh(c.work, c.tool("llvm-offload-binary"), c.p("out", who+".pkg"),
			"--image=kind=openmp,triple="+ompTarget+",arch=generic,file="+img); err != nil {
			return fmt.Errorf("llvm-offload-binary cannot extract the image: %v", firstLines(err.Error(), 2))
		}
		if !exists(img) {
			return fmt.Errorf("llvm-offload-binary finds no %s openmp image in %s.pkg", ompTarget, who)
		}
		return sameFile(img, bin)
	case "extract":
		return sameFile(c.p("out", who+".out"), bin)
	case "dump":
		text, err := c.printed()
		if err != nil {
			return err
		}
		es := offloadEntries(text, "OFFLOADING IMAGE [")
		if len(es) != 1 {
			return fmt.Errorf("listed %d images, want 1", len(es))
		}
		want := map[string]string{"kind": "elf", "arch": "generic", "triple": ompTarget, "producer": "openmp"}
		for k, v := range want {
			if es[0][k] != v {
				return fmt.Errorf("image %s %q, want %q", k, es[0][k], v)
			}
		}
		return nil
	}
	return fmt.Errorf("no validator for %q", op)
}

// validateEmbed checks an embed side's fat object: .llvm.offloading holds
// the package's bytes (llvm-objcopy --dump-section), with clang's section
// type and SHF_EXCLUDE, and the host code is host.o's.
func validateEmbed(c *config, who string) error {
	_, pkg, _ := payloadFiles(c, c.size)
	out := c.p("out", who+".fat.o")
	dir, err := c.scratch()
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sec := filepath.Join(dir, "section")
	if err := c.sh(dir, c.tool("llvm-objcopy"), "--dump-section=.llvm.offloading="+sec, "--remove-section=.llvm.offloading", out, filepath.Join(dir, "rest.o")); err != nil {
		return fmt.Errorf("llvm-objcopy: %v", firstLines(err.Error(), 2))
	}
	if err := sameFile(sec, pkg); err != nil {
		return fmt.Errorf(".llvm.offloading: %v", err)
	}
	f, err := elf.Open(out)
	if err != nil {
		return err
	}
	defer f.Close()
	s := f.Section(".llvm.offloading")
	if s == nil || s.Type != 0x6fff4c0b || s.Flags&0x80000000 == 0 {
		return errors.New(".llvm.offloading is not an SHT_LLVM_OFFLOADING section with SHF_EXCLUDE")
	}
	h, err := elf.Open(c.p("host.o"))
	if err != nil {
		return err
	}
	defer h.Close()
	got, err1 := f.Section(".text").Data()
	want, err2 := h.Section(".text").Data()
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return errors.New(".text differs from host.o's")
	}
	return nil
}

// validateBundle unbundles a bundle with LLVM's clang-offload-bundler and
// compares each target's entry with the input it was made from.
func validateBundle(c *config, bundle string, targets, inputs []string) error {
	dir, err := c.scratch()
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	argv := []string{c.tool("clang-offload-bundler"), "-type=o", "-targets=" + strings.Join(targets, ","), "-input=" + bundle, "-unbundle"}
	for i := range targets {
		argv = append(argv, "-output="+filepath.Join(dir, strconv.Itoa(i)))
	}
	if err := c.sh(c.work, argv...); err != nil {
		return fmt.Errorf("clang-offload-bundler -unbundle: %v", firstLines(err.Error(), 2))
	}
	for i, t := range targets {
		if err := sameFile(filepath.Join(dir, strconv.Itoa(i)), inputs[i]); err != nil {
			return fmt.Errorf("entry %s: %v", t, err)
		}
	}
	return nil
}

// validateList checks that -list printed the bundle's two targets (as
// clang-offload-bundler normalizes them), nothing else.
func validateList(c *config) error {
	text, err := c.printed()
	if err != nil {
		return err
	}
	got := strings.Fields(text)
	slices.Sort(got)
	want := []string{"hip-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux-gnu-"}
	if !slices.Equal(got, want) {
		return fmt.Errorf("listed %q, want %q", got, want)
	}
	return nil
}

// dryRunImages reads a linker wrapper's --dry-run output: the number of
// device images given to the device link of ompTarget (the clang command
// with --target=ompTarget), and whether a host link follows.
func dryRunImages(text string) (int, error) {
	links, images, host := 0, 0, false
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if strings.Trim(f[0], `"`) == "/usr/bin/ld" {
			host = true
			continue
		}
		if !slices.Contains(f, "--target="+ompTarget) {
			continue
		}
		links++
		for _, a := range f {
			a = strings.Trim(a, `"`)
			if strings.HasSuffix(a, ".o") && strings.Contains(filepath.Base(a), "-"+ompTarget+"-generic-") {
				images++
			}
		}
	}
	switch {
	case links != 1:
		return 0, fmt.Errorf("%d device links for %s, want 1", links, ompTarget)
	case !host:
		return 0, errors.New("no host link (/usr/bin/ld)")
	}
	return images, nil
}

func validateDryRun(c *config, want int) error {
	text, err := c.printed()
	if err != nil {
		return err
	}
	n, err := dryRunImages(text)
	if err == nil && n != want {
		err = fmt.Errorf("the device link takes %d images, want %d", n, want)
	}
	return err
}

// validateObjectsDryRun checks the wrapper overhead row (fatObjects(n):
// main's object, n - n/5 plain objects, n/5 archive members). LLVM 22's
// wrapper links the device code of every archive member; ours, by default
// (--device-archives=lazy, docs/linker-wrapper.md), only that of members
// the host link keeps, and it keeps none of these (nothing references
// their kernels).
func validateObjectsDryRun(c *config, n int, who string) error {
	want := 1 + n
	if who == "ours" {
		want = 1 + n - n/5
	}
	return validateDryRun(c, want)
}

// ompResult is what the OpenMP program prints: kern_000000(21), the sum of
// 21*i for i < 64.
const ompResult = "42336"

// validateOMP runs the linked OpenMP program with offloading mandatory (a
// missing or broken device image is an error, not a host fallback).
func validateOMP(c *config, who string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./app."+who)
	cmd.Dir = c.p("omp")
	cmd.Env = append(os.Environ(), "OMP_TARGET_OFFLOAD=MANDATORY")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("app.%s: %v: %s", who, err, firstLines(string(out), 2))
	}
	if strings.TrimSpace(string(out)) != ompResult {
		return fmt.Errorf("app.%s printed %q, want %s", who, firstLines(string(out), 2), ompResult)
	}
	return nil
}

// verifySample is how many modules of a split opt's verifier reads: one
// from each of as many equal strata of the module list (an opt process
// per module costs ~30 ms; all 4000 would take two minutes).
const verifySample = 32

// validateSplit checks a per-kernel split of the synthetic n-kernel module
// (kernelgen: kernel_0 … kernel_n-1): n modules; when written as text,
// each defines exactly one kernel and together they define all n; a
// stratified sample of verifySample modules passes opt -passes=verify.
func validateSplit(c *config, s side, n int) error {
	parts, err := splitParts(s)
	if err != nil {
		return err
	}
	if len(parts) != n {
		return fmt.Errorf("%d modules, want %d (one per kernel)", len(parts), n)
	}
	if strings.HasSuffix(parts[0], ".ll") {
		seen := map[string]bool{}
		for _, p := range parts {
			ks, err := kernelsDefined(p)
			if err != nil {
				return err
			}
			if len(ks) != 1 {
				return fmt.Errorf("%s defines %d kernels, want 1", filepath.Base(p), len(ks))
			}
			seen[ks[0]] = true
		}
		if len(seen) != n {
			return fmt.Errorf("the modules define %d distinct kernels, want %d", len(seen), n)
		}
	}
	for _, i := range stratified(len(parts), verifySample, uint64(n)) {
		if err := c.sh(filepath.Dir(parts[i]), c.tool("opt"), "-passes=verify", "-disable-output", parts[i]); err != nil {
			return fmt.Errorf("opt -passes=verify: %v", firstLines(err.Error(), 2))
		}
	}
	return nil
}

// stratified picks k of n indices, one from each of k equal strata, at a
// position fixed by seed (so a rerun checks the same modules).
func stratified(n, k int, seed uint64) []int {
	k = min(n, k)
	r := rand.New(rand.NewPCG(seed, 24))
	var idx []int
	for i := range k {
		lo, hi := i*n/k, (i+1)*n/k
		idx = append(idx, lo+r.IntN(hi-lo))
	}
	return idx
}

// kernelsDefined lists the spir_kernel functions a module's text defines.
func kernelsDefined(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ks []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "define ") || !strings.Contains(l, " spir_kernel ") {
			continue
		}
		if i := strings.Index(l, "@"); i >= 0 {
			name, _, _ := strings.Cut(l[i+1:], "(")
			ks = append(ks, name)
		}
	}
	return ks, sc.Err()
}

// splitParts lists the modules a split side wrote: the code files of
// sycl-linker's table (its -o), or llvm-split's PREFIX_N files (its -o
// PREFIX), in order.
func splitParts(s side) ([]string, error) {
	i := slices.Index(s.argv, "-o")
	if i < 0 || i+1 >= len(s.argv) {
		return nil, errors.New("the command has no -o")
	}
	out := s.argv[i+1]
	if !filepath.IsAbs(out) {
		out = filepath.Join(s.dir, out)
	}
	if filepath.Base(s.argv[0]) == "llvm-split" {
		parts, err := filepath.Glob(out + "_*")
		slices.SortFunc(parts, func(a, b string) int { return partNumber(a) - partNumber(b) })
		return parts, err
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("the table: %v", err)
	}
	var parts []string
	for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if i == 0 {
			if !strings.HasPrefix(l, "[Code") {
				return nil, fmt.Errorf("the table starts %q, not [Code|…]", firstLines(l, 1))
			}
			continue
		}
		code, _, _ := strings.Cut(l, "|")
		if !filepath.IsAbs(code) {
			code = filepath.Join(filepath.Dir(out), code)
		}
		if !exists(code) {
			return nil, fmt.Errorf("the table names %s, which is missing", filepath.Base(code))
		}
		parts = append(parts, code)
	}
	return parts, nil
}

// partNumber is N of llvm-split's PREFIX_N or PREFIX_N.ll.
func partNumber(p string) int {
	b := strings.TrimSuffix(filepath.Base(p), ".ll")
	n, _ := strconv.Atoi(b[strings.LastIndex(b, "_")+1:])
	return n
}

// librocsparse.so.0.1 of Debian's librocsparse0 (the issue 12 rows), as
// LLVM 22's tools count it: llvm-objdump --offloading writes 888 entries
// (111 bundles of a host entry and 7 GPU code objects); 111 are
// gfx90a:xnack-; the 777 GPU code objects' symbol tables hold 88,137
// kernel descriptors (.kd).
const (
	rocsparseEntries = 888
	rocsparseXnack   = 111
	rocsparseImages  = 777
	rocsparseKernels = 88137
	rocsparseArch    = "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"
)

// validateObjdumpRocsparse checks llvm-objdump --offloading on the library:
// it announced every entry and wrote each.
func validateObjdumpRocsparse(c *config) error {
	text, err := c.printed()
	if err != nil {
		return err
	}
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if name, ok := strings.CutPrefix(l, "Extracting offload bundle: "); ok {
			n++
			if !exists(c.p("rocsparse", name)) {
				return fmt.Errorf("%s was not written", name)
			}
		}
	}
	if n != rocsparseEntries {
		return fmt.Errorf("extracted %d entries, want %d", n, rocsparseEntries)
	}
	return nil
}

// validateRocsparseDump checks offload-packager dump's listing.
func validateRocsparseDump(c *config) error {
	text, err := c.printed()
	if err != nil {
		return err
	}
	es := offloadEntries(text, "OFFLOAD BUNDLE [")
	n := 0
	for _, e := range es {
		if e["id"] == rocsparseArch {
			n++
		}
	}
	if len(es) != rocsparseEntries || n != rocsparseXnack {
		return fmt.Errorf("listed %d entries, %d of them %s; want %d and %d", len(es), n, rocsparseArch, rocsparseEntries, rocsparseXnack)
	}
	return nil
}

// validateRocsparseJSON checks dump --all --json (docs/dump-json.md).
func validateRocsparseJSON(c *config) error {
	b, err := os.ReadFile(c.stdoutFile)
	if err != nil {
		return err
	}
	var d struct {
		Files []struct {
			Objects []struct {
				Bundles []struct {
					Entries []struct {
						ID string `json:"id"`
					} `json:"entries"`
				} `json:"bundles"`
			} `json:"objects"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("the JSON: %v", err)
	}
	all, n := 0, 0
	for _, f := range d.Files {
		for _, o := range f.Objects {
			for _, b := range o.Bundles {
				for _, e := range b.Entries {
					all++
					if e.ID == rocsparseArch {
						n++
					}
				}
			}
		}
	}
	if all != rocsparseEntries || n != rocsparseXnack {
		return fmt.Errorf("%d entries, %d of them %s; want %d and %d", all, n, rocsparseArch, rocsparseEntries, rocsparseXnack)
	}
	return nil
}

// validateRocsparseExtract compares each code object extract wrote (dir)
// with llvm-objdump --offloading's extraction of the same entry (the
// reference side's files; made here when that side has not run).
func validateRocsparseExtract(c *config, dir string) error {
	names, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(names) != rocsparseXnack {
		return fmt.Errorf("wrote %d files, want %d", len(names), rocsparseXnack)
	}
	for _, e := range names {
		ref := c.p("rocsparse", e.Name())
		if !strings.HasSuffix(e.Name(), "."+rocsparseArch) {
			return fmt.Errorf("wrote %s, not an %s entry", e.Name(), rocsparseArch)
		}
		if !exists(ref) {
			if err := c.sh(c.p("rocsparse"), c.tool("llvm-objdump"), "--offloading", "librocsparse.so.0.1"); err != nil {
				return err
			}
		}
		if err := sameFile(filepath.Join(dir, e.Name()), ref); err != nil {
			return fmt.Errorf("against llvm-objdump's: %v", err)
		}
	}
	return nil
}

// validateRocsparseKernels checks the kernels report's counts: 777 images,
// 88,137 kernels in the file's totals.
func validateRocsparseKernels(c *config) error {
	text, err := c.printed()
	if err != nil {
		return err
	}
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != fmt.Sprintf("IMAGES (%d)", rocsparseImages) {
		return fmt.Errorf("the report starts %q, want IMAGES (%d)", firstLines(text, 1), rocsparseImages)
	}
	i := slices.Index(lines, "TOTALS BY FILE")
	if i < 0 || i+2 >= len(lines) {
		return errors.New("no TOTALS BY FILE")
	}
	col := slices.Index(strings.Fields(lines[i+1]), "KERNELS")
	f := strings.Fields(lines[i+2])
	if col < 0 || col >= len(f) {
		return errors.New("TOTALS BY FILE has no KERNELS column")
	}
	if f[col] != strconv.Itoa(rocsparseKernels) {
		return fmt.Errorf("%s kernels, want %d", f[col], rocsparseKernels)
	}
	return nil
}

// validateReadelfKernels checks the kernels row's reference: llvm-readelf
// read 777 symbol tables (.symtab) holding 88,137 kernel descriptors.
func validateReadelfKernels(c *config) error {
	f, err := os.Open(c.stdoutFile)
	if err != nil {
		return err
	}
	defer f.Close()
	tables, kds, table := 0, 0, ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		l := sc.Text()
		if t, ok := strings.CutPrefix(l, "Symbol table '"); ok {
			table, _, _ = strings.Cut(t, "'")
			if table == ".symtab" {
				tables++
			}
			continue
		}
		if table == ".symtab" && strings.Contains(l, " OBJECT ") && strings.HasSuffix(l, ".kd") {
			kds++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if tables != rocsparseImages || kds != rocsparseKernels {
		return fmt.Errorf("%d symbol tables with %d kernel descriptors, want %d and %d", tables, kds, rocsparseImages, rocsparseKernels)
	}
	return nil
}
