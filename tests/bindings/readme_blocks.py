"""Writes README.md's fenced code blocks of one language to files, one a block, for the suite that runs them.

    readme_blocks.py matlab DIR    DIR/readme_LINE.m, run by make test-octave
    readme_blocks.py r DIR         DIR/readme_LINE.R, run by make test-r

(bindings/python/tests/test_readme.py runs the Python, C and Go blocks and accepts these two languages.)
"""

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
SUFFIX = {"matlab": ".m", "r": ".R"}


def main(language, out):
    text = README.read_text()
    blocks = [(text[: m.start()].count("\n") + 1, m.group(1))
              for m in re.finditer(r"^```" + language + r"\n(.*?)^```", text, re.S | re.M)]
    if not blocks:
        sys.exit(f"readme_blocks.py: README.md has no {language} block")
    out.mkdir(parents=True, exist_ok=True)
    for line, code in blocks:
        (out / f"readme_{line}{SUFFIX[language]}").write_text(code)
    print(f"readme_blocks.py: {len(blocks)} {language} block(s) of README.md in {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in SUFFIX:
        sys.exit(__doc__)
    main(sys.argv[1], Path(sys.argv[2]))
