"""Recompute the R-compatible EDM reference values with the PyPI port (breakout-detection).

Run: ``python tests/reference/edm/port_recipe.py`` (needs ``pip install breakout-detection``).
Only the public API of the port is used; its locations equal R's BreakoutDetection 1.0.1.
"""

from __future__ import annotations

import re
from pathlib import Path

from breakout import breakout

HERE = Path(__file__).resolve().parent
CV1 = [3, 1, 2, 3, 2, 1, 1, 2, 2, 3, 6, 4, 4, 5, 6, 4, 4, 4, 6, 5, 9, 8, 7, 9, 8, 9, 9, 9, 7, 9]
SCRIBE = [float(v) for v in re.split(r"[,\s]+", (HERE / "scribe.txt").read_text()) if v]

if __name__ == "__main__":
    print("CV-1 multi beta 0.008:", breakout(CV1, min_size=5, method="multi", beta=0.008))
    print("CV-1 percent 0.5:", breakout(CV1, min_size=5, method="multi", percent=0.5))
    print("CV-1 EDM-X:", breakout(CV1, min_size=5, method="amoc"))
    print("CV-1 EDM-tail:", breakout(CV1, min_size=5, method="amoc", exact=False))
    step = [0.0] * 10 + [1.0] * 10
    print("CV-2 multi d5:", breakout(step, min_size=5), "d11:", breakout(step, min_size=11))
    print("CV-2 EDM-X d5:", breakout(step, min_size=5, method="amoc"))
    print("CV-3 constant:", breakout([1.0] * 100), breakout([1.0] * 100, method="amoc"))
    print("CV-5 multi beta 0.001:", breakout(SCRIBE, min_size=24, beta=0.001))
    print("CV-5 multi default:", breakout(SCRIBE, min_size=24))
    print("CV-5 EDM-X:", breakout(SCRIBE, min_size=24, method="amoc"))
    print("CV-5 EDM-tail:", breakout(SCRIBE, min_size=24, method="amoc", exact=False))
