#!/usr/bin/env bash
# Step 2 of the CUDA end-to-end check, on the GPU machine (CUDA 13: ptxas,
# nvlink, fatbinary, libcudart, g++; no clang). offload-kit's linker-wrapper
# links the device code of the fat objects without clang (ptxas -c, nvlink,
# fatbinary), emits the CUDA registration object natively, and runs the host
# link; the programs must print "saxpy err=0" and "hits=4096 status=0".
set -uo pipefail
cd "$(dirname "$0")"
CUDA=${CUDA_PATH:-/usr/local/cuda}
export PATH=$CUDA/bin:$PATH
cat > gxx-link <<EOS
#!/bin/sh
exec g++ "\$@" -L$CUDA/lib64 -L$CUDA/lib64/stubs -lcudart -Wl,-rpath,$CUDA/lib64
EOS
chmod +x gxx-link
echo "== machine"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ptxas --version | tail -1
W=(bin/linker-wrapper --host-triple=x86_64-unknown-linux-gnu --linker-path="$PWD/gxx-link" --cuda-path="$CUDA" --wrapper-verbose)
rc=0
echo "== link saxpy"
"${W[@]}" -o saxpy saxpy.fat.o || rc=1
echo "== run saxpy"; ./saxpy || rc=1
echo "== link rdc"
"${W[@]}" -o rdc rdc_main.fat.o rdc_lib.fat.o || rc=1
echo "== run rdc"; ./rdc || rc=1
# Objects compiled by clang 19 (older entry layout, cuda_offloading_entries):
# the wrapper must settle LLVM 19 from them (no clang runs here) and register
# every kernel and variable, or the runs fail with "invalid device symbol".
echo "== link saxpy (clang 19 objects)"
"${W[@]}" -o saxpy19 saxpy.19.fat.o || rc=1
echo "== run saxpy (clang 19 objects)"; ./saxpy19 || rc=1
echo "== link rdc (clang 19 objects)"
"${W[@]}" -o rdc19 rdc_main.19.fat.o rdc_lib.19.fat.o || rc=1
echo "== run rdc (clang 19 objects)"; ./rdc19 || rc=1
echo "== dump"; bin/offload-packager dump --all saxpy rdc saxpy19 rdc19
echo "== result rc=$rc"
exit $rc
