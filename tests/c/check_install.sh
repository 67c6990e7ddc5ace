#!/bin/sh
# check_install.sh PREFIX VERSION PROGRAM: `make install` laid the library out as C libraries are
# (libsompca.so.VERSION, the SONAME symlink libsompca.so.MAJOR, the link-time libsompca.so), the
# library's SONAME is libsompca.so.MAJOR, PROGRAM (linked with pkg-config's flags) needs that SONAME,
# and pkg-config puts no rpath into a consumer's link line; sompca.pc has the header's version
# and names the licence.
set -eu
prefix=$1 version=$2 program=$3
major=${version%%.*}
fail() { echo "check_install.sh: $*" >&2; exit 1; }
lib=$prefix/lib
test -f "$lib/libsompca.so.$version" && ! test -L "$lib/libsompca.so.$version" || fail "no regular file libsompca.so.$version"
test "$(readlink "$lib/libsompca.so.$major")" = "libsompca.so.$version" || fail "libsompca.so.$major does not link to libsompca.so.$version"
test "$(readlink "$lib/libsompca.so")" = "libsompca.so.$major" || fail "libsompca.so does not link to libsompca.so.$major"
soname=$(readelf -d "$lib/libsompca.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
test "$soname" = "libsompca.so.$major" || fail "SONAME is '$soname', want libsompca.so.$major"
readelf -d "$program" | grep -q "(NEEDED).*\[libsompca.so.$major\]" || fail "$program does not need libsompca.so.$major"
flags=$(PKG_CONFIG_PATH=$lib/pkgconfig pkg-config --libs sompca)
case "$flags" in *rpath*|*RPATH*) fail "pkg-config --libs sompca puts an rpath in: $flags" ;; esac
! readelf -d "$program" | grep -q "R.*PATH" || fail "$program has an rpath from pkg-config"
modversion=$(PKG_CONFIG_PATH=$lib/pkgconfig pkg-config --modversion sompca)
test "$modversion" = "$version" || fail "sompca.pc says version $modversion, the header $version"
grep -q '^Description: .*BSD-3-Clause' "$lib/pkgconfig/sompca.pc" || fail "sompca.pc does not name the licence"
echo "check_install.sh: SONAME libsompca.so.$major, symlinks and pkg-config flags as expected"
