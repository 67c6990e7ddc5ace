"""The documentation runs: every code block of README.md and bindings/python/README.md, and the figures they quote.

- Python blocks are executed in a temporary folder holding the files they name (written here: data.h5,
  faces.h5, DATA.h5, gait.h5 and faces.mat as MATLAB -v7.3 writes it), with X_train, X_test and rows defined.
- C blocks (one function each) are compiled with -std=c99 -Wall -Wextra -Werror against the built library
  and run on images made here.
- Go blocks (one function `func NAME(data []float64, M int) error` each) are compiled in the module and run.
- The command lines of the indented blocks (``sompca ...``) are run in order, as a reader would; every
  ``make TARGET`` the docs name is a target of the Makefile (checked with ``make -n``, which runs nothing).
- Quoted figures: the demo table is table.md's, the fixture tolerance is the one fixture_test.go asserts, the
  grain and block sizes are the engine's, the Go version is go.mod's.

A block fenced without a language, or as ``text``, is not code.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest
from helpers import make_samples

ROOT = pathlib.Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
DOCS = [README, ROOT / "bindings" / "python" / "README.md"]


def fenced(path, language):
    """The fenced code blocks of a Markdown file in a language, as (line number, code)."""
    text = path.read_text()
    return [(text[: m.start()].count("\n") + 1, m.group(1))
            for m in re.finditer(r"^```" + language + r"\n(.*?)^```", text, re.S | re.M)]


def command_lines(path):
    """The ``sompca ...`` lines of the Markdown file's indented blocks, comments cut."""
    return [line.strip().split("  #")[0].strip() for line in path.read_text().splitlines()
            if line.startswith("    sompca ")]


def test_every_fenced_block_is_checked():
    # A block in a language nothing runs would go unchecked: only these, or plain/text blocks. README.md's
    # matlab and r blocks are run by make test-octave and make test-r (tests/bindings/readme_blocks.py).
    for doc in DOCS:
        languages = set(re.findall(r"^```(\w*)$", doc.read_text(), re.M))
        checked = {"", "python", "c", "go", "text"} | ({"matlab", "r"} if doc == README else set())
        assert languages <= checked, f"{doc.name}: fenced blocks in {languages}"
    assert fenced(README, "python") and fenced(README, "c") and fenced(README, "go")


@pytest.fixture()
def workdir(tmp_path, monkeypatch):
    """A folder with the files the docs' examples name."""
    monkeypatch.chdir(tmp_path)
    X = make_samples((60, 28, 28), seed=5)
    with h5py.File("data.h5", "w") as f:
        f["train/X"] = X
    with h5py.File("faces.h5", "w") as f:
        f["train/X"] = X[:40]
        f["test/X"] = X[40:]
    with h5py.File("DATA.h5", "w") as f:  # I_nu = 52 >= the 50 features of the command-line example
        f["X"] = make_samples((60, 52, 6), seed=6)
    with h5py.File("gait.h5", "w") as f:  # the Dask example's gait-size samples
        f["X"] = make_samples((40, 32, 22, 10), seed=8).astype(np.float32)
    with h5py.File("faces.mat", "w", userblock_size=512) as f:  # MATLAB -v7.3: 28 x 28 x 60, column-major
        f.create_dataset("X", data=np.ascontiguousarray(np.moveaxis(X, 0, -1).T)).attrs["MATLAB_class"] = \
            np.bytes_("double")
    return tmp_path


PYTHON = [(doc, n, code) for doc in DOCS for n, code in fenced(doc, "python")]


@pytest.mark.parametrize("doc, line, code", PYTHON, ids=[f"{d.parent.name}/{d.name}:{n}" for d, n, _ in PYTHON])
def test_python_blocks(workdir, monkeypatch, doc, line, code):
    X = make_samples((60, 28, 28), seed=5)
    names = {"X_train": X[:40], "X_test": X[40:], "rows": X[:40].reshape(40, 784)}
    if "dask.distributed" in code:
        # The Dask example names a scheduler; an in-process cluster stands in for it.
        import dask.distributed as distributed  # make test installs dask
        real = distributed.Client
        monkeypatch.setattr(distributed, "Client", lambda *a, **k: real(processes=False, n_workers=1,
                                                                        threads_per_worker=2, dashboard_address=":0"))
    try:
        exec(compile(code, f"{doc}:{line}", "exec"), names)
    finally:
        if "client" in names:
            names["client"].close()


C_MAIN = """
int main(void)
{
	enum { M = 30 };
	static uint8_t images[M * 8 * 6];
	for (size_t i = 0; i < sizeof images; i++)
		images[i] = (uint8_t)((i * 7919) % 251);
	const size_t shape[2] = {8, 6};
	return fit_images(images, M, shape);
}
"""

C_BLOCKS = fenced(README, "c")


@pytest.mark.parametrize("line, code", C_BLOCKS, ids=[f"line{n}" for n, _ in C_BLOCKS])
def test_c_blocks(tmp_path, line, code):
    cc = shutil.which(os.environ.get("CC", "cc"))
    assert cc is not None, "no C compiler: make test needs cc"
    assert re.search(r"^int fit_images\(", code, re.M), "a C block of README.md defines fit_images"
    source, program = tmp_path / "block.c", tmp_path / "block"
    source.write_text(code + C_MAIN)
    build = ROOT / "build"
    subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", ROOT / "include", source, "-o", program,
                    "-L", build, "-lsompca", f"-Wl,-rpath,{build}"], check=True)
    result = subprocess.run([program], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


GO_MAIN = """
func main() {
	const M = 30
	data := make([]float64, M*28*28)
	for i := range data {
		data[i] = float64((i*7919)%%251) / 10
	}
	if err := %s(data, M); err != nil {
		log.Fatal(err)
	}
}
"""

GO_BLOCKS = fenced(README, "go")


@pytest.mark.parametrize("line, code", GO_BLOCKS, ids=[f"line{n}" for n, _ in GO_BLOCKS])
def test_go_blocks(workdir, line, code):
    go = shutil.which(os.environ.get("GO", "go"))
    assert go is not None, "no Go toolchain: make test needs go"
    name = re.search(r"^func (\w+)\(data \[\]float64, M int\) error", code, re.M)
    assert name, "a Go block of README.md is one function func NAME(data []float64, M int) error"
    imports = ("log", "github.com/sompca/sompca/hdf5io", "github.com/sompca/sompca/solver")
    folder = ROOT / "build" / "readme-go" / f"line{line}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.go").write_text("package main\n\nimport (\n" + "".join(f'\t"{i}"\n' for i in imports) + ")\n\n"
                                    + code + GO_MAIN % name.group(1))
    program = workdir / "quickstart"
    built = subprocess.run([go, "build", "-o", program, f"./build/readme-go/line{line}"], cwd=ROOT,
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    result = subprocess.run([program], capture_output=True, text=True)  # in workdir, beside faces.h5
    assert result.returncode == 0, result.stderr
    with h5py.File("features.h5", "r") as f:
        d = f["/test/features"]
        assert d.shape == (20, 20)  # faces.h5's 20 test samples, the block's 20 components
        assert d.attrs["model_file"] == str(workdir / "model.h5") and d.attrs["layout"] == "samples-first"


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: f"{d.parent.name}/{d.name}")
def test_command_lines(workdir, doc):
    commands = command_lines(doc)
    assert len(commands) >= 3
    for command in commands:  # in order: fit, then transform and info of what it wrote
        args = command.split()[1:]
        result = subprocess.run([sys.executable, "-m", "sompca", *args], capture_output=True, text=True)
        assert result.returncode == 0, f"{doc.name}: {command}: {result.stderr}"


def test_make_targets_exist():
    named = {t for doc in DOCS for t in re.findall(r"\bmake ([a-z][a-z0-9-]*)", doc.read_text())}
    assert {"test", "demo", "lint", "lib"} <= named
    make = shutil.which("make")
    assert make is not None
    for target in sorted(named):
        # -n prints the recipe without running it; an unknown target fails.
        result = subprocess.run([make, "-n", "-C", ROOT, target], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, f"make {target}: {result.stderr}"


def test_quoted_demo_table():
    """README's P = 10 table is the demo's table.md at P = 10 (bold marks included)."""
    table = (ROOT / "examples/python/demo_results/table.md").read_text().splitlines()
    methods = [c.strip() for c in table[0].strip("|").split("|")][2:]
    full = {}
    for row in table[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if cells[1] == "10":
            full[cells[0]] = [c.split(" ±")[0] for c in cells[2:]]
    text = README.read_text()
    head = "| L | " + " | ".join(methods) + " |"
    assert head in text, f"README's demo table does not have table.md's columns {methods}"
    rows = text[text.index(head):].splitlines()[2:2 + len(full)]
    assert len(rows) == len(full)
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1:] == full[cells[0]], f"README's row L = {cells[0]} is not table.md's"


def test_quoted_tolerances():
    """The agreement README and solver/doc.go quote is the tolerance solver/fixture_test.go asserts."""
    test = (ROOT / "solver/fixture_test.go").read_text()
    tol = re.search(r"fixtureTol\s*=\s*([0-9.e-]+)", test).group(1)
    text = README.read_text()
    assert f"agreement to {tol} (fixtureTol)" in text and f"independent one to {tol}" in text
    assert f"agreement {tol} or" in (ROOT / "solver/doc.go").read_text()
    for doc in ["README.md", "solver/doc.go", "solver/fixture_test.go"]:
        assert "shared/fixtures" not in (ROOT / doc).read_text(), f"{doc} cites shared/fixtures"
    assert (ROOT / "solver/testdata/fixtures.json").is_file()


def test_quoted_engine_sizes():
    """The leaf README's Speed section quotes is solver's grain (the samples a worker takes at a time);
    the Dask section's block advice is a multiple of the block multiple sompca.h gives, its limit of the rows
    mode updates sompca.h's; the Go version is go.mod's."""
    text = README.read_text()
    tree = (ROOT / "solver/internal/par/tree.go").read_text()
    leaf = re.search(r"^const Grain = (\d+)", tree, re.M).group(1)
    assert f"leaves of {leaf} samples" in text
    multiple = int(re.search(r"#define SOMPCA_BLOCK_MULTIPLE (\d+)", (ROOT / "include/sompca.h").read_text()).group(1))
    for quoted in re.findall(r"multiples of (\d+) samples", text):
        assert int(quoted) % multiple == 0, f"README advises blocks of multiples of {quoted}, not of {multiple}"
    # The mode updates' rule: README's limit is sompca.h's (and solver's, which capi checks at compile time).
    limit = int(re.search(r"#define SOMPCA_MODE_UPDATES_ROWS_LIMIT (\d+)", (ROOT / "include/sompca.h").read_text())
                .group(1))
    for quoted in re.findall(r"M x max_n I_n <= 2\^(\d+)", text):
        assert 2 ** int(quoted) == limit, f"README quotes 2^{quoted} as auto's rows limit, sompca.h {limit}"
    assert re.search(r"M x max_n I_n <= 2\^(\d+)", text)
    go = re.search(r"^go (\d+\.\d+)", (ROOT / "go.mod").read_text(), re.M).group(1)
    assert f"Go ({go} or newer)" in text
