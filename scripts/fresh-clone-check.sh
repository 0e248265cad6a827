#!/usr/bin/env bash
# Runs a command (default: make test) in a fresh clone of HEAD, made in an
# empty temporary directory with nothing beside it (no shared folder beside it, no
# build outputs, no untracked files), so a pass proves the repository stands
# alone. .ci/run uses it for the one CI run of the suite. Only committed work
# is tested. First it checks that no file outside .ci/ refers to the
# development machine's paths (the reference folder beside the checkout, the
# development machine's work directory).
#   scripts/fresh-clone-check.sh [command...]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
command -v git >/dev/null 2>&1 || "$src/scripts/install-deps.sh"

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
git clone --quiet --no-local "$src" "$tmp/offload-kit"
cd "$tmp/offload-kit"

if leaks=$(git grep -n -I -e '[.][.]/shared' -e '/wor[k]/' -- ':!.ci' ':!scripts/fresh-clone-check.sh'); then
  echo "fresh-clone-check: error: files refer to paths outside the repository:" >&2
  echo "$leaks" >&2
  exit 1
fi
echo "fresh-clone-check: $(git log -1 --format='%h %s' | cut -c1-72) in $PWD (alone in $tmp: $(ls "$tmp"))"
if (($#)); then "$@"; else make test; fi
