// Package sycldev is the SYCL device-link pipeline shared by sycl-linker
// (whose options, --help and Run it owns; cmd/sycl-linker calls it) and linker-wrapper
// (internal/driver/linkwrap, which runs it in-process for SYCL groups
// instead of "clang --sycl-link", through Link, which returns the images in
// memory): it links SYCL device bitcode (inputs,
// archives, -l libraries, device libraries), splits the linked module with
// package split, lowers specialization constants, writes property sets,
// symbol tables and tables, and generates one SPIR-V image per part through
// the LLVM SPIR-V backend (plus optional AOT). The final output is a
// sequence of OffloadBinaries, one per image.
//
// It sits between split (level 3) and the drivers (level 4). Child
// processes (llvm-link, llvm-dis, llvm-nm, llvm-as, llc, spirv-val, ocloc,
// opencl-aot) run only through Env.Runner.
//
// Reference: docs/formats/sycl.md §10 (clang-sycl-linker 22.1.8) and
// §2 (intel sycl-post-link); docs/sycl-linker.md.
package sycldev
