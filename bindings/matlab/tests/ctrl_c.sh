#!/bin/sh
# Ctrl-C cancels a fit: SIGINT to octave-cli while sompca_fit runs makes
# the fit fail with the identifier sompca:canceled (the MEX gateway's
# SIGINT handler sets the library's cancellation flag).
#
#   sh ctrl_c.sh "octave-cli --norc ..." MEX_DIR
set -u
octave=$1
mexdir=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# A fit of minutes (P = 32, 10,000 sweeps per EMP; killed after 60 s), verbose so that its
# first progress line shows that the fit is running inside the MEX call.
timeout 60 $octave --eval "addpath('bindings/matlab', '$mexdir'); X = randn(32, 32, 300);
  try; sompca_fit(X, 32, 'MaxIter', 10000, 'Threads', 1, 'Verbose', true); disp('not cancelled');
  catch e; disp(['caught ' e.identifier]); end" >"$out" 2>&1 &
pid=$!
i=0
until grep -q 'sompca: 1/32' "$out"; do
  i=$((i + 1))
  if [ $i -gt 600 ] || ! kill -0 $pid 2>/dev/null; then
    echo "ctrl_c.sh: the fit did not start:" >&2; cat "$out" >&2; exit 1
  fi
  sleep 0.1
done
kill -INT $pid
wait $pid
if ! grep -q 'caught sompca:canceled' "$out"; then
  echo "ctrl_c.sh: Ctrl-C did not cancel the fit:" >&2; cat "$out" >&2; exit 1
fi
echo "ctrl_c.sh: Ctrl-C cancelled the fit (sompca:canceled)"
