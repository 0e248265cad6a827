#!/bin/sh
# Regenerates lto.ll: the module ld.lld's LTO (LLVM 22) hands to code
# generation for a 2-file, 6-kernel HIP program built to stress the
# partitioning rules (gen.py: function-pointer tables, an LDS variable used
# from a device function, recursion, template kernels, a local counter
# shared by a file's kernels, __constant__ and local constant tables).
#   sh make.sh    (needs clang-22, lld-22, llvm-22)
set -eu
B=/usr/lib/llvm-22/bin
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp gen.py ../../../internal/driver/linkwrap/testdata/hip/mini_hip.h "$tmp"; cd "$tmp"
python3 gen.py 2 3
for t in 0 1; do
  $B/clang -x hip --offload-new-driver -fgpu-rdc -foffload-lto -nogpuinc -nogpulib --offload-arch=gfx90a -O2 -c tu$t.hip -o tu$t.o
  $B/llvm-objcopy --dump-section=.llvm.offloading=tu$t.off tu$t.o
  $B/llvm-offload-binary tu$t.off --image=file=d$t.o,arch=gfx90a
done
$B/clang --no-default-config --target=amdgcn-amd-amdhsa -mcpu=gfx90a -flto -Wl,--no-undefined d0.o d1.o -o img -Wl,--save-temps
$B/llvm-dis img.0.5.precodegen.bc -o lto.ll
cd - >/dev/null; cp "$tmp/lto.ll" lto.ll
