package kernels

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
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

// DupKernel is one function body found more than once: in several
// images, or under several names (foo<char> and foo<unsigned char> often
// compile to the same bytes).
type DupKernel struct {
	Arch   string    `json:"arch"`
	Name   string    `json:"name"`  // the first copy's name, demangled
	Names  []string  `json:"names"` // every name the body has, demangled, in order of appearance
	Size   int64     `json:"size"`
	Copies int       `json:"copies"`
	Saved  int64     `json:"saved"` // (copies-1) × size
	Where  []string  `json:"where"` // every file: object: container holding a copy, once each
	List   []DupCopy `json:"list"`  // each copy: its name and where it is
	Hash   string    `json:"hash"`  // xxh64 of the code
}

// DupCopy is one copy of a duplicated function.
type DupCopy struct {
	Name    string `json:"name"` // demangled
	Mangled string `json:"mangled"`
	Where   string `json:"where"`
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

func findDuplicates(rep *Report) *Duplicates {
	d := &Duplicates{Kernels: []DupKernel{}, Images: []DupImage{}}
	type ikey struct {
		hash uint64
		size int64
	}
	imgs := map[ikey]*DupImage{}
	var order []ikey
	dupImage := map[*Image]bool{}
	seen := map[ikey]*Image{}
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
				dk := ks[k]
				if dk == nil {
					dk = &DupKernel{Arch: k.arch, Name: fn.Demangled, Size: fn.Size, Hash: fmt.Sprintf("%016x", fn.hash)}
					ks[k] = dk
					korder = append(korder, k)
				}
				where := f.Path + ": " + img.Object + ": " + img.Container
				dk.List = append(dk.List, DupCopy{Name: fn.Demangled, Mangled: fn.Name, Where: where})
				if !slices.Contains(dk.Where, where) {
					dk.Where = append(dk.Where, where)
				}
				if !slices.Contains(dk.Names, fn.Demangled) {
					dk.Names = append(dk.Names, fn.Demangled)
				}
			}
		}
	}
	for _, k := range korder {
		dk := ks[k]
		if len(dk.List) < 2 {
			continue
		}
		dk.Copies = len(dk.List)
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
	withCopies(w, []string{"SAVED", "ARCH", "COPIES", "SIZE", "FIRST COPY"}, r, func(i int) []string { return d.Images[i].Where[1:] })
	if top > 0 && len(d.Images) > top {
		fmt.Fprintf(w, "%d of %d duplicated images; --all for all\n", top, len(d.Images))
	}
	fmt.Fprintf(w, "\nDUPLICATE FUNCTIONS (%d, %d bytes saved by keeping one copy)\n", len(d.Kernels), d.KernelBytesSaved)
	r = nil
	for i, x := range d.Kernels {
		if top > 0 && i >= top {
			break
		}
		r = append(r, []string{fmt.Sprint(x.Saved), x.Arch, fmt.Sprint(x.Copies), fmt.Sprint(x.Size), x.Name})
	}
	// Each group's row, then one line per copy: its name and where.
	withCopies(w, []string{"SAVED", "ARCH", "COPIES", "SIZE", "NAME"}, r, func(i int) []string {
		var out []string
		for _, c := range d.Kernels[i].List {
			out = append(out, c.Name+"  ("+c.Where+")")
		}
		return out
	})
	if top > 0 && len(d.Kernels) > top {
		fmt.Fprintf(w, "%d of %d duplicated functions; --all for all\n", top, len(d.Kernels))
	}
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

// withCopies writes a table whose row i is followed by "    copy: ..."
// lines, one for each of copies(i).
func withCopies(w io.Writer, header []string, rows [][]string, copies func(i int) []string) {
	var buf strings.Builder
	table(&buf, header, rows)
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	fmt.Fprintln(w, lines[0])
	for i, l := range lines[1:] {
		fmt.Fprintln(w, l)
		for _, c := range copies(i) {
			fmt.Fprintf(w, "    copy: %s\n", c)
		}
	}
}
