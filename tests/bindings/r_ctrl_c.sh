#!/bin/sh
# Ctrl-C cancels a fit: SIGINT to Rscript while sompca_fit runs makes the
# fit fail with an R error saying it was cancelled (the package's SIGINT
# handler sets the library's cancellation flag).
#
#   sh r_ctrl_c.sh RLIB
set -u
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# A fit of minutes (P = 32, 10,000 sweeps per EMP; killed after 60 s), verbose so
# that its first progress line shows that the fit is running.
R_LIBS=$1 timeout 60 Rscript -e 'library(sompca); x <- array(rnorm(300 * 32 * 32), dim = c(300, 32, 32))
  r <- tryCatch({ sompca_fit(x, 32, max_iter = 10000, n_threads = 1, verbose = TRUE); "not cancelled" },
                error = function(e) paste("caught:", conditionMessage(e)))
  cat(r, "\n")' >"$out" 2>&1 &
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
if ! grep -q 'caught:.*cancel' "$out"; then
  echo "ctrl_c.sh: Ctrl-C did not cancel the fit:" >&2; cat "$out" >&2; exit 1
fi
echo "ctrl_c.sh: Ctrl-C cancelled the R fit: $(grep 'caught:' "$out")"
