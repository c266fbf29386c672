"""The built wheel, installed in a clean virtual environment, runs the demo and a notebook.

The wheel is built with ``python -m build`` from a copy of the tracked files (as a fresh
clone has them) and installed with ``--no-deps`` into a new venv that sees the packages of
the environment running the tests (numpy, scipy, nbclient, ...) through a ``.pth`` file
naming that environment's site-packages. Not ``--system-site-packages``: when the tests
themselves run in a venv (as the README's commands do), that flag gives the *base*
interpreter's packages, not the venv's, and the demo died with ``ModuleNotFoundError:
pandas``. The ``.pth`` file adds the folders only (their own ``.pth`` files, such
as an editable install of pilotstats, are not processed), so the package under test is the
wheel's: every command runs outside the source tree, without ``PYTHONPATH``, and checks where
pilotstats was imported from.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

RUN_NOTEBOOK = """
import sys
import nbformat, nbclient
from nbformat.v4 import new_code_cell
notebook = nbformat.read(sys.argv[1], as_version=4)
notebook.cells.insert(0, new_code_cell(
    "import pilotstats, pilotstats.datasets as d\\n"
    "print('FROM', pilotstats.__file__)\\n"
    "print('TOKIO', len(d.tokio_sample()), 'TCPD', d.tcpd_series('gdp_japan').values.size)"))
nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3").execute()
print("".join(output.get("text", "") for output in notebook.cells[0].outputs))
"""


def _tracked_copy(target: Path) -> Path:
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                            check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: cannot tell the tracked files")
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return {**env, "MPLBACKEND": "Agg", **extra}


def _outer_site_packages() -> list[str]:
    """The site-packages folders of the interpreter running the tests (a venv's own, then
    any it inherits), in import order."""
    folders = [sysconfig.get_path("purelib"), sysconfig.get_path("platlib"),
               *site.getsitepackages()]
    return [f for f in dict.fromkeys(folders) if f and Path(f).is_dir()]


def _see_this_environment(python: Path) -> None:
    """Let the venv of ``python`` import this environment's packages, after its own."""
    own = subprocess.run([str(python), "-c", "import sysconfig; "
                          "print(sysconfig.get_path('purelib'))"], capture_output=True,
                         text=True, check=True, env=_clean_env()).stdout.strip()
    Path(own, "_tests_outer_environment.pth").write_text(
        "\n".join(_outer_site_packages()) + "\n")


def test_the_new_venv_sees_this_environment_but_not_its_pilotstats(tmp_path: Path) -> None:
    """The set-up of the wheel test, quickly: from inside a venv too, the new
    venv imports this environment's pandas, and no pilotstats (not installed there yet)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    _see_this_environment(python)
    probe = subprocess.run(
        [str(python), "-c", "import pandas, importlib.util as u; "
         "print(pandas.__version__, u.find_spec('pilotstats') is None)"],
        cwd=tmp_path, env=_clean_env(), capture_output=True, text=True, check=False)
    assert probe.returncode == 0, probe.stderr[-2000:]
    import pandas

    assert probe.stdout.split() == [pandas.__version__, "True"]


@pytest.mark.slow
def test_wheel_runs_demo_and_a_notebook(tmp_path: Path) -> None:
    pytest.importorskip("build")
    pytest.importorskip("nbclient")
    source = _tracked_copy(tmp_path / "src")
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist),
                            str(source)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = dist.glob("pilotstats-*.whl")

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    _see_this_environment(python)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    str(wheel)], check=True, env=_clean_env(PIP_DISABLE_PIP_VERSION_CHECK="1"))

    work = tmp_path / "elsewhere"  # nothing beside it: no source tree, no shared data
    work.mkdir()
    where = subprocess.run([str(python), "-c", "import pilotstats; print(pilotstats.__file__)"],
                           cwd=work, env=_clean_env(), capture_output=True, text=True,
                           check=True)
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout

    demo = subprocess.run([str(python), "-m", "pilotstats", "demo"], cwd=work,
                          env=_clean_env(), capture_output=True, text=True, check=False)
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "pilotstats" in demo.stdout

    notebook = work / "autocorrelation.ipynb"
    shutil.copy(ROOT / "notebooks" / "autocorrelation.ipynb", notebook)
    ran = subprocess.run([str(python), "-c", RUN_NOTEBOOK, str(notebook)], cwd=work,
                         env=_clean_env(), capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr[-3000:]
    first = ran.stdout.split("FROM", 1)[1].split()[0]
    assert Path(first).is_relative_to(venv), ran.stdout
    assert "TOKIO 162 TCPD 58" in ran.stdout
