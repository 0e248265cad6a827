#!/usr/bin/env bash
# Links a real OpenMP offload program through offload-kit's tools (clang 22
# finds our llvm-offload-binary and clang-linker-wrapper through -B), runs
# it, and dumps the fat object and the executable.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/bin
CLANG=/usr/lib/llvm-22/bin/clang
OUT=build/demo
rm -rf "$OUT"; mkdir -p "$OUT"
F=(-fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -B"$BIN" -O2)
# Show that clang picks our tools from -B.
echo "clang uses:"; "$CLANG" "${F[@]}" -c examples/openmp/main.c -o /dev/null -### 2>&1 | grep -o '"[^"]*llvm-offload-binary"' | sort -u
"$CLANG" "${F[@]}" examples/openmp/main.c -o /dev/null -### 2>&1 | grep -o '"[^"]*clang-linker-wrapper"' | sort -u
set -x
"$CLANG" "${F[@]}" -c examples/openmp/main.c -o "$OUT/main.o"
"$CLANG" "${F[@]}" -c examples/openmp/scale.c -o "$OUT/scale.o"
"$CLANG" "${F[@]}" "$OUT/main.o" "$OUT/scale.o" -o "$OUT/app"
"$OUT/app"
"$BIN/offload-packager" dump "$OUT/main.o" "$OUT/app"
"$BIN/offload-packager" dump --all "$OUT/app"
