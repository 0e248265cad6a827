#!/bin/sh
# Regenerates the fixtures in this directory with LLVM 22.1.8
# (Debian clang version 22.1.8 (1~deb12u1)). Run from this directory.
set -eu
B=${LLVM_BIN:-/usr/lib/llvm-22/bin}
T=x86_64-unknown-linux-gnu

# Device object and two offload packages.
$B/clang -c --target=$T -O1 dev.c -o dev.o
$B/llvm-offload-binary -o pkg-openmp.out --image=file=dev.o,triple=$T,arch=generic,kind=openmp
$B/llvm-offload-binary -o pkg-sycl.out --image=file=dev.c,triple=spirv64-unknown-unknown,arch=generic,kind=sycl

# Host bitcode with one and two packages (full LTO, thin LTO, plain -emit-llvm).
$B/clang -c --target=$T -flto -Xclang -fembed-offload-object=pkg-openmp.out host.c -o host-one-flto.bc
$B/clang -c --target=$T -flto -Xclang -fembed-offload-object=pkg-openmp.out \
    -Xclang -fembed-offload-object=pkg-sycl.out lib.c -o lib-two-flto.bc
$B/clang -c --target=$T -flto=thin -Xclang -fembed-offload-object=pkg-sycl.out host.c -o host-one-thinlto.bc
$B/clang -c --target=$T -emit-llvm -Xclang -fembed-offload-object=pkg-openmp.out host.c -o host-one-emitllvm.bc

# Darwin: bitcode behind the 0x0B17C0DE wrapper header.
$B/clang -c --target=x86_64-apple-darwin -flto -Xclang -fembed-offload-object=pkg-openmp.out host.c -o host-one-darwin.bc

# llvm-link of the one- and two-package modules: three objects.
$B/llvm-link host-one-flto.bc lib-two-flto.bc -o linked.bc

# A real OpenMP offload compile (new driver); its package is checked
# against llvm-dis output in the test.
$B/clang -c --target=$T -fopenmp -fopenmp-targets=$T -flto omp.c -o omp-x86_64.bc

# Debug info (many DI metadata codes) with an embedded package.
$B/clang++ -c --target=$T -g -O1 -flto -Xclang -fembed-offload-object=pkg-sycl.out debug.cpp -o debug-g-flto.bc

# Two modules in one file (llvm-cat -b): LLVM rejects it, so do we.
$B/llvm-cat -b -o two-modules.bc host-one-flto.bc lib-two-flto.bc

# Hand-written IR.
for f in none several nometa; do $B/llvm-as $f.ll -o $f.bc; done

# irsymtab fixture: opt (unlike llvm-as) has the targets' asm parsers, so
# it writes an irsymtab even with module asm. Keep the relative path: it
# is the table's source file name.
$B/opt symtab/kinds.ll -o symtab/kinds.bc
rm -f dev.o
