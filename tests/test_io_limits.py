"""Limits on input: every loader and folder walk bounds what it reads.

A gzip bomb, a file larger than ``_config.MAX_INPUT_BYTES``, a 256 MiB benchmark name, a
FIFO or a link to ``/dev/zero`` in a results folder each raise :class:`InputLimitError`
naming the limit and how to raise it, before anything large is read, decompressed or
allocated; the command line exits 2 with that message instead of hanging.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pilotstats import _config
from pilotstats.exceptions import FormatError, InputLimitError
from pilotstats.io import Measurements, load_hyperfine
from pilotstats.io._result_history import result_history

ROOT = Path(__file__).resolve().parents[1]
HYPERFINE = {"results": [{"command": "job", "times": [0.1, 0.11, 0.1, 0.12]}]}


@pytest.fixture(autouse=True)
def _restore_config() -> Iterator[None]:
    yield
    _config.reset()


def test_file_above_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(HYPERFINE) + " " * 5000)
    _config.MAX_INPUT_BYTES = 4096
    with pytest.raises(InputLimitError) as info:
        load_hyperfine(path)
    assert info.value.limit == "MAX_INPUT_BYTES" and info.value.size == path.stat().st_size
    assert "pilotstats._config.MAX_INPUT_BYTES" in str(info.value) and str(path) in str(info.value)
    _config.MAX_INPUT_BYTES = 10_000  # raised: the same file loads
    assert load_hyperfine(path).n_samples == 4


def test_in_memory_text_bytes_and_open_files_are_bounded_too(tmp_path: Path) -> None:
    text = json.dumps(HYPERFINE)
    _config.MAX_INPUT_BYTES = len(text) - 1
    for source in (text, text.encode(), io.BytesIO(text.encode()), io.StringIO(text)):
        with pytest.raises(InputLimitError):
            load_hyperfine(source)
    _config.MAX_INPUT_BYTES = len(text)
    assert load_hyperfine(io.BytesIO(text.encode())).n_samples == 4


def test_a_gzip_bomb_is_stopped_at_the_decompressed_limit(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b"[" + b" " * (64 * 2**20) + b"]", compresslevel=9))
    assert bomb.stat().st_size < 2**20  # 64 MiB of JSON in well under 1 MiB
    _config.MAX_DECOMPRESSED_BYTES = 2**20
    with pytest.raises(InputLimitError) as info:
        load_hyperfine(bomb)
    assert info.value.limit == "MAX_DECOMPRESSED_BYTES"
    assert "decompressed" in str(info.value)
    small = tmp_path / "ok.json.gz"
    small.write_bytes(gzip.compress(json.dumps(HYPERFINE).encode()))
    assert load_hyperfine(small).n_samples == 4


def test_a_huge_benchmark_name_is_refused_before_the_per_sample_copy() -> None:
    name = "x" * (256 * 2**20)  # unbounded: a 60 GiB allocation for 60 samples
    with pytest.raises(InputLimitError) as info:
        Measurements(np.ones(60), benchmark=name)
    assert info.value.limit == "MAX_NAME_LENGTH" and info.value.size == len(name)
    long_names = ["a", "b" * (_config.MAX_NAME_LENGTH + 1)]
    with pytest.raises(InputLimitError):
        Measurements(np.ones(2), benchmark=long_names)
    with pytest.raises(InputLimitError):
        Measurements(np.ones(2), benchmark=np.array(long_names))
    _config.MAX_NAME_LENGTH = 10**6
    assert Measurements(np.ones(2), benchmark=long_names).names[1] == long_names[1]


def test_a_long_name_in_a_result_file_is_refused() -> None:
    document = {"results": [{"command": "c" * 10_000, "times": [0.1, 0.2]}]}
    with pytest.raises(InputLimitError, match="MAX_NAME_LENGTH"):
        load_hyperfine(document)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    with pytest.raises(InputLimitError) as info:
        load_hyperfine(fifo)  # opening a FIFO for reading would block without O_NONBLOCK
    assert info.value.limit == "regular file" and "FIFO" in str(info.value)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_link_to_dev_zero_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputLimitError, match="character device"):
        load_hyperfine(link)


def _asv_result(folder: Path, commit: str, date: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{commit}-py.json").write_text(json.dumps(
        {"version": 2, "commit_hash": commit, "env_name": "py", "date": date,
         "result_columns": ["result", "params"], "results": {"b.time_x": [[1.0], []]}}))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_folder_walks_refuse_fifos_and_devices(tmp_path: Path) -> None:
    from pilotstats.io import load_asv_history

    machine = tmp_path / "results" / "box"
    _asv_result(machine, "aaaa1111", 1000)
    assert [e.label for e in result_history(tmp_path / "results")] == ["aaaa1111"]
    os.mkfifo(machine / "bbbb2222-py.json")
    with pytest.raises(InputLimitError, match="FIFO"):
        result_history(tmp_path / "results")
    with pytest.raises(InputLimitError, match="FIFO"):
        load_asv_history(tmp_path / "results")
    (machine / "bbbb2222-py.json").unlink()
    (machine / "cccc3333-py.json").symlink_to("/dev/zero")
    with pytest.raises(InputLimitError, match="character device"):
        result_history(tmp_path / "results")


def test_folder_walks_bound_the_number_of_files(tmp_path: Path) -> None:
    for i in range(4):
        _asv_result(tmp_path / "box", f"{i:08d}", i)
    _config.MAX_FOLDER_FILES = 3
    with pytest.raises(InputLimitError, match="MAX_FOLDER_FILES"):
        result_history(tmp_path)
    _config.MAX_FOLDER_FILES = 4
    assert len(result_history(tmp_path)) == 4


def test_an_input_limit_error_is_a_format_error() -> None:
    assert issubclass(InputLimitError, FormatError)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_cli_trend_on_a_folder_with_a_fifo_exits_2_without_hanging(tmp_path: Path) -> None:
    machine = tmp_path / "results" / "box"
    _asv_result(machine, "aaaa1111", 1000)
    _asv_result(machine, "bbbb2222", 2000)
    os.mkfifo(machine / "cccc3333-py.json")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.run([sys.executable, "-m", "pilotstats", "trend",
                              str(tmp_path / "results")],
                             capture_output=True, text=True, env=env, timeout=120)
    assert process.returncode == 2, process.stderr
    assert "FIFO" in process.stderr and "Traceback" not in process.stderr


def test_cli_reports_the_limit_and_how_to_raise_it(tmp_path: Path) -> None:
    from pilotstats.cli import main

    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b" " * (2 * 2**20)))
    _config.MAX_DECOMPRESSED_BYTES = 2**20
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["analyze", str(bomb)])
    assert code == 2 and "MAX_DECOMPRESSED_BYTES" in err.getvalue()


def test_batch_tables_from_files_are_bounded(tmp_path: Path) -> None:
    from pilotstats.analysis import trend_many

    table = tmp_path / "fleet.csv.gz"
    table.write_bytes(gzip.compress(b"k,o,v\n" + b"a,1,1.0\n" * 200_000))
    _config.MAX_DECOMPRESSED_BYTES = 2**20
    with pytest.raises(InputLimitError, match="MAX_DECOMPRESSED_BYTES"):
        trend_many(table, by="k", order="o", value="v")
    _config.reset()
    assert trend_many(table, by="k", order="o", value="v").loc[0, "n"] == 200_000
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.csv"
        os.mkfifo(fifo)
        with pytest.raises(InputLimitError, match="FIFO"):
            trend_many(fifo, by="k", order="o", value="v")


def test_tokio_summaries_are_bounded(tmp_path: Path) -> None:
    from pilotstats.datasets import read_tokio_summaries, tokio_sample

    sample = tmp_path / "sample_summary.csv.gz"
    sample.write_bytes(gzip.compress(tokio_sample().to_csv(index=False).encode()))
    assert len(read_tokio_summaries([sample])) == 162
    _config.MAX_DECOMPRESSED_BYTES = 1000
    with pytest.raises(InputLimitError, match="MAX_DECOMPRESSED_BYTES"):
        read_tokio_summaries([sample])
