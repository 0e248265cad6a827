#!/usr/bin/env bash
# Generates what `make install` puts under share/: man pages and shell
# completions, from the built binaries, so they always match the flags.
#   packaging/gen-share.sh BIN OUT VERSION
# BIN holds the binaries and LLVM-name links of `make build`. OUT is replaced:
#   OUT/man/man1/            offload-packager*.1 (cobra's generator, via the
#                            hidden `offload-packager __man` of a build with
#                            -tags mangen), the hand-written
#                            pages of packaging/man/*.1.in with each tool's
#                            --help inserted, and links for the other LLVM names
#   OUT/bash-completion/offload-packager
#   OUT/zsh/_offload-packager   (cobra's generators: `offload-packager completion`)
# SOURCE_DATE_EPOCH (default: now) dates the pages.
set -euo pipefail
[ $# = 3 ] || { echo "usage: $0 BIN OUT VERSION" >&2; exit 2; }
bin=$(cd "$1" && pwd) out=$2 version=$3
mkdir -p "$out" && out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")" && pwd)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(date +%s)}
date=$(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" '+%b %Y')

rm -rf "$out"
mkdir -p "$out/man/man1" "$out/bash-completion" "$out/zsh"
# offload-packager's pages come from a build with the hidden __man command.
cd "$src/.."
CGO_ENABLED=0 ${GO:-go} build -tags mangen -o "$out/mangen" ./cmd/offload-packager
"$out/mangen" __man "$out/man/man1" "offload-kit $version"
rm "$out/mangen"

# The option list of --help (from its OPTIONS: line) goes into a no-fill
# block: backslashes and hyphens escaped, lines that would start a roff
# request protected.
roffhelp() {
  "$bin/$1" --help | sed -n '/^OPTIONS:/,$p' | sed -e '1d' -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\&&/"
}
for page in llvm-offload-binary clang-offload-bundler linker-wrapper sycl-linker; do
  help=$(roffhelp "$page")
  awk -v help="$help" -v date="$date" -v version="$version" '
    $0 == "@HELP@" { print help; next }
    { gsub(/@DATE@/, date); gsub(/@VERSION@/, version); print }' \
    "$src/man/$page.1.in" > "$out/man/man1/$page.1"
done
ln -s llvm-offload-binary.1 "$out/man/man1/clang-offload-packager.1"
ln -s linker-wrapper.1 "$out/man/man1/clang-linker-wrapper.1"
ln -s sycl-linker.1 "$out/man/man1/clang-sycl-linker.1"

"$bin/offload-packager" completion bash > "$out/bash-completion/offload-packager"
"$bin/offload-packager" completion zsh > "$out/zsh/_offload-packager"
