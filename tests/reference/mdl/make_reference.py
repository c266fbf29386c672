"""Regenerate ``jumpavg_reference.json`` with jumpavg 0.4.2 (the reference implementation).

Recipe (run once; CI only reads the JSON, it does not need jumpavg):

    pip install jumpavg==0.4.2
    python tests/reference/mdl/make_reference.py

Every case stores its input (``values``, ``unit``, ``sbps``) and what
``jumpavg.classify(values, unit=unit, sbps=sbps)`` returned: the unit and maximum of the
group list, every group's run range, sample count, ``stats.avg``, ``stats.stdev``, ``bits``
and ``comment`` (label), and the total ``bits``. Floats are written with ``repr`` precision
(JSON round-trips them exactly).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import jumpavg


def _cases() -> dict[str, dict]:
    step = [100.0, 101.0, 99.5, 100.5, 100.2, 99.8, 100.1, 100.4, 99.9, 100.3]
    step += [90.2, 89.9, 90.4, 90.1, 89.7, 90.0, 90.3, 89.8]
    latency = [1.02, 1.01, 1.03, 1.02, 1.00, 1.01, 5.0, 1.02, 1.01, 1.02, 1.03, 0.84, 0.85,
               0.83, 0.84, 0.86, 0.85, 0.84]
    trials = [[10.0, 10.2, 9.9], [10.1, 9.8], [10.0, 10.1, 10.0, 9.9], [12.1, 12.0, 12.2],
              [12.3, 11.9], [12.0, 12.1, 12.2], 12.05, [9.0, 9.1]]
    big = [1.0e7 + d for d in (0.01, 0.02, 0.0, 0.01, 0.03, 0.02, 0.01, 0.0, 0.02, 0.01)]
    big += [1.0e7 + 0.5 + d for d in (0.01, 0.0, 0.02, 0.01, 0.03, 0.01)]
    noisy = [round(50 + 3 * math.sin(1.7 * i) + (i % 7) * 0.4, 3) for i in range(40)]
    noisy += [round(56 + 3 * math.cos(1.3 * i) + (i % 5) * 0.5, 3) for i in range(30)]
    return {
        "readme_example": {"values": [2.1, 3.1, 3.2], "unit": 0.1, "sbps": None},
        "step_down_default_unit": {"values": step, "unit": None, "sbps": None},
        "latency_outlier_and_drop": {"values": latency, "unit": None, "sbps": None},
        "runs_of_trials": {"values": trials, "unit": None, "sbps": None},
        "large_values_tiny_spread": {"values": big, "unit": None, "sbps": None},
        "large_values_tiny_spread_unit": {"values": big, "unit": 0.01, "sbps": None},
        "deterministic_wave_sbps8": {"values": noisy, "unit": None, "sbps": 8.0},
        "deterministic_wave_unit": {"values": noisy, "unit": 0.05, "sbps": None},
        "constant": {"values": [3.0] * 12, "unit": None, "sbps": None},
        "single_value": {"values": [7.5], "unit": None, "sbps": None},
    }


def main() -> None:
    out = {"generator": f"jumpavg {getattr(jumpavg, '__version__', '0.4.2')}", "cases": {}}
    for name, case in _cases().items():
        glist = jumpavg.classify(case["values"], unit=case["unit"], sbps=case["sbps"])
        groups = []
        start = 0
        for group in glist:
            groups.append(
                {
                    "start": start,
                    "end": start + len(group),
                    "size": group.stats.size,
                    "avg": group.stats.avg,
                    "stdev": group.stats.stdev,
                    "bits": group.bits,
                    "classification": group.comment,
                }
            )
            start += len(group)
        out["cases"][name] = {
            **case,
            "expected": {
                "unit": glist.unit,
                "max_value": glist.max_value,
                "total_bits": glist.bits,
                "groups": groups,
            },
        }
    path = Path(__file__).with_name("jumpavg_reference.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
