package packager

import (
	"errors"
	"fmt"
	"io"

	"github.com/offload-kit/offload-kit/format/hcf"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
)

// extractHCF is extract without filters on a whole-file AdaptiveCpp HCF
// (which holds no OffloadBinary): every node under "images" with a binary
// attachment is written to <stem>.<image>.<ext> (ext from its "format":
// llvm-ir → bc, spirv → spv, ptx → ptx, else bin) and its name printed.
// An HCF with no attachment is an error, never a silent success.
// ok is false when the input is not HCF.
func extractHCF(env *Env, in *input, input, stem string) (ok bool, err error) {
	if !looksLikeHCF(in.data[:min(len(in.data), 4096)]) {
		return false, nil
	}
	f, err := hcf.Parse(in.data)
	if err != nil || f.Root == nil {
		return false, nil
	}
	images := f.Root.Child("images")
	n := 0
	if images != nil {
		for _, img := range images.Children {
			if !hcf.HasAttachment(img) {
				continue
			}
			data, err := f.Attachment(img)
			if err != nil {
				return true, fmt.Errorf("'%s': image %s: %w", input, img.Name, err)
			}
			fmtName, _ := img.Get("format")
			name := safeName(fmt.Sprintf("%s.%s.%s", stem, img.Name, hcfExt(fmtName)))
			if err := atomicfile.WriteFile(env.Path(name), env.Stdout, func(w io.Writer) error {
				_, err := w.Write(data)
				return err
			}); err != nil {
				return true, fmt.Errorf("'%s': %s", name, errText(err))
			}
			fmt.Fprintf(env.Stdout, "Extracted: %s\n", name)
			n++
		}
	}
	if n == 0 {
		return true, fmt.Errorf("'%s': %w", input, errHCFEmpty)
	}
	return true, nil
}

var errHCFEmpty = errors.New("HCF file: no image under \"images\" has a binary attachment; nothing to extract")

func hcfExt(format string) string {
	switch format {
	case "llvm-ir":
		return "bc"
	case "spirv":
		return "spv"
	case "ptx":
		return "ptx"
	}
	return "bin"
}
