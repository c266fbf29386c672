"""The README's WPS example runs, and ``demo_wps`` returns a sensible report."""

from __future__ import annotations

import re
from pathlib import Path

from pilotstats.demo._regression import demo_wps

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_wps_example_estimates_throughput() -> None:
    blocks = [
        block
        for block in re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
        if "from pilotstats.regression import wps" in block and "result = wps(" in block
    ]
    assert blocks, "README lost its WPS example"
    namespace: dict[str, object] = {}
    exec(blocks[0], namespace)
    result = namespace["result"]
    assert abs(result.throughput / 2.5e8 - 1) < 0.05  # type: ignore[attr-defined]
    assert result.naive_throughput < 0.1 * result.throughput  # type: ignore[attr-defined]


def test_demo_wps_report() -> None:
    text = demo_wps()
    lines = text.splitlines()
    assert lines[0].startswith("WPS demo: simulated workload")
    assert "stop reason targets_met" in lines[1]
    assert lines[2].startswith("fit: v = ")
    assert "naive" in lines[3]
    assert demo_wps() == text  # deterministic
