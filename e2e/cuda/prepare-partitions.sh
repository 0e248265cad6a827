#!/usr/bin/env bash
# Partitioned device links (issue 27, docs/partitions.md), step 1, on the
# development machine: clang 22 compiles parts_a.cu and parts_b.cu with
# -foffload-lto for sm_80 and sm_90, and the programs are linked here:
# parts-3, parts-8 and parts-auto by offload-kit's linker-wrapper in 3, 8 and auto
# (32, the empty ones left out) parts (LTO
# in libLLVM, ptxas -c per part, nvlink), parts-whole by LLVM 22's
# clang-linker-wrapper (clang-nvlink-wrapper: LTO, ptxas, nvlink). ptxas,
# nvlink, fatbinary and libcudart are NVIDIA's CUDA 13.5 wheels that make
# deps unpacks; the CUDA installation clang needs to pick the PTX version
# is made from them. Step 2 (run-partitions.sh) runs the programs on the GPU.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
LLVM=${LLVM:-/usr/lib/llvm-22/bin}
NV=/opt/offload-kit/cuda-13.5.37/nvidia/cu13
OUT=out-partitions
rm -rf "$OUT"; mkdir -p "$OUT/bin"
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "e2e/cuda/$OUT/bin/" ./cmd/offload-packager ./cmd/linker-wrapper)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
CUDA=$tmp/cuda
mkdir -p "$CUDA/include" "$CUDA/nvvm/libdevice"
ln -s "$NV/bin" "$CUDA/bin"
echo '{"cuda":{"name":"CUDA SDK","version":"12.8.0"}}' > "$CUDA/version.json"
echo '#define CUDA_VERSION 12080' > "$CUDA/include/cuda.h"
: > "$CUDA/nvvm/libdevice/libdevice.10.bc"
F=(-x cuda --offload-new-driver -fgpu-rdc -foffload-lto -nocudainc -nocudalib "--cuda-path=$CUDA" -Xclang -target-sdk-version=12.8 -O2 --offload-arch=sm_80 --offload-arch=sm_90)
for s in parts_a parts_b; do "$LLVM/clang++" "${F[@]}" -c $s.cu -o "$OUT/$s.o"; done
# the host link: g++ with NVIDIA's libcudart; at run time the GPU machine's own
cat > "$tmp/gxx-link" <<EOS
#!/bin/sh
exec g++ "\$@" -L$NV/lib -l:libcudart.so.13 -Wl,-rpath,/usr/local/cuda/lib64
EOS
chmod +x "$tmp/gxx-link"
W=(--host-triple=x86_64-unknown-linux-gnu "--linker-path=$tmp/gxx-link" "--cuda-path=$CUDA")
for n in 3 8 auto; do
  "$OUT/bin/linker-wrapper" "${W[@]}" --device-partitions=$n --wrapper-verbose -o "$OUT/parts-$n" "$OUT/parts_a.o" "$OUT/parts_b.o" 2>&1 | grep -E 'device link|error' || true
  test -x "$OUT/parts-$n"
done
"$LLVM/clang-linker-wrapper" "${W[@]}" "--device-compiler=nvptx64-nvidia-cuda=--cuda-path=$CUDA" -o "$OUT/parts-whole" "$OUT/parts_a.o" "$OUT/parts_b.o"
for p in parts-3 parts-8 parts-auto parts-whole; do
  "$OUT/bin/offload-packager" kernels --top 5 "$OUT/$p" > "$OUT/$p.kernels.txt"
done
cp run-partitions.sh "$OUT/"
echo "prepare-partitions: programs in $(pwd)/$OUT"
