#!/bin/sh
# Ctrl-C cancels a fit: runs COMMAND, a verbose fit of minutes (killed after
# 60 s), sends it SIGINT once the fit's first progress line ("sompca: 1/")
# shows that the library is running, and expects EXPECTED (a grep pattern)
# in its output: the binding's error for a cancelled fit.
#
#   sh ctrl_c.sh EXPECTED COMMAND...
set -u
expected=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
timeout 60 "$@" >"$out" 2>&1 &
pid=$!
i=0
until grep -q 'sompca: 1/' "$out"; do
  i=$((i + 1))
  if [ $i -gt 600 ] || ! kill -0 $pid 2>/dev/null; then
    echo "ctrl_c.sh: the fit did not start: $*" >&2; cat "$out" >&2; exit 1
  fi
  sleep 0.1
done
kill -INT $pid
wait $pid
if ! grep -q "$expected" "$out"; then
  echo "ctrl_c.sh: Ctrl-C did not cancel the fit: $*" >&2; cat "$out" >&2; exit 1
fi
echo "ctrl_c.sh: Ctrl-C cancelled the fit: $(grep "$expected" "$out")"
