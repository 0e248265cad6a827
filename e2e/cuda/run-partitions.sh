#!/usr/bin/env bash
# Partitioned device links, step 2, on the GPU machine (CUDA 13's
# libcudart): the programs prepare-partitions.sh linked in 3, 8 and 32 parts
# and whole run; each must print "parts bad=0 ... status=0".
set -uo pipefail
cd "$(dirname "$0")"
CUDA=${CUDA_PATH:-/usr/local/cuda}
export LD_LIBRARY_PATH=$CUDA/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "== machine"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rc=0
for p in parts-whole parts-3 parts-8 parts-auto; do
  echo "== run $p"; ./$p || rc=1
done
echo "== kernels of the 3-part program"; bin/offload-packager kernels --all parts-3 | head -40
echo "== result rc=$rc"
exit $rc
