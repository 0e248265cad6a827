#!/usr/bin/env bash
# Turns a `make install PREFIX=/usr DESTDIR=ROOT` tree into a Debian package:
#   packaging/mkdeb.sh ROOT DESCRIBE OUTDIR
# DESCRIBE is `git describe --tags --always --dirty`; the package is
# OUTDIR/offload-kit_<debian version>_amd64.deb, and its path is printed.
# Man pages are compressed and the license goes to copyright, as Debian
# policy asks; the binaries are static, so nothing is a hard dependency.
set -euo pipefail
[ $# = 3 ] || { echo "usage: $0 ROOT DESCRIBE OUTDIR" >&2; exit 2; }
root=$1 describe=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)

version=$("$here/deb-version.sh" "$describe")

man=$root/usr/share/man/man1
for f in "$man"/*.1; do
  if [ -L "$f" ]; then
    t=$(readlink "$f"); rm "$f"; ln -s "$t.gz" "$f.gz"
  else
    gzip -9n "$f"
  fi
done

doc=$root/usr/share/doc/offload-kit
{
  echo "offload-kit"
  echo "Source: https://github.com/offload-kit/offload-kit"
  echo
  echo "Licensed under the Apache License, Version 2.0; on Debian systems the full"
  echo "text is in /usr/share/common-licenses/Apache-2.0."
  echo
  echo "The programs are statically linked with these Go modules, under their own licenses:"
  ${GO:-go} version -m "$root/usr/bin/offload-packager" "$root/usr/bin/linker-wrapper" "$root/usr/bin/sycl-linker" |
    awk '$1 == "dep" { print $2 "@" $3 }' | sort -u | while read -r m; do
      dir=$(${GO:-go} env GOMODCACHE)/$(echo "$m" | sed 's/[A-Z]/!\L&/g')
      lic=$(ls "$dir"/LICENSE* "$dir"/COPYING* 2>/dev/null | head -1 || true)
      echo
      echo "=== $m"
      if [ -n "$lic" ]; then cat "$lic"; else echo "(no license file found in the module)"; fi
    done
} > "$doc/copyright"
rm -f "$doc/LICENSE"

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" "$here/deb/control.in" > "$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort | xargs md5sum) > "$root/DEBIAN/md5sums"

deb=$out/offload-kit_${version}_amd64.deb
# gzip: every dpkg reads it, and it takes a tenth of xz's time for 8% more.
dpkg-deb --root-owner-group -Zgzip -z6 --build "$root" "$deb" >/dev/null
echo "$deb"
