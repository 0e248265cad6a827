package linkwrap

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/run"
)

const emCUDA = 190

// isCUDAELF reports an ELF image for EM_CUDA (a cubin).
func isCUDAELF(b []byte) bool {
	if len(b) < 20 || string(b[:4]) != "\x7fELF" {
		return false
	}
	if b[5] == 2 {
		return binary.BigEndian.Uint16(b[18:]) == emCUDA
	}
	return binary.LittleEndian.Uint16(b[18:]) == emCUDA
}

// nativeCUDA reports whether an nvptx group can be linked with the CUDA
// toolkit alone: every input is PTX or a relocatable cubin (bitcode needs
// clang's LTO).
func nativeCUDA(g *group) bool {
	if !isNVPTX(g.key.triple) || len(g.inputs) == 0 {
		return false
	}
	for _, in := range g.inputs {
		switch {
		case in.bin.ImageKind == format.ImgPTX:
		case in.bin.ImageKind == format.ImgCubin:
		case in.bin.ImageKind == format.ImgObject && isCUDAELF(in.bin.Image):
		default:
			return false
		}
	}
	return true
}

// linkCUDANative links an nvptx group without clang: each PTX input is
// assembled to a relocatable cubin with "ptxas -c", then all cubins are
// linked with nvlink into the image. Both tools come from --cuda-path/bin,
// then PATH.
func (d *driver) linkCUDANative(ctx context.Context, g *group, img string) error {
	ptxas, err := d.findCUDATool("ptxas")
	if err != nil {
		return err
	}
	nvlink, err := d.findCUDATool("nvlink")
	if err != nil {
		return err
	}
	bits := "-m64"
	if tripleArch(g.key.triple) == "nvptx" {
		bits = "-m32"
	}
	arch := g.key.arch
	var cubins []string
	for _, in := range g.inputs {
		if in.bin.ImageKind != format.ImgPTX {
			cubins = append(cubins, in.path)
			continue
		}
		stem := strings.TrimSuffix(filepath.Base(in.path), filepath.Ext(in.path))
		out, err := d.work.Name(stem, "cubin")
		if err != nil {
			return err
		}
		args := []string{ptxas, bits, "-O3", "--gpu-name", arch, "--output-file", out, in.path, "-c"}
		if err := d.runner.Run(ctx, &run.Cmd{Args: args, Stdout: d.env.Stderr, Stderr: d.env.Stderr}); err != nil {
			return err
		}
		cubins = append(cubins, out)
	}
	args := []string{nvlink, bits, "-o", img, "-arch", arch}
	args = append(args, cubins...)
	args = append(args, d.opt.LinkerArgs...)
	args = append(args, deviceValues(d.opt.DeviceLinker, g.key.triple)...)
	return d.runner.Run(ctx, &run.Cmd{Args: args, Stdout: d.env.Stderr, Stderr: d.env.Stderr})
}
