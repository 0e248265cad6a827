#!/usr/bin/env bash
# Installs only what is missing for building, testing and the demo:
# the LLVM 22 oracle and runtimes (Debian packages) and the Go modules.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
#
# Every file outside the repository that a test reads or runs, and the package that
# ships it (audited with `dpkg -S`; anything else a test reads is under testdata/ or
# made by the test in a temporary directory):
#   clang-22        /usr/lib/llvm-22/bin/{clang,clang++,clang-22}; clang's resource headers
#   clang-tools-22  /usr/lib/llvm-22/bin/{clang-offload-bundler,clang-offload-packager,
#                   clang-linker-wrapper,clang-sycl-linker} (the oracles)
#   llvm-22         /usr/lib/llvm-22/bin/{llvm-offload-binary,llvm-offload-wrapper,llvm-objdump,
#                   llvm-readelf,llvm-readobj,llvm-nm,llvm-ar,llvm-objcopy,llvm-as,llvm-dis,
#                   llvm-link,llvm-bcanalyzer,llvm-cat,llvm-cxxfilt,llvm-dwarfdump,llvm-split,
#                   llvm-stress,llc,opt}
#   libllvm22       /usr/lib/x86_64-linux-gnu/libLLVM.so.22.1 (TestCompressionSizeOnCode and the
#                   other bundler compression tests read it as real code; llvm-22 depends on it,
#                   named here because a test reads it; /usr/lib/llvm-22/lib/libLLVM.so.22.1 is
#                   only a link from llvm-22-dev and is not used)
#   lld-22          /usr/lib/llvm-22/bin/{ld.lld,lld,lld-link}
#   libomp-22-dev   /usr/lib/llvm-22/lib/libomp.so (OpenMP end-to-end links and runs)
#   liboffload-22   /usr/lib/llvm-22/lib/{libomptarget.so.22.1,libLLVMOffload.so.22.1} (OpenMP
#                   offload programs run on the host device)
#   liboffload-22-dev  /usr/lib/llvm-22/lib/libomptarget.so (the link -lomptarget resolves)
#   spirv-tools     /usr/bin/{spirv-val,spirv-dis}
#   gcc, g++        /usr/bin/{gcc,g++} and binutils' ld/ar/readelf (host objects, links)
#   make            /usr/bin/make (e2e/ programs, and make install/deb)
#   nginx           /usr/sbin/nginx (the remote-cache test; OFFLOAD_KIT_REQUIRE_NGINX=1 in CI)
#   zstd, libzstd-dev  /usr/bin/zstd (high compression levels, decoder cross-checks)
#   gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user
#                   /usr/bin/aarch64-linux-gnu-gcc, /usr/aarch64-linux-gnu/lib, /usr/bin/qemu-aarch64
#                   (registration code run on a second architecture)
#   git             /usr/bin/git (.ci/run and the fresh-clone check clone HEAD)
#   dpkg (essential) /usr/bin/dpkg-deb, /usr/bin/dpkg (make deb and its install test)
#   groff-base      /usr/bin/groff (the install tests render every man page, warnings fail)
#   bash-completion /usr/share/bash-completion/bash_completion (the completion test
#                   sources it before offload-packager's, as a user's shell does)
#   always present: /bin/sh, /dev/null, /dev/zero, /dev/shm, /proc/{self/maps,cpuinfo,loadavg},
#                   /etc/passwd (a file the hardening tests must not be able to write)
PKGS=(clang-22 clang-tools-22 llvm-22 lld-22 libomp-22-dev liboffload-22 liboffload-22-dev spirv-tools gcc g++ make nginx zstd libzstd-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libllvm22 git groff-base bash-completion)
# librocrand1       /usr/lib/x86_64-linux-gnu/librocrand.so.1.1 (Debian's ROCm 5 rocRAND, 24 MB: a
#                   real third-party .hip_fatbin the packager's corpus tests dump, list and
#                   extract against llvm-objdump and clang-offload-bundler)
PKGS+=(librocrand1)
# pocl-opencl-icd, ocl-icd-opencl-dev, llvm-spirv-15
#                   /usr/lib/x86_64-linux-gnu/libOpenCL.so, CL/cl.h, pocl's CPU device,
#                   /usr/bin/llvm-spirv-15 (the SYCL images really run: linkwrap's
#                   TestSYCLRunsOnPocl translates each image to SPIR bitcode and runs it)
PKGS+=(pocl-opencl-icd ocl-icd-opencl-dev llvm-spirv-15)
# chromium          /usr/bin/chromium (headless: the packager's TestKernelsTreemapInChromium renders
#                   kernels --html pages with --dump-dom and --screenshot and reads the DOM's
#                   data-rendered/data-error and labels, and the PNG)
PKGS+=(chromium)
# wine64 (libwine comes with it)
#                   /usr/lib/wine/wine64 (the loader: Debian's wine package, not installed, would add
#                   /usr/bin/wine), /usr/lib/wine/wineserver{,64}, /usr/lib/x86_64-linux-gnu/wine
#                   (wine's builtin DLLs): linkwrap's TestWindowsProgramsUnderWine runs the Windows
#                   (x86_64-pc-windows-msvc, lld-link) programs linked by LLVM's clang-linker-wrapper
#                   and by ours; it also uses llvm-22's llvm-lib and llvm-dlltool and lld-22's lld-link
PKGS+=(wine64)
# clang-16, clang-tools-16, lld-16, llvm-16, clang-19, clang-tools-19, lld-19, llvm-19
#                   /usr/lib/llvm-{16,19}/bin/{clang,clang++,clang-linker-wrapper,clang-offload-packager,
#                   clang-offload-bundler,ld.lld,llvm-*} (each older release's own tools are the
#                   oracle for its clang: the release matrix, issue 21)
PKGS+=(clang-16 clang-tools-16 lld-16 llvm-16 clang-19 clang-tools-19 lld-19 llvm-19)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# libomp-N-dev and libomp5-N (N = 16, 19) conflict with libomp-22-dev, so they are not
# installed but unpacked under /opt/offload-kit/runtimes/llvm-N (apt-get download, dpkg-deb -x):
#   /opt/offload-kit/runtimes/llvm-N/usr/lib/llvm-N/lib/{libomp.so,libomptarget.so*,
#   libomptarget.rtl.*.so*,libomptarget.devicertl.a,libomptarget-amdgpu-*.bc}
#   (internal/testutil/llvmtools.RuntimeLib; programs linked by clang-N run against it)
RT=/opt/offload-kit/runtimes
for n in 16 19; do
  [ -e "$RT/llvm-$n/usr/lib/llvm-$n/lib/libomptarget.so" ] && continue
  echo "install-deps: unpacking LLVM $n's OpenMP runtime into $RT/llvm-$n"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  tmp=$(mktemp -d)
  (cd "$tmp" && chmod 777 . && apt-get download -qq "libomp-$n-dev" "libomp5-$n" >/dev/null 2>&1) ||
    { $SUDO apt-get update -qq && (cd "$tmp" && apt-get download -qq "libomp-$n-dev" "libomp5-$n" >/dev/null 2>&1); }
  $SUDO mkdir -p "$RT/llvm-$n.tmp"
  for f in "$tmp"/*.deb; do $SUDO dpkg-deb -x "$f" "$RT/llvm-$n.tmp"; done
  $SUDO rm -rf "$RT/llvm-$n" && $SUDO mv "$RT/llvm-$n.tmp" "$RT/llvm-$n"
  rm -rf "$tmp"
done
# wheel DEST NAME==VERSION SHA256 [MEMBER ...]: NVIDIA's wheel NAME==VERSION from PyPI, checked
# against SHA256, unpacked under DEST (only the MEMBERs, when given).
wheel() {
  local dest=$1 spec=$2 sum=$3; shift 3
  local SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  local tmp; tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" "$spec"
  echo "$sum  $(ls "$tmp"/*.whl)" | sha256sum -c --quiet
  $SUDO rm -rf "$dest.tmp" && $SUDO mkdir -p "$dest.tmp"
  $SUDO python3 - "$tmp"/*.whl "$dest.tmp" "$@" <<'PY'
import sys, zipfile
whl, dest, members = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(whl) as z:
    z.extractall(dest, members or None)
PY
  $SUDO chmod -R a+rX "$dest.tmp"
  $SUDO rm -rf "$dest" && $SUDO mv "$dest.tmp" "$dest"
  rm -rf "$tmp"
}
# NVIDIA's CUDA 13.5 host tools (ptxas, fatbinary, nvlink, cuobjdump), from NVIDIA's wheels on
# PyPI (nvidia-cuda-nvcc and nvidia-cuda-cuobjdump 13.5.37, sha256-pinned), unpacked under
# /opt/offload-kit/cuda-13.5.37/nvidia/cu13/bin (internal/testutil/cudatools): tests make
# cubins and (compressed) fatbins at test time and compare with cuobjdump -res-usage/-xelf.
# They run on the host: no GPU, no driver. (nvcc itself needs cicc, which these wheels lack.)
CUDA=/opt/offload-kit/cuda-13.5.37
if [ ! -x "$CUDA/nvidia/cu13/bin/cuobjdump" ] || [ ! -x "$CUDA/nvidia/cu13/bin/ptxas" ]; then
  echo "install-deps: unpacking NVIDIA's CUDA 13.5.37 host tools into $CUDA"
  wheel "$CUDA" nvidia-cuda-nvcc==13.5.37 f5c4f7ead5d964fb4af42bbf1e6d3ec3c1e6e9d83b53749f691d387e7fcaa3a7
  wheel "$CUDA.cuobjdump" nvidia-cuda-cuobjdump==13.5.37 38780fee50863252a0b8926357faa91615ca1c8346490563f33a06100cd73f58
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO mv "$CUDA.cuobjdump/nvidia/cu13/bin/cuobjdump" "$CUDA/nvidia/cu13/bin/" && $SUDO rm -rf "$CUDA.cuobjdump"
  $SUDO chmod a+x "$CUDA"/nvidia/cu13/bin/*
fi
# NVIDIA's CUDA runtime library of the same release (nvidia-cuda-runtime 13.5.37, sha256-pinned):
# only libcudart.so.13, into $CUDA/nvidia/cu13/lib, so that CUDA programs link here (e2e/cuda
# links them here and runs them on a GPU machine, which brings its own libcudart).
if [ ! -f "$CUDA/nvidia/cu13/lib/libcudart.so.13" ]; then
  echo "install-deps: unpacking NVIDIA's CUDA 13.5.37 runtime library into $CUDA"
  wheel "$CUDA.cudart" nvidia-cuda-runtime==13.5.37 df2b79a8852f10d1fef8c848489c49eebb5754051bf870202a862831412b179d nvidia/cu13/lib/libcudart.so.13
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO mkdir -p "$CUDA/nvidia/cu13/lib" && $SUDO mv "$CUDA.cudart/nvidia/cu13/lib/libcudart.so.13" "$CUDA/nvidia/cu13/lib/" && $SUDO rm -rf "$CUDA.cudart"
fi
# Two releases of NVIDIA's cuRAND for CUDA 13 (PyPI nvidia-curand 10.4.0.35 and 10.4.5.25,
# sha256-pinned): only /opt/offload-kit/curand-<version>/nvidia/cu13/lib/libcurand.so.10 is kept,
# third-party fat binaries with compressed entries for kernels diff (TestKernelsCurandReleases).
for cr in 10.4.0.35:1aee33a5da6e1db083fe2b90082def8915f30f3248d5896bcec36a579d941bfc \
          10.4.5.25:22bb226a857e5888fe6b54ae465fc4371296bcff13a35f79e19691bcf454f529; do
  v=${cr%%:*}
  [ -f "/opt/offload-kit/curand-$v/nvidia/cu13/lib/libcurand.so.10" ] && continue
  echo "install-deps: unpacking NVIDIA's cuRAND $v into /opt/offload-kit/curand-$v"
  wheel "/opt/offload-kit/curand-$v" "nvidia-curand==$v" "${cr#*:}" nvidia/cu13/lib/libcurand.so.10
done
# A third-party CUDA build: ggml's CUDA backend from the npm package
# @node-llama-cpp/linux-x64-cuda 3.22.1 (MIT; 143 MB download, sha256-pinned): only
# /opt/offload-kit/thirdparty/ggml-cuda-3.22.1/{libggml-cuda.so,LICENSE} are kept
# (159 MB; 1001 zstd-compressed fatbin entries). Tests compare our listing, extract and
# kernels report with cuobjdump's (internal/testutil/cudatools.GGML).
GGML=/opt/offload-kit/thirdparty/ggml-cuda-3.22.1
if [ ! -f "$GGML/libggml-cuda.so" ]; then
  echo "install-deps: fetching ggml's CUDA build (npm @node-llama-cpp/linux-x64-cuda 3.22.1) into $GGML"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  tmp=$(mktemp -d)
  curl -sSfL --retry 3 -o "$tmp/p.tgz" https://registry.npmjs.org/@node-llama-cpp/linux-x64-cuda/-/linux-x64-cuda-3.22.1.tgz
  echo "d6cd3ff39a43b024816952e0bc6452d6711608d26256ff6eb0fe8cf7ff55bb2c  $tmp/p.tgz" | sha256sum -c --quiet
  tar -C "$tmp" -xzf "$tmp/p.tgz" package/bins/linux-x64-cuda/libggml-cuda.so package/LICENSE
  $SUDO mkdir -p "$GGML.tmp"
  $SUDO mv "$tmp/package/bins/linux-x64-cuda/libggml-cuda.so" "$tmp/package/LICENSE" "$GGML.tmp/"
  $SUDO chmod -R a+rX "$GGML.tmp"
  $SUDO rm -rf "$GGML" && $SUDO mv "$GGML.tmp" "$GGML"
  rm -rf "$tmp"
fi
# A second rocRAND release: Debian 13 (trixie)'s librocrand1 5.7.1-6 (sha256-pinned), unpacked
# under /opt/offload-kit/rocrand-5.7.1 (usr/lib/x86_64-linux-gnu/librocrand.so.1.1): with bookworm's
# 5.3.3 above, the two releases kernels diff compares (TestKernelsRocrandReleases).
ROCRAND57=/opt/offload-kit/rocrand-5.7.1
if [ ! -f "$ROCRAND57/usr/lib/x86_64-linux-gnu/librocrand.so.1.1" ]; then
  echo "install-deps: unpacking Debian 13's librocrand1 5.7.1-6 into $ROCRAND57"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  tmp=$(mktemp -d)
  curl -sSfL --retry 3 -o "$tmp/r.deb" http://deb.debian.org/debian/pool/main/r/rocrand/librocrand1_5.7.1-6_amd64.deb ||
    curl -sSfL --retry 3 -o "$tmp/r.deb" https://snapshot.debian.org/archive/debian/20250520T000000Z/pool/main/r/rocrand/librocrand1_5.7.1-6_amd64.deb
  echo "238510600e4bed0224bb8c699fbcd9a414a800df7d1d05c11aac9097cda2ec8f  $tmp/r.deb" | sha256sum -c --quiet
  $SUDO rm -rf "$ROCRAND57.tmp" && $SUDO dpkg-deb -x "$tmp/r.deb" "$ROCRAND57.tmp"
  $SUDO rm -rf "$ROCRAND57" && $SUDO mv "$ROCRAND57.tmp" "$ROCRAND57"
  rm -rf "$tmp"
fi
# BuildGrid 0.4.4 (PyPI; Apache-2.0), a REAPI server: internal/cache's TestBuildGrid runs
# /opt/offload-kit/buildgrid-0.4.4/bin/bgd with an in-test config and shares cache entries
# through its gRPC ActionCache, CAS and ByteStream services. A venv there, filled by pip
# --require-hashes from scripts/buildgrid-requirements.txt (every wheel pinned by version and
# sha256; CPython 3.11 x86_64 wheels, bookworm's python3). .installed marks a complete install.
BGD=/opt/offload-kit/buildgrid-0.4.4
if [ ! -f "$BGD/.installed" ]; then
  echo "install-deps: installing BuildGrid 0.4.4 (sha256-pinned wheels) into $BGD"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  req="$(cd "$(dirname "$0")" && pwd)/buildgrid-requirements.txt"
  python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' ||
    { echo "install-deps: error: BuildGrid's pinned wheels need python3 3.11"; exit 1; }
  python3 -c 'import ensurepip, venv' 2>/dev/null || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends python3-venv >/dev/null; }
  $SUDO rm -rf "$BGD" && $SUDO python3 -m venv "$BGD"
  $SUDO "$BGD/bin/pip" install -q --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes -r "$req"
  $SUDO chmod -R a+rX "$BGD" && $SUDO touch "$BGD/.installed"
fi
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH=$PATH:/usr/local/go/bin; fi
command -v go >/dev/null 2>&1 || { echo "install-deps: error: Go 1.26 is required (https://go.dev/dl)"; exit 1; }
cd "$(dirname "$0")/.."
go mod download
