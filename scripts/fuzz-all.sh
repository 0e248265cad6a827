#!/usr/bin/env bash
# Runs every go fuzz target in the module for a short time ($1, default 3s).
# A real crasher is written to the package's testdata/fuzz/<Target>/ and
# fails the run. Go's fuzzer sometimes ends a run that was still
# minimizing a new (non-crashing) input with "context deadline exceeded";
# that is not a finding, so it is retried once.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-3s}
n=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for pkg in $(go list ./...); do
  for f in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "fuzz: $pkg $f ($t)"
    ok=0
    for try in 1 2; do
      if go test -run='^$' -fuzz="^$f\$" -fuzztime="$t" -fuzzminimizetime=200x "$pkg" >"$log" 2>&1; then
        ok=1; break
      fi
      if grep -q 'Failing input written to' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
        break
      fi
      echo "fuzz: $f: deadline hit while minimizing a non-failing input; retrying"
    done
    if [ $ok = 0 ]; then cat "$log"; exit 1; fi
    n=$((n+1))
  done
done
echo "fuzz: $n targets, 0 failed"
