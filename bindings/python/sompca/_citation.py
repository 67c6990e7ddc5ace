"""BibTeX for citing sompca: the software and the paper that defines SO-MPCA-RS (CITATION.cff says the same)."""

from ._version import __version__

__citation__ = f"""@software{{sompca,
  author       = {{{{The sompca developers}}}},
  title        = {{sompca: Semi-Orthogonal Multilinear {{PCA}} with Relaxed Start}},
  version      = {{{__version__}}},
  year         = {{2026}},
  license      = {{BSD-3-Clause}},
  url          = {{https://github.com/sompca/sompca}}
}}

@inproceedings{{shi2015sompca,
  author       = {{Shi, Qiquan and Lu, Haiping}},
  title        = {{Semi-Orthogonal Multilinear {{PCA}} with Relaxed Start}},
  booktitle    = {{Proceedings of the 24th International Joint Conference on Artificial Intelligence ({{IJCAI}} 2015)}},
  year         = {{2015}}
}}
"""
