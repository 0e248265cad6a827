package packager

import (
	"errors"
	"fmt"
	"io"

	"github.com/offload-kit/offload-kit/format/hcf"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
)

// hcfOutputs is extract without filters on a whole-file AdaptiveCpp HCF
// (which holds no OffloadBinary): every node under "images" with a binary
// attachment is written to <stem>.<image>.<ext> (ext from its "format":
// llvm-ir → bc, spirv → spv, ptx → ptx, else bin). An HCF with no
// attachment is an error, never a silent success. ok is false when the
// input is not HCF.
func hcfOutputs(env *Env, in *input, input, stem string) (ok bool, outs []extractOutput, err error) {
	if !looksLikeHCF(in.data[:min(len(in.data), 4096)]) {
		return false, nil, nil
	}
	f, err := hcf.Parse(in.data)
	if err != nil || f.Root == nil {
		return false, nil, nil
	}
	if images := f.Root.Child("images"); images != nil {
		for _, img := range images.Children {
			if !hcf.HasAttachment(img) {
				continue
			}
			data, err := f.Attachment(img)
			if err != nil {
				return true, nil, fmt.Errorf("'%s': image %s: %w", input, img.Name, err)
			}
			fmtName, _ := img.Get("format")
			name := safeName(fmt.Sprintf("%s.%s.%s", stem, img.Name, hcfExt(fmtName)))
			outs = append(outs, extractOutput{name, func() error {
				if err := atomicfile.WriteFile(env.Path(name), env.Stdout, func(w io.Writer) error {
					_, err := w.Write(data)
					return err
				}); err != nil {
					return fmt.Errorf("'%s': %s", name, ErrText(err))
				}
				return nil
			}})
		}
	}
	if len(outs) == 0 {
		return true, nil, fmt.Errorf("'%s': %w", input, errHCFEmpty)
	}
	return true, outs, nil
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
