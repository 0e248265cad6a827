package packager

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// Duplicates lists identical code found by kernels --duplicates.
type Duplicates struct {
	// Kernels: functions whose bytes are identical in several images of
	// one arch (several TUs or bundles carry the same instantiation).
	Kernels []DupKernel `json:"kernels"`
	// Images: identical whole images in several containers.
	Images []DupImage `json:"images"`
	// Saved is what keeping one copy of each would save, in bytes:
	// kernel copies inside images that are not themselves duplicates, plus
	// every extra copy of a duplicated image.
	KernelBytesSaved int64 `json:"kernel_bytes_saved"`
	ImageBytesSaved  int64 `json:"image_bytes_saved"`
}

// DupKernel is one function found more than once.
type DupKernel struct {
	Arch   string   `json:"arch"`
	Name   string   `json:"name"` // demangled
	Size   int64    `json:"size"`
	Copies int      `json:"copies"`
	Saved  int64    `json:"saved"` // (copies-1) × size
	Where  []string `json:"where"` // file: object: container of each copy
	Hash   string   `json:"hash"`  // xxh64 of the code
}

// DupImage is one image found in several containers.
type DupImage struct {
	Arch   string   `json:"arch"`
	Size   int64    `json:"size"`
	Copies int      `json:"copies"`
	Saved  int64    `json:"saved"` // the stored sizes of the copies after the first
	Where  []string `json:"where"`
	Hash   string   `json:"hash"` // xxh64 of the image (decoded, if stored compressed)
}

func findDuplicates(rep *KernelsReport) *Duplicates {
	d := &Duplicates{Kernels: []DupKernel{}, Images: []DupImage{}}
	type ikey struct {
		hash uint64
		size int64
	}
	imgs := map[ikey]*DupImage{}
	var order []ikey
	dupImage := map[*KernelImage]bool{}
	seen := map[ikey]*KernelImage{}
	for fi := range rep.Files {
		f := &rep.Files[fi]
		for i := range f.Images {
			img := &f.Images[i]
			if !img.hashed {
				continue
			}
			k := ikey{img.hash, img.hashLen}
			where := f.Path + ": " + img.Object + ": " + img.Container
			if first, ok := seen[k]; ok {
				if imgs[k] == nil {
					imgs[k] = &DupImage{Arch: arch(first), Size: img.Size, Hash: fmt.Sprintf("%016x", img.hash)}
					order = append(order, k)
				}
				imgs[k].Where = append(imgs[k].Where, where)
				imgs[k].Saved += img.Size
				dupImage[img] = true
				continue
			}
			seen[k] = img
		}
	}
	// Name the first copy of each duplicated image too.
	for fi := range rep.Files {
		f := &rep.Files[fi]
		for i := range f.Images {
			img := &f.Images[i]
			k := ikey{img.hash, img.hashLen}
			if di := imgs[k]; di != nil && seen[k] == img && img.hashed {
				di.Where = append([]string{f.Path + ": " + img.Object + ": " + img.Container}, di.Where...)
			}
		}
	}
	for _, k := range order {
		di := imgs[k]
		di.Copies = len(di.Where)
		d.ImageBytesSaved += di.Saved
		d.Images = append(d.Images, *di)
	}
	// Kernels: per arch, by code hash and size, over images that are not
	// extra copies of a whole image (those are counted above).
	type kkey struct {
		arch string
		hash uint64
		size int64
	}
	ks := map[kkey]*DupKernel{}
	var korder []kkey
	for fi := range rep.Files {
		f := &rep.Files[fi]
		for i := range f.Images {
			img := &f.Images[i]
			if dupImage[img] {
				continue
			}
			for _, fn := range img.Functions {
				if fn.hash == 0 || fn.Size == 0 {
					continue
				}
				k := kkey{arch(img), fn.hash, fn.Size}
				if ks[k] == nil {
					ks[k] = &DupKernel{Arch: k.arch, Name: fn.Demangled, Size: fn.Size, Hash: fmt.Sprintf("%016x", fn.hash)}
					korder = append(korder, k)
				}
				ks[k].Where = append(ks[k].Where, f.Path+": "+img.Object+": "+img.Container)
			}
		}
	}
	for _, k := range korder {
		dk := ks[k]
		if len(dk.Where) < 2 {
			continue
		}
		dk.Copies = len(dk.Where)
		dk.Saved = int64(dk.Copies-1) * dk.Size
		d.KernelBytesSaved += dk.Saved
		d.Kernels = append(d.Kernels, *dk)
	}
	sort.SliceStable(d.Kernels, func(i, j int) bool { return d.Kernels[i].Saved > d.Kernels[j].Saved })
	sort.SliceStable(d.Images, func(i, j int) bool { return d.Images[i].Saved > d.Images[j].Saved })
	return d
}

func printDuplicates(w io.Writer, d *Duplicates, top int) {
	fmt.Fprintf(w, "\nDUPLICATE IMAGES (%d, %d bytes saved by keeping one copy)\n", len(d.Images), d.ImageBytesSaved)
	var r [][]string
	for i, x := range d.Images {
		if top > 0 && i >= top {
			break
		}
		r = append(r, []string{fmt.Sprint(x.Saved), x.Arch, fmt.Sprint(x.Copies), fmt.Sprint(x.Size), x.Where[0]})
	}
	table(w, []string{"SAVED", "ARCH", "COPIES", "SIZE", "FIRST COPY"}, r)
	fmt.Fprintf(w, "\nDUPLICATE FUNCTIONS (%d, %d bytes saved by keeping one copy)\n", len(d.Kernels), d.KernelBytesSaved)
	r = nil
	for i, x := range d.Kernels {
		if top > 0 && i >= top {
			break
		}
		r = append(r, []string{fmt.Sprint(x.Saved), x.Arch, fmt.Sprint(x.Copies), fmt.Sprint(x.Size), x.Name})
	}
	table(w, []string{"SAVED", "ARCH", "COPIES", "SIZE", "NAME"}, r)
}

// KernelsDiff compares the kernels of two inputs by arch and function.
func KernelsDiff(ctx context.Context, env *Env, a, b string, jsonOut bool, top int) error {
	ctx = withProgress(ctx, env)
	ra, err := kernelsReport(ctx, env, []string{a}, false)
	if err != nil {
		return err
	}
	rb, err := kernelsReport(ctx, env, []string{b}, false)
	if err != nil {
		return err
	}
	type key struct{ arch, name string }
	sizes := func(r *KernelsReport) (map[key]int64, map[string]int64) {
		m, t := map[key]int64{}, map[string]int64{}
		for _, row := range rows(r) {
			m[key{arch(row.img), row.fn.Demangled}] += row.fn.Size
			t[arch(row.img)] += row.fn.Size
		}
		return m, t
	}
	sa, ta := sizes(ra)
	sb, tb := sizes(rb)
	type change struct {
		Arch   string `json:"arch"`
		Name   string `json:"name"`
		Status string `json:"status"` // added, removed, grew, shrank
		Before int64  `json:"before"`
		After  int64  `json:"after"`
		Delta  int64  `json:"delta"`
	}
	var cs []change
	for k, v := range sa {
		w, ok := sb[k]
		switch {
		case !ok:
			cs = append(cs, change{k.arch, k.name, "removed", v, 0, -v})
		case w > v:
			cs = append(cs, change{k.arch, k.name, "grew", v, w, w - v})
		case w < v:
			cs = append(cs, change{k.arch, k.name, "shrank", v, w, w - v})
		}
	}
	for k, w := range sb {
		if _, ok := sa[k]; !ok {
			cs = append(cs, change{k.arch, k.name, "added", 0, w, w})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		ai, aj := abs(cs[i].Delta), abs(cs[j].Delta)
		if ai != aj {
			return ai > aj
		}
		if cs[i].Arch != cs[j].Arch {
			return cs[i].Arch < cs[j].Arch
		}
		return cs[i].Name < cs[j].Name
	})
	type archDelta struct {
		Arch   string `json:"arch"`
		Before int64  `json:"before"`
		After  int64  `json:"after"`
		Delta  int64  `json:"delta"`
	}
	var ad []archDelta
	archs := map[string]bool{}
	for k := range ta {
		archs[k] = true
	}
	for k := range tb {
		archs[k] = true
	}
	for k := range archs {
		ad = append(ad, archDelta{k, ta[k], tb[k], tb[k] - ta[k]})
	}
	sort.Slice(ad, func(i, j int) bool { return ad[i].Arch < ad[j].Arch })
	if jsonOut {
		return writeJSON(env.Stdout, struct {
			Schema  int         `json:"schema"`
			A       string      `json:"a"`
			B       string      `json:"b"`
			ByArch  []archDelta `json:"by_arch"`
			Changes []change    `json:"changes"`
		}{KernelsSchema, a, b, orEmpty(ad), orEmpty(cs)})
	}
	fmt.Fprintf(env.Stdout, "--- %s\n+++ %s\n\nBY ARCH\n", a, b)
	var r [][]string
	for _, x := range ad {
		r = append(r, []string{fmt.Sprintf("%+d", x.Delta), fmt.Sprint(x.Before), fmt.Sprint(x.After), x.Arch})
	}
	table(env.Stdout, []string{"DELTA", "BEFORE", "AFTER", "ARCH"}, r)
	n := len(cs)
	if top > 0 && len(cs) > top {
		cs = cs[:top]
	}
	fmt.Fprintf(env.Stdout, "\nCHANGES (%d)\n", n)
	r = nil
	for _, c := range cs {
		r = append(r, []string{fmt.Sprintf("%+d", c.Delta), c.Arch, c.Status, fmt.Sprint(c.Before), fmt.Sprint(c.After), c.Name})
	}
	table(env.Stdout, []string{"DELTA", "ARCH", "STATUS", "BEFORE", "AFTER", "NAME"}, r)
	return nil
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
