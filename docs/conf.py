"""Sphinx configuration of the sompca documentation site (make docs; built from a copy in build/docs/src)."""

import os
import pathlib

import sompca

# make docs copies docs/ to build/docs/src and generates the Go and C pages' inputs beside it.
ROOT = pathlib.Path(os.environ.get("SOMPCA_ROOT", pathlib.Path(__file__).resolve().parents[1]))

project = "sompca"
author = "The sompca developers"
copyright = "2026, the sompca developers (BSD 3-Clause)"
version = release = sompca.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

exclude_patterns = ["examples", "_generated", "DESIGN.md"]  # the gallery's sources; literal includes
templates_path = ["_templates"]
html_theme = "alabaster"
html_theme_options = {"description": "Semi-Orthogonal Multilinear PCA with Relaxed Start", "fixed_sidebar": True}
html_static_path: list = []

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": True}  # fit, transform, ... of TensorProjection
numpydoc_show_class_members = False  # autosummary lists them
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set = set()

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # every example runs in the build
    "abort_on_example_error": True,
    "download_all_examples": False,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
    "remove_config_comments": True,
}


def skip_foreign_members(app, what, name, obj, skip, options):
    """scikit-learn's own methods (get_params, set_output, ...) are documented by scikit-learn."""
    if (getattr(obj, "__module__", None) or "").startswith("sklearn."):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", skip_foreign_members)
