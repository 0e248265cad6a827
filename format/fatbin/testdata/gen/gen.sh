#!/bin/bash
# Regenerates the CUDA-tool fixtures of format/fatbin/testdata on a machine with
# the CUDA 13.0 toolkit in /usr/local/cuda (the fixtures were made on the lent
# H100 machine, 2026-11-22). Run from this directory: bash gen.sh [OUTDIR]
# Inputs saxpy.linked.cubin, saxpy.cubin and saxpy.ptx are copies of
# shared/testdata/cuda (see ../README.md).
set -ex
out=$(realpath "${1:-..}")
T=/usr/local/cuda/bin
D=..
img_elf="--image3=kind=elf,sm=90,file=$D/saxpy.linked.cubin"
img_ptx="--image3=kind=ptx,sm=90,file=$D/saxpy.ptx"

# ELF uncompressed, PTX compressed (fatbinary compresses PTX by default: zstd).
$T/fatbinary -64 --create=$out/elf_ptx.fatbin $img_elf $img_ptx
# Everything zstd (--compress-mode default, size and balance all give flag 0x8000).
$T/fatbinary -64 --compress-all --create=$out/elf_ptx_zstd.fatbin $img_elf $img_ptx
# Everything LZ4 (flag 0x2000).
$T/fatbinary -64 --compress-all --compress-mode=speed --create=$out/elf_ptx_lz4.fatbin $img_elf $img_ptx
# Nothing compressed.
$T/fatbinary -64 --compress-all --compress-mode=none --create=$out/elf_ptx_mode_none.fatbin $img_elf $img_ptx
# Identifier and ptxas options in the entry header tail.
$T/fatbinary -64 --ident=saxpy_ident --cmdline="-O3" --create=$out/ident_opts.fatbin $img_elf $img_ptx
# Debug flag (0x2); -c sets no entry flag.
$T/fatbinary -64 -g -c --create=$out/debug_devc.fatbin --image3=kind=elf,sm=90,file=$D/saxpy.cubin
# Four LZ4 entries, two archs.
$T/fatbinary -64 --compress-all --compress-mode=speed --create=$out/lz4_multi.fatbin \
  --image3=kind=elf,sm=90,file=$D/saxpy.cubin $img_elf $img_ptx --image3=kind=ptx,sm=80,file=$D/saxpy.ptx
# Host objects: .nv_fatbin (whole program) and __nv_relfatbin (-rdc), each with .nvFatBinSegment.
$T/nvcc -c -gencode arch=compute_80,code=sm_80 -gencode 'arch=compute_90,code=[sm_90,compute_90]' kern.cu -o $out/kern_nvcc.o
$T/nvcc -c -rdc=true -arch=sm_90 kern.cu -o $out/kern_nvcc_rdc.o
# PTX as cuobjdump extracts it (fatbinary strips comments; no trailing NUL).
x=$(mktemp -d); (cd $x && $T/cuobjdump -xptx all $out/lz4_multi.fatbin) && cp $x/lz4_multi.1.sm_90.ptx $out/saxpy.cuobjdump.ptx
