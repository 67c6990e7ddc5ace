#!/usr/bin/env bash
# The wheel as a user without Go or libhdf5 meets it (make test-wheel):
#   1. its name and `auditwheel show` agree on a manylinux tag, and it carries the licences of all
#      it holds (check_licenses.py);
#   2. pip installs it, with its dependencies, into a fresh virtual environment;
#   3. in a private mount namespace where every file of the system's libhdf5 is replaced by an
#      empty one (so it cannot be loaded) and with no go on PATH, fit_in_fresh_venv.py fits and
#      checks the results, after checking those two conditions hold.
# Usage: run.sh DIST_DIR VERSION WORK_DIR (auditwheel on PATH).
set -euo pipefail
dist=$1 version=$2 work=$(realpath -m "$3")
SECONDS=0
here=$(cd "$(dirname "$0")" && pwd)

shopt -s nullglob
wheels=("$dist"/sompca-"$version"-py3-none-manylinux_*_x86_64.whl)
if [ ${#wheels[@]} -ne 1 ]; then
  echo "test-wheel: want exactly one $dist/sompca-$version-py3-none-manylinux_*_x86_64.whl, found: ${wheels[*]:-none}" >&2
  exit 1
fi
wheel=${wheels[0]}
tag=${wheel##*-none-}
tag=${tag%.whl}
echo "test-wheel: $wheel ($(du -k "$wheel" | cut -f1) KiB), tag $tag"

# 1. auditwheel reads the wheel's libraries and names the same tag as the file name.
auditwheel show "$wheel" > "$work.show" 2>&1 || { cat "$work.show"; exit 1; }
tr '\n' ' ' < "$work.show" | grep -q "is consistent with the following platform tag: \"$tag\"" \
  || { echo "test-wheel: auditwheel show does not report $tag:" >&2; cat "$work.show" >&2; exit 1; }

# 1b. The licences: sompca's LICENSE, and one for each library in sompca.libs and the Go code linked in.
python "$here/check_licenses.py" "$wheel" "$here/../../LICENSE" || exit 1

# 2. A fresh virtual environment (from the interpreter that made .venv); the wheel and its
#    dependencies installed into it by pip (.venv's pip, run for it: no pip of its own to set up).
rm -rf "$work" && mkdir -p "$work/run"
base_python=$(python -c 'import sys; print(sys._base_executable)')
"$base_python" -m venv --without-pip "$work/venv"
python -m pip --python "$work/venv/bin/python" install -q --disable-pip-version-check "$wheel" \
  || { echo "test-wheel: pip could not install $wheel" >&2; exit 1; }
echo "test-wheel: installed in a fresh venv with its dependencies (${SECONDS}s so far)"

# 3. Hide the system libhdf5 (every libhdf5* file the dynamic loader could find), and a go in
#    /usr/bin or /bin (the test's PATH has only those and the venv), in a mount namespace of its
#    own: root's, else a user namespace's. /dev/null bound over a file leaves it empty and not
#    executable.
go_binary=$(PATH=/usr/bin:/bin command -v go || true)
hide='for f in /usr/lib/x86_64-linux-gnu/libhdf5* /usr/lib/x86_64-linux-gnu/hdf5/*/libhdf5* /lib/x86_64-linux-gnu/libhdf5* '"${go_binary:+$(realpath "$go_binary")}"'; do
        [ -f "$f" ] && mount --bind /dev/null "$f"
      done
      exec "$@"'
run=(env -i HOME="$work/run" PATH="$work/venv/bin:/usr/bin:/bin" LANG=C.UTF-8
     "$work/venv/bin/python" "$here/fit_in_fresh_venv.py" "$version")
if unshare --mount --propagation private true 2>/dev/null; then
  ns=(unshare --mount --propagation private)
elif unshare --user --map-root-user --mount true 2>/dev/null; then
  ns=(unshare --user --map-root-user --mount)
else
  echo "test-wheel: cannot make a mount namespace (unshare --mount, as root or in a user namespace)," \
       "so the system libhdf5 cannot be hidden for the test" >&2
  exit 1
fi
(cd "$work/run" && "${ns[@]}" sh -c "$hide" sh "${run[@]}")
echo "test-wheel: passed (${SECONDS}s)"
