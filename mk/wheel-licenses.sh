#!/usr/bin/env bash
# wheel-licenses.sh WHEEL REPAIR_LOG LIBRARY WORK_DIR: add to the repaired wheel's .dist-info/licenses/ the
# licences of everything it carries besides sompca's own LICENSE: the Go toolchain and the Go modules
# linked into libsompca.so (go version -m LIBRARY: the wheel's copy is stripped of the build info), and each library auditwheel grafted into sompca.libs/
# (its Debian package's copyright file); THIRD-PARTY.txt lists which file covers which library.
# The wheel is repacked in place by `wheel pack` (its RECORD rewritten). Needs go, dpkg and `wheel`.
set -euo pipefail
wheel=$1 log=$2 library=$3 work=$4
go=${GO:-go}
rm -rf "$work" && mkdir -p "$work"
python -m wheel unpack -d "$work" "$wheel" > /dev/null
root=$(echo "$work"/sompca-*)
info=$(echo "$root"/sompca-*.dist-info)
dest=$info/licenses/third-party
mkdir -p "$dest"
test -f "$info/licenses/LICENSE" || { echo "wheel-licenses: $wheel has no licenses/LICENSE" >&2; exit 1; }
index=$dest/THIRD-PARTY.txt
printf 'Third-party software in this wheel and the file here that holds its licence.\n\n' > "$index"

# Go: the runtime and standard library, and every module linked into the library.
cp "$("$go" env GOROOT)/LICENSE" "$dest/go.LICENSE"
printf "%-48s %s\n" "Go runtime and standard library (libsompca.so)" "go.LICENSE" >> "$index"
"$go" version -m "$library" | awk '$1 == "dep" {print $2, $3}' | while read -r mod ver; do
  dir=$("$go" mod download -json "$mod@$ver" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
  name=$(echo "$mod" | tr '/' '_').LICENSE
  test -f "$dir/LICENSE" || { echo "wheel-licenses: no LICENSE in $dir ($mod $ver)" >&2; exit 1; }
  cp "$dir/LICENSE" "$dest/$name"
  printf '%-48s %s\n' "$mod $ver (libsompca.so)" "$name" >> "$index"
done

# The libraries auditwheel grafted, by the Debian package that installed each.
grafted=$(sed -n 's/.*Grafting: \(\S*\) -> sompca\.libs\/\(\S*\)$/\1 \2/p' "$log")
test -n "$grafted" || { echo "wheel-licenses: $log names no grafted library" >&2; exit 1; }
echo "$grafted" | while read -r path copy; do
  test -f "$root/sompca.libs/$copy" || { echo "wheel-licenses: $copy is not in the wheel's sompca.libs" >&2; exit 1; }
  pkg=$(dpkg -S "$path" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null || true)
  pkg=${pkg%%:*}
  test -n "$pkg" && test -f "/usr/share/doc/$pkg/copyright" \
    || { echo "wheel-licenses: no Debian copyright file for $path (package '${pkg:-?}')" >&2; exit 1; }
  cp "/usr/share/doc/$pkg/copyright" "$dest/$pkg.copyright"
  printf '%-48s %s\n' "sompca.libs/$copy" "$pkg.copyright" >> "$index"
done
rm "$wheel"
python -m wheel pack -d "$(dirname "$wheel")" "$root" > /dev/null
test -f "$wheel" || { echo "wheel-licenses: wheel pack did not write $wheel" >&2; exit 1; }
rm -rf "$work"
