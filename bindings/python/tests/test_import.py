"""`import sompca` stays light (issue 35, item 7): optional packages are imported when first needed."""

import subprocess
import sys

import pytest

from helpers import run_child

OPTIONAL = ("sklearn", "scipy", "dask", "h5py", "matplotlib", "pandas", "xarray", "zarr")


def test_import_sompca_imports_no_optional_package():
    result = run_child(f"""
        import sys
        import sompca
        print(sorted(name for name in {OPTIONAL!r} if name in sys.modules))
        sompca.SOMPCA  # the estimators: imported on first use
        print("sompca._estimators" in sys.modules, sompca.SOMPCA.__module__)
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]", "True sompca._estimators"]


def test_cli_version_and_help_import_no_optional_package():
    result = run_child(f"""
        import sys
        from sompca._cli import main
        for args in (["--version"], ["fit", "--help"]):
            try:
                main(args)
            except SystemExit:
                pass
        print(sorted(name for name in {OPTIONAL!r} if name in sys.modules))
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"


INTERRUPTED_IMPORT = """
import os, signal, sys, time

TARGET = sys.argv[1]


class Interrupting:
    # Ctrl-C while the command imports the module named in argv[1]: a meta path finder sends SIGINT
    # and lingers, so the interrupt lands inside that import.
    def find_spec(self, name, path, target=None):
        if name == TARGET:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)
        return None

sys.meta_path.insert(0, Interrupting())
sys.argv = ["sompca"] + sys.argv[2:]
"""


@pytest.mark.parametrize("entry, module, args", [
    ("import _sompca_cli; sys.exit(_sompca_cli.main())", "sompca", ["--version"]),  # the installed command
    ("import _sompca_cli; sys.exit(_sompca_cli.main())", "sompca._cli", ["--version"]),
    ("import _sompca_cli; sys.exit(_sompca_cli.main())", "sompca._estimators", ["info", "x.h5"]),  # while parsing
    ("import runpy; runpy.run_module('sompca', run_name='__main__')", "sompca._cli", ["--version"]),  # python -m
])
def test_ctrl_c_from_the_first_instruction_is_one_line_and_130(tmp_path, entry, module, args):
    script = tmp_path / "child.py"
    script.write_text(INTERRUPTED_IMPORT + entry + "\n")
    result = subprocess.run([sys.executable, str(script), module, *args], capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    # Without the handler: a KeyboardInterrupt traceback from inside the import, status 1.
    assert (result.returncode, result.stderr) == (130, "sompca: interrupted\n"), result.stderr
