#!/bin/bash
# Run on the NVIDIA machine (CUDA 13): makes the cubin/fatbin fixtures and
# cuobjdump's view of them. Usage: capture.sh OUTDIR
set -euxo pipefail
OUT=$1
CUDA=${CUDA_PATH:-/usr/local/cuda}
export PATH=$CUDA/bin:$PATH
cd "$(dirname "$0")"
nvcc --version > "$OUT/nvcc-version.txt"
nvcc -arch=sm_90 -O2 -cubin -Xptxas -v -o "$OUT/kernels-sm90-nvcc13.cubin" kernels.cu 2> "$OUT/ptxas-v.txt"
nvcc -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -O2 -fatbin \
  -o "$OUT/kernels-sm90-nvcc13.fatbin" kernels.cu
cuobjdump -res-usage "$OUT/kernels-sm90-nvcc13.cubin" > "$OUT/cuobjdump-res-usage.txt"
cuobjdump -elf "$OUT/kernels-sm90-nvcc13.cubin" > "$OUT/cuobjdump-elf.txt"
cuobjdump -res-usage "$OUT/kernels-sm90-nvcc13.fatbin" > "$OUT/cuobjdump-res-usage-fatbin.txt"
cuobjdump -lelf -lptx "$OUT/kernels-sm90-nvcc13.fatbin" > "$OUT/cuobjdump-list-fatbin.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/gpu.txt" || true
