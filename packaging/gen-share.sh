#!/usr/bin/env bash
# Generates what `make install` puts under share/: man pages and shell
# completions, from the built binaries, so they always match the flags.
#   packaging/gen-share.sh BIN OUT VERSION [DOCDIR]
# BIN holds the binaries and LLVM-name links of `make build`. OUT is replaced:
#   OUT/man/man1/            offload-packager*.1 (cobra's generator, via the
#                            hidden `offload-packager __man` of a build with
#                            -tags mangen), the hand-written
#                            pages of packaging/man/*.1.in with each tool's
#                            --help inserted, and links for the other LLVM names
#   OUT/bash-completion/offload-packager
#   OUT/zsh/_offload-packager   (cobra's generators: `offload-packager completion`)
#   OUT/bash-completion/<name>, OUT/zsh/_<name> for every other tool and LLVM
#                            name: their options, read from --help-hidden,
#                            then file names
# DOCDIR is where make install puts the documentation; the man pages cite
# it (default: /usr/local/share/doc/offload-kit).
# SOURCE_DATE_EPOCH (default: now) dates the pages.
set -euo pipefail
[ $# = 3 ] || [ $# = 4 ] || { echo "usage: $0 BIN OUT VERSION [DOCDIR]" >&2; exit 2; }
bin=$(cd "$1" && pwd) out=$2 version=$3 docdir=${4:-/usr/local/share/doc/offload-kit}
mkdir -p "$out" && out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")" && pwd)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(date +%s)}
date=$(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" '+%b %Y')

rm -rf "$out"
mkdir -p "$out/man/man1" "$out/bash-completion" "$out/zsh"
# offload-packager's pages come from a build with the hidden __man command.
cd "$src/.."
CGO_ENABLED=0 ${GO:-go} build -tags mangen -o "$out/mangen" ./cmd/offload-packager
"$out/mangen" __man "$out/man/man1" "offload-kit $version" "$docdir"
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

# The tools with LLVM's command lines complete their options (scraped from
# --help-hidden, so they always match) and otherwise file names. One file
# per command name, as bash-completion loads them on demand.
optlist() {
  "$bin/$1" --help-hidden | sed -nE 's/^  (--?[A-Za-z0-9#][A-Za-z0-9_.#-]*)(=?).*/\1\2/p' | LC_ALL=C sort -u
}
compfor() { # TOOL NAME... (TOOL is also the first name)
  local tool=$1 fn=_offload_kit_${1//-/_} opts zopts
  opts=$(optlist "$tool" | tr '\n' ' ')
  zopts=$(optlist "$tool" | sed "s/.*/'&'/" | tr '\n' ' ')
  [ -n "$opts" ] || { echo "gen-share.sh: no options found in $tool --help-hidden" >&2; exit 1; }
  {
    echo "# bash completion for $* (generated from $tool --help-hidden)"
    echo "$fn() {"
    echo '  local cur=${COMP_WORDS[COMP_CWORD]}'
    echo '  [[ $cur == -* ]] || return 0 # file names: complete -o default'
    echo "  COMPREPLY=(\$(compgen -W \"$opts\" -- \"\$cur\"))"
    echo '  [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace'
    echo '  return 0'
    echo '}'
    echo "complete -o default -F $fn $*"
  } > "$out/bash-completion/$tool"
  {
    echo "#compdef $*"
    echo "# zsh completion for $* (generated from $tool --help-hidden)"
    echo "local -a opts=($zopts)"
    echo 'if [[ $PREFIX == -* ]]; then'
    echo '  compadd -S "" -- ${(M)opts:#*=}'
    echo '  compadd -- ${opts:#*=}'
    echo 'else'
    echo '  _files'
    echo 'fi'
  } > "$out/zsh/_$tool"
  local n
  for n in "${@:2}"; do
    ln -s "$tool" "$out/bash-completion/$n"
    ln -s "_$tool" "$out/zsh/_$n"
  done
}
compfor linker-wrapper clang-linker-wrapper
compfor sycl-linker clang-sycl-linker
compfor llvm-offload-binary clang-offload-packager
compfor clang-offload-bundler
