"""The ``sompca`` command line: fit a model, transform data, describe a model.

Every failure is one line on stderr and exit status 1 (130 after Ctrl-C).
"""

import argparse
import json
import math
import os
import re
import sys
import warnings

from ._lib import LAYOUTS, python_words
from ._progress import ProgressBar
from ._version import __version__

# The estimators (and scikit-learn, about a second) are imported by the commands that use them, so
# that --version and --help answer at once.

_DESCRIPTION = """\
Learn features from tensor samples with Semi-Orthogonal Multilinear PCA and its family.

Data are HDF5 datasets named FILE.h5:/DATASET, streamed from disk, so they need not
fit in memory. Samples run along the first axis; --layout samples-last puts them on the
last, and --layout column-major reads data written by MATLAB (-v7.3), R or Julia with
its modes in the author's order. Modes are numbered from 0.

examples:
  sompca fit faces.h5:/X -m so-mpca-rs -P 50 -o model.h5
  sompca transform model.h5 faces.h5:/X -o features.h5:/Y
  sompca info model.h5
"""


class _Parser(argparse.ArgumentParser):
    """Usage errors are one line and exit status 1, like every other error."""

    def error(self, message):
        self.exit(1, f"{self.prog}: error: {message} (see --help)\n")


def _data_spec(text):
    from ._estimators import split_spec

    try:
        split_spec(text)
    except ValueError as err:  # argparse shows an ArgumentTypeError's own message
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def _model_file(text):
    """An argparse type: fit's output, a file name; "-" (standard output) is refused."""
    if text == "-":
        raise argparse.ArgumentTypeError("a model file cannot go to standard output ('-'): HDF5 writes a file it can "
                                         "seek in; give a file name")
    return text


def _mode_arg(text):
    """--mode: a 0-based mode number or "all"."""
    if text == "all":
        return text
    try:
        mode = int(text)
    except ValueError:
        mode = -1
    if mode < 0:
        raise argparse.ArgumentTypeError(f"want a mode number (modes count from 0) or 'all', got {text!r}")
    return mode


def _shape_arg(text):
    """--sample-shape: positive integers separated by commas or x, such as 32,22,10."""
    try:
        shape = tuple(int(part) for part in re.split(r"[,x]", text))
    except ValueError:
        shape = ()
    if not shape or min(shape) < 1:
        raise argparse.ArgumentTypeError(f"want positive integers separated by commas, such as 32,22,10, got {text!r}")
    return shape


def _count(what):
    """An argparse type: a positive integer, refused in the option's own words."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"want {what} (an integer >= 1), got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"want {what} (an integer >= 1), got {value}")
        return value
    return parse


def _real(what, low, high, low_open):
    """An argparse type: a finite real number in [low, high] ((low, high] when low_open; high may be inf)."""
    interval = f"{'(' if low_open else '['}{low:g}, {high:g}{']' if math.isfinite(high) else ')'}"

    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"want {what} in {interval}, got {text!r}") from None
        if not (math.isfinite(value) and (low < value if low_open else low <= value) and value <= high):
            raise argparse.ArgumentTypeError(f"want {what} in {interval}, got {text}")
        return value
    return parse


def _build_parser():
    parser = _Parser(prog="sompca", description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"sompca {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    fit = commands.add_parser("fit", help="fit a model to an HDF5 dataset and save it",
                              description="Fit a model to the samples of an HDF5 dataset and save it to a model file.")
    fit.add_argument("data", metavar="DATA.h5:/DATASET", type=_data_spec,
                     help="training samples: an HDF5 file, a colon, the dataset's path")
    fit.add_argument("-m", "--method", default="so-mpca-rs",
                     help="so-mpca, so-mpca-rs, fo-mpca, fo-mpca-rs, trod, trod-rs, umpca, umpca-rs, pca, mpca or "
                          "csa; -rs = relaxed start; sompca and fompca are so-mpca-rs and fo-mpca-rs "
                          "(default: %(default)s)")
    fit.add_argument("-P", "--n-components", type=_count("a number of features"), metavar="P",
                     help="number of features (default: the method's bound, e.g. I_nu for so-mpca)")
    fit.add_argument("-o", "--output", required=True, metavar="MODEL.h5", type=_model_file,
                     help="model file to write (written atomically; not '-': HDF5 cannot write to a pipe)")
    fit.add_argument("--mode", type=_mode_arg, metavar="NU",
                     help="so-mpca only: the orthogonal mode, 0-based, or 'all' (one fit per mode, features fused "
                          "by captured variance) (default: the largest mode)")
    fit.add_argument("--max-iter", type=_count("a number of sweeps"), metavar="K",
                     help="alternating sweeps per EMP; mpca/csa: in total (default: 20)")
    fit.add_argument("--tol", type=_real("a tolerance", 0, float("inf"), False),
                     help="stop an EMP's sweeps once the relative change of its variance is at most TOL "
                          "(default: 0, run all sweeps; not for pca, mpca, csa)")
    fit.add_argument("--q", type=_real("a fraction", 0, 1, True),
                     help="mpca/csa only: fraction of each mode's variance (csa: energy) kept (default: 0.97)")
    fit.add_argument("--order", choices=["variance", "extraction"],
                     help="feature order: by captured variance, descending, or as extracted (default: variance; "
                          "not for pca)")
    fit.add_argument("--sort-features", dest="order", action="store_const", const="variance",
                     help="the same as --order variance (Python: sort_features=True)")
    fit.add_argument("--no-sort-features", dest="order", action="store_const", const="extraction",
                     help="the same as --order extraction (Python: sort_features=False)")
    fit.add_argument("-j", "--n-jobs", "--threads", dest="threads", type=_count("a number of threads"), metavar="N",
                     help="threads sharing each pass over the data (default: all cores)")
    fit.add_argument("--mode-updates", choices=["auto", "rows", "scatter"],
                     help="how a mode update gets its scatter: the partial projections' rows, the scatter folded "
                          "in the pass, or chosen by the data's shape (default: auto; so-mpca, fo-mpca, trod, umpca)")
    fit.add_argument("--sample-shape", type=_shape_arg, metavar="I1,I2,...",
                     help="the samples' shape, checked against the dataset and kept in the model file for Python's "
                          "2-D pipelines (default: the dataset's)")
    fit.add_argument("--memory-limit", metavar="SIZE",
                     help="memory budget of the fit, in bytes or as 512MB, 2GiB, ...: a dataset that fits is read "
                          "once and fitted from memory, a larger one is streamed (default: a quarter of physical "
                          "memory)")
    _add_layout(fit)
    fit.add_argument("-f", "--overwrite", action="store_true",
                     help="replace the model file if it exists (default: refuse)")
    fit.add_argument("--quiet", action="store_true", help="no progress bar (it shows only on a terminal)")
    fit.set_defaults(run=_fit)

    transform = commands.add_parser("transform", help="write the features of an HDF5 dataset",
                                    description="Project the samples of an HDF5 dataset with a fitted model and "
                                                "write the features (samples x P, float64) to an HDF5 dataset.")
    transform.add_argument("model", metavar="MODEL.h5", help="model file written by `sompca fit`")
    transform.add_argument("data", metavar="DATA.h5:/DATASET", type=_data_spec,
                           help="samples of the training sample shape")
    transform.add_argument("-o", "--output", required=True, metavar="OUT.h5:/DATASET", type=_data_spec,
                           help="where to write the features (the file is created or extended)")
    _add_layout(transform)
    transform.add_argument("-f", "--overwrite", action="store_true",
                           help="replace the output dataset if it exists (default: refuse)")
    transform.set_defaults(run=_transform)

    info = commands.add_parser("info", help="describe a model file",
                               description="Print what a model file holds: method, shapes, features, variance.")
    info.add_argument("model", metavar="MODEL.h5", help="model file written by `sompca fit`")
    info.add_argument("--json", action="store_true",
                      help="print one JSON object: method, parameters, shapes, variance per feature")
    info.set_defaults(run=_info)
    return parser


class _Layout(argparse.Action):
    """--layout and --samples-last: given together they must agree, else the error names both."""

    def __call__(self, parser, namespace, values, option_string=None):
        value, said = (self.const, option_string) if self.nargs == 0 else (values, f"{option_string} {values}")
        before = getattr(namespace, "layout_option", None)
        if before is not None and value != namespace.layout:
            parser.error(f"{said} conflicts with {before}: give one layout")
        namespace.layout, namespace.layout_option = value, said


def _add_layout(parser):
    parser.add_argument("--layout", choices=list(LAYOUTS), default="samples-first", action=_Layout,
                        help="where the samples and modes are: samples-first (default), samples-last, or "
                             "column-major for data written by MATLAB -v7.3, R or Julia")
    parser.add_argument("--samples-last", dest="layout", action=_Layout, nargs=0, const="samples-last",
                        help="the same as --layout samples-last")


# Command-line option -> estimator parameter.
_FIT_OPTIONS = {"mode": "mode", "max_iter": "max_iter", "tol": "tol", "q": "q", "order": "sort_features",
                "threads": "n_jobs", "memory_limit": "memory_limit", "mode_updates": "mode_updates",
                "sample_shape": "sample_shape"}


def _fit(args):
    from ._estimators import HDF5, estimator_for, method_name

    if not args.overwrite and os.path.exists(args.output):
        raise ValueError(f"{args.output} exists: pass -f/--overwrite to replace it")
    estimator = estimator_for(args.method)
    names = estimator.get_params()
    params = {"n_components": args.n_components}
    for option, param in _FIT_OPTIONS.items():
        value = getattr(args, option)
        if value is None:
            continue
        if param not in names:
            raise ValueError(f"--{option.replace('_', '-')} does not apply to method {args.method}")
        params[param] = value == "variance" if option == "order" else value
    estimator.set_params(**params)
    bar = None
    if not args.quiet and sys.stderr.isatty():
        bar = ProgressBar(f"fit {method_name(estimator)}", sys.stderr)
    try:
            estimator._fit(HDF5(args.data, layout=args.layout), progress=bar,
                       read_progress=bar.read if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    estimator.save(args.output)
    print(f"{args.output}: {method_name(estimator)}, {estimator.n_components_} features of samples "
          f"{_shape(estimator.shape_in_)}, explained variance ratio {estimator.explained_variance_ratio_.sum():.4f}")


def _transform(args):
    from ._estimators import load, split_spec

    estimator = load(args.model)
    path, dataset = split_spec(args.data)
    out_path, out_dataset = split_spec(args.output)
    try:
        estimator._fitted_model().transform_hdf5(path, dataset, out_path, out_dataset,
                                                 layout=LAYOUTS[args.layout], overwrite=args.overwrite)
    except (ValueError, OSError) as err:
        if "already exists" in str(err) and "-f/--overwrite" not in str(err):
            raise type(err)(f"{err}; pass -f/--overwrite to replace it") from None
        raise
    print(f"{args.output}: {estimator.n_components_} features per sample")


def _info(args):
    import numpy as np

    from ._estimators import _json_value, load, method_name

    estimator = load(args.model)
    ratio = estimator.explained_variance_ratio_
    if args.json:
        json.dump({
            "model": args.model,
            "method": method_name(estimator),
            "params": json.loads(json.dumps(estimator.get_params(), default=_json_value)),
            "sample_shape": list(estimator.shape_in_),
            "n_samples": estimator.n_samples_fit_,
            "n_components": estimator.n_components_,
            "mode": estimator.mode_,
            "feature_modes": estimator.feature_modes_.tolist() if hasattr(estimator, "feature_modes_") else None,
            "ranks": list(estimator.ranks_) if hasattr(estimator, "ranks_") else None,
            "explained_variance": estimator.explained_variance_.tolist(),
            "explained_variance_ratio": ratio.tolist(),
            "n_iter_per_component": estimator.n_iter_per_component_.tolist(),
        }, sys.stdout, indent=1)
        print()
        return
    rows = [
        ("method", method_name(estimator)),
        ("sample shape", _shape(estimator.shape_in_)),
        ("training samples", estimator.n_samples_fit_),
        ("features", estimator.n_components_),
    ]
    if estimator.mode_ == "all":
        # -2: the first EMP, which every mode's fit shares (kept once).
        modes = estimator.feature_modes_
        counts = np.bincount(modes[modes >= 0], minlength=len(estimator.shape_in_))
        shared = int(np.sum(modes == -2))
        rows.append(("orthogonal mode", "all (features per mode, 0-based: "
                                        + ", ".join(f"{n}: {c}" for n, c in enumerate(counts))
                                        + (f"; {shared} shared by all" if shared else "") + ")"))
    elif estimator.mode_ is not None:
        rows.append(("orthogonal mode", f"{estimator.mode_} (0-based; nu = {estimator.mode_ + 1} in the paper)"))
    rows.append(("explained variance", f"{ratio.sum():.4f} of the total (first features: "
                                       + " ".join(f"{r:.4f}" for r in ratio[:5]) + ")"))
    if estimator.n_iter_per_component_.size:
        rows.append(("sweeps per feature", f"{estimator.n_iter_per_component_.min()} to {estimator.n_iter_}"))
    width = max(len(name) for name, _ in rows)
    print(args.model)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")


def _shape(shape):
    return " x ".join(str(i) for i in shape)


# The estimators' names of parameters, in the words of --help.
_OPTION_NAMES = {"n_components": "-P/--n-components", "mode": "--mode", "max_iter": "--max-iter", "tol": "--tol",
                 "q": "--q", "n_jobs": "-j/--n-jobs", "sort_features": "--order", "memory_limit": "--memory-limit",
                 "layout": "--layout", "mode_updates": "--mode-updates", "sample_shape": "--sample-shape"}


def _cli_words(message):
    """A library or estimator message in the words of --help.

    No C function names (``sompca_fit_hdf5: ``), Go package prefixes,
    C option fields (``opts->mode``) or estimator parameter names
    (``memory_limit must be ...``): the options are named as --help names
    them. The library's words are first made Python's (_lib.python_words),
    then Python's parameters become flags.

    Examples
    --------
    >>> _cli_words("sompca_fit_hdf5: opts->mode is 5: want -1 (automatic), SOMPCA_MODE_ALL (-2, every mode) or a mode "
    ...            "0..1 of the order-2 samples")
    "--mode 5: want 'all' or a mode 0..1 of the order-2 samples"
    >>> _cli_words("memory_limit must be at least 1 byte, got 0")
    '--memory-limit must be at least 1 byte, got 0'
    >>> _cli_words("sompca_fit_hdf5: solver: ... or the fit a larger MemoryLimit, use fewer threads")
    '... or the fit a larger --memory-limit, use fewer threads'
    """
    message = python_words(message)
    message = re.sub(r"\bmode=(-?\d+): want None \(the largest mode\), 'all' or a mode",
                     r"--mode \1: want 'all' or a mode", message)
    message = re.sub(r"\b(\w+)=(?=\S)", lambda m: _OPTION_NAMES[m.group(1)] + " " if m.group(1) in _OPTION_NAMES
                     else m.group(0), message)
    message = re.sub(r"\bmemory_limit\b", "--memory-limit", message)
    return re.sub(r"^(\w+)(?= must be)", lambda m: _OPTION_NAMES.get(m.group(1), m.group(1)), message)


def main(argv=None):
    """Run the command line with argv (default: sys.argv[1:]); return the exit status."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # while parsing or importing; a command's own is handled in _main
        print("sompca: interrupted", file=sys.stderr)
        return 130


def _main(argv):
    args = _build_parser().parse_args(argv)

    def show(message, category, *rest, **kw):  # warnings as one line each, like errors
        print(f"sompca {args.command}: warning: {_cli_words(' '.join(str(message).split()))}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = show
            args.run(args)
    except KeyboardInterrupt:
        print("sompca: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError, RuntimeError, MemoryError) as err:
        message = _cli_words(" ".join(str(err).split()))  # one line, in the words of --help
        print(f"sompca {args.command}: error: {message}", file=sys.stderr)
        return 1
    return 0
