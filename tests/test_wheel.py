"""The built wheel, installed in a clean virtual environment, runs the demo and a notebook.

The wheel is built with ``python -m build`` from a copy of the tracked files (as a fresh
clone has them) and installed with ``--no-deps`` into a venv that sees the system's
site-packages for numpy, scipy, nbclient, ... The package under test is the wheel's: every
command runs outside the source tree, without ``PYTHONPATH``, and checks where pilotstats was
imported from.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
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
