"""Sphinx configuration of the sompca documentation site (make docs; built from a copy in build/docs/src)."""

import pathlib
import re

from sphinx.util import logging

import sompca

logger = logging.getLogger(__name__)

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


def check_api_page(app):
    """Every public name of the package (sompca.__all__) has its entry on the API page: warn (an error under -W)."""
    text = (pathlib.Path(app.srcdir) / "api.rst").read_text()
    listed = set(re.findall(r"^   (\w+)$", text, re.M)) | set(re.findall(r"^\.\. py:data:: (\w+)$", text, re.M))
    for name in sorted(set(sompca.__all__) - listed):
        logger.warning(f"api.rst does not list sompca.{name}: add it to an autosummary there")


def setup(app):
    app.connect("autodoc-skip-member", skip_foreign_members)
    app.connect("builder-inited", check_api_page)
