// Package kernels implements offload-packager kernels and kernels diff:
// per-kernel sizes and resources of the device code in fat binaries, and
// the comparison of two, with budgets. It reads its inputs through the
// packager's walker (packager.Walk: every container dump lists) and
// parses each device image with format/codeobj and format/bitcode.
//
// Run, Diff and Archs take their options as the other drivers do:
// Run(ctx, env, Options), Diff(ctx, env, DiffOptions).
package kernels

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ianlancetaylor/demangle"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bitcode"
	"github.com/offload-kit/offload-kit/format/codeobj"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
	"github.com/offload-kit/offload-kit/internal/progress"
	"github.com/offload-kit/offload-kit/internal/xxhash"
)

// Env is the driver environment (streams, directory, phases, progress).
type Env = driverenv.Env

// withProgress carries env's progress sink in ctx.
func withProgress(ctx context.Context, env *Env) context.Context {
	return progress.NewContext(ctx, env.Progress)
}

// Schema is the version of the kernels --json document
// (docs/kernels-json.md). 2: machine code and PTX/IR bytes apart, a
// function's size_from, resources with exactly the recorded keys.
const Schema = 2

// DefaultTop is how many rows of the function table the text report
// prints unless told otherwise (--top N, --all).
const DefaultTop = 25

// Options selects what the kernels view reports.
type Options struct {
	Files      []string
	JSON       bool
	Sort       string   // size (default), name, regs, lds, scratch
	Top        int      // rows of the function, family and duplicate tables; 0 = all
	Arch       []string // only images of these target IDs or processors (gfx90a matches gfx90a:xnack+)
	Families   bool     // group template instances by their un-parameterised name
	Duplicates bool     // hash code to find identical kernels and images
	HTML       string   // write a self-contained treemap here
}

// Report is the whole --json document.
type Report struct {
	Schema     int         `json:"schema"`
	Files      []File      `json:"files"`
	Totals     Totals      `json:"totals"`
	Duplicates *Duplicates `json:"duplicates,omitempty"`
}

// File is one input.
type File struct {
	Path   string  `json:"path"`
	Images []Image `json:"images"`
	Error  string  `json:"error,omitempty"`
}

// Image is one device image of a container.
type Image struct {
	Object    string `json:"object"`    // the object or archive member holding it
	Container string `json:"container"` // e.g. "bundle 0 entry 1", "image 0", "fatbin 0 entry 0"
	Kind      string `json:"kind"`      // offload kind: hip, cuda, openmp, sycl, host
	Triple    string `json:"triple"`
	Arch      string `json:"arch"`
	ImageKind string `json:"image_kind"` // object, cubin, ptx, spirv, bitcode, ...
	CodeKind  string `json:"code_kind,omitempty"`
	// CodeClass is "machine" (AMDGPU ISA, NVIDIA SASS, host code) or
	// "ir" (PTX text, SPIR-V, LLVM bitcode); "" when nothing was parsed.
	CodeClass string `json:"code_class,omitempty"`
	Target    string `json:"target,omitempty"` // what the code object itself says
	Size      int64  `json:"size"`             // bytes stored
	// Uncompressed is the decoded size of a compressed payload (fatbin
	// entries); 0 when stored plainly.
	Uncompressed int64      `json:"uncompressed_size,omitempty"`
	CodeBytes    int64      `json:"code_bytes"` // sum of the functions' sizes
	Functions    []Function `json:"functions"`
	Note         string     `json:"note,omitempty"` // why functions are not listed
	Error        string     `json:"error,omitempty"`

	hash    uint64
	hashLen int64 // bytes hashed: the decoded image of a compressed one
	hashed  bool
}

// Function is one kernel or device function.
type Function struct {
	Name      string             `json:"name"`
	Demangled string             `json:"demangled"`
	Family    string             `json:"family"` // demangled without template arguments and parameters
	Kernel    bool               `json:"kernel"`
	Size      int64              `json:"size"`
	SizeFrom  string             `json:"size_from"` // symbol, layout, text, words, bitcode, unknown
	Resources *codeobj.Resources `json:"resources,omitempty"`

	hash uint64
}

// Totals sums code bytes.
type Totals struct {
	ByArch   []Total `json:"by_arch"`
	ByFamily []Total `json:"by_family"`
	ByFile   []Total `json:"by_file"`
}

// Total is one row of a total.
type Total struct {
	Key       string `json:"key"`
	Arch      string `json:"arch,omitempty"` // by_family rows are per arch
	Images    int    `json:"images,omitempty"`
	Functions int    `json:"functions"`
	Kernels   int    `json:"kernels"`
	Bytes     int64  `json:"bytes"`         // machine_bytes + ir_bytes
	Machine   int64  `json:"machine_bytes"` // of machine code images
	IR        int64  `json:"ir_bytes"`      // of PTX, SPIR-V and bitcode images
	Stored    int64  `json:"stored,omitempty"`
}

// Kernels reports the kernels and functions of every device image in the
// files.
func Run(ctx context.Context, env *Env, opt Options) error {
	ctx = withProgress(ctx, env)
	rep, err := kernelsReport(ctx, env, opt.Files, opt.Duplicates)
	if err != nil && !opt.JSON {
		return err
	}
	if len(opt.Arch) > 0 {
		filterArchs(rep, opt.Arch)
	}
	if opt.HTML != "" && err == nil {
		if herr := writeTreemap(env, opt.HTML, rep); herr != nil {
			return herr
		}
	}
	if opt.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if eerr := enc.Encode(rep); eerr != nil {
			return eerr
		}
		if err == nil {
			err = imageErrors(rep)
		}
		return err
	}
	printKernels(env.Stdout, rep, opt)
	return imageErrors(rep)
}

// imageErrors is the error that makes the exit status 1 when an image
// could not be read (damaged, or over the decode limit): the report is
// printed, and this names how many and the first.
func imageErrors(rep *Report) error {
	n, total := 0, 0
	var first string
	for _, f := range rep.Files {
		for _, img := range f.Images {
			total++
			if img.Error != "" {
				if n == 0 {
					first = fmt.Sprintf("%s: %s: %s", img.Object, img.Container, img.Error)
				}
				n++
			}
		}
	}
	switch {
	case n == 1:
		return fmt.Errorf("%s", first)
	case n > 1:
		return fmt.Errorf("%d of %d images could not be read; the first: %s", n, total, first)
	}
	return nil
}

// filterArchs keeps the images whose target ID or processor is one of
// archs, and recomputes the totals and duplicates.
func filterArchs(rep *Report, archs []string) {
	for fi := range rep.Files {
		f := &rep.Files[fi]
		kept := f.Images[:0]
		for _, img := range f.Images {
			a := arch(&img)
			if slices.Contains(archs, a) || slices.Contains(archs, processor(a)) {
				kept = append(kept, img)
			}
		}
		f.Images = kept
	}
	rep.Totals = totals(rep)
	if rep.Duplicates != nil {
		rep.Duplicates = findDuplicates(rep)
	}
}

// KernelsArchs lists the targets of the images in the files (for shell
// completion): errors are ignored, nothing is printed.
func Archs(ctx context.Context, env *Env, files []string) []string {
	quiet := *env
	quiet.Stdout, quiet.Stderr, quiet.Progress, quiet.Phases = io.Discard, io.Discard, nil, nil
	rep, _ := kernelsReport(ctx, &quiet, files, false)
	seen := map[string]bool{}
	var out []string
	if rep == nil {
		return nil
	}
	for _, f := range rep.Files {
		for i := range f.Images {
			if a := arch(&f.Images[i]); !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	sort.Strings(out)
	return out
}

// kernelsReport walks the files with dump's walker (packager.Walk) and
// parses every payload.
func kernelsReport(ctx context.Context, env *Env, files []string, dups bool) (*Report, error) {
	rep := &Report{Schema: Schema, Files: []File{}}
	var firstErr error
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		kf := File{Path: name, Images: []Image{}}
		names := &nameCache{m: map[string][2]string{}}
		var jobs []kernelJob
		var ccobs []*ccobJob
		object := func(w *packager.Walked) {
			jobs, ccobs = jobs[:0], ccobs[:0]
			collectImages(w, w.Object.Name, "", &w.Object.DumpContents, &jobs, &ccobs)
			m := w.Mapping()
			mapped := m.Mapped()
			if mapped && !dups {
				adviseRandom(m.Data)
			}
			parseJobs(jobs, dups, mapped, names)
			for _, cj := range ccobs {
				cj.run(mapped, func(img *Image, data []byte) { parseImage(img, data, dups, names) })
			}
			for _, j := range jobs {
				kf.Images = append(kf.Images, *j.img)
			}
		}
		sp := env.Phases.Span("kernels", name)
		input := func(data []byte) bool {
			if name == "-" {
				return false // standard input is listed as dump lists it
			}
			img, ok := bareCodeObject(name, data, dups, names)
			if ok {
				kf.Images = append(kf.Images, img)
			}
			return ok
		}
		err := packager.Walk(ctx, env, name, packager.Walker{Input: input, Object: object})
		sp.End()
		if err != nil {
			kf.Error = err.Error()
			if firstErr == nil {
				firstErr = err
			}
		}
		rep.Files = append(rep.Files, kf)
	}
	rep.Totals = totals(rep)
	if dups {
		rep.Duplicates = findDuplicates(rep)
	}
	return rep, firstErr
}

type kernelJob struct {
	img  *Image
	data []byte
	// decode, when set, yields the payload of a compressed image (a
	// fatbin entry); the worker that parses the image calls it.
	decode func() ([]byte, error)
}

// collectImages lists the leaf images of a container tree (nested
// containers are descended into, not reported as images). Images whose
// payload is compressed are decoded one at a time later: fatbin entries
// by the parsing workers (a job's decode), the entries of large
// compressed bundles, which the lister does not keep, by one streaming
// pass over each bundle (ccobs).
func collectImages(w *packager.Walked, object, prefix string, c *packager.DumpContents, jobs *[]kernelJob, ccobs *[]*ccobJob) {
	add := func(where string, e packager.DumpEntry, data []byte) *Image {
		img := &Image{Object: object, Container: prefix + where, Kind: e.Kind, Triple: e.Triple, Arch: e.Arch,
			ImageKind: e.ImageKind, Size: e.Size, Uncompressed: e.UncompressedSize, Functions: []Function{}}
		if data == nil && e.Size > 0 {
			img.Note = "payload not stored plainly: functions not listed"
		}
		*jobs = append(*jobs, kernelJob{img: img, data: data})
		return img
	}
	for _, im := range c.Images {
		where := fmt.Sprintf("image %d", im.Index)
		if im.Contents != nil {
			collectImages(w, object, prefix+where+": ", im.Contents, jobs, ccobs)
			continue
		}
		data := w.ImagePayload(&im) // in the file, or a v3 binary's inflated body, a bitcode host's copy
		e := packager.DumpEntry{Kind: im.Kind, Triple: im.Triple, Arch: im.Arch, ImageKind: im.ImageKind, Size: int64(im.ImageSize)}
		if im.Version >= 3 && im.ImageOffset < 0 && im.Offset < 0 && data != nil {
			// A compressed v3 binary: the file holds Size bytes of it.
			e.Size, e.UncompressedSize = int64(im.Size), int64(im.ImageSize)
		}
		add(where, e, data)
	}
	entries := func(what string, es []packager.DumpEntry, fat *fatbinSource, cj *ccobJob) {
		for _, e := range es {
			where := fmt.Sprintf("%s entry %d", what, e.Index)
			data := w.EntryPayload(&e)
			if e.Contents != nil {
				collectImages(w, object, prefix+where+": ", e.Contents, jobs, ccobs)
				continue
			}
			if e.Kind == "host" {
				continue // the host entry of a HIP bundle is empty
			}
			switch {
			case e.Compression != "" && e.Compression != "none":
				img := add(where, e, nil)
				img.Note = ""
				(*jobs)[len(*jobs)-1].decode = fat.decoder(e.Index)
			case data == nil && e.Size > 0 && cj != nil:
				img := add(where, e, nil)
				img.Note = ""
				cj.want[e.Index] = img
			default:
				add(where, e, data)
			}
		}
	}
	for _, b := range c.Bundles {
		var cj *ccobJob
		if blob := w.Span(b.Offset, b.Size); b.Compression != nil && blob != nil {
			cj = &ccobJob{blob: blob, want: map[int]*Image{}}
		}
		entries(fmt.Sprintf("bundle %d", b.Index), b.Entries, nil, cj)
		if cj != nil && len(cj.want) > 0 {
			*ccobs = append(*ccobs, cj)
		}
	}
	for _, f := range c.Fatbins {
		fat := &fatbinSource{data: w.Span(f.Offset, f.Size)}
		entries(fmt.Sprintf("fatbin %d", f.Index), f.Entries, fat, nil)
	}
	for _, h := range c.HCF {
		entries(fmt.Sprintf("hcf %d", h.Index), h.Entries, nil, nil)
	}
}

// parseJobs parses the images in parallel. The payloads are slices of the
// mapped input: only symbol tables, notes and descriptors are touched
// unless dups asks for the code to be hashed.
func parseJobs(jobs []kernelJob, dups, mapped bool, names *nameCache) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), max(len(jobs), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := &jobs[i]
				if j.decode != nil {
					data, err := j.decode()
					if err != nil {
						j.img.Error = err.Error()
						continue
					}
					parseImage(j.img, data, dups, names)
					continue
				}
				parseImage(j.img, j.data, dups, names)
				if mapped {
					// Drop the pages parsing touched (they are file
					// pages: they fault back in if needed).
					mmapfile.Release(j.data)
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
}

func parseImage(img *Image, data []byte, dups bool, names *nameCache) {
	if len(data) == 0 {
		return
	}
	if dups {
		var d xxhash.Digest
		d.Reset()
		d.Write(data)
		img.hash, img.hashLen, img.hashed = d.Sum64(), int64(len(data)), true
	}
	if format.Identify(data) == format.KindBitcode {
		img.CodeKind, img.CodeClass = "bitcode", classIR
		// The functions the module defines, with their body sizes; else
		// (bitcode before LLVM 5) the irsymtab's, sizes unknown.
		if fns, err := bitcode.FunctionBodies(data); err == nil {
			for _, f := range fns {
				img.Functions = append(img.Functions, names.function(f.Name, f.Kernel(), f.Size, codeobj.SizeBitcode, nil))
				img.CodeBytes += f.Size
			}
			return
		}
		syms, err := bitcode.Symbols(data)
		if err != nil {
			img.Error = err.Error()
			return
		}
		for _, s := range syms {
			if s.IsUndefined() || !s.IsExecutable() {
				continue
			}
			img.Functions = append(img.Functions, names.function(s.Name, false, 0, codeobj.SizeUnknown, nil))
		}
		return
	}
	k, ok := codeobj.Identify(data)
	if !ok {
		img.Note = "not a code object: functions not listed"
		return
	}
	o, err := codeobj.ParseKind(data, k)
	if err != nil {
		img.Error = err.Error()
		return
	}
	img.CodeKind, img.Target, img.CodeClass = string(o.Kind), o.Target, codeClass(o.Kind)
	for i := range o.Functions {
		fn := &o.Functions[i]
		kf := names.function(fn.Name, fn.Kernel, fn.Size, fn.SizeFrom, fn.Resources)
		if dups {
			if code := fn.Code(data); code != nil {
				var d xxhash.Digest
				d.Reset()
				d.Write(code)
				kf.hash = d.Sum64()
			}
		}
		img.CodeBytes += fn.Size
		img.Functions = append(img.Functions, kf)
	}
}

// nameCache demangles each name once: the images of one library for
// several arches share most names.
type nameCache struct {
	mu sync.Mutex
	m  map[string][2]string
}

func (c *nameCache) function(name string, kernel bool, size int64, from codeobj.SizeSource, r *codeobj.Resources) Function {
	c.mu.Lock()
	v, ok := c.m[name]
	c.mu.Unlock()
	if !ok {
		v = demangled(name)
		c.mu.Lock()
		c.m[name] = v
		c.mu.Unlock()
	}
	sf := string(from)
	if from == codeobj.SizeUnknown {
		sf = "unknown"
	}
	return Function{Name: name, Demangled: v[0], Family: v[1], Kernel: kernel, Size: size, SizeFrom: sf, Resources: r}
}

// The code classes of an image: what its bytes are.
const (
	classMachine = "machine" // AMDGPU ISA, NVIDIA SASS, host code
	classIR      = "ir"      // PTX text, SPIR-V, LLVM bitcode
)

func codeClass(k codeobj.Kind) string {
	switch k {
	case codeobj.KindPTX, codeobj.KindSPIRV:
		return classIR
	}
	return classMachine
}

// sizeKnown reports whether a function's size is known (a bitcode
// function without a body size, a symbol without st_size in a NOBITS
// section are not).
func (fn *Function) sizeKnown() bool { return fn.SizeFrom != "unknown" }

// demangled is the demangled name and the family: the name without
// template arguments and parameters.
func demangled(name string) [2]string {
	ast, err := demangle.ToAST(name)
	if err != nil {
		return [2]string{name, name}
	}
	// NoParams is a parsing option (the parameters, return type and
	// qualifiers of the function are not parsed); printing ignores it.
	family := demangle.ASTToString(ast, demangle.NoTemplateParams)
	if bare, err := demangle.ToAST(name, demangle.NoParams); err == nil {
		family = demangle.ASTToString(bare, demangle.NoTemplateParams)
	}
	return [2]string{demangle.ASTToString(ast), family}
}

func arch(img *Image) string {
	if img.Arch != "" {
		return img.Arch
	}
	if img.Target != "" {
		return img.Target
	}
	return img.Triple
}

func totals(rep *Report) Totals {
	byArch, byFam, byFile := map[string]*Total{}, map[[2]string]*Total{}, map[string]*Total{}
	get := func(m map[string]*Total, k string) *Total {
		if m[k] == nil {
			m[k] = &Total{Key: k}
		}
		return m[k]
	}
	for _, f := range rep.Files {
		ft := get(byFile, f.Path)
		for i := range f.Images {
			img := &f.Images[i]
			a := arch(img)
			at := get(byArch, a)
			for _, t := range []*Total{at, ft} {
				t.Images++
				t.Stored += img.Size
				t.add(img, img.CodeBytes)
				t.Functions += len(img.Functions)
			}
			for _, fn := range img.Functions {
				key := [2]string{fn.Family, a}
				t := byFam[key]
				if t == nil {
					t = &Total{Key: fn.Family, Arch: a}
					byFam[key] = t
				}
				t.Functions++
				t.add(img, fn.Size)
				if fn.Kernel {
					t.Kernels++
					at.Kernels++
					ft.Kernels++
				}
			}
		}
	}
	list := func(m map[string]*Total) []Total {
		out := []Total{}
		for _, t := range m {
			out = append(out, *t)
		}
		sortTotals(out)
		return out
	}
	fams := []Total{}
	for _, t := range byFam {
		fams = append(fams, *t)
	}
	sortTotals(fams)
	return Totals{ByArch: list(byArch), ByFamily: fams, ByFile: list(byFile)}
}

// add counts n code bytes of img's class.
func (t *Total) add(img *Image, n int64) {
	t.Bytes += n
	if img.CodeClass == classIR {
		t.IR += n
	} else {
		t.Machine += n
	}
}

func sortTotals(t []Total) {
	sort.Slice(t, func(i, j int) bool {
		if t[i].Bytes != t[j].Bytes {
			return t[i].Bytes > t[j].Bytes
		}
		if t[i].Key != t[j].Key {
			return t[i].Key < t[j].Key
		}
		return t[i].Arch < t[j].Arch
	})
}

// kernelRow is one function with where it is.
type kernelRow struct {
	file string
	img  *Image
	fn   *Function
}

func rows(rep *Report) []kernelRow {
	var out []kernelRow
	for fi := range rep.Files {
		f := &rep.Files[fi]
		for i := range f.Images {
			for j := range f.Images[i].Functions {
				out = append(out, kernelRow{f.Path, &f.Images[i], &f.Images[i].Functions[j]})
			}
		}
	}
	return out
}

func res(fn *Function) codeobj.Resources { return *resOf(fn.Resources) }

func sortRows(rs []kernelRow, by string) {
	key := func(r kernelRow) int64 {
		x := res(r.fn)
		switch by {
		case "regs":
			return max(x.VGPRs+x.AGPRs, x.Registers)
		case "lds":
			return x.LDS
		case "scratch":
			return x.Scratch
		}
		return r.fn.Size
	}
	// Keys computed once, and the original position as the last key: a
	// plain sort that orders like a stable one (librocsparse has 88,000
	// rows).
	type sortKey struct {
		key        int64
		name, arch string
		pos        int
		row        kernelRow
	}
	ks := make([]sortKey, len(rs))
	for i, r := range rs {
		ks[i] = sortKey{name: r.fn.Demangled, arch: arch(r.img), pos: i, row: r}
		if by != "name" {
			ks[i].key = key(r)
		}
	}
	slices.SortFunc(ks, func(a, b sortKey) int {
		if c := cmp.Compare(b.key, a.key); c != 0 {
			return c
		}
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := strings.Compare(a.arch, b.arch); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	for i := range ks {
		rs[i] = ks[i].row
	}
}

// table writes aligned columns: numeric columns right-aligned, the last
// column as is.
func table(w io.Writer, header []string, rows [][]string) {
	width := make([]int, len(header))
	numeric := make([]bool, len(header))
	for i := range numeric {
		numeric[i] = true
	}
	for _, r := range rows {
		for i, c := range r {
			numeric[i] = numeric[i] && strings.Trim(c, "0123456789-+/?%.") == ""
		}
	}
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r[:len(r)-1] {
			width[i] = max(width[i], len(c))
		}
	}
	for _, r := range append([][]string{header}, rows...) {
		var sb strings.Builder
		for i, c := range r[:len(r)-1] {
			if numeric[i] {
				fmt.Fprintf(&sb, "%*s  ", width[i], c)
			} else {
				fmt.Fprintf(&sb, "%-*s  ", width[i], c)
			}
		}
		sb.WriteString(r[len(r)-1])
		fmt.Fprintln(w, strings.TrimRight(sb.String(), " "))
	}
}

// dash marks a value the code object does not record (unknown, not 0).
const dash = "-"

// sizeCols are a size's MACHINE and PTX/IR cells: the size in its
// class's column, "-" in the other; "?" when the size is unknown.
func sizeCols(class string, n int64, known bool) (machine, ir string) {
	v := fmt.Sprint(n)
	if !known {
		v = "?"
	}
	if class == classIR {
		return dash, v
	}
	return v, dash
}

// resCell is a recorded resource's value, or "-".
func resCell(r *codeobj.Resources, bit codeobj.ResourceSet, v int64) string {
	if !r.Has(bit) {
		return dash
	}
	return fmt.Sprint(v)
}

// regsCell is AMDGPU's SGPR/VGPR/AGPR counts (AGPR "-" where the
// metadata has none) or NVIDIA's register count.
func regsCell(r *codeobj.Resources) string {
	switch {
	case r.Has(codeobj.ResRegisters):
		return fmt.Sprint(r.Registers)
	case r.Has(codeobj.ResSGPRs | codeobj.ResVGPRs):
		return fmt.Sprintf("%d/%d/%s", r.SGPRs, r.VGPRs, resCell(r, codeobj.ResAGPRs, r.AGPRs))
	}
	return dash
}

func spillsCell(r *codeobj.Resources) string {
	if !r.Has(codeobj.ResSGPRSpills) && !r.Has(codeobj.ResVGPRSpills) {
		return dash
	}
	return resCell(r, codeobj.ResSGPRSpills, r.SGPRSpills) + "/" + resCell(r, codeobj.ResVGPRSpills, r.VGPRSpills)
}

// kernelsLegend explains the columns of the text report.
const kernelsLegend = `
MACHINE: bytes of machine code (AMDGPU ISA, NVIDIA SASS, host code). PTX/IR: bytes of PTX text,
SPIR-V or LLVM bitcode (a function's size_from in --json says how it was measured).
REGS: AMDGPU SGPR/VGPR/AGPR counts (.sgpr_count/.vgpr_count/.agpr_count of the metadata note);
NVIDIA registers per thread (cuobjdump -res-usage's REG). SPILLS: AMDGPU SGPR/VGPR spill counts.
LDS: AMDGPU group segment / NVIDIA static shared memory; SCRATCH: private segment / local frame,
bytes per work-item; MAXTHR: the largest work-group (block) the kernel allows.
"-": not recorded by the code object (unknown, not zero); "0": recorded as zero; "?": size unknown.
`

func printKernels(w io.Writer, rep *Report, opt Options) {
	// Images: in file order, or, when there are more than --top, the
	// unreadable ones and then the largest stored.
	var imgs []*Image
	for fi := range rep.Files {
		for i := range rep.Files[fi].Images {
			imgs = append(imgs, &rep.Files[fi].Images[i])
		}
	}
	allImages := len(imgs)
	if opt.Top > 0 && len(imgs) > opt.Top {
		// Unreadable images first: they set the exit status.
		sort.SliceStable(imgs, func(i, j int) bool {
			if (imgs[i].Error != "") != (imgs[j].Error != "") {
				return imgs[i].Error != ""
			}
			return imgs[i].Size > imgs[j].Size
		})
		imgs = imgs[:opt.Top]
	}
	var ir [][]string
	for _, img := range imgs {
		what := img.CodeKind
		if what == "" {
			what = img.ImageKind
		}
		unc := dash
		if img.Uncompressed > 0 {
			unc = fmt.Sprint(img.Uncompressed)
		}
		note := img.Note
		if img.Error != "" {
			note = "error: " + img.Error
		}
		m, x := dash, dash
		if img.CodeClass != "" {
			m, x = sizeCols(img.CodeClass, img.CodeBytes, true)
		}
		ir = append(ir, []string{arch(img), what, fmt.Sprint(img.Size), unc, fmt.Sprint(len(img.Functions)), m, x,
			strings.TrimSpace(img.Object + ": " + img.Container + " " + note)})
	}
	fmt.Fprintf(w, "IMAGES (%d)\n", allImages)
	table(w, []string{"ARCH", "KIND", "STORED", "UNCOMPRESSED", "FUNCS", "MACHINE", "PTX/IR", "WHERE"}, ir)
	if len(ir) < allImages {
		fmt.Fprintf(w, "%d of %d images (unreadable ones first, then the largest stored); --all for all, --top N for more\n", len(ir), allImages)
	}

	// Functions, or families.
	rs := rows(rep)
	shown, total, what := 0, 0, "functions"
	if opt.Families {
		type fam struct {
			arch, name, class string
			n, kernels        int
			bytes, maxBytes   int64
		}
		m := map[[3]string]*fam{}
		for _, r := range rs {
			k := [3]string{arch(r.img), r.fn.Family, r.img.CodeClass}
			if m[k] == nil {
				m[k] = &fam{arch: k[0], name: k[1], class: k[2]}
			}
			f := m[k]
			f.n++
			f.bytes += r.fn.Size
			f.maxBytes = max(f.maxBytes, r.fn.Size)
			if r.fn.Kernel {
				f.kernels++
			}
		}
		var fs []*fam
		for _, f := range m {
			fs = append(fs, f)
		}
		sort.Slice(fs, func(i, j int) bool {
			if fs[i].bytes != fs[j].bytes {
				return fs[i].bytes > fs[j].bytes
			}
			return fs[i].name+fs[i].arch+fs[i].class < fs[j].name+fs[j].arch+fs[j].class
		})
		total, what = len(fs), "families"
		if opt.Top > 0 && len(fs) > opt.Top {
			fs = fs[:opt.Top]
		}
		shown = len(fs)
		var fr [][]string
		for _, f := range fs {
			mc, xc := sizeCols(f.class, f.bytes, true)
			fr = append(fr, []string{mc, xc, f.arch, fmt.Sprint(f.n), fmt.Sprint(f.kernels), fmt.Sprint(f.maxBytes), f.name})
		}
		fmt.Fprintf(w, "\nFAMILIES (%d", len(m))
		if shown < total {
			fmt.Fprintf(w, ", largest %d", shown)
		}
		fmt.Fprintln(w, ")")
		table(w, []string{"MACHINE", "PTX/IR", "ARCH", "FUNCS", "KERNELS", "LARGEST", "FAMILY"}, fr)
	} else {
		sortRows(rs, opt.Sort)
		total = len(rs)
		if opt.Top > 0 && len(rs) > opt.Top {
			rs = rs[:opt.Top]
		}
		shown = len(rs)
		var kr [][]string
		for _, r := range rs {
			x := r.fn.Resources
			k := "func"
			if r.fn.Kernel {
				k = "kernel"
			}
			mc, xc := sizeCols(r.img.CodeClass, r.fn.Size, r.fn.sizeKnown())
			kr = append(kr, []string{mc, xc, arch(r.img), k, regsCell(x), resCell(x, codeobj.ResLDS, resOf(x).LDS),
				resCell(x, codeobj.ResScratch, resOf(x).Scratch), spillsCell(x), resCell(x, codeobj.ResMaxThreads, resOf(x).MaxThreads), r.fn.Demangled})
		}
		fmt.Fprintf(w, "\nFUNCTIONS (%d", total)
		if shown < total {
			fmt.Fprintf(w, ", top %d by %s", shown, orDefault(opt.Sort, "size"))
		}
		fmt.Fprintln(w, ")")
		table(w, []string{"MACHINE", "PTX/IR", "ARCH", "TYPE", "REGS", "LDS", "SCRATCH", "SPILLS", "MAXTHR", "NAME"}, kr)
	}
	if shown < total {
		fmt.Fprintf(w, "%d of %d %s; --all for all, --top N for more\n", shown, total, what)
	}

	// Totals.
	tot := func(title, key string, ts []Total) {
		var tr [][]string
		for _, t := range ts {
			tr = append(tr, []string{fmt.Sprint(t.Machine), fmt.Sprint(t.IR), fmt.Sprint(t.Stored), fmt.Sprint(t.Images), fmt.Sprint(t.Functions), fmt.Sprint(t.Kernels), t.Key})
		}
		fmt.Fprintln(w, "\n"+title)
		table(w, []string{"MACHINE", "PTX/IR", "STORED", "IMAGES", "FUNCS", "KERNELS", key}, tr)
	}
	tot("TOTALS BY ARCH", "ARCH", rep.Totals.ByArch)
	tot("TOTALS BY FILE", "FILE", rep.Totals.ByFile)
	if d := rep.Duplicates; d != nil {
		printDuplicates(w, d, opt.Top)
	}
	fmt.Fprint(w, kernelsLegend)
}

// resOf is r, or zero resources for nil.
func resOf(r *codeobj.Resources) *codeobj.Resources {
	if r == nil {
		return &codeobj.Resources{}
	}
	return r
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// writeTreemap writes the HTML treemap atomically.
func writeTreemap(env *Env, path string, rep *Report) error {
	page, err := treemapHTML(rep)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(env.Path(path), env.Stdout, func(w io.Writer) error { _, err := w.Write(page); return err }); err != nil {
		return fmt.Errorf("'%s': %s", path, packager.ErrText(err))
	}
	return nil
}
