#!/bin/bash
# Manual CUDA check on a GPU machine (CUDA toolkit, g++, no clang), as run on an
# H100 with CUDA 13 on 2026-11-22: prints "saxpy err=0 status=0" and
# "rdc err=0.00263 hits=4096 status=0".
#
# Preparation on the development machine (clang 22, no CUDA), in an empty dir $W,
# with R the repository root:
#   E=$R/e2e/cuda
#   F="-x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --offload-arch=sm_90 \
#      -Xclang -target-sdk-version=12.8 -O2 -I$E"
#   for n in saxpy rdc_main rdc_lib; do
#     cp $R/internal/driver/linkwrap/testdata/cuda/$n.ptx $n.s
#     llvm-offload-binary -o $n.pkg --image=file=$n.s,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda
#     clang++-22 $F --cuda-host-only -c $E/$n.cu -Xclang -fembed-offload-object=$n.pkg -o $n.fat.o
#   done
#   (cd $R && CGO_ENABLED=0 go build -o $W/linker-wrapper ./cmd/linker-wrapper)
# then copy $W and this script to the GPU machine and run it there.
cd "$(dirname "$0")"
CUDA=${CUDA:-/usr/local/cuda}
LIB=$CUDA/lib64
set -ex
./linker-wrapper --wrapper-verbose --cuda-path=$CUDA --host-triple=x86_64-unknown-linux-gnu --linker-path=/usr/bin/g++ \
  -o saxpy saxpy.fat.o -L$LIB -lcudart -Wl,-rpath,$LIB
./saxpy
./linker-wrapper --wrapper-verbose --save-temps --cuda-path=$CUDA --host-triple=x86_64-unknown-linux-gnu --linker-path=/usr/bin/g++ \
  -o rdc rdc_main.fat.o rdc_lib.fat.o -L$LIB -lcudart -Wl,-rpath,$LIB
./rdc
