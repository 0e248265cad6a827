#!/usr/bin/env bash
# Step 1 of the CUDA end-to-end check, on the development machine (clang 22,
# no CUDA): device code to PTX, host code to objects carrying offload
# entries, then offload-kit packages the PTX and embeds it into the host
# objects, giving fat objects. Everything the GPU machine needs lands in
# e2e/cuda/out/ (static binaries included).
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
CLANG=${CLANG:-/usr/lib/llvm-22/bin/clang++}
OUT=out
rm -rf "$OUT"; mkdir -p "$OUT/bin"
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "e2e/cuda/$OUT/bin/" ./cmd/offload-packager ./cmd/linker-wrapper)
P="$OUT/bin/offload-packager"
F=(-x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --offload-arch=sm_90 -Xclang -target-sdk-version=12.8 -O2)
for s in saxpy rdc_main rdc_lib; do
  "$CLANG" "${F[@]}" --cuda-device-only -Xclang -target-feature -Xclang +ptx80 -S $s.cu -o "$OUT/$s.s"
  "$CLANG" "${F[@]}" --cuda-host-only -c $s.cu -o "$OUT/$s.host.o"
  # Package the PTX (the ".s" extension gives image kind PTX) and embed it: a fat object.
  "$P" create -o "$OUT/$s.pkg" "--image=file=$OUT/$s.s,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda"
  "$P" embed -o "$OUT/$s.fat.o" "$OUT/$s.host.o" "$OUT/$s.pkg"
  "$P" dump "$OUT/$s.fat.o"
done
# The same programs compiled by clang 19 (issue 21): its host objects carry
# the older 32-byte entries in cuda_offloading_entries. Here clang 19's own
# tools make the fat objects (clang-offload-packager-19, and clang's
# -fembed-offload-object as its driver passes it), so nothing of ours is in
# them; the GPU machine's linker-wrapper must recognise LLVM 19 from them.
CLANG19=${CLANG19:-/usr/lib/llvm-19/bin/clang++}
P19=/usr/lib/llvm-19/bin/clang-offload-packager
F19=(-x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --offload-arch=sm_90 -Xclang -target-sdk-version=12.3 -O2)
for s in saxpy rdc_main rdc_lib; do
  "$CLANG19" "${F19[@]}" --cuda-device-only -Xclang -target-feature -Xclang +ptx80 -S $s.cu -o "$OUT/$s.19.s" 2>/dev/null
  "$P19" -o "$OUT/$s.19.pkg" "--image=file=$OUT/$s.19.s,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda"
  "$CLANG19" "${F19[@]}" --cuda-host-only -c $s.cu -Xclang -fembed-offload-object="$OUT/$s.19.pkg" -o "$OUT/$s.19.fat.o" 2>/dev/null
  "$P" dump "$OUT/$s.19.fat.o"
done
cp run.sh "$OUT/"
echo "prepare: fat objects and tools in $(pwd)/$OUT"
