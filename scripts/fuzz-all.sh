#!/usr/bin/env bash
# Runs every go fuzz target in the module for a short time ($1, default 3s).
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-3s}
n=0
for pkg in $(go list ./...); do
  for f in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "fuzz: $pkg $f ($t)"
    go test -run='^$' -fuzz="^$f\$" -fuzztime="$t" -fuzzminimizetime=200x "$pkg" >/tmp/fuzz.$$.log 2>&1 || { cat /tmp/fuzz.$$.log; exit 1; }
    n=$((n+1))
  done
done
rm -f /tmp/fuzz.$$.log
echo "fuzz: $n targets, 0 failed"
