"""Sphinx configuration of the pilotstats documentation.

Build (warnings are errors)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The API pages are generated at build time from each public module's ``__all__``
(``docs/api/*.rst`` and ``docs/api/generated/``, both ignored by git), so renamed or
moved objects never leave stale stub files behind. The notebooks of ``notebooks/`` are
rendered from their stored outputs by myst-nb and never executed here.
"""

from __future__ import annotations

import importlib
import inspect
import os
import shutil
import sys
import types
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

import pilotstats  # noqa: E402

project = "pilotstats"
author = "pilotstats developers"
copyright = "pilotstats developers, Apache-2.0"
release = pilotstats.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "README.md"]
templates_path = ["_templates"]

html_theme = "furo"
html_title = f"pilotstats {release}"

# --- MyST / myst-nb -----------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
# The notebooks are stored without outputs; the build runs them so the examples show their
# results and figures. The TOKIO reproduction downloads its data (network), so it is shown
# as code only. A notebook that fails to run fails the build (warnings are errors).
nb_execution_mode = "force"
nb_execution_excludepatterns = ["**/tokio_sc18.ipynb"]
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_merge_streams = True

# --- autodoc / autosummary / numpydoc ------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_default_options = {"member-order": "bysource"}
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# --- API pages generated from __all__ --------------------------------------------------------
PUBLIC_MODULES = [
    "pilotstats",
    "pilotstats.changepoints",
    "pilotstats.regression",
    "pilotstats.autocorrelation",
    "pilotstats.smoothing",
    "pilotstats.analysis",
    "pilotstats.session",
    "pilotstats.io",
    "pilotstats.plotting",
    "pilotstats.datasets",
    "pilotstats.exceptions",
    "pilotstats.results",
    "pilotstats.demo",
]


def _canonical_module(listing: str, obj: object) -> str:
    """The public module an object is documented under: the longest public module name
    that prefixes the object's defining module, else the module whose ``__all__`` lists it."""
    defined = getattr(obj, "__module__", None)
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    best = None
    if isinstance(defined, str):
        for name in PUBLIC_MODULES:
            if (defined == name or defined.startswith(name + ".")) and (
                best is None or len(name) > len(best)
            ):
                best = name
    if best is None or best == "pilotstats":
        return listing
    return best


def _role(obj: object) -> str:
    if isinstance(obj, types.ModuleType):
        return "mod"
    if inspect.isclass(obj):
        return "exc" if issubclass(obj, BaseException) else "class"
    if callable(obj) and not isinstance(obj, type):
        return "func"
    return "data"


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate_api_pages() -> None:
    api = DOCS / "api"
    # Start from nothing: stubs of renamed or removed objects must not survive a rebuild.
    shutil.rmtree(api, ignore_errors=True)
    api.mkdir()
    index = [
        "API reference",
        "=============",
        "",
        "Generated from the docstrings. Each page lists its module's public names",
        "(``__all__``); an object re-exported by several modules is documented once, under",
        "the module that defines it, and linked from the others.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
    ]
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        names = list(getattr(module, "__all__", []))
        own: list[str] = []
        elsewhere: list[tuple[str, str, str]] = []
        for name in names:
            obj = getattr(module, name)
            if name.startswith("__"):
                continue
            home = _canonical_module(modname, obj)
            if isinstance(obj, types.ModuleType):
                elsewhere.append((name, "mod", obj.__name__))
            elif home == modname:
                own.append(name)
            else:
                elsewhere.append((name, _role(obj), f"{home}.{name}"))
        lines = [
            f"``{modname}``",
            "=" * (len(modname) + 4),
            "",
            f".. automodule:: {modname}",
            "   :no-members:",
            "",
            f".. currentmodule:: {modname}",
            "",
        ]
        classes = [n for n in own if inspect.isclass(getattr(module, n))]
        excs = [n for n in classes if issubclass(getattr(module, n), BaseException)]
        classes = [n for n in classes if n not in excs]
        funcs = [n for n in own if n not in classes and n not in excs
                 and callable(getattr(module, n)) and not inspect.isclass(getattr(module, n))]
        data = [n for n in own if n not in classes and n not in excs and n not in funcs]
        for title, group, template in (
            ("Functions", funcs, None),
            ("Classes", classes, "class.rst"),
            ("Exceptions and warnings", excs, "class.rst"),
        ):
            if not group:
                continue
            lines += [title, "-" * len(title), "", ".. autosummary::",
                      "   :toctree: generated", "   :nosignatures:"]
            if template:
                lines.append(f"   :template: {template}")
            lines.append("")
            lines += [f"   {n}" for n in group]
            lines.append("")
        if data:
            lines += ["Constants", "---------", ""]
            for n in data:
                lines += [f".. autodata:: {n}", "   :no-value:", ""]
        if elsewhere:
            lines += ["Re-exported names", "-----------------", "",
                      "Importable from this module, documented where they are defined:", ""]
            for name, role, target in elsewhere:
                lines.append(f"* ``{name}``: :{role}:`{target}`")
            lines.append("")
        _write_if_changed(api / f"{modname}.rst", "\n".join(lines))
        index.append(f"   {modname}")
    index.append("")
    _write_if_changed(api / "index.rst", "\n".join(index))


# --- notebooks: rendered in place through one directory symlink, never copied --------------
def link_notebooks() -> None:
    """``docs/examples/notebooks`` -> ``notebooks/``: one symlink to the folder, so a notebook
    run by the build has ``notebooks/`` as its working directory, as in the test suite."""
    link = DOCS / "examples" / "notebooks"
    if link.is_symlink() and link.resolve() == (ROOT / "notebooks").resolve():
        return
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.exists():
        shutil.rmtree(link)
    link.symlink_to(Path("..", "..", "notebooks"), target_is_directory=True)


generate_api_pages()
link_notebooks()


def _whole_literal_summary(extract):
    """Wrap autosummary's ``extract_summary``, which cuts the summary at the first ". "
    even inside an inline literal (``pyperf ... -o FILE``) because it checks the whole
    stanza instead of the candidate sentence; such a cut summary is replaced by the
    first stanza of the docstring, kept whole."""

    def extract_summary(doc, settings):
        summary = extract(doc, settings)
        if summary.count("``") % 2 == 0:
            return summary
        stanza: list[str] = []
        for line in doc:
            if line.strip():
                stanza.append(line.strip())
            elif stanza:
                break
        return " ".join(stanza)

    return extract_summary


def setup(app):
    import sphinx.ext.autosummary as autosummary

    autosummary.extract_summary = _whole_literal_summary(autosummary.extract_summary)
    return {"parallel_read_safe": True}
