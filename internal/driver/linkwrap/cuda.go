package linkwrap

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/format"
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
	if !g.key.target().IsNVPTX() || len(g.inputs) == 0 {
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

// cudaJob links an nvptx group without clang: each PTX input is
// assembled to a relocatable cubin with "ptxas -c", then all cubins are
// linked with nvlink into the image. Both tools are found by findCUDATool.
func (d *driver) cudaJob(ctx context.Context, g *group, img string) (*linkJob, error) {
	ptxas, err := d.findCUDATool(ctx, "ptxas")
	if err != nil {
		return nil, err
	}
	nvlink, err := d.findCUDATool(ctx, "nvlink")
	if err != nil {
		return nil, err
	}
	bits := "-m64"
	if !g.key.target().Is64Bit() {
		bits = "-m32"
	}
	arch := g.key.arch
	job := &linkJob{g: g, img: img, trace: "NVPTX linker"}
	var cubins []string
	for _, in := range g.inputs {
		if in.bin.ImageKind != format.ImgPTX {
			cubins = append(cubins, in.path)
			continue
		}
		stem := strings.TrimSuffix(filepath.Base(in.path), filepath.Ext(in.path))
		out, err := d.work.Name(stem, "cubin")
		if err != nil {
			return nil, err
		}
		job.steps = append(job.steps, []string{ptxas, bits, "-O3", "--gpu-name", arch, "--output-file", out, in.path, "-c"})
		job.temps = append(job.temps, out)
		cubins = append(cubins, out)
	}
	args := []string{nvlink, bits, "-o", img, "-arch", arch}
	args = append(args, cubins...)
	args = append(args, d.opt.LinkerArgs...)
	args = append(args, deviceValues(d.opt.DeviceLinker, g.key.triple, d.rel().DeviceValuesByArch())...)
	job.steps = append(job.steps, args)
	return job, nil
}
