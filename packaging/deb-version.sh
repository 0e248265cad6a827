#!/usr/bin/env bash
# Maps `git describe --tags --always --dirty` to a Debian version:
#   v1.2.3                  -> 1.2.3
#   v1.2.3-rc1              -> 1.2.3~rc1             (before 1.2.3)
#   v1.2.3-4-gabc1234       -> 1.2.3+4.gabc1234      (after 1.2.3, before 1.2.4)
#   abc1234 (no tag)        -> 0~git<N>.abc1234      (before any release; N, the
#                              commit count of HEAD, orders untagged builds; a
#                              hash is 7+ hex digits and not the name of a tag)
#   any of them + -dirty    -> ...+dirty / ....dirty
# Only [A-Za-z0-9.+~] remain (no hyphen, so no Debian revision), and the
# result starts with a digit, as Debian's version rules require.
set -euo pipefail
d=${1:-unknown}
dirty=
case $d in *-dirty) dirty=1; d=${d%-dirty};; esac
d=${d#v}
if [[ $d =~ ^[0-9a-f]{7,40}$ ]] && ! git rev-parse -q --verify "refs/tags/$d" >/dev/null 2>&1; then
  v="0~git$(git rev-list --count HEAD 2>/dev/null || true).$d"   # no tag: the commit alone
elif [[ $d =~ ^([0-9].*)-([0-9]+)-g([0-9a-f]+)$ ]]; then
  v="${BASH_REMATCH[1]//-/\~}+${BASH_REMATCH[2]}.g${BASH_REMATCH[3]}"
elif [[ $d =~ ^[0-9] ]]; then
  v=${d//-/\~}
else
  v="0~git$(git rev-list --count HEAD 2>/dev/null || true).$d"
fi
if [ -n "$dirty" ]; then
  case $v in *+*) v="$v.dirty";; *) v="$v+dirty";; esac
fi
v=$(printf '%s' "$v" | tr -c 'A-Za-z0-9.+~' '.')
echo "$v"
