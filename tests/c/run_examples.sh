#!/bin/sh
# Runs the C examples on a small HDF5 file and checks their output.
#   run_examples.sh BUILD CTEST_DIR
# BUILD holds examples/c/*; CTEST_DIR holds test_capi and mkdata.
set -eu
build=$1
dir=$2
out=$dir/examples
rm -rf "$out"
mkdir -p "$out"
fail() { echo "run_examples.sh: $*" >&2; exit 1; }

"$dir/mkdata" "$out/data.h5"

# fit_hdf5, samples first: the printed variances are the saved model's and
# the features file holds the transform of the data (checked by test_capi).
"$build/examples/c/fit_hdf5" "$out/data.h5" /x "$out/model.h5" "$out/features.h5" > "$out/fit_hdf5.out"
cat "$out/fit_hdf5.out"
grep -q '^sompca .*: fitted so-mpca-rs on 40 samples of shape 8 x 6 from .*data.h5:/x, orthogonal mode 0$' \
  "$out/fit_hdf5.out" || fail "fit_hdf5: unexpected header line"
grep -q '^wrote 40 x 8 features to ' "$out/fit_hdf5.out" || fail "fit_hdf5: no 40 x 8 features written"
"$dir/test_capi" --check-example "$out/data.h5" /x "$out/model.h5" "$out/features.h5" "$out/fit_hdf5.out"

# Samples last (float32), another method.
"$build/examples/c/fit_hdf5" --samples-last --method umpca --components 3 \
  "$out/data.h5" /x_last "$out/model_last.h5" "$out/features_last.h5" > "$out/fit_last.out"
test "$(grep -c '^feature [0-9]*: variance' "$out/fit_last.out")" = 3 || fail "fit_hdf5 --samples-last: want 3 features"

# A missing dataset: non-zero exit and the library's message on stderr.
if "$build/examples/c/fit_hdf5" "$out/data.h5" /nothing "$out/m.h5" "$out/f.h5" 2> "$out/missing.err"; then
  fail "fit_hdf5 on a missing dataset succeeded"
fi
grep -q 'fit failed: file, dataset or group not found (status 14): sompca_fit_hdf5: .*/nothing' "$out/missing.err" ||
  fail "fit_hdf5: unexpected message for a missing dataset: $(cat "$out/missing.err")"

# fit_memory: the progress lines, the transform, and one line per error case.
"$build/examples/c/fit_memory" > "$out/fit_memory.out"
cat "$out/fit_memory.out"
expect() {
  grep -q -- "$1" "$out/fit_memory.out" || fail "fit_memory: no line matching: $1"
}
expect '^  EMP 6 of 6: captured variance '
expect '^fit: ok$'
expect '^transform: ok$'
expect '^features of sample 0:\( -*[0-9.]*\)\{6\}$'
expect '^fit with a zero-sized mode: status 2 (shapes or sizes do not agree): sompca_fit: shape\[1\] is 0'
expect '^transform into too small a buffer: status 3 (output buffer too small): sompca_transform: dst holds 179 doubles, need 180'
expect '^fit with mode 7 of a 2-mode sample: status 1 (invalid argument or option value): sompca_fit: opts->mode is 7'
expect '^load a missing file: status 14 (file, dataset or group not found): sompca_model_load: .*no-such-model.h5'
expect '^use a NULL model: status 4 (NULL model handle): sompca_transform_size: model is NULL$'
expect '^fit cancelled by the progress callback after 2 EMPs: status 8 (fit canceled by the progress callback): sompca_fit: '
expect '^no model was made by the failed calls: yes$'
test "$(grep -c '^  EMP' "$out/fit_memory.out")" = 8 || fail "fit_memory: want 6 + 2 progress lines"
echo "run_examples.sh: C examples passed"
