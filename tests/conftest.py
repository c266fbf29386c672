"""Shared pytest configuration: slow-test selection and common fixtures."""

from __future__ import annotations

import functools
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

# The suite compares compiled kernels with their twins and times nothing: every kernel
# compiles on its first call here. tests/test_jit_interpreted.py turns the interpreted
# first calls on where it tests them.
os.environ.setdefault("PILOTSTATS_INTERPRETED_TIER", "0")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATASETS = SHARED / "datasets"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--skip-slow", action="store_true", help="skip tests marked slow")
    parser.addoption("--only-slow", action="store_true", help="run only tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_slow = config.getoption("--skip-slow")
    only_slow = config.getoption("--only-slow")
    if skip_slow and only_slow:
        raise pytest.UsageError("--skip-slow and --only-slow exclude each other")
    for item in items:
        slow = "slow" in item.keywords
        if skip_slow and slow:
            item.add_marker(pytest.mark.skip(reason="slow test skipped by --skip-slow"))
        elif only_slow and not slow:
            item.add_marker(pytest.mark.skip(reason="fast test skipped by --only-slow"))


@pytest.fixture
def datasets_dir() -> Path:
    """The shared datasets folder; tests using it skip cleanly when it is absent."""
    if not DATASETS.is_dir():
        pytest.skip(f"shared datasets folder not found at {DATASETS}")
    return DATASETS


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def http_folder(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A folder served over HTTP on 127.0.0.1 (a stand-in for a data server) and its URL."""
    root = tmp_path / "served"
    root.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _shared_copies() -> dict[str, Path]:
    """The shared copies of the files ``pilotstats.datasets.fetch`` downloads."""
    found = {p.name: p for p in (DATASETS / "tokio").glob("*-summaries_*.csv.gz")}
    for name in ("nile.json", "seatbelts.json"):
        found[name] = DATASETS / "tcpd" / "datasets" / name
    return {name: path for name, path in found.items() if path.is_file()}


@pytest.fixture
def data_mirror(http_folder: tuple[Path, str], tmp_path: Path) -> dict[str, str]:
    """Environment for ``pilotstats.datasets`` downloads from a 127.0.0.1 mirror.

    The mirror serves the shared copies of the downloadable files (none when the shared
    folder is absent, so downloads then fail as offline); the cache is a fresh folder.
    """
    root, url = http_folder
    for name, path in _shared_copies().items():
        shutil.copy(path, root / name)
    return {"PILOTSTATS_DATA_URL": url, "PILOTSTATS_DATA_DIR": str(tmp_path / "data-cache")}


@pytest.fixture
def offline_data() -> dict[str, str]:
    """Environment in which every ``pilotstats.datasets`` download fails (nothing listens)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return {"PILOTSTATS_DATA_URL": f"http://127.0.0.1:{port}"}
