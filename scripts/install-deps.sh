#!/usr/bin/env bash
# Installs only what is missing for building, testing and the demo:
# the LLVM 22 oracle and runtimes (Debian packages) and the Go modules.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
PKGS=(clang-22 clang-tools-22 llvm-22 lld-22 libomp-22-dev liboffload-22 liboffload-22-dev spirv-tools gcc g++ make nginx zstd libzstd-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
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
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then export PATH=$PATH:/usr/local/go/bin; fi
command -v go >/dev/null 2>&1 || { echo "install-deps: error: Go 1.26 is required (https://go.dev/dl)"; exit 1; }
cd "$(dirname "$0")/.."
go mod download
